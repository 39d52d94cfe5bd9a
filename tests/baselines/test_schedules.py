"""Budget schedules: parsing, what agentgym.make receives, and the budgets episodes really get."""

from __future__ import annotations

import math

import numpy as np
import pytest

import agentgym
from agentgym.errors import ConfigError
from baselines.policy.schedules import parse_schedule
from budget_env import ENV_ID


def _episode_budgets(spec: str, n: int = 200, progress: float | None = None) -> list[int]:
    schedule = parse_schedule(spec)
    if progress is not None:
        schedule.update(progress)
    env = agentgym.make(ENV_ID, budget=schedule.budget_arg())
    try:
        return [env.reset(seed=s)[1]["budget"] for s in range(n)]
    finally:
        env.close()


def test_fixed() -> None:
    assert parse_schedule("fixed:8").budget_arg() == 8
    assert set(_episode_budgets("fixed:8", 10)) == {8}


def test_uniform_covers_its_range() -> None:
    budgets = _episode_budgets("uniform:2-6")
    assert set(budgets) == {2, 3, 4, 5, 6}


def test_weighted_choice_follows_its_weights() -> None:
    schedule = parse_schedule("choice:2,16@3,1")
    assert schedule.budget_arg() == {"choice": [2, 16], "weights": [3.0, 1.0]}
    budgets = _episode_budgets("choice:2,16@3,1", 400)
    assert set(budgets) == {2, 16}
    assert 0.65 < budgets.count(2) / len(budgets) < 0.85
    assert schedule.mean == pytest.approx(0.75 * 2 + 0.25 * 16)


def test_loguniform_favours_short_budgets() -> None:
    budgets = np.array(_episode_budgets("loguniform:2-32", 600))
    assert budgets.min() >= 2 and budgets.max() <= 32
    assert (budgets <= 8).mean() > 0.45  # log-uniform: half the mass below sqrt(2*32)=8
    assert parse_schedule("loguniform:2-32").mean == pytest.approx(30 / math.log(16))


def test_curriculum_grows_the_horizon() -> None:
    schedule = parse_schedule("curriculum:4-16", ramp=0.5)
    seen = []
    for progress in (0.0, 0.25, 0.5, 0.9):
        schedule.update(progress)
        seen.append(schedule.current)
    assert seen == [4, 10, 16, 16]
    assert set(_episode_budgets("curriculum:4-16", 5, progress=0.0)) == {4}
    assert set(_episode_budgets("curriculum:4-16", 5, progress=1.0)) == {16}


def test_stepwise_curriculum_raises_the_horizon_in_stages() -> None:
    schedule = parse_schedule("steps:3,6,12")
    seen = []
    for progress in (0.0, 0.3, 0.34, 0.66, 0.67, 0.99, 1.0):
        schedule.update(progress)
        seen.append(schedule.current)
    assert seen == [3, 3, 6, 6, 12, 12, 12]
    assert str(schedule) == "steps:3,6,12" and schedule.mean == pytest.approx(7.0)
    assert set(_episode_budgets("steps:3,6,12", 5, progress=0.5)) == {6}


@pytest.mark.parametrize("bad", ["fixed:0", "uniform:9-3", "nope:4", "choice:2,4@1", "uniform:x-3", "steps:6,3"])
def test_bad_specs_raise_config_errors(bad: str) -> None:
    with pytest.raises(ConfigError, match=bad.split(":")[0] if bad != "nope:4" else "kind"):
        parse_schedule(bad)


def test_make_env_stacks_process_reward_and_faults() -> None:
    from baselines.policy.train import make_env

    env = make_env("agentgym/Coding-v0", 3, backend="local", process_reward=0.5, faults="tool_error@turn=1")()
    try:
        obs, info = env.reset(seed=0)
        assert info["budget"] == 3 and int(obs["turns_left"][0]) == 3
        names = []
        e = env
        while hasattr(e, "env"):
            names.append(type(e).__name__)
            e = e.env
        assert {"ProcessReward", "ToolFailureInjector", "TurnLimit", "FailureLabeler"} <= set(names)
        # the trainer ends episodes at the budget without bootstrapping: shaping must agree
        shaping = env
        while type(shaping).__name__ != "ProcessReward":
            shaping = shaping.env
        assert shaping.weight == 0.5 and shaping.truncation_is_terminal
    finally:
        env.close()
