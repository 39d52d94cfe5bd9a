"""Bad arguments mean one thing in every family, so the labeler files the same mistake alike.

Attacks on the old split (ToolUse: a failed ``tool_call``; Coding and Browser: an unparsed
``action``, which *any* later tool success made up for): a policy could hide a call it kept
getting wrong behind some other tool's success and have the episode filed as a plan that was
wrong, not as a tool it never got to work. Each family's case: a call of a known tool with
arguments that do not fit, then (a) submit, (b) another tool succeeds, then submit, (c) the
same tool succeeds, then submit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

import agentgym
from support.docker import require_docker

BUDGET = 8


@dataclass(frozen=True)
class Case:
    """One family's spelling of the same mistake: ``bad`` calls ``tool`` with bad arguments."""

    env_id: str
    tool: str
    bad: str
    other: str  # a good call of another tool
    submit: str
    kwargs: tuple[tuple[str, Any], ...] = ()

    def same(self, env: Any) -> str:
        """A good call of ``tool`` on this task."""
        task = env.unwrapped.task
        if self.tool == "view":
            return f"view {next(iter(task.files))}"
        if self.tool == "scroll":
            return 'scroll("down")'
        return task.solution[0]  # ToolUse: the reference's first look-up


CASES = {
    "coding": Case("agentgym/Coding-v0", "view", "view", "test", "submit"),
    "tooluse": Case(
        "agentgym/ToolUse-v0",
        "",
        '{"tool": "%s", "args": {"no_such_argument": 1}}',
        'calculate(expression="1+1")',
        'finish("Done.")',
    ),
    "browser-text": Case("agentgym/Browser-v0", "scroll", 'scroll("left")', "noop()", 'finish("Done.")'),
    "miniwob": Case("agentgym/MiniWoB-v0", "scroll", 'scroll("left")', "noop()", 'finish("Done.")'),
}


def _episode(case: Case, plan: str) -> tuple[str, list[str], list[dict[str, Any]]]:
    env = agentgym.make(case.env_id, budget=BUDGET, labels=True, cost=False, **dict(case.kwargs))
    try:
        if getattr(env.unwrapped, "backends", ("local",)) == ("docker",):
            require_docker(env.unwrapped.image)
        env.reset(seed=3)
        actions = [case.bad % _first_tool(env) if "%s" in case.bad else case.bad]
        actions += {"submit": [], "other": [case.other], "same": [case.same(env)]}[plan]
        events: list[dict[str, Any]] = []
        for action in actions + [case.submit]:
            *_, terminated, truncated, info = env.step(action)
            events += info["events"]
            if terminated or truncated:
                break
        return info["failure_category"], info["failure_flags"], events
    finally:
        env.close()


def _first_tool(env: Any) -> str:
    return env.unwrapped.task.solution[0].partition("(")[0]


@pytest.mark.parametrize("family", sorted(CASES))
def test_bad_arguments_are_a_failed_call_of_the_tool_they_name(family: str) -> None:
    case = CASES[family]
    category, flags, events = _episode(case, "submit")
    head = events[:2]
    assert head[0]["kind"] == "action" and head[0]["parsed_ok"], head
    assert head[1]["kind"] == "tool_call" and not head[1]["ok"] and head[1]["error_kind"] == "bad_args", head
    assert category == "tool_call_error", (category, flags)


@pytest.mark.parametrize("family", sorted(CASES))
def test_another_tool_succeeding_does_not_make_up_for_bad_arguments(family: str) -> None:
    category, flags, events = _episode(CASES[family], "other")
    assert any(e["kind"] == "tool_call" and e["ok"] for e in events), events  # the other tool worked
    assert category == "tool_call_error" and "error_recovered" not in flags, (category, flags)


@pytest.mark.parametrize("family", sorted(CASES))
def test_the_same_tool_succeeding_makes_up_for_bad_arguments(family: str) -> None:
    category, flags, _ = _episode(CASES[family], "same")
    assert "tool_call_error" not in flags and "error_recovered" in flags, (category, flags)
