"""The experiment's evaluation lists: which tasks were spent on tuning, and how a fresh list is drawn.

A list that attempts were scored on is a *tuning* list: choices were made by looking at it, so
its numbers flatter the chosen settings (DESIGN 7). Headline numbers come from a *fresh* list,
drawn by the rule below from tasks no spent list holds. The rule is fixed before a run:

- ``fresh-N``: every task of the split (and tiers) that no spent list of ``SPENT_FILE`` holds,
  ordered by ``sha256("agentgym fresh list N:" + task_id)``, the first ``n`` taken, sorted. It
  depends on nothing but the task ids, so every agent, seed, machine and run gets the same list.
- Once anyone tunes on ``fresh-N`` (changes a setting after looking at its numbers), it is
  recorded in ``SPENT_FILE`` under its name, and the next headline uses ``fresh-(N+1)``, which
  the same rule draws from what is left.
- ``tuning-1``: the list the experiment used before (100 held-out one-bug Coding-v0 tasks drawn
  with seed 2026), on which attempts A1-B8 and `benchmarks/recovery_probe.py` were scored.

`baselines.report.contrasts.task_unit` names a task's held-out unit (its Coding-v0 module, a ToolUse
template...): tasks of one unit are not independent, so intervals that resample units sit beside the task-level ones.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numpy as np

from agentgym.core import AgentEnv  # importing agentgym registers the agentgym/* ids
from agentgym.errors import ConfigError
from baselines.policy.families import family_env_kwargs

__all__ = ["SPENT_FILE", "split_task_ids", "seeded_list", "spent_lists", "fresh_list", "task_list"]

SPENT_FILE = Path(__file__).with_name("eval_lists.json")
"""The spent lists, per env id and ``split/tiers``: name -> {"rule", "ids"}."""


def split_task_ids(env_id: str, split: str, tiers: tuple[str, ...] | None) -> list[str]:
    """Every task id of ``split`` (and ``tiers``), sorted; of the experiment's pages only where its
    family plan narrows them (`baselines.policy.families`: MiniWoB-v0's menu-solvable controls pages)."""
    kwargs: dict[str, Any] = {**family_env_kwargs(env_id), **({"tiers": tiers} if tiers else {})}
    env = gym.make(env_id, split=split, backend="local", disable_env_checker=True, **kwargs)
    try:
        return sorted(cast(AgentEnv, env.unwrapped).tasks.ids(split))
    finally:
        env.close()


def seeded_list(env_id: str, split: str, tiers: tuple[str, ...] | None, n: int, seed: int = 2026) -> list[str]:
    """``n`` task ids of ``split`` drawn with ``seed`` (the rule of ``tuning-1`` and of the second split)."""
    ids = split_task_ids(env_id, split, tiers)
    if n >= len(ids):
        return ids
    return [ids[i] for i in sorted(np.random.default_rng(seed).choice(len(ids), size=n, replace=False))]


def _key(split: str, tiers: tuple[str, ...] | None) -> str:
    return f"{split}/{','.join(tiers or ())}"


def spent_lists(env_id: str, split: str, tiers: tuple[str, ...] | None) -> dict[str, list[str]]:
    """Name -> ids of every spent list of this env, split and tiers (none when the file has none)."""
    recorded = json.loads(SPENT_FILE.read_text()) if SPENT_FILE.exists() else {}
    return {name: list(entry["ids"]) for name, entry in recorded.get(env_id, {}).get(_key(split, tiers), {}).items()}


def fresh_list(env_id: str, split: str, tiers: tuple[str, ...] | None, n: int, draw: int = 1) -> list[str]:
    """The ``fresh-<draw>`` list: ``n`` tasks no spent list holds, by the committed hash rule."""
    spent = {t for ids in spent_lists(env_id, split, tiers).values() for t in ids}
    left = [t for t in split_task_ids(env_id, split, tiers) if t not in spent]
    if n > len(left):
        raise ConfigError(
            f"fresh-{draw} of {env_id} {_key(split, tiers)}: {n} tasks asked, {len(left)} never spent; "
            "ask for fewer (--eval-tasks) or evaluate on a spent list by name"
        )
    order = sorted(left, key=lambda t: hashlib.sha256(f"agentgym fresh list {draw}:{t}".encode()).hexdigest())
    return sorted(order[:n])


def task_list(name: str, env_id: str, split: str, tiers: tuple[str, ...] | None, n: int) -> list[str]:
    """The list ``name`` names: ``fresh-N`` (drawn by the rule), a spent list's name, or ``seeded``
    (``n`` tasks drawn with seed 2026, the rule before lists were tracked)."""
    if name.startswith("fresh-") and name[6:].isdigit() and int(name[6:]) >= 1:
        return fresh_list(env_id, split, tiers, n, int(name[6:]))
    if name == "seeded":
        return seeded_list(env_id, split, tiers, n)
    spent = spent_lists(env_id, split, tiers)
    if name in spent:
        return spent[name][:n]
    raise ConfigError(
        f"--eval-list {name!r} for {env_id} {_key(split, tiers)}: choose fresh-N (N >= 1), seeded, "
        f"or a spent list: {sorted(spent) or 'none recorded'}"
    )
