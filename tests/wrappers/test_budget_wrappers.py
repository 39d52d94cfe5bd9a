"""TurnLimit and RandomBudget: truncation, observation fields, distributions, seeding, errors."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.error import ResetNeeded

from agentgym.errors import ConfigError
from agentgym.testing.kv_env import ScriptedAgentEnv, ScriptedEnv
from agentgym.wrappers import RandomBudget, TurnLimit
from agentgym.wrappers.budget import parse_budget


def test_truncates_when_the_last_turn_ends_without_termination():
    env = TurnLimit(ScriptedAgentEnv(), 3)
    obs, info = env.reset(seed=0)
    assert obs["turns_left"].tolist() == [3] and obs["turns_left_frac"].tolist() == [1.0]
    assert info["budget"] == 3 and info["turns_left"] == 3
    for left in (2, 1):
        obs, reward, terminated, truncated, info = env.step("help")
        assert not truncated and obs["turns_left"].tolist() == [left] and "budget_exhausted" not in info
    obs, reward, terminated, truncated, info = env.step("help")
    assert truncated and not terminated and info["budget_exhausted"] is True
    assert info["success"] is False and reward == 0.0 and obs["turns_left"].tolist() == [0]
    assert "TimeLimit.truncated" not in info
    assert env.unwrapped.episode_over  # end_by_budget closed the episode
    with pytest.raises(ResetNeeded):
        env.step("help")


def test_submission_on_the_last_turn_is_termination_not_truncation():
    env = TurnLimit(ScriptedAgentEnv(), 3)
    _, info = env.reset(seed=1)
    assert info["min_turns"] == 3
    for _ in range(3):
        obs, reward, terminated, truncated, info = env.step(env.unwrapped.reference_action())
    assert terminated and not truncated and reward == 1.0
    assert info["budget_exhausted"] is False and info["turns_left"] == 0


def test_score_on_truncation_takes_the_verdict_of_end_by_budget():
    env = TurnLimit(ScriptedAgentEnv(score_on_truncation=True), 1)
    _, info = env.reset(seed=1)  # a one-key task: one set solves it
    *_, reward, terminated, truncated, info = env.step(env.unwrapped.reference_action())
    assert truncated and info["success"] is True and reward == 1.0


def test_inner_truncation_passes_through_with_termination():
    def step(env, action):
        return {"text": "x"}, 0.0, True, True, {"events": []}

    env = TurnLimit(ScriptedEnv(step_func=step), 5)
    env.reset(seed=0)
    _, _, terminated, truncated, info = env.step("anything")
    assert terminated and truncated and info["budget_exhausted"] is False


def test_plain_env_without_end_by_budget_is_truncated_with_success_false():
    env = TurnLimit(ScriptedEnv(), 1)
    env.reset(seed=0)
    *_, truncated, info = env.step("help")
    assert truncated and info["success"] is False


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "8"])
def test_turn_limit_rejects_bad_budgets_echoing_them(bad):
    with pytest.raises(ConfigError, match=repr(bad).replace("(", r"\(").replace(".", r"\.")):
        TurnLimit(ScriptedAgentEnv(), bad)


def test_observation_space_gains_turns_left_fields():
    env = TurnLimit(ScriptedAgentEnv(), 7)
    space = env.observation_space
    assert set(space.spaces) == {"text", "turns_left", "turns_left_frac"}
    assert space["turns_left"].shape == (1,) and space["turns_left"].high.tolist() == [7]
    obs, _ = env.reset(seed=0)
    assert space.contains(obs)


@pytest.mark.parametrize(
    "spec, allowed",
    [
        (5, {5}),
        ({"uniform": [2, 4]}, {2, 3, 4}),
        ({"choice": [4, 8, 16]}, {4, 8, 16}),
        ({"choice": [4, 8], "weights": [0, 1]}, {8}),
        ({"loguniform": [2, 32]}, set(range(2, 33))),
        (lambda rng: int(rng.integers(3, 6)), {3, 4, 5}),
    ],
)
def test_random_budget_draws_from_its_distribution_reproducibly(spec, allowed):
    env = RandomBudget(ScriptedAgentEnv(), spec)
    drawn = [env.reset(seed=s)[1]["budget"] for s in range(40)]
    assert set(drawn) <= allowed
    assert drawn == [env.reset(seed=s)[1]["budget"] for s in range(40)]
    if len(allowed) > 1:
        assert len(set(drawn)) > 1


def test_random_budget_is_a_turn_limit_and_truncates_at_the_drawn_t():
    env = RandomBudget(ScriptedAgentEnv(), {"uniform": [2, 5]})
    assert isinstance(env, TurnLimit)
    for seed in range(10):
        _, info = env.reset(seed=seed)
        t, turns, truncated = info["budget"], 0, False
        while not truncated:
            obs, *_, truncated, info = env.step("help")
            turns += 1
        assert turns == t and obs["turns_left"].tolist() == [0]


def test_loguniform_favours_small_budgets():
    sample, top = parse_budget({"loguniform": [1, 64]})
    rng = np.random.default_rng(0)
    draws = np.array([sample(rng) for _ in range(4000)])
    assert top == 64 and draws.min() >= 1 and draws.max() <= 64
    assert (draws <= 8).mean() > 0.45  # log-uniform: half the mass below sqrt(64)


@pytest.mark.parametrize(
    "bad",
    [
        {"uniform": [5, 2]},
        {"uniform": [0, 3]},
        {"uniform": 4},
        {"choice": []},
        {"choice": [4, 8], "weights": [1]},
        {"choice": [4, 8], "weights": [-1, 2]},
        {"normal": [4, 1]},
        {"uniform": [1, 2], "loguniform": [1, 2]},
        "8",
    ],
)
def test_random_budget_rejects_bad_specs(bad):
    with pytest.raises(ConfigError):
        RandomBudget(ScriptedAgentEnv(), bad)


def test_callable_budget_out_of_range_raises_with_a_fix():
    env = RandomBudget(ScriptedAgentEnv(), lambda rng: 5000)
    with pytest.raises(ConfigError, match="max_budget"):
        env.reset(seed=0)
    env = RandomBudget(ScriptedAgentEnv(), lambda rng: 5000, max_budget=5000)
    assert env.reset(seed=0)[1]["budget"] == 5000


def test_nested_budgets_end_once_and_keep_the_inner_verdict():
    env = TurnLimit(TurnLimit(ScriptedAgentEnv(score_on_truncation=True), 1), 1)
    env.reset(seed=1)
    _, reward, terminated, truncated, info = env.step(env.unwrapped.reference_action())
    assert truncated and info["success"] is True and reward == 1.0 and info["budget_exhausted"] is True


def test_first_observation_states_the_budget_in_text():
    """A text-only agent must know T before it spends a turn on help."""
    from agentgym.wrappers.budget import budget_note

    obs, _ = TurnLimit(ScriptedAgentEnv(), 8).reset(seed=0)
    assert obs["text"].endswith(budget_note(8)) and "8 turns" in obs["text"] and "help" in budget_note(8)
    obs, info = RandomBudget(ScriptedAgentEnv(), {"choice": [5]}).reset(seed=0)
    assert budget_note(5) in obs["text"]
    bare, _ = ScriptedAgentEnv().reset(seed=0)
    quiet, _ = TurnLimit(ScriptedAgentEnv(), 8, announce=False).reset(seed=0)
    assert quiet["text"] == bare["text"]
