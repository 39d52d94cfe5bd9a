"""CostTracker: calls and seconds per episode, cumulative, reset per episode."""

from __future__ import annotations

import time

from agentgym.testing.kv_env import ScriptedAgentEnv, ScriptedEnv
from agentgym.wrappers import CostTracker, TurnLimit
from agentgym.wrappers.cost import COST_KEYS


def test_counts_and_seconds_accumulate_and_reset():
    env = CostTracker(TurnLimit(ScriptedAgentEnv(), 10))
    _, info = env.reset(seed=0)
    assert set(COST_KEYS) <= set(info["cost"]) and info["cost"]["model_calls"] == 0
    time.sleep(0.05)  # the agent "thinks"
    *_, info = env.step("set alpha amber")
    first = info["cost"]
    assert first["model_calls"] == 1 and first["env_calls"] == 1
    assert first["agent_seconds"] >= 0.05 and first["episode_seconds"] >= first["agent_seconds"]
    assert 0 <= first["env_seconds"] < 0.05
    *_, info = env.step("help")
    assert info["cost"]["model_calls"] == 2 and info["cost"]["env_calls"] == 1  # help needs no sandbox
    assert info["cost"]["episode_seconds"] >= first["episode_seconds"]
    _, info = env.reset(seed=1)
    assert info["cost"]["model_calls"] == 0 and info["cost"]["agent_seconds"] == 0.0


def test_env_seconds_comes_from_the_base_env_when_it_keeps_them():
    env = CostTracker(ScriptedAgentEnv())
    env.reset(seed=0)
    *_, info = env.step("get alpha")
    assert info["cost"]["env_seconds"] == env.unwrapped.env_seconds


def test_plain_env_is_timed_by_the_wrapper():
    def slow_step(env, action):
        time.sleep(0.02)
        return {"text": ""}, 0.0, False, False, {"events": []}

    env = CostTracker(ScriptedEnv(step_func=slow_step))
    env.reset(seed=0)
    *_, info = env.step("x")
    assert info["cost"]["env_seconds"] >= 0.02 and info["cost"]["env_calls"] == 0
