"""The source corpus: hand-written modules, each with a test file whose ``VISIBLE`` names the visible tests.

Layout of a corpus folder: ``<name>.py`` and ``test_<name>.py``; the test file has a module-level
``VISIBLE = [...]``. Hidden tests are all tests in the file; the visible test file an agent sees is
the same file with the other tests (and the ``VISIBLE`` list) cut out, so line numbers in a
failure report point into code the agent can read.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from agentgym.errors import ConfigError

__all__ = ["SourceModule", "load_corpus", "CORPUS_DIR"]

CORPUS_DIR = Path(__file__).with_name("corpus")


@dataclass(frozen=True)
class SourceModule:
    """One correct module and its tests."""

    name: str
    source: str
    tests: str

    @property
    def file(self) -> str:
        return f"{self.name}.py"

    @property
    def test_file(self) -> str:
        return f"test_{self.name}.py"

    @cached_property
    def _test_tree(self) -> ast.Module:
        return ast.parse(self.tests)

    @cached_property
    def test_names(self) -> tuple[str, ...]:
        """Every top-level test function (the hidden suite), in file order."""
        return tuple(
            n.name
            for n in self._test_tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")
        )

    @cached_property
    def visible(self) -> tuple[str, ...]:
        for node in self._test_tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "VISIBLE" for t in node.targets
            ):
                names = tuple(ast.literal_eval(node.value))
                missing = [n for n in names if n not in self.test_names]
                if missing:
                    raise ConfigError(f"corpus module {self.name}: VISIBLE names unknown tests {missing}")
                return names
        raise ConfigError(f"corpus module {self.name}: {self.test_file} has no module-level VISIBLE list")

    @cached_property
    def visible_tests(self) -> str:
        """The test file with only the visible tests left (and no VISIBLE list)."""
        lines = self.tests.splitlines(keepends=True)
        drop: list[tuple[int, int]] = []
        for node in self._test_tree.body:
            hidden_test = (
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and node.name in self.test_names
                and node.name not in self.visible
            )
            visible_list = isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "VISIBLE" for t in node.targets
            )
            if hidden_test or visible_list:
                first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
                assert node.end_lineno is not None  # set on every parsed node
                drop.append((first, node.end_lineno))
        keep = [True] * len(lines)
        for first, last in drop:
            for i in range(first - 1, last):
                keep[i] = False
        out = "".join(line for line, k in zip(lines, keep) if k)
        while "\n\n\n\n" in out:  # the gaps the cut tests leave behind
            out = out.replace("\n\n\n\n", "\n\n\n")
        return out.rstrip("\n") + "\n"

    @cached_property
    def digest(self) -> str:
        """Changes when the module or its tests change: mutant caches keyed by it go stale."""
        return hashlib.sha256((self.source + "\0" + self.tests).encode()).hexdigest()[:16]


def load_corpus(directory: Path | str = CORPUS_DIR) -> dict[str, SourceModule]:
    """Every module in ``directory`` that has a test file, by name, sorted."""
    folder = Path(directory)
    if not folder.is_dir():
        raise ConfigError(f"coding corpus folder {folder} does not exist; reinstall agentgym (`pip install -e .`)")
    modules = {}
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("test_") or path.name.startswith("_"):
            continue
        test_path = path.with_name(f"test_{path.name}")
        if test_path.exists():
            modules[path.stem] = _interned(SourceModule(path.stem, path.read_text(), test_path.read_text()))
    return modules


_INTERNED: dict[SourceModule, SourceModule] = {}


def _interned(module: SourceModule) -> SourceModule:
    """One object per (name, source, tests) in a process, so the parsed test file and the cut
    visible tests (cached properties, ~6 ms each) are computed once, not once per env."""
    return _INTERNED.setdefault(module, module)
