"""Typed events: the ground truth for failure labels, process rewards and metrics.

An event is a plain dict with a ``"kind"`` key, so trajectories serialise to JSON as they are
and offline tools (the labeler, the harness) read them without agentgym objects.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "EVENT_KINDS",
    "action",
    "tool_call",
    "fault_injected",
    "mutation",
    "verification",
    "state_mismatch",
    "subtask",
    "submit",
    "is_error",
]

Event = dict[str, Any]

EVENT_KINDS = (
    "action",
    "tool_call",
    "fault_injected",
    "mutation",
    "verification",
    "state_mismatch",
    "subtask",
    "submit",
)


def action(parsed_ok: bool, name: str | None = None, error: str | None = None) -> Event:
    """The agent's action was (or was not) understood by the family grammar."""
    return {"kind": "action", "parsed_ok": bool(parsed_ok), "name": name, "error": error}


def tool_call(name: str, ok: bool, error_kind: str | None = None) -> Event:
    """A tool or command ran; ``error_kind`` says how it failed (e.g. ``timeout``, ``bad_args``)."""
    return {"kind": "tool_call", "name": name, "ok": bool(ok), "error_kind": error_kind}


def fault_injected(fault: str, tool: str | None = None, transient: bool = True) -> Event:
    """A wrapper injected a fault into this step's tool result."""
    return {"kind": "fault_injected", "fault": fault, "tool": tool, "transient": bool(transient)}


def mutation(target: str) -> Event:
    """The agent changed task state (edited a file, wrote a record)."""
    return {"kind": "mutation", "target": target}


def verification(ok: bool, target: str | None = None) -> Event:
    """The agent checked its work (ran tests, re-read a record); ``ok`` is what the check said."""
    return {"kind": "verification", "ok": bool(ok), "target": target}


def state_mismatch(detail: str) -> Event:
    """The agent referred to something that is not in the current state."""
    return {"kind": "state_mismatch", "detail": detail}


def subtask(name: str, done: bool) -> Event:
    """Progress on one of the task's subtasks, as observed after this step."""
    return {"kind": "subtask", "name": name, "done": bool(done)}


def submit() -> Event:
    """The agent submitted its work; the episode terminates."""
    return {"kind": "submit"}


def is_error(event: Event) -> bool:
    """The one definition of an error event: an action the grammar did not understand, or a tool call
    that failed (injected or not). Labels, the eval harness and the oracle's cursor all use it."""
    kind = event.get("kind")
    return (kind == "action" and not event.get("parsed_ok", True)) or (kind == "tool_call" and not event.get("ok", True))
