"""Failure labels: why an episode ended the way it did, from its events alone.

- `label_episode(events, *, success, truncated)`: the pure function, usable offline on saved
  trajectories (the concatenated ``info["events"]`` of every step).
- `FailureLabeler(env)`: collects the events of an episode and puts the label in the final info.
- `CATEGORIES`: the categories in precedence order (DESIGN section 5); first match wins.

Rules, checked in this order:

1. ``success``: the verifier passed.
2. ``answer_contradicts_state``: the work was right (the world as the task wants it, a refusal
   grounded in what the agent saw) and the final message alone failed: it claims the work was
   not done, refuses, claims it was done on a refusal task, or states the wrong value. The
   verifier says so (``info["answer_contradicts_state"]``, Stateful worlds: ToolUse-v0, Browser-v0),
   so reports tell wrong words from wrong work.
3. ``timeout``: the episode was truncated (turn budget or wall clock) before any submission.
4. ``tool_call_error``: a tool call failed, injected or not, and that tool never succeeded
   afterwards; or an action was malformed and no tool call succeeded afterwards (a malformed
   action names no tool, so "that tool" is read as "any tool"). Bad arguments to a known tool
   are a failed call of that tool in every family (``error_kind="bad_args"``, `agentgym.events`).
5. ``state_misidentification``: any ``state_mismatch`` event.
6. ``missing_verification``: submitted with no ``verification`` after the last ``mutation``, or
   after a ``wrong_value`` fault with no cross-check since: no later successful call of the faulted
   tool and no ``verification``.

A wrong value the agent never cross-checked is the agent's checking failing, never a tool's: the
faulted call succeeded (the tool answered, in its usual format). So after such a fault, tool calls
that fail (the agent looked up the wrong record's id) count as ``state_misidentification``, not
``tool_call_error``, and a final message that states the believed value is filed there or under
``missing_verification`` (with ``answer_contradicts_state`` as a flag), not under rule 2.
7. ``planning_mistake``: everything else.

``flags`` lists every rule among 1-6 that held, in that order, plus ``planning_mistake`` when it
is the category, and observations that are not categories: ``fault_injected``,
``error_recovered`` (a tool failed or an action was malformed, and a later call made up for it)
``sandbox_crashed`` (the agent's own action killed or wedged its sandbox; the episode ended
there, so it is also a ``tool_call_error``) and ``timeout_after_extension`` (the agent asked a
`BudgetExtension` for more turns, granted or not, and still ran out: ``timeout`` stays the
category, since the budget ended the episode, and the flag tells a soft budget that did not
suffice from a hard one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

from agentgym import events as ev

__all__ = ["CATEGORIES", "label_episode", "FailureLabeler"]

CATEGORIES = (
    "success",
    "answer_contradicts_state",
    "timeout",
    "tool_call_error",
    "state_misidentification",
    "missing_verification",
    "planning_mistake",
)

_ANY_TOOL = "\x00any tool"  # what a malformed action waits for to count as recovered


def _tool_errors(events: list[Mapping[str, Any]]) -> tuple[bool, bool]:
    """(some error was never made up for, some error was made up for)."""
    pending: set[str] = set()
    recovered = False
    for e in events:
        if ev.is_error(e):  # a malformed action waits for any tool; a failed call for its own tool
            pending.add(_ANY_TOOL if e.get("kind") == "action" else str(e.get("name")))
        elif e.get("kind") == "tool_call":
            name = str(e.get("name"))
            if name in pending or _ANY_TOOL in pending:
                recovered = True
            pending.discard(name)
            pending.discard(_ANY_TOOL)
    return bool(pending), recovered


def _unchecked_wrong_value(events: list[Mapping[str, Any]]) -> int | None:
    """The index of the first ``wrong_value`` fault after which the agent neither called that tool
    again successfully nor verified anything (it went on with the wrong value it was shown), or None."""
    for i, e in enumerate(events):
        if e.get("kind") == "fault_injected" and e.get("fault") == "wrong_value":
            tool = e.get("tool")
            if not any(
                later.get("kind") == "verification"
                or (later.get("kind") == "tool_call" and later.get("ok") and later.get("name") == tool)
                for later in events[i + 1 :]
            ):
                return i
    return None


def label_episode(
    events: Iterable[Mapping[str, Any]], *, success: bool, truncated: bool, answer_contradicts_state: bool = False
) -> tuple[str, list[str]]:
    """The episode's category (exactly one of `CATEGORIES`) and its flags; ``answer_contradicts_state``:
    the verifier found the work right and only the final message wrong (the verifying step's info).

    >>> from agentgym import events as ev
    >>> label_episode([ev.action(True, "write"), ev.mutation("a.py"), ev.submit()], success=False, truncated=False)
    ('missing_verification', ['missing_verification'])
    >>> label_episode([ev.tool_call("run", False, "timeout")], success=False, truncated=True)
    ('timeout', ['timeout', 'tool_call_error'])
    >>> label_episode([ev.budget_extension(True, 3)], success=False, truncated=True)
    ('timeout', ['timeout', 'timeout_after_extension'])
    """
    events = list(events)
    kinds = [e.get("kind") for e in events]
    submitted = "submit" in kinds
    unrecovered, recovered = _tool_errors(events)
    last_mutation = max((i for i, k in enumerate(kinds) if k == "mutation"), default=-1)
    believed = _unchecked_wrong_value(events)
    verified = (last_mutation < 0 or "verification" in kinds[last_mutation + 1 :]) and believed is None
    mismatch = "state_mismatch" in kinds
    if believed is not None:  # what failed after a wrong value went unchecked is the checking, not a tool
        unrecovered = _tool_errors(events[:believed])[0]
        mismatch = mismatch or any(ev.is_error(e) for e in events[believed:])
    held = {
        "success": bool(success),
        "answer_contradicts_state": bool(answer_contradicts_state) and not success and believed is None,
        "timeout": bool(truncated) and not submitted,
        "tool_call_error": unrecovered,
        "state_misidentification": mismatch,
        "missing_verification": submitted and not verified,
    }
    flags = [name for name in CATEGORIES[:-1] if held[name]]
    category = flags[0] if flags else "planning_mistake"
    if not flags:
        flags.append("planning_mistake")
    if believed is not None and answer_contradicts_state and not success:
        flags.append("answer_contradicts_state")  # the words repeat the value it believed
    if "fault_injected" in kinds:
        flags.append("fault_injected")
    if recovered:
        flags.append("error_recovered")
    if any(e.get("kind") == "tool_call" and e.get("error_kind") == "sandbox_crashed" for e in events):
        flags.append("sandbox_crashed")
    if held["timeout"] and "budget_extension" in kinds:
        flags.append("timeout_after_extension")
    return category, flags


class FailureLabeler(gym.Wrapper, RecordConstructorArgs):
    """At the end of an episode puts ``info["failure_category"]`` and ``info["failure_flags"]``.

    It must sit outside the budget wrapper (it reads ``truncated``) and see every step's
    ``info["events"]``; `agentgym.make` places it so. Success is ``info["success"]`` of the last
    step (the verifier's verdict, or ``end_by_budget``'s on truncation).

    >>> from agentgym.wrappers import FailureLabeler, TurnLimit
    >>> from agentgym.testing.kv_env import ScriptedAgentEnv
    >>> env = FailureLabeler(TurnLimit(ScriptedAgentEnv(), max_turns=2))
    >>> _ = env.reset(seed=0)
    >>> _ = env.step("get alpha")
    >>> *_, truncated, info = env.step("help")
    >>> truncated, info["failure_category"], info["failure_flags"]
    (True, 'timeout', ['timeout', 'state_misidentification'])
    """

    def __init__(self, env: gym.Env) -> None:
        RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        self.events: list[dict[str, Any]] = []

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self.events = list(info.get("events", ()))
        return obs, info

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.events.extend(info.get("events", ()))
        if terminated or truncated:
            category, flags = label_episode(
                self.events,
                success=bool(info.get("success")),
                truncated=truncated,
                answer_contradicts_state=bool(info.get("answer_contradicts_state")),
            )
            info["failure_category"], info["failure_flags"] = category, flags
        return obs, reward, terminated, truncated, info
