"""``rate_limit`` and ``wrong_value``: the spec grammar, the env's window, seeding, and the labels they lead to."""

from __future__ import annotations

import pytest

import agentgym
from agentgym import events as ev
from agentgym.errors import ConfigError
from agentgym.testing.kv_env import WORDS, ScriptedAgentEnv
from agentgym.wrappers import FailureLabeler, ToolFailureInjector, TurnLimit, label_episode, parse_faults


def _faults(info):
    return [e["fault"] for e in info["events"] if e["kind"] == "fault_injected"]


def test_retry_after_is_part_of_the_spec():
    assert parse_faults("rate_limit@turn=2:retry_after=4") == {
        "kinds": ("rate_limit",),
        "transient": True,
        "retry_after": 4,
        "at_turns": (2,),
    }
    assert parse_faults("rate_limit@p=0.1:persistent:retry_after=1")["transient"] is False


@pytest.mark.parametrize(
    "spec,echo",
    [
        ("rate_limit@turn=1:retry_after=0", "retry_after=0"),
        ("rate_limit@turn=1:retry_after=two", "'two'"),
        ("rate_limit@turn=1:retry_after=-3", "retry_after=-3"),
        ("tool_error@turn=1:retry_after=2", "retry_after=2"),
        ("rate_limits@turn=1", "rate_limits"),
        ("wrong_value@turn=1:wait=2", "wait=2"),
    ],
)
def test_bad_specs_are_refused_with_the_bad_part_echoed(spec, echo):
    with pytest.raises(ConfigError) as err:
        parse_faults(spec)
    assert echo in str(err.value)


def test_inject_fault_refuses_a_bad_retry_after():
    env = ScriptedAgentEnv()
    env.reset(seed=0)
    for bad in (0, 1.5, True, "2"):
        with pytest.raises(ConfigError, match="retry_after"):
            env.inject_fault("rate_limit", retry_after=bad)


def test_a_family_refuses_a_kind_it_does_not_apply_by_name():
    with pytest.raises(ConfigError, match="'wrong_value' does not apply to MiniWoBEnv"):
        agentgym.make("agentgym/MiniWoB-v0", faults="wrong_value@turn=1")
    env = agentgym.make("agentgym/ToolUse-v0", backend="local")
    try:
        env.reset(seed=0, options={"faults": "wrong_value@turn=1"})  # ToolUse applies it
    finally:
        env.close()


def test_the_window_counts_turns_and_holds_for_every_tool():
    env = ToolFailureInjector(ScriptedAgentEnv(), kinds="rate_limit", at_turns=[1], retry_after=3)
    env.reset(seed=0)
    key = next(iter(env.unwrapped.task.meta["targets"]))
    obs, *_, info = env.step(f"set {key} amber")  # turn 1: refused, the fault recorded once
    assert _faults(info) == ["rate_limit"] and "retry in 3 turns" in obs["text"]
    assert env.unwrapped.rate_limited == 2 and env.unwrapped.oracle_wait() == "help"
    obs, *_, info = env.step(f"get {key}")  # turn 2: another tool, refused, no second fault event
    assert _faults(info) == [] and "retry in 2 turns" in obs["text"]
    assert [e["error_kind"] for e in info["events"] if e["kind"] == "tool_call"] == [ev.RATE_LIMITED]
    obs, *_, info = env.step("help")  # turn 3: waiting
    assert env.unwrapped.rate_limited == 0 and env.unwrapped.oracle_wait() is None
    obs, *_, info = env.step(f"set {key} amber")  # turn 4: through
    assert obs["text"] == "ok"


def test_the_oracle_waits_then_succeeds():
    env = FailureLabeler(TurnLimit(ToolFailureInjector(ScriptedAgentEnv(), "rate_limit", at_turns=[1]), 10))
    env.reset(seed=3)
    actions, done = [], False
    while not done:
        actions.append(env.unwrapped.reference_action())
        *_, terminated, truncated, info = env.step(actions[-1])
        done = terminated or truncated
    assert info["success"] and actions[1] == "help"  # it waited with a harmless action, not a refused call
    assert info["failure_category"] == "success" and "error_recovered" in info["failure_flags"]


def test_a_wrong_value_is_seeded_and_transient():
    def episode(seed):
        env = ToolFailureInjector(ScriptedAgentEnv(), kinds="wrong_value", first_k=1)
        env.reset(seed=seed)
        key, value = next(iter(env.unwrapped.task.meta["targets"].items()))
        env.step(f"set {key} {value}")
        first = env.step(f"get {key}")
        second = env.step(f"get {key}")
        return value, first[0]["text"], _faults(first[-1]), second[0]["text"]

    for seed in range(5):
        value, shown, faults, again = episode(seed)
        assert faults == ["wrong_value"] and shown != value and shown in WORDS and again == value
        assert episode(seed) == (value, shown, faults, again)  # the same seed, the same wrong value


def test_submitting_on_a_wrong_value_is_missing_verification_not_a_tool_error():
    env = FailureLabeler(ToolFailureInjector(ScriptedAgentEnv(), kinds="wrong_value", first_k=1))
    env.reset(seed=0)
    targets = env.unwrapped.task.meta["targets"]
    key = next(iter(targets))
    env.step(f"set {key} {WORDS[(WORDS.index(targets[key]) + 1) % len(WORDS)]}")  # a wrong write
    obs, *_, info = env.step(f"get {key}")  # the check shows a wrong value, which the agent believes
    assert _faults(info) == ["wrong_value"] and not any(e["kind"] == "verification" for e in info["events"])
    *_, info = env.step("submit")
    assert not info["success"]
    assert info["failure_category"] == "missing_verification", info["failure_flags"]
    assert "tool_call_error" not in info["failure_flags"]


def test_label_rule_a_second_call_or_a_verification_is_the_cross_check():
    faulted = [ev.action(True, "get"), ev.tool_call("get", True), ev.fault_injected("wrong_value", "get")]
    assert label_episode([*faulted, ev.submit()], success=False, truncated=False)[0] == "missing_verification"
    again = [ev.tool_call("get", True)]
    assert label_episode([*faulted, *again, ev.submit()], success=False, truncated=False)[0] == "planning_mistake"
    checked = [ev.tool_call("tests", True), ev.verification(True, "visible tests")]
    assert label_episode([*faulted, *checked, ev.submit()], success=False, truncated=False)[0] == "planning_mistake"
    other = [ev.tool_call("set", True)]  # another tool's success is no cross-check of the value
    assert label_episode([*faulted, *other, ev.submit()], success=False, truncated=False)[0] == "missing_verification"


def test_a_rate_limit_never_lifted_is_a_tool_call_error():
    events = [ev.tool_call("get", False, ev.RATE_LIMITED), ev.fault_injected("rate_limit", "get"), ev.submit()]
    category, flags = label_episode(events, success=False, truncated=False)
    assert category == "tool_call_error" and "fault_injected" in flags


def test_acting_on_a_believed_wrong_value_is_state_misidentification():
    """The agent looked up the wrong record's id it was shown: the not-found call is its misreading of the
    state, not a tool failing; and a final message that repeats a believed value is not rule 2's."""
    faulted = [ev.tool_call("find_user", True), ev.fault_injected("wrong_value", "find_user")]
    lookup = [ev.tool_call("get_user", False, "not_found"), ev.state_mismatch("U4299 does not exist")]
    category, flags = label_episode([*faulted, *lookup, ev.submit()], success=False, truncated=False)
    assert category == "state_misidentification" and "tool_call_error" not in flags
    category, flags = label_episode(
        [*faulted, ev.submit()], success=False, truncated=False, answer_contradicts_state=True
    )
    assert category == "missing_verification" and "answer_contradicts_state" in flags
    earlier = [ev.tool_call("set", False, "timeout")]  # a tool error before the fault is still one
    assert label_episode([*earlier, *faulted, ev.submit()], success=False, truncated=False)[0] == "tool_call_error"
