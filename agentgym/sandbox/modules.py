"""Family code that runs inside the sandbox, declared once and loaded the same way everywhere.

A family lists its sandbox-side files as `SandboxModule` objects on its env class
(``sandbox_modules``) and names any long-lived processes they start (``sandbox_services``);
`AgentEnv` loads the modules into the step server and starts the services once per sandbox.
Services survive ``reset()`` (the family's ``_setup_task`` restores their state) and die with
the sandbox. `load_on_host` runs the same files in this process under the same names, for
planning tasks and for tests, so host and sandbox never disagree about what the code does.

A module named by its real dotted name (``agentgym.answers``,
``agentgym.envs.tooluse.engine``) is the package's own file: in the sandbox the step server
makes its parent packages, so it imports its siblings as on the host (``from agentgym import
answers``), and on the host it is simply imported. Readers, type checkers and IDEs follow those
imports. A flat name (``example_ini``) is a file with no place in a package.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

__all__ = ["SandboxModule", "load_on_host"]


@dataclass(frozen=True)
class SandboxModule:
    """One stdlib-only source file and the name it is imported under inside the sandbox."""

    name: str
    path: Path
    source: str = field(repr=False, compare=False)

    @classmethod
    def from_file(cls, name: str, path: Path | str) -> SandboxModule:
        return cls(name, Path(path), Path(path).read_text())


_lock = threading.Lock()


def load_on_host(modules: Sequence[SandboxModule]) -> dict[str, ModuleType]:
    """The modules run in this process as the step server runs them (once each), keyed by name.

    Each is registered in ``sys.modules`` before it runs (dataclasses look their module up) and
    removed again if it fails, so a later call retries instead of finding half a module.
    """
    with _lock:
        for m in modules:
            if m.name in sys.modules:
                continue
            if "." in m.name:  # the package's own file, under its own name
                importlib.import_module(m.name)
                continue
            module = sys.modules[m.name] = ModuleType(m.name)
            module.__file__ = str(m.path)
            try:
                exec(compile(m.source, str(m.path), "exec"), module.__dict__)
            except BaseException:
                del sys.modules[m.name]
                raise
        return {m.name: sys.modules[m.name] for m in modules}
