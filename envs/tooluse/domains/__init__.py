"""The ToolUse domains: the registry, and each domain as the host sees it.

A domain is one stdlib-only module in this folder that runs both here and in the sandbox, on the
generic engine (`agentgym.envs.tooluse.engine`). It declares, by these names:

- ``NAME``, ``ROLE`` and ``POLICY`` (the written policy shown to the agent; its numbers are the
  module's constants, which the tools and solver use too);
- ``SCHEMA`` (SQLite tables; primary keys are read from it) and, optionally, ``RECORD_PARTS``
  (rows of other tables that belong to a record, such as an order's lines);
- ``TOOLS``: functions ``fn(ctx, arg: Arg(...), ...)`` declared with ``@tool(description)``; the
  signature is the spec, rendered here as `agentgym.actions.ToolSpec` (argument checks, ``help``,
  JSON schemas);
- ``solve(db, today, intent)``, the policy as a solver, and ``drifts(db, intents)``, what other
  actors may change;
- ``TEMPLATES`` (request templates building a seeded `Scenario`), ``menu(known, hints)`` (candidate
  calls for the numeric view), ``ENTITIES`` and ``REREAD`` (which result fields name entities, and
  how to read a record again).

Adding a domain: write ``domains/<name>.py`` and add its name to `NAMES`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from agentgym.actions import Param, ToolSpec, render_call

__all__ = ["NAMES", "DOMAINS", "Domain", "SOURCES", "ENGINE_MODULE", "engine", "Known", "Scenario", "Template"]

NAMES = ("retail", "travel")
"""The registered domains, in the order their templates are listed."""

_HERE = Path(__file__).resolve().parent
ENGINE_MODULE = "agentgym_tooluse_engine"
"""The in-sandbox name of the engine, whose functions (setup, call_tool, drift, oracle_view, verify) the env calls."""
_FILES = ((ENGINE_MODULE, _HERE.parent / "engine.py"),
          *((f"{ENGINE_MODULE.removesuffix('engine')}{name}", _HERE / f"{name}.py") for name in NAMES))
SOURCES: tuple[tuple[str, str], ...] = tuple((name, path.read_text()) for name, path in _FILES)
"""(module name, source) pairs, in the order the step server loads them: the engine, then each domain."""


def _load() -> dict[str, ModuleType]:
    """The engine and domain files run in this process as the step server runs them, under the same names (once)."""
    for name, source in SOURCES:
        if name not in sys.modules:
            module = sys.modules[name] = ModuleType(name)  # registered first: dataclasses look their module up
            module.__file__ = str(dict(_FILES)[name])
            exec(compile(source, module.__file__, "exec"), module.__dict__)
    return {name: sys.modules[name] for name, _ in SOURCES}


_MODULES = _load()
engine: ModuleType = _MODULES[ENGINE_MODULE]
"""The engine, loaded here: tasks plan their reference solutions with its `Session`."""
Known = engine.Known
Scenario = engine.Scenario
Template = engine.Template


def _spec(t: Any) -> ToolSpec:
    params = tuple(Param(name, arg.type, arg.description, required=required, enum=arg.enum)
                   for name, arg, required in t.params)
    return ToolSpec(t.name, t.description, params, writes=t.writes)


@dataclass(frozen=True)
class Domain:
    """One domain as the host uses it: its texts, tool specs, templates and menu."""

    name: str
    role: str
    policy: str
    tools: tuple[ToolSpec, ...]
    templates: tuple[Any, ...]
    entities: tuple[tuple[str, str], ...]
    reread: Mapping[str, tuple[str, str]]
    module: ModuleType

    def menu(self, known: Any, hints: Mapping[str, Any]) -> list[str]:
        """Candidate actions built from what the agent has seen, most useful first."""
        return [render_call(tool, args) for tool, args in self.module.menu(known, hints)]

    @classmethod
    def of(cls, module: ModuleType) -> Domain:
        return cls(module.NAME, module.ROLE, module.POLICY, tuple(_spec(t) for t in module.TOOLS), module.TEMPLATES,
                   module.ENTITIES, module.REREAD, module)


DOMAINS: Mapping[str, Domain] = {name: Domain.of(engine.domain(name)) for name in NAMES}
"""Domain name -> `Domain`."""
