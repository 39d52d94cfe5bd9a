"""Reference agents and `load_agent`, on the container-free key-value family."""

from __future__ import annotations

import sys
import types

import pytest

from agentgym.agents import Agent, OracleAgent, RandomAgent, ScriptedAgent, load_agent, seed_agent
from agentgym.errors import ConfigError
from agentgym.make import wrap
from agentgym.testing.kv_env import ScriptedAgentEnv


def play(agent, env, task_id="kv/1", seed=0):
    obs, info = env.reset(seed=seed, options={"task_id": task_id})
    agent.reset(env, obs, info)
    actions = []
    while True:
        action = agent.act(obs, info)
        actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return actions, info


@pytest.fixture
def env():
    e = wrap(ScriptedAgentEnv(split="train"), budget=12, labels=True, cost=True)
    yield e
    e.close()


def test_oracle_solves(env):
    actions, info = play(OracleAgent(), env)
    assert info["success"] and actions[-1] == "submit"
    assert len(actions) == info["min_turns"]


def test_random_agent_is_seeded_and_stays_on_the_menu(env):
    agent = RandomAgent()
    runs = []
    for _ in range(2):
        seed_agent(agent, 123)
        runs.append(play(agent, env)[0])
    assert runs[0] == runs[1]
    seed_agent(agent, 124)
    assert play(agent, env)[0] != runs[0]
    _, info = env.reset(seed=0, options={"task_id": "kv/1"})
    menu = set(info["admissible_actions"])
    assert set(runs[0]) <= menu
    assert RandomAgent(fallback="help").act({"text": ""}, {"admissible_actions": []}) == "help"


def test_scripted_agent_per_task_with_fallback(env):
    script = {"kv/1": ["help", "get alpha"]}
    actions, info = play(ScriptedAgent(script), env)
    assert actions == ["help", "get alpha", "submit"] and info["success"] is False
    actions, _ = play(ScriptedAgent(["help"], fallback="submit"), env, task_id="kv/2")
    assert actions == ["help", "submit"]


def test_load_agent_builtins_and_module_factory(monkeypatch):
    assert isinstance(load_agent("random"), RandomAgent)
    assert isinstance(load_agent("oracle"), OracleAgent)
    assert isinstance(load_agent("scripted", actions=["submit"]), ScriptedAgent)
    mod = types.ModuleType("my_policies")
    mod.make = lambda word="submit": ScriptedAgent([word])
    mod.NotAnAgent = lambda: object()
    monkeypatch.setitem(sys.modules, "my_policies", mod)
    agent = load_agent("my_policies:make", word="help")
    assert isinstance(agent, Agent) and agent.actions == ["help"]
    with pytest.raises(ConfigError, match="lacks reset"):
        load_agent("my_policies:NotAnAgent")
    with pytest.raises(ConfigError, match="no attribute"):
        load_agent("my_policies:missing")
    with pytest.raises(ConfigError, match="cannot import"):
        load_agent("no_such_module_xyz:make")
    with pytest.raises(ConfigError, match="base_url"):
        load_agent("openai")
    with pytest.raises(ConfigError, match="choose one of"):
        load_agent("nonsense")
