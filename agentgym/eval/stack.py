"""The one place the harness builds envs: a bare family env per worker, wrapped per budget.

A worker keeps one base env (one warm sandbox) per env id and puts a wrapper stack around it
for each (T, faults, budget mode) it runs: `agentgym.make.wrap` with the turn limit, the fault injector,
the failure labeler and the cost tracker, in the order the wrappers package defines. Wrappers
hold only per-episode state, so stacks sharing a base env never interfere: each ``reset``
starts a clean episode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from agentgym.make import wrap

__all__ = ["make_base_env", "wrap_for_eval"]


def make_base_env(env_id: str, **env_kwargs: Any) -> gym.Env:
    """The bare env (``split``, ``backend`` and other kwargs go to the family); its sandbox
    starts at the first reset."""

    return gym.make(env_id, **env_kwargs)


def wrap_for_eval(
    base: gym.Env, *, budget: int, faults: str | None = None, soft: Mapping[str, Any] | None = None
) -> gym.Env:
    """``base`` with a turn limit of ``budget``, optional faults, failure labels and costs; with
    ``soft`` (``{"extra": E, "max_requests": m, "cost": c, "warn_at": k}``) the budget is soft."""

    spec: Any = {"soft": int(budget), **soft} if soft else int(budget)
    return wrap(base, budget=spec, faults=faults or None, labels=True, cost=True)
