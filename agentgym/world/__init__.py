"""The stateful-world kit: what ToolUse-v0 and Browser-v0 share, one module per concept.

Sandbox side (stdlib only; shipped into the step server under these very names by `MODULES`, so
family code imports them as on the host: ``from agentgym.world import records``):

- `agentgym.world.templates`: `Template`, a seeded request builder, grouped and tiered;
- `agentgym.world.records`: versioned records over SQLite (keys, versions, writes, dumps);
- `agentgym.world.verdict`: the expected-state verdict (state equal to the expected one, the
  final answer by `agentgym.answers`, the evidence a refusal must rest on).

Host side:

- `agentgym.world.tasks`: `WorldTasks`, one task per (template, seed), with its scenario;
- `agentgym.world.env`: `WorldEnv`, the verdict asked of the world with the refusal grounded in
  what the agent saw, drift as the fault hook, and the menu's head.

A family writes only its domain on top: its world's schema, tools or pages, what other actors
change, the rules that decide the expected state, and its oracle.
"""

from __future__ import annotations

from pathlib import Path

from agentgym import answers
from agentgym.sandbox.modules import SandboxModule

__all__ = ["MODULES"]

_HERE = Path(__file__).resolve().parent
MODULES: tuple[SandboxModule, ...] = (answers.sandbox_module(),) + tuple(
    SandboxModule.from_file(f"{__name__}.{stem}", _HERE / f"{stem}.py") for stem in ("templates", "records", "verdict")
)
"""The kit's sandbox-side files, in load order; a family's `sandbox_modules` start with them."""
