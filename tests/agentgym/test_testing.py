"""agentgym.testing: the documented recovery test runs as written, and the checks can fail."""

from __future__ import annotations

import gymnasium as gym
import pytest

from agentgym.agents import OracleAgent, ScriptedAgent
from agentgym.make import ENTRY_POINT
from agentgym.testing import Episode, assert_recovers, run_episode
from agentgym.testing.kv_env import ScriptedAgentEnv
from agentgym.wrappers import TurnLimit

TOY_ID = "agentgym-test/Toy-v0"
if TOY_ID not in gym.registry:
    gym.register(TOY_ID, entry_point=ENTRY_POINT, kwargs={"family_entry_point": "support.toy_env:ToyEnv"})


def test_documented_recovery_test_on_the_toy_env(backend):
    # docs/wrappers.md, "Testing your agent", with the toy family's id and the backend fixture
    assert_recovers(TOY_ID, OracleAgent(), fault="tool_error@turn=1", budget=12, seeds=range(3), backend=backend)


def test_documented_recovery_test_on_coding():
    # exactly the docs example
    assert_recovers(
        "agentgym/Coding-v0", OracleAgent(), fault="tool_error@turn=1", budget=12, seeds=range(3), backend="local"
    )


def test_documented_recovery_test_on_tooluse():
    assert_recovers(
        "agentgym/ToolUse-v0", OracleAgent(), fault="tool_error@turn=1", budget=12, seeds=range(3), backend="local"
    )


def test_recovery_from_every_transient_fault_kind_within_one_extra_turn_each():
    env = ScriptedAgentEnv()
    for spec in [
        "timeout@turn=1",
        "empty_output@turn=2",
        "corrupted_output@first=2",
        "state_drift@turn=2",
        "tool_error@p=0.3",
    ]:
        episodes = assert_recovers(env, OracleAgent(), fault=spec, budget=12, seeds=range(4))
        assert all(e.success and e.failure_category == "success" and e.faults for e in episodes)


def test_fails_when_the_agent_does_not_recover():
    hasty = ScriptedAgent(["set alpha amber"], fallback="submit")
    with pytest.raises(AssertionError, match="did not recover") as err:
        assert_recovers(ScriptedAgentEnv(), hasty, fault="tool_error@turn=1", budget=5, seeds=[0])
    assert "set alpha amber" in str(err.value)  # the trace of the episode is printed


def test_fails_when_the_fault_never_fires():
    with pytest.raises(AssertionError, match="never fired"):
        assert_recovers(ScriptedAgentEnv(), ScriptedAgent(["help"]), fault="tool_error@turn=1", budget=3, seeds=[0])


def test_fails_when_the_budget_is_too_small_to_recover():
    env = ScriptedAgentEnv()
    assert_recovers(env, OracleAgent(), fault="timeout@turn=1", budget=4, seeds=[1])  # min_turns 3, +1 retry
    with pytest.raises(AssertionError, match="did not recover"):
        assert_recovers(env, OracleAgent(), fault="timeout@turn=1", budget=3, seeds=[1])


def test_run_episode_records_the_episode():
    env = TurnLimit(ScriptedAgentEnv(), 4)
    episode = run_episode(env, lambda obs, info: "get alpha", seed=0)
    assert isinstance(episode, Episode) and episode.turns == 4 and episode.truncated and not episode.success
    assert episode.actions == ["get alpha"] * 4 and len(episode.rewards) == 4
    assert any(e["kind"] == "state_mismatch" for e in episode.events)
    with pytest.raises(AssertionError, match="max_steps=3"):
        run_episode(ScriptedAgentEnv(), lambda obs, info: "help", seed=0, max_steps=3)
