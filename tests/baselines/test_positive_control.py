"""The positive control's known answers hold, and the control runs end to end."""

from __future__ import annotations

import numpy as np
import pytest

import agentgym
from baselines.budget_env import ENV_ID, optimum


def _careful_then_commit(env, turns: int, episodes: int) -> float:
    """Patch the clue, test it, patch an untried name after a failing test; submit on a pass or the last turn."""
    wins = 0
    for e in range(episodes):
        obs, info = env.reset(seed=e)
        names = env.unwrapped.names
        clue = next(w for w in names if w in obs["text"])
        order = iter([clue] + [w for w in names if w != clue])
        left, done, last = turns, False, "start"
        while not done:
            if left == 1 or last == "pass":
                action = "submit"
            elif last == "patched":
                action = "run tests"
            else:  # the start, or a failing test
                action = f"patch {next(order)}"
            obs, _, terminated, truncated, info = env.step(action)
            left -= 1
            done = terminated or truncated
            if action == "run tests":
                ok = any(ev.get("kind") == "verification" and ev.get("ok") for ev in info["events"])
                last = "pass" if ok else "fail"
            elif action.startswith("patch"):
                last = "patched"
        wins += bool(info.get("success", False))
    return wins / episodes


@pytest.mark.parametrize("turns", [2, 4, 8, 10])
def test_optimum_is_what_the_known_best_strategy_scores(turns: int) -> None:
    env = agentgym.make(ENV_ID, budget=turns, split="test")
    try:
        got = _careful_then_commit(env, turns, 600)
    finally:
        env.close()
    assert got == pytest.approx(optimum(turns), abs=0.06)
    assert optimum(2) == pytest.approx(0.6) and optimum(8) == pytest.approx(0.9) and optimum(10) == pytest.approx(1.0)


def test_positive_control_runs_the_real_trainer() -> None:
    from baselines.positive_control import run_control

    result = run_control(steps=128, seeds=(1,), eval_ts=(2, 10), episodes=8)
    assert set(result["by_T"]) == {"fixed-T2", "fixed-T10", "budgetmix"}
    for by_t in result["by_T"].values():
        assert by_t["2"]["optimum"] == pytest.approx(0.6) and 0.0 <= by_t["10"]["success"] <= 1.0
        assert by_t["10"]["wrong_first"] >= by_t["10"]["recovered"] >= 0
    assert np.isfinite(result["by_T"]["budgetmix"]["2"]["success"])
