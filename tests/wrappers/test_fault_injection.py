"""ToolFailureInjector schedules, persistence, seeding, the spec grammar, and oracle recovery."""

from __future__ import annotations

import gymnasium as gym
import pytest

from agentgym.core import DEFAULT_RETRY_AFTER, FAULT_KINDS
from agentgym.errors import ConfigError
from agentgym.testing.kv_env import ScriptedAgentEnv, ScriptedEnv
from agentgym.wrappers import ToolFailureInjector, TurnLimit, parse_faults
from support.toy_env import ToyEnv


def faults_of(info):
    return [(e["fault"], e["tool"], e["transient"]) for e in info["events"] if e["kind"] == "fault_injected"]


def play(env, actions, seed=0):
    env.reset(seed=seed)
    return [faults_of(env.step(a)[-1]) for a in actions]


def test_at_turns_fails_the_tool_call_of_those_turns():
    env = ToolFailureInjector(ScriptedAgentEnv(), at_turns=[1, 3])
    assert play(env, ["get alpha"] * 4) == [[("tool_error", "get", True)], [], [("tool_error", "get", True)], []]


def test_a_due_fault_waits_for_the_next_tool_call():
    env = ToolFailureInjector(ScriptedAgentEnv(), kinds="timeout", at_turns=1)
    assert play(env, ["help", "garbage!", "get alpha", "get alpha"]) == [[], [], [("timeout", "get", True)], []]


def test_first_k_fails_the_first_k_tool_calls():
    env = ToolFailureInjector(ScriptedAgentEnv(), kinds=["empty_output"], first_k=2)
    got = play(env, ["help", "get alpha", "set alpha x", "get alpha"])
    assert got == [[], [("empty_output", "get", True)], [("empty_output", "set", True)], []]


def test_probability_one_and_zero():
    always = ToolFailureInjector(ScriptedAgentEnv(), p=1.0)
    assert all(play(always, ["get alpha"] * 5))
    never = ToolFailureInjector(ScriptedAgentEnv(), p=0.0)
    assert not any(play(never, ["get alpha"] * 5))


def test_probability_faults_are_reproduced_by_the_seed():
    env = ToolFailureInjector(ScriptedAgentEnv(), kinds=FAULT_KINDS, p=0.5)
    actions = ["get alpha", "set alpha amber", "help"] * 6
    runs = {seed: play(env, actions, seed) for seed in range(4)}
    assert all(play(env, actions, seed) == runs[seed] for seed in range(4))
    assert len({str(r) for r in runs.values()}) > 1  # different seeds, different faults
    kinds = {f[0] for r in runs.values() for step in r for f in step}
    assert kinds == set(FAULT_KINDS)


def test_persistent_fault_keeps_the_same_tool_down_only():
    env = ToolFailureInjector(ScriptedAgentEnv(), kinds="tool_error", at_turns=[1], transient=False)
    got = play(env, ["get alpha", "set alpha x", "get alpha", "get beta"])
    assert got == [[("tool_error", "get", False)], [], [("tool_error", "get", False)], [("tool_error", "get", False)]]


def test_several_rules():
    env = ToolFailureInjector(ScriptedAgentEnv(), **parse_faults("timeout@turn=2;corrupted_output@first=1"))
    got = play(env, ["get alpha", "get alpha", "get alpha"])
    assert got == [[("corrupted_output", "get", True)], [("timeout", "get", True)], []]


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_oracle_solves_after_a_transient_fault_of_every_kind(kind):
    env = TurnLimit(ToolFailureInjector(ScriptedAgentEnv(), kinds=kind, at_turns=[1, 2]), 12)
    for seed in range(6):
        _, info = env.reset(seed=seed)
        terminated = truncated = False
        fired = []
        while not (terminated or truncated):
            *_, terminated, truncated, info = env.step(env.unwrapped.reference_action())
            fired += faults_of(info)
        assert terminated and info["success"], (kind, seed)
        assert [f[0] for f in fired] == [kind, kind]


def test_oracle_recovers_on_the_toy_env(backend):
    env = TurnLimit(ToolFailureInjector(ToyEnv(backend=backend), kinds=["timeout", "tool_error"], at_turns=[1]), 6)
    try:
        for seed in range(3):
            _, info = env.reset(seed=seed)
            terminated = truncated = False
            while not (terminated or truncated):
                *_, terminated, truncated, info = env.step(env.unwrapped.reference_action())
            assert terminated and info["success"] and info["turn"] == info["min_turns"] + 1
    finally:
        env.close()


def test_needs_an_agent_env_and_says_why():
    with pytest.raises(ConfigError, match="AgentEnv.*ScriptedEnv|ScriptedEnv.*inject_fault"):
        ToolFailureInjector(ScriptedEnv(), at_turns=[1])


@pytest.mark.parametrize(
    "kwargs, echoed",
    [
        ({"kinds": ["boom"], "at_turns": [1]}, "boom"),
        ({"at_turns": [0]}, "at_turns=[0]"),
        ({"first_k": 0}, "first_k=0"),
        ({"p": 1.5}, "p=1.5"),
        ({}, "give exactly one"),
        ({"at_turns": [1], "p": 0.1}, "give exactly one"),
        ({"rules": "tool_error@turn=1"}, "rules='tool_error@turn=1'"),
    ],
)
def test_bad_arguments_are_echoed(kwargs, echoed):
    with pytest.raises(ConfigError, match=echoed.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        ToolFailureInjector(ScriptedAgentEnv(), **kwargs)


def test_parse_faults_grammar():
    assert parse_faults("tool_error@turn=1") == {"kinds": ("tool_error",), "transient": True, "at_turns": (1,)}
    assert parse_faults("tool_error@turn=1,3") == {"kinds": ("tool_error",), "transient": True, "at_turns": (1, 3)}
    assert parse_faults("timeout+empty_output@p=0.1:persistent") == {
        "kinds": ("timeout", "empty_output"),
        "transient": False,
        "p": 0.1,
    }
    assert parse_faults("state_drift@first=2") == {"kinds": ("state_drift",), "transient": True, "first_k": 2}
    assert parse_faults("state_drift@mutation=1,3") == {
        "kinds": ("state_drift",),
        "transient": True,
        "at_mutations": (1, 3),
    }
    assert parse_faults(" tool_error@turn=1 ; timeout@first=1 ") == {
        "rules": [
            {"kinds": ("tool_error",), "transient": True, "at_turns": (1,)},
            {"kinds": ("timeout",), "transient": True, "first_k": 1},
        ]
    }


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "tool_error",
        "tool_error@",
        "tool_error@turn=",
        "tool_error@turn=x",
        "explode@turn=1",
        "tool_error@step=1",
        "tool_error@p=2",
        "tool_error@turn=1:forever",
        "tool_error@turn=0",
    ],
)
def test_parse_faults_rejects_bad_specs_echoing_them(spec):
    with pytest.raises(ConfigError) as err:
        parse_faults(spec)
    assert repr(spec.strip()) in str(err.value)


def test_mutation_schedule_drifts_right_after_the_nth_edit_only():
    """``state_drift@mutation=N``: armed on every tool call, but the env drifts only after a step that
    changed task state, and only the N-th such step: a check before it never drifts an earlier edit."""
    env = ToolFailureInjector(ScriptedAgentEnv(), **parse_faults("state_drift@mutation=1"))
    got = play(env, ["get alpha", "set alpha x", "get alpha", "set alpha y"])
    assert got == [[], [("state_drift", "set", True)], [], []]
    env = ToolFailureInjector(ScriptedAgentEnv(), **parse_faults("state_drift@mutation=2"))
    got = play(env, ["set alpha x", "get alpha", "help", "set alpha y", "set alpha z"])
    assert got == [[], [], [], [("state_drift", "set", True)], []]


def test_mutation_drift_is_silent_in_the_observation():
    env = ToolFailureInjector(ScriptedAgentEnv(), **parse_faults("state_drift@mutation=1"))
    env.reset(seed=0)
    obs, *_, info = env.step("set alpha x")
    assert obs["text"] == "ok" and "alpha" not in env.unwrapped.sandbox.data  # said ok; the edit is gone
    assert [e["detail"] for e in info["events"] if e["kind"] == "fault_injected"] == ["alpha removed"]


@pytest.mark.parametrize(
    "spec",
    [
        "tool_error@mutation=1",
        "state_drift@mutation=1:persistent",
        "state_drift+timeout@mutation=1",
        "state_drift@mutation=0",
    ],
)
def test_mutation_schedule_takes_transient_state_drift_only(spec):
    with pytest.raises(ConfigError) as err:
        parse_faults(spec)
    assert repr(spec) in str(err.value)


def test_oracle_solves_coding_after_a_transient_fault_of_every_kind():
    # one sandbox for every kind; the local backend runs the same fault path as docker
    base = gym.make("agentgym/Coding-v0", backend="local", split="test")
    try:
        for seed, kind in enumerate(FAULT_KINDS):
            env = TurnLimit(ToolFailureInjector(base, kinds=kind, at_turns=[1]), 24)
            _, info = env.reset(seed=seed)
            terminated = truncated = False
            fired = []
            while not (terminated or truncated):
                *_, terminated, truncated, info = env.step(env.unwrapped.reference_action())
                fired += faults_of(info)
            assert [f[0] for f in fired] == [kind], (kind, info["task_id"])
            assert terminated and info["success"], (kind, info["task_id"])
            extra = DEFAULT_RETRY_AFTER if kind == "rate_limit" else 1  # one retry, or the rate limit's wait
            assert info["turn"] <= info["min_turns"] + extra, (kind, info["task_id"], info["turn"])
    finally:
        base.close()


def test_an_action_is_parsed_once_with_faults_armed(monkeypatch):
    """The wrapper asks the env which tool an action calls (`AgentEnv.tool_of`); the env's step
    reuses that parse instead of parsing the action a second time."""
    base = ScriptedAgentEnv()
    parses = []
    original = base._parse
    monkeypatch.setattr(base, "_parse", lambda text: parses.append(text) or original(text))
    env = ToolFailureInjector(base, p=0.5)
    got = play(env, ["get alpha", "garbage!", "set alpha x", "get alpha"])
    assert parses == ["get alpha", "garbage!", "set alpha x", "get alpha"]
    assert any(got)  # faults were armed on some of those steps
