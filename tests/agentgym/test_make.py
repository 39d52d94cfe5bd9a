"""agentgym.make: the stacking order, its defaults, gym.make kwargs, and spec round trips."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import agentgym
from agentgym.errors import ConfigError
from agentgym.make import ENTRY_POINT
from agentgym.registration import ENV_IDS
from agentgym.wrappers import (
    CostTracker,
    FailureLabeler,
    NumericView,
    ProcessReward,
    RandomBudget,
    ToolFailureInjector,
    TurnLimit,
)
from agentgym.wrappers.budget import TimeLimitGuard

KV_ID = "agentgym-test/KV-v0"  # the container-free scripted family, registered like agentgym ids
PLAIN_ID = "agentgym-test/PlainKV-v0"  # a gymnasium env with agentgym events but no AgentEnv
if KV_ID not in gym.registry:
    gym.register(
        KV_ID, entry_point=ENTRY_POINT, kwargs={"family_entry_point": "agentgym.testing.kv_env:ScriptedAgentEnv"}
    )
    gym.register(PLAIN_ID, entry_point="agentgym.testing.kv_env:ScriptedEnv")


def layers(env):
    """The agentgym wrapper classes of a stack, innermost first (the entry point's guard left out)."""
    out = []
    while isinstance(env, gym.Wrapper):
        if type(env).__module__.startswith("agentgym.") and type(env) is not TimeLimitGuard:
            out.append(type(env))
        env = env.env
    return out[::-1]


def rollout(env, seed, n=6):
    obs, info = env.reset(seed=seed)
    steps = [info["budget"]]
    for i in range(n):
        obs, reward, terminated, truncated, info = env.step(i % 3)
        steps.append((reward, terminated, truncated, info["events"], [v.tolist() for v in obs.values()]))
        if terminated or truncated:
            steps.append(info.get("failure_category"))
            break
    return steps


def test_agentgym_ids_are_registered_through_make():
    for env_id, family in ENV_IDS.items():
        spec = gym.spec(env_id)
        assert spec.entry_point == ENTRY_POINT and spec.kwargs == {"family_entry_point": family}


def test_full_stack_order():
    env = agentgym.make(KV_ID, budget=6, faults="tool_error@turn=1", process_reward=0.1, numeric=True)
    assert layers(env) == [ToolFailureInjector, TurnLimit, FailureLabeler, ProcessReward, CostTracker, NumericView]
    env = agentgym.make(KV_ID, budget={"uniform": [2, 9]})
    assert layers(env) == [ToolFailureInjector, RandomBudget, FailureLabeler, CostTracker]


def test_defaults_differ_only_in_labels_and_cost():
    # budget and faults are always stacked (doing nothing until a reset chooses them)
    assert layers(agentgym.make(KV_ID)) == [ToolFailureInjector, TurnLimit, FailureLabeler, CostTracker]
    assert layers(agentgym.make(KV_ID, labels=False, cost=False)) == [ToolFailureInjector, TurnLimit]
    assert layers(gym.make(KV_ID)) == [ToolFailureInjector, TurnLimit]


def test_options_work_as_gym_make_kwargs():
    options = dict(
        budget=5, faults={"kinds": ["timeout"], "first_k": 1}, process_reward={"weight": 0.2}, numeric={"dim": 32}
    )
    via_gym = gym.make(KV_ID, labels=True, cost=True, split="test", **options)
    via_make = agentgym.make(KV_ID, split="test", **options)
    assert layers(via_gym) == layers(via_make)
    assert via_gym.unwrapped.split == "test"
    assert rollout(via_gym, 3) == rollout(via_make, 3)


@pytest.mark.filterwarnings("ignore:.*is different from the unwrapped version")
def test_spec_round_trip_rebuilds_the_whole_stack():
    env = agentgym.make(
        KV_ID,
        budget={"choice": [3, 6]},
        faults="timeout+empty_output@p=0.5:persistent",
        process_reward=0.1,
        numeric={"max_actions": 16, "dim": 32},
    )
    again = gym.make(env.spec)
    assert layers(again) == layers(env) and again.spec == env.spec
    for seed in range(3):
        assert rollout(again, seed) == rollout(env, seed)


def test_spec_round_trip_of_a_hand_built_stack():
    env = NumericView(
        CostTracker(
            ProcessReward(
                FailureLabeler(
                    RandomBudget(
                        ToolFailureInjector(gym.make(KV_ID), kinds="timeout", at_turns=[1, 2]), {"loguniform": [2, 8]}
                    )
                ),
                weight=0.3,
            )
        ),
        max_actions=8,
        dim=16,
    )
    again = gym.make(env.spec)
    assert [w.name for w in again.spec.additional_wrappers] == [w.name for w in env.spec.additional_wrappers]
    assert [w.kwargs for w in again.spec.additional_wrappers] == [w.kwargs for w in env.spec.additional_wrappers]
    assert rollout(again, 5) == rollout(env, 5)


@pytest.mark.filterwarnings("ignore:.*is different from the unwrapped version")
def test_gymnasium_check_env_passes_on_full_stacks():
    # cost=False: CostTracker's seconds differ between same-seed steps, which check_env compares
    check_env(agentgym.make(KV_ID, budget={"uniform": [2, 9]}, faults="timeout@p=0.5", process_reward=0.1, cost=False))
    check_env(gym.make(KV_ID, budget=4, labels=True, numeric=True))


def test_foreign_ids_are_wrapped_outside_gym_make():
    env = agentgym.make(PLAIN_ID, budget=3, process_reward=True)
    assert layers(env) == [TurnLimit, FailureLabeler, ProcessReward, CostTracker]
    with pytest.raises(ConfigError, match="AgentEnv"):
        agentgym.make(PLAIN_ID, budget=3, faults="tool_error@turn=1")


def test_module_prefixed_ids_and_vector_envs():
    env = agentgym.make("agentgym.testing.kv_env:" + KV_ID, budget=3)
    assert layers(env) == [ToolFailureInjector, TurnLimit, FailureLabeler, CostTracker]
    vec = gym.make_vec(KV_ID, num_envs=2, vectorization_mode="sync", budget=3, labels=True)
    obs, info = vec.reset(seed=0)
    assert obs["turns_left"].tolist() == [[3], [3]] and info["budget"].tolist() == [3, 3]
    vec.close()


def test_bad_ids_and_options_raise_config_errors():
    with pytest.raises(ConfigError, match="agentgym/Nope-v0"):
        agentgym.make("agentgym/Nope-v0")
    with pytest.raises(ConfigError, match="process_reward='lots'"):
        agentgym.make(KV_ID, process_reward="lots")
    with pytest.raises(ConfigError, match="budget=0"):
        gym.make(KV_ID, budget=0)
    with pytest.raises(ConfigError, match="boom"):
        agentgym.make(KV_ID, faults="boom@turn=1")


def test_tooluse_with_a_fault_budget_labels_and_costs():
    env = agentgym.make("agentgym/ToolUse-v0", budget=16, faults="tool_error@turn=1", backend="local", split="test")
    try:
        obs, info = env.reset(seed=0)
        assert obs["turns_left"].tolist() == [16] and info["budget"] == 16
        terminated = truncated = False
        while not (terminated or truncated):
            obs, reward, terminated, truncated, info = env.step(env.unwrapped.reference_action())
        assert terminated and reward == 1.0 and info["failure_category"] == "success"
        assert (
            "fault_injected" in info["failure_flags"]
            and info["cost"]["model_calls"] == info["budget"] - info["turns_left"]
        )
        assert isinstance(obs["turns_left_frac"], np.ndarray)
    finally:
        env.close()


def test_max_episode_steps_is_refused_with_a_message_naming_budget():
    """Gymnasium's TimeLimit would cut episodes off unscored and unlabelled, with no warning."""
    for options in ({}, {"budget": 4, "labels": True}):
        env = gym.make(KV_ID, max_episode_steps=8, **options)
        with pytest.raises(ConfigError, match=r"max_episode_steps=8.*budget=8"):
            env.reset(seed=0)
        env.close()
    with pytest.raises(ConfigError, match="budget=3"):
        gym.wrappers.TimeLimit(agentgym.make(KV_ID, budget=None), 3).reset(seed=0)
    env = gym.make(KV_ID, budget=8)  # the agentgym way is untouched
    env.reset(seed=0)
    assert env.step("help")[-1]["budget"] == 8
