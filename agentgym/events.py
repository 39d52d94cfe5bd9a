"""Typed events: the ground truth for failure labels, process rewards and metrics.

An event is a plain dict with a ``"kind"`` key, so trajectories serialise to JSON as they are
and offline tools (the labeler, the harness) read them without agentgym objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "EVENT_KINDS",
    "FAULT_KINDS",
    "RATE_LIMITED",
    "EventError",
    "action",
    "tool_call",
    "fault_injected",
    "mutation",
    "verification",
    "state_mismatch",
    "subtask",
    "submit",
    "budget_warning",
    "budget_extension",
    "check",
    "is_error",
    "subtask_changes",
]

Event = dict[str, Any]

FAULT_KINDS = (
    "tool_error",
    "timeout",
    "empty_output",
    "corrupted_output",
    "state_drift",
    "rate_limit",
    "wrong_value",
)
"""Faults an env applies to a tool action when `AgentEnv.inject_fault` armed one.

``rate_limit``: the call is refused with a retry-after of N turns, and every tool call before
then is refused again (the env counts the turns; the fault event is recorded once, at the first
refusal). ``wrong_value``: the tool runs and answers in its normal format with plausible wrong
content; a second call shows the truth (docs/how-to/faults.md)."""

RATE_LIMITED = "rate_limit"
"""The ``error_kind`` of a tool call refused by a rate limit (the first refusal and every one after it)."""

_OPT_STR = (str, type(None))
# kind -> the fields it must carry and their types; other fields may be added (a drift's detail)
_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "action": {"parsed_ok": bool, "name": _OPT_STR, "error": _OPT_STR},
    "tool_call": {"name": str, "ok": bool, "error_kind": _OPT_STR},
    "fault_injected": {"fault": str, "tool": _OPT_STR, "transient": bool},
    "mutation": {"target": str},
    "verification": {"ok": bool, "target": _OPT_STR},
    "state_mismatch": {"detail": str},
    "subtask": {"name": str, "done": bool},
    "submit": {},
    "budget_warning": {"turns_left": int},
    "budget_extension": {"granted": bool, "extra": int, "reason": _OPT_STR},
}
EVENT_KINDS = tuple(_FIELDS)
"""Every event kind, with one meaning across families (docs/new_family.md, "Events"):

- ``action``: ``parsed_ok`` is False only for text that names no action of the grammar (not a
  call, an unknown tool, ``finish``/``help``/``submit``/``extend`` given arguments they cannot
  take). Such an action names no tool, so any later successful tool call makes up for it.
- ``tool_call``: ``ok`` is False when the tool did not do what was asked, *including* a lookup
  of something that does not exist (a missing file, record or page element); ``error_kind``
  then says how (``not_found``, ``bad_args``, ``timeout``, ...).
- **Bad arguments** have one meaning in every family: a call of a known tool whose arguments do
  not fit it (missing, unknown, mistyped, out of range; refused by the grammar's check or by the
  tool itself) is ``action(parsed_ok=True, name)`` then ``tool_call(tool, ok=False,
  error_kind="bad_args")`` (`agentgym.core.BadArguments`). The agent named the tool, so only a
  later success of *that* tool makes up for it (`agentgym.wrappers.labels`).
- ``state_mismatch``: the agent referred to something not in the current state; it comes with
  the failed ``tool_call`` that the reference caused.
- ``subtask``: emitted when a subtask's status *changes* this step (never a full snapshot).
- ``budget_warning``: a `BudgetWarning` wrapper told the agent, in words, that ``turns_left``
  turns remain (this one included).
- ``budget_extension``: the agent sent ``extend`` to a `BudgetExtension` wrapper; ``granted``
  says whether it got ``extra`` more turns (0 when refused), ``reason`` why it was refused
  (``"limit"``: no request left; ``"bad_args"``: ``extend`` takes no arguments).
"""


class EventError(ValueError):
    """An event that breaks the contract: unknown kind, a missing field, or a field of the wrong type."""


def check(event: Event) -> Event:
    """Validate one event against the contract and return it; raise `EventError` saying what is wrong."""
    if not isinstance(event, dict):
        raise EventError(f"an event is a dict with a 'kind', not {type(event).__name__}: {event!r}")
    fields = _FIELDS.get(event.get("kind"))  # type: ignore[arg-type]
    if fields is None:
        raise EventError(f"event kind {event.get('kind')!r}; choose from {EVENT_KINDS}")
    for name, types in fields.items():
        if name not in event:
            raise EventError(f"{event['kind']} event without {name!r}: {event!r}")
        if not isinstance(event[name], types):
            raise EventError(f"{event['kind']} event field {name!r} is {event[name]!r}; expected {types}")
    if event["kind"] == "tool_call" and not event["ok"] and not event["error_kind"]:
        raise EventError(f"a failed tool_call says how it failed (error_kind): {event!r}")
    if event["kind"] == "fault_injected" and event["fault"] not in FAULT_KINDS:
        raise EventError(f"fault {event['fault']!r}; choose from {FAULT_KINDS}")
    return event


def action(parsed_ok: bool, name: str | None = None, error: str | None = None) -> Event:
    """The agent's action was (or was not) understood by the family grammar."""
    return check({"kind": "action", "parsed_ok": bool(parsed_ok), "name": name, "error": error})


def tool_call(name: str, ok: bool, error_kind: str | None = None) -> Event:
    """A tool or command ran; ``error_kind`` says how it failed (e.g. ``timeout``, ``bad_args``, ``not_found``)."""
    return check({"kind": "tool_call", "name": name, "ok": bool(ok), "error_kind": error_kind})


def fault_injected(fault: str, tool: str | None = None, transient: bool = True) -> Event:
    """A wrapper injected a fault into this step's tool result."""
    return check({"kind": "fault_injected", "fault": fault, "tool": tool, "transient": bool(transient)})


def mutation(target: str) -> Event:
    """The agent changed task state (edited a file, wrote a record)."""
    return check({"kind": "mutation", "target": target})


def verification(ok: bool, target: str | None = None) -> Event:
    """The agent checked its work (ran tests, re-read a record); ``ok`` is what the check said."""
    return check({"kind": "verification", "ok": bool(ok), "target": target})


def state_mismatch(detail: str) -> Event:
    """The agent referred to something that is not in the current state."""
    return check({"kind": "state_mismatch", "detail": detail})


def subtask(name: str, done: bool) -> Event:
    """A subtask's status changed with this step."""
    return check({"kind": "subtask", "name": name, "done": bool(done)})


def submit() -> Event:
    """The agent submitted its work; the episode terminates."""
    return {"kind": "submit"}


def budget_warning(turns_left: int) -> Event:
    """The agent was warned that ``turns_left`` turns remain, this one included."""
    return check({"kind": "budget_warning", "turns_left": int(turns_left)})


def budget_extension(granted: bool, extra: int = 0, reason: str | None = None) -> Event:
    """The agent asked for more turns; ``extra`` were granted (0 and a ``reason`` when refused)."""
    return check({"kind": "budget_extension", "granted": bool(granted), "extra": int(extra), "reason": reason})


def subtask_changes(known: dict[str, bool], state: Mapping[str, bool]) -> list[Event]:
    """`subtask` events for each status in ``state`` that differs from ``known`` (a subtask not yet
    known counts as not done), updating ``known``: the one way families report subtasks."""
    out = []
    for name, done in state.items():
        if known.get(name, False) != bool(done):
            known[name] = bool(done)
            out.append(subtask(name, done))
    return out


def is_error(event: Mapping[str, Any]) -> bool:
    """The one definition of an error event: an action the grammar did not understand, or a tool call
    that failed (injected or not). Labels, the eval harness and the oracle's cursor all use it."""
    kind = event.get("kind")
    return (kind == "action" and not event.get("parsed_ok", True)) or (
        kind == "tool_call" and not event.get("ok", True)
    )
