"""Golden trajectories: record (or replay) every registered id on the local backend (Docker for a Docker-only family).

Issue 13 changes the families' shared code while keeping behaviour; these recordings are the
proof. For each id in `agentgym.ENV_IDS`, the oracle and a seeded random-menu agent play
``TASKS`` seeded tasks under a turn limit, and each step is kept as its action, the sha256 of
its observation text, its reward and its events (digested), plus the episode's labels.

    python3 tests/golden/record.py          # rewrite tests/golden/trajectories.json
    python3 tests/golden/record.py agentgym/Coding-v0   # only that id
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import agentgym
from agentgym.agents import OracleAgent, RandomAgent, ScriptedAgent
from agentgym.core import FAULT_KINDS
from agentgym.testing import run_episode

__all__ = ["TASKS", "BUDGET", "PATH", "DOCKER_TASKS", "backend_of", "record_id", "record_all"]

TASKS = 50
BUDGET = 16  # turns per episode: enough for the oracle to finish, small enough for CI
PATH = Path(__file__).with_name("trajectories.json")

# Malformed and edge-case actions, sent to every family: the parsers' error paths (fences,
# bad JSON, wrong argument types, unknown tools) are what a shared action kit changes.
PROBES = (
    "help",
    "```\nhelp\n```",
    '```json\n{"tool": "nope", "args": {}}\n```',
    '{"tool": 1}',
    '{"name": "get_order", "arguments": "{\\"order_id\\": 5}"}',
    "get_order(order_id=5)",
    'click("x")',
    "view",
    "nonsense((",
    "```python\nfinish(answer=3)\n```",
    "",
    "submit(1)",
    "get_user(user_id=5)",
    "get_user()",
    'get_order("O1", order_id="O1")',
    "click()",
    "fill(1)",
    "```\n```",
)
# the five fault kinds the recordings were made with, on a seeded schedule: a replay that matches proves
# those kinds behave as before; rate_limit and wrong_value (issue 51) have their own tests
# (tests/security/test_attack_faults.py, tests/wrappers/test_fault_kinds.py)
RECORDED_FAULT_KINDS = ("tool_error", "timeout", "empty_output", "corrupted_output", "state_drift")
assert set(RECORDED_FAULT_KINDS) <= set(FAULT_KINDS)
FAULTS = {"kinds": list(RECORDED_FAULT_KINDS), "p": 0.3}
FAULTED_TASKS = 10


DOCKER_TASKS = 8  # seeds per agent for a Docker-only family (MiniWoB-v0: a page in Chromium per episode)


def backend_of(env_id: str) -> str:
    """The backend: "local", or "docker" for a family that runs only there (its class's ``backends``)."""
    module, _, name = agentgym.ENV_IDS[env_id].partition(":")
    family = getattr(importlib.import_module(module), name)
    return "local" if "local" in getattr(family, "backends", ("local",)) else "docker"


def _digest(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _episode(env: Any, agent: Any, seed: int) -> dict[str, Any]:
    ep = run_episode(env, agent, seed=seed, max_steps=BUDGET + 1)
    return {
        "seed": seed,
        "task_id": ep.task_id,
        "actions": [a if len(a) <= 120 else "sha:" + _digest(a) for a in ep.actions],
        "obs": [_digest(t) for t in ep.texts],
        "rewards": ep.rewards,
        "event_kinds": [e.get("kind") for e in ep.events],
        "events": _digest(ep.events),
        "success": ep.success,
        "terminated": ep.terminated,
        "truncated": ep.truncated,
        "labels": [ep.failure_category, sorted(ep.failure_flags)],
    }


def record_id(env_id: str, tasks: int = TASKS) -> dict[str, list[dict[str, Any]]]:
    """``env_id``'s episodes: oracle and random agent on seeds ``0..tasks-1``, the probes, and
    the same agents again under seeded faults of every kind."""
    out: dict[str, list[dict[str, Any]]] = {}
    backend = backend_of(env_id)
    if backend == "docker":
        tasks = min(tasks, DOCKER_TASKS)
    env = agentgym.make(env_id, budget=BUDGET, labels=True, cost=False, backend=backend)
    try:
        out["oracle"] = [_episode(env, OracleAgent(), seed) for seed in range(tasks)]
        out["random"] = [_episode(env, RandomAgent(seed=seed), seed) for seed in range(tasks)]
        out["probe"] = [_episode(env, ScriptedAgent(list(PROBES)), seed) for seed in range(3)]
    finally:
        env.close()
    env = agentgym.make(env_id, budget=BUDGET, faults=FAULTS, labels=True, cost=False, backend=backend)
    try:
        seeds = range(min(tasks, FAULTED_TASKS))
        out["oracle_faulted"] = [_episode(env, OracleAgent(), seed) for seed in seeds]
        out["random_faulted"] = [_episode(env, RandomAgent(seed=seed), seed) for seed in seeds]
        out["probe_faulted"] = [_episode(env, ScriptedAgent(list(PROBES)), seed) for seed in range(3)]
    finally:
        env.close()
    return out


def record_all(tasks: int = TASKS) -> dict[str, Any]:
    return {env_id: record_id(env_id, tasks) for env_id in sorted(agentgym.ENV_IDS)}


if __name__ == "__main__":
    ids = sys.argv[1:]  # re-record only these ids (a deliberate change in one family), keeping the rest
    data = {**json.loads(PATH.read_text()), **{i: record_id(i) for i in ids}} if ids else record_all()
    PATH.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"wrote {PATH} ({PATH.stat().st_size} bytes)", file=sys.stderr)
