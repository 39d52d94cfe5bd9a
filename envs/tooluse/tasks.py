"""ToolUse tasks: every (template, seed) pair, its split, and the Task rebuilt from its id.

Task ids read ``tooluse/<domain>/<template>/<seed>``. Templates marked held-out form the
``heldout`` split and never appear in train or test; the other templates' seeds are split into
train and test by a stable hash of the task id, so the split is the same on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache

from agentgym.envs.tooluse.domains import DOMAINS, Template
from agentgym.errors import ConfigError
from agentgym.tasks import Task, TaskSet, stable_hash, stable_split

__all__ = ["ToolUseTasks", "TEMPLATES", "SEEDS_PER_TEMPLATE", "TIERS", "observation_header"]

SEEDS_PER_TEMPLATE = 24
TEST_FRACTION = 0.25
TIERS = ("single", "multi", "refusal")
TEMPLATES: dict[str, Template] = {f"{t.domain}/{t.name}": t for d in DOMAINS.values() for t in d.TEMPLATES}

GRAMMAR_HINT = (
    'Act with one tool call per turn, as JSON {"tool": "get_order", "args": {"order_id": "O12345"}} or as '
    'get_order(order_id="O12345"). `help` lists the tools with their JSON schemas. When you are done, '
    'reply finish("your final answer to the customer"); if the policy forbids the request, change nothing '
    "and finish with a refusal that says you cannot do it."
)


def observation_header(domain: str, today: str) -> str:
    mod = DOMAINS[domain]
    return f"{mod.ROLE} Today is {today}.\n\nPolicy:\n{mod.POLICY}\n\n{GRAMMAR_HINT}"


class ToolUseTasks(TaskSet):
    """All ToolUse tasks, optionally restricted to some domains and tiers."""

    family = "tooluse"
    splits = ("train", "test", "heldout")

    def __init__(self, domains: Sequence[str] | None = None, tiers: Sequence[str] | None = None) -> None:
        bad = sorted(set(domains or ()) - set(DOMAINS))
        if bad:
            raise ConfigError(f"unknown ToolUse domain(s) {bad}; choose from {sorted(DOMAINS)}")
        bad = sorted(set(tiers or ()) - set(TIERS))
        if bad:
            raise ConfigError(f"unknown ToolUse tier(s) {bad}; choose from {list(TIERS)}")
        self.domains = tuple(domains or DOMAINS)
        self.tiers = tuple(tiers or TIERS)

    @lru_cache(maxsize=None)
    def ids(self, split: str) -> list[str]:
        self.check_split(split)
        out = []
        for key, t in TEMPLATES.items():
            if t.domain not in self.domains or t.tier not in self.tiers:
                continue
            for seed in range(SEEDS_PER_TEMPLATE):
                task_id = f"tooluse/{key}/{seed}"
                if _split(t, task_id) == split:
                    out.append(task_id)
        return out

    def get(self, task_id: str) -> Task:
        return _build(task_id)


def _split(t: Template, task_id: str) -> str:
    return "heldout" if t.heldout else stable_split(task_id, TEST_FRACTION)


@lru_cache(maxsize=4096)
def _build(task_id: str) -> Task:
    parts = task_id.split("/")
    key = "/".join(parts[1:3])
    if len(parts) != 4 or parts[0] != "tooluse" or key not in TEMPLATES or not parts[3].isdigit():
        raise ConfigError(
            f"unknown ToolUse task id {task_id!r}: ids read tooluse/<domain>/<template>/<seed>, with templates "
            f"{sorted(TEMPLATES)}; list them with ToolUseTasks().ids('train'|'test'|'heldout')"
        )
    t = TEMPLATES[key]
    sc = t.build(random.Random(stable_hash(task_id)))
    header = observation_header(t.domain, sc.today)
    instruction = f"{header}\n\nCustomer: {sc.request}"
    subtasks = tuple(f"lookup:{action.split('(')[0]}:{i}" for i, (action, _) in enumerate(sc.lookups))
    subtasks += tuple(f"write:{i}:{it['op']}" for i, it in enumerate(sc.intents) if t.tier != "refusal")
    # the reference trajectory when nothing drifts: read, act, re-read, finish (the oracle is state-aware)
    n_writes = 0 if t.tier == "refusal" else len(sc.intents)
    solution_len = len(sc.lookups) + n_writes + (1 if n_writes else 0) + 1
    return Task(
        task_id=task_id,
        family="tooluse",
        split=_split(t, task_id),
        instruction=instruction,
        subtasks=subtasks,
        min_turns=solution_len,
        tier=t.tier,
        meta={
            "domain": t.domain,
            "template": t.name,
            "tables": sc.tables,
            "today": sc.today,
            "request": sc.request,
            "intents": sc.intents,
            "lookups": [[a, list(keys)] for a, keys in sc.lookups],
            "verify_action": sc.verify_action,
            "hints": sc.hints,
        },
    )
