"""Browser tasks: every (template, seed) pair, its split, and the Task rebuilt from its id.

Task ids read ``browser/<site>/<template>/<seed>``. Held-out templates form the ``heldout`` split;
the other templates' seeds split into train and test by a stable hash of the id. A task's
``solution`` is the oracle's fault-free walk, planned by running the same site code on the host,
written with elements named by role and name (``click(link 'Cart')``), since ids change with the
episode seed; ``min_turns`` is its length. Planning costs several milliseconds a task, so the walks
ship precomputed in ``data/plans.json.gz`` (``python -m agentgym.envs.browser`` rewrites it;
a test replans every task against it) and a task missing from it is planned on first use.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentgym import answers
from agentgym.envs.browser.actions import BrowserActions
from agentgym.envs.browser.site import host_modules
from agentgym.envs.browser.templates import TEMPLATES, TIERS, Scenario, Template, stale_listings
from agentgym.tasks import Task, stable_hash
from agentgym.world.tasks import WorldTasks

__all__ = ["BrowserTasks", "SEEDS_PER_TEMPLATE", "PLANS", "session_spec", "plan_solution", "write_plans"]

SEEDS_PER_TEMPLATE = 100
SITE_NAMES = {
    "shop": "Harbor Shop, an online store",
    "forum": "Harbor Community, a forum where you are a moderator",
    "admin": "Harbor Admin Console, where you manage user accounts",
}
_PARAMS = {s.name: [p.name for p in s.params] for s in BrowserActions().specs}
PLANS = Path(__file__).resolve().parent / "data" / "plans.json.gz"
"""Every task's planned walk, keyed by task id (see `write_plans`)."""


def session_spec(sc: Scenario) -> dict[str, Any]:
    """What the sandbox's session needs (JSON): tables, ops, answer spec, evidence, drifts, menu hints."""
    hints = list(dict.fromkeys(re.findall(r'"([^"]{1,80})"', sc.request)))
    return {
        "site": sc.site,
        "tables": sc.tables,
        "ops": sc.ops,
        "answer": sc.answer,
        "evidence": sc.evidence,
        "drifts": sc.drifts,
        "start": sc.start,
        "hints": hints,
    }


def plan_solution(spec: dict[str, Any], limit: int = 60) -> tuple[str, ...]:
    """The oracle's fault-free walk, run on the host with the sandbox's own code."""
    session = host_modules()["session"].Session(spec, 0)
    out = []
    for _ in range(limit):
        step = session.oracle()
        out.append(step["semantic"])
        if step["action"].startswith("finish("):
            return tuple(out)
        call = BrowserActions().parse(step["action"])
        session.act(call.name, dict(call.args))
    raise RuntimeError(f"the oracle did not finish within {limit} steps: {out[-5:]}")


@lru_cache(maxsize=2048)
def _build(task_id: str) -> Task:
    t, sc = BrowserTasks.scenario(task_id)  # a ConfigError for an id that is not a task
    spec = session_spec(sc)
    subtasks = tuple(f"op:{i}:{op['op']}" for i, op in enumerate(sc.ops) if t.tier != "refusal")
    subtasks += tuple(f"see:{k}" for k in sc.evidence)
    instruction = (
        f"You are using a web browser on {SITE_NAMES[t.group]}. Only this site is reachable.\n"
        f"Goal: {sc.request}\n{answers.ANSWER_RULE}"
    )
    return BrowserTasks.task(
        task_id,
        t,
        instruction=instruction,
        subtasks=subtasks,
        solution=tuple(_plans().get(task_id) or plan_solution(spec)),
        meta={"spec": spec},
    )


class BrowserTasks(
    WorldTasks,
    family="browser",
    group_filter="sites",
    templates=TEMPLATES,
    tiers=TIERS,
    seeds_per_template=SEEDS_PER_TEMPLATE,
    build=_build,
):
    """All Browser tasks, optionally restricted to some sites and tiers (``BrowserTasks(sites=[...], tiers=[...])``)."""

    @classmethod
    def scenario(cls, task_id: str) -> tuple[Template, Scenario]:
        """The template's scenario, with its listings lagging behind some records (`stale_listings`)."""
        t, sc = super().scenario(task_id)
        lag = random.Random(stable_hash("listing:" + task_id))  # its own stream: the scenario is unchanged by it
        return t, stale_listings(sc, lag)


@lru_cache(maxsize=1)
def _plans() -> dict[str, list[str]]:
    try:
        with gzip.open(PLANS, "rt", encoding="utf-8") as f:
            return dict(json.load(f))
    except FileNotFoundError:
        return {}


def write_plans(path: Path = PLANS) -> int:
    """Plan every task's walk afresh and store them (run after changing a site or a template)."""
    tasks = BrowserTasks()
    plans = {
        tid: list(plan_solution(session_spec(BrowserTasks.scenario(tid)[1])))
        for split in tasks.splits
        for tid in tasks.ids(split)
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(path, "wb", mtime=0) as f:  # mtime 0: the same plans give the same bytes
        f.write(json.dumps(plans, indent=0, sort_keys=True).encode())
    _plans.cache_clear()
    _build.cache_clear()
    return len(plans)
