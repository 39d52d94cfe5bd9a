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

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from agentgym import world
from agentgym.actions import Param, ToolSpec, render_call
from agentgym.sandbox.modules import SandboxModule, load_on_host
from agentgym.world.templates import Template

__all__ = ["NAMES", "DOMAINS", "Domain", "MODULES", "ENGINE_MODULE", "engine", "Known", "Scenario", "Template"]

NAMES = ("retail", "travel")
"""The registered domains, in the order their templates are listed."""

_HERE = Path(__file__).resolve().parent
ENGINE_MODULE = "agentgym.envs.tooluse.engine"
"""The in-sandbox name of the engine, whose functions (setup, call_tool, drift, oracle_view, verify) the env calls."""
MODULES: tuple[SandboxModule, ...] = (
    *world.MODULES,
    SandboxModule.from_file(ENGINE_MODULE, _HERE.parent / "engine.py"),
    *(SandboxModule.from_file(f"{__name__}.{name}", _HERE / f"{name}.py") for name in NAMES),
)
"""The family's sandbox-side files, in load order: the stateful-world kit (`agentgym.world`), the engine,
then each domain."""


_MODULES = load_on_host(MODULES)  # the same files run here: tasks plan with the engine's Session
engine: ModuleType = _MODULES[ENGINE_MODULE]
"""The engine, loaded here: tasks plan their reference solutions with its `Session`."""
Known = engine.Known
Scenario = engine.Scenario


def _spec(t: Any) -> ToolSpec:
    params = tuple(
        Param(name, arg.type, arg.description, required=required, enum=arg.enum) for name, arg, required in t.params
    )
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
        return cls(
            module.NAME,
            module.ROLE,
            module.POLICY,
            tuple(_spec(t) for t in module.TOOLS),
            module.TEMPLATES,
            module.ENTITIES,
            module.REREAD,
            module,
        )


DOMAINS: Mapping[str, Domain] = {name: Domain.of(engine.domain(name)) for name in NAMES}
"""Domain name -> `Domain`."""
