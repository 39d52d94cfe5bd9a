"""One named test per labeling rule (DESIGN 5), on hand-built event sequences, plus the wrapper."""

from __future__ import annotations

from agentgym import events as ev
from agentgym.testing.kv_env import ScriptedAgentEnv, ScriptedEnv
from agentgym.wrappers import FailureLabeler, TurnLimit
from agentgym.wrappers.labels import CATEGORIES, label_episode

WRITE_CHECK_SUBMIT = [
    ev.action(True, "write"),
    ev.tool_call("write", True),
    ev.mutation("a.py"),
    ev.action(True, "test"),
    ev.tool_call("test", True),
    ev.verification(True, "tests"),
    ev.action(True, "submit"),
    ev.submit(),
]


def test_success_wins_over_every_other_condition():
    events = [ev.tool_call("run", False, "timeout"), ev.state_mismatch("gone"), ev.mutation("a"), ev.submit()]
    category, flags = label_episode(events, success=True, truncated=False)
    assert category == "success"
    assert flags == ["success", "tool_call_error", "state_misidentification", "missing_verification"]


def test_timeout_is_truncation_before_any_submission():
    events = WRITE_CHECK_SUBMIT[:-2]
    assert label_episode(events, success=False, truncated=True) == ("timeout", ["timeout"])


def test_truncation_after_a_submission_is_not_a_timeout():
    category, flags = label_episode(WRITE_CHECK_SUBMIT, success=False, truncated=True)
    assert category == "planning_mistake" and "timeout" not in flags


def test_tool_call_error_when_the_failed_tool_never_succeeds_again():
    events = [ev.action(True, "test"), ev.tool_call("test", False, "tool_error"), *WRITE_CHECK_SUBMIT[:3], ev.submit()]
    category, _ = label_episode(events, success=False, truncated=False)
    assert category == "tool_call_error"


def test_tool_error_recovered_by_a_later_success_of_the_same_tool():
    events = [ev.tool_call("test", False, "timeout"), ev.fault_injected("timeout", "test"), *WRITE_CHECK_SUBMIT]
    category, flags = label_episode(events, success=False, truncated=False)
    assert category == "planning_mistake"
    assert flags == ["planning_mistake", "fault_injected", "error_recovered"]


def test_success_of_another_tool_does_not_recover_a_failed_tool():
    events = [ev.tool_call("test", False, "crash"), ev.tool_call("write", True), ev.submit()]
    assert label_episode(events, success=False, truncated=False)[0] == "tool_call_error"


def test_malformed_action_without_a_later_working_tool_call_is_a_tool_call_error():
    events = [ev.action(False, error="expected ..."), ev.action(True, "submit"), ev.submit()]
    assert label_episode(events, success=False, truncated=False)[0] == "tool_call_error"


def test_malformed_action_recovered_by_a_later_working_tool_call():
    events = [ev.action(False, error="expected ..."), *WRITE_CHECK_SUBMIT]
    category, flags = label_episode(events, success=False, truncated=False)
    assert category == "planning_mistake" and "error_recovered" in flags


def test_state_misidentification_on_any_state_mismatch():
    events = [*WRITE_CHECK_SUBMIT[:6], ev.state_mismatch("no line 40 in a.py"), ev.submit()]
    assert label_episode(events, success=False, truncated=False) == (
        "state_misidentification",
        ["state_misidentification"],
    )


def test_missing_verification_when_a_mutation_follows_the_last_check():
    events = [*WRITE_CHECK_SUBMIT[:6], ev.mutation("a.py"), ev.submit()]
    assert label_episode(events, success=False, truncated=False) == ("missing_verification", ["missing_verification"])


def test_failed_verification_still_counts_as_verifying():
    events = [ev.mutation("a.py"), ev.verification(False, "tests"), ev.submit()]
    assert label_episode(events, success=False, truncated=False)[0] == "planning_mistake"


def test_no_mutation_needs_no_verification():
    assert label_episode([ev.submit()], success=False, truncated=False) == ("planning_mistake", ["planning_mistake"])


def test_planning_mistake_when_nothing_else_held():
    assert label_episode(WRITE_CHECK_SUBMIT, success=False, truncated=False) == (
        "planning_mistake",
        ["planning_mistake"],
    )


def test_precedence_order_matches_design():
    assert CATEGORIES == (
        "success",
        "answer_contradicts_state",
        "timeout",
        "tool_call_error",
        "state_misidentification",
        "missing_verification",
        "planning_mistake",
    )
    events = [ev.tool_call("run", False, "crash"), ev.state_mismatch("x"), ev.mutation("a")]
    assert label_episode(events, success=False, truncated=True)[0] == "timeout"
    assert label_episode([*events, ev.submit()], success=False, truncated=False)[0] == "tool_call_error"
    assert label_episode([*events[1:], ev.submit()], success=False, truncated=False)[0] == "state_misidentification"


def test_labeler_labels_only_the_last_step_and_matches_the_pure_function():
    env = FailureLabeler(TurnLimit(ScriptedAgentEnv(), 10))
    _, info = env.reset(seed=4)
    events = []
    for _ in range(info["min_turns"]):
        *_, terminated, truncated, info = env.step(env.unwrapped.reference_action())
        events += info["events"]
        assert ("failure_category" in info) == (terminated or truncated)
    assert info["failure_category"] == "success"
    assert label_episode(events, success=True, truncated=False) == (info["failure_category"], info["failure_flags"])


def test_labeler_works_on_a_plain_gymnasium_env_with_events():
    env = FailureLabeler(TurnLimit(ScriptedEnv(), 2))
    env.reset(seed=0)
    env.step("set nokey x")
    *_, truncated, info = env.step("help")
    assert truncated and info["failure_category"] == "timeout"
    assert info["failure_flags"] == ["timeout", "tool_call_error"]


def test_labeler_sees_events_of_the_previous_episode_no_more():
    env = FailureLabeler(TurnLimit(ScriptedAgentEnv(), 3))
    env.reset(seed=0)
    for _ in range(3):
        *_, info = env.step("get alpha")
    assert info["failure_category"] == "timeout" and "state_misidentification" in info["failure_flags"]
    env.reset(seed=0)
    for _ in range(3):
        *_, info = env.step("help")
    assert info["failure_flags"] == ["timeout"]
