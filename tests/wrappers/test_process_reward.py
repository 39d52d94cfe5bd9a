"""ProcessReward: potential-based shaping from subtask events, the final reward kept."""

from __future__ import annotations

import pytest

from agentgym.errors import ConfigError
from agentgym.testing.kv_env import ScriptedAgentEnv, ScriptedEnv
from agentgym.wrappers import ProcessReward, ToolFailureInjector, TurnLimit


def oracle_rewards(env, seed):
    _, info = env.reset(seed=seed)
    rewards, infos = [], []
    for _ in range(info["min_turns"]):
        _, r, *_, info = env.step(env.unwrapped.reference_action())
        rewards.append(r)
        infos.append(info)
    return rewards, infos


def test_potential_shaping_telescopes_to_the_final_reward():
    env = ProcessReward(ScriptedAgentEnv(), weight=0.2)
    for seed in range(6):
        rewards, infos = oracle_rewards(env, seed)
        assert sum(rewards) == pytest.approx(1.0)  # phi(start) = 0 and phi(terminal) = 0
        assert infos[-1]["success"] and rewards[0] > 0


def test_undoing_progress_is_penalised():
    env = ProcessReward(ScriptedAgentEnv(), weight=0.5)
    env.reset(seed=1)  # one key: alpha=fjord
    assert env.step("set alpha fjord")[1] == pytest.approx(0.5)
    assert env.step("set alpha amber")[1] == pytest.approx(-0.5)
    assert env.step("set alpha amber")[1] == 0.0


def test_gamma_discounts_the_next_potential():
    env = ProcessReward(ScriptedAgentEnv(), weight=1.0, gamma=0.9)
    env.reset(seed=1)
    assert env.step("set alpha fjord")[1] == pytest.approx(0.9)
    assert env.step("get alpha")[1] == pytest.approx(0.9 - 1.0)


def test_increment_mode_rewards_first_completion_once():
    env = ProcessReward(ScriptedAgentEnv(), weight=0.5, potential=False)
    env.reset(seed=1)
    got = [env.step(a)[1] for a in ["set alpha fjord", "set alpha amber", "set alpha fjord", "get alpha", "submit"]]
    assert got == [0.5, 0.0, 0.0, 0.0, 1.0]


def test_state_drift_redone_and_the_final_reward_stays():
    env = ProcessReward(ToolFailureInjector(ScriptedAgentEnv(), kinds="state_drift", at_turns=[2]), weight=0.3)
    rewards = []
    _, info = env.reset(seed=1)
    terminated = False
    while not terminated:
        _, r, terminated, _, info = env.step(env.unwrapped.reference_action())
        rewards.append(r)
    assert info["success"] and sum(rewards) == pytest.approx(1.0)
    assert len(rewards) == 5  # set, get (drift deletes the key), set again, get, submit


def test_truncation_keeps_the_potential():
    env = ProcessReward(TurnLimit(ScriptedAgentEnv(), 1), weight=0.4)
    env.reset(seed=1)
    _, r, terminated, truncated, info = env.step("set alpha fjord")
    assert truncated and not terminated and r == pytest.approx(0.4) and info["progress"] == 1.0


def test_truncation_as_terminal_pays_nothing_for_unsubmitted_progress():
    # a learner that treats running out of turns as the end: the shaping must not reward it
    env = ProcessReward(TurnLimit(ScriptedAgentEnv(), 2), weight=0.4, truncation_is_terminal=True)
    env.reset(seed=1)
    _, r1, *_ = env.step("set alpha fjord")
    _, r2, terminated, truncated, info = env.step("get alpha")
    assert truncated and not terminated and info["progress"] == 1.0
    assert r1 + r2 == pytest.approx(0.0)
    assert env._saved_kwargs["truncation_is_terminal"] is True


def test_plain_env_names_subtasks_from_events():
    env = ProcessReward(ScriptedEnv(), weight=0.1)
    env.reset(seed=0)
    targets = env.unwrapped.task.meta["targets"]
    key, value = next(iter(targets.items()))
    _, r, *_ = env.step(f"set {key} {value}")
    assert r == pytest.approx(0.1 / len(targets))  # the names come from the subtask events


@pytest.mark.parametrize("kwargs", [{"weight": -0.1}, {"weight": 2}, {"gamma": 1.5}, {"weight": "0.1"}])
def test_bad_arguments_are_echoed(kwargs):
    ((name, value),) = kwargs.items()
    with pytest.raises(ConfigError, match=f"{name}={value!r}".replace(".", r"\.")):
        ProcessReward(ScriptedAgentEnv(), **kwargs)
