"""The oracle on one task, for family tests: a fault at a chosen turn, a few turns of slack."""

from __future__ import annotations

from typing import Any


def run_oracle(
    env: Any, task_id: str, *, fault: tuple[int, str] | None = None, slack: int = 0, seed: int = 0
) -> tuple[float, int, dict[str, Any]]:
    """(reward, turns used, last info) of the oracle on ``task_id`` within ``min_turns + slack``
    turns; ``fault=(turn, kind)`` arms that fault before that turn."""
    obs, info = env.reset(seed=seed, options={"task_id": task_id})
    for turn in range(1, info["min_turns"] + slack + 1):
        if fault and fault[0] == turn:
            env.inject_fault(fault[1])
        obs, reward, terminated, truncated, info = env.step(env.reference_action())
        if terminated:
            return reward, turn, info
    return 0.0, env.turn, info
