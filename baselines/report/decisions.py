"""Where success comes from: first decisions or recovery. An agent wrapper that records both.

`DecisionRecorder` wraps any agent and watches the events of each step. The first action
that changed task state (a ``mutation`` event: a patch, a write) is the agent's first
commitment; it is *right* when it is one of the task's reference-solution actions. An episode
whose first commitment was wrong and that still succeeded is a recovery. The evaluation
harness merges an agent's ``cost()`` dict into the episode record, so these per-episode
fields reach ``episodes.jsonl`` under ``cost`` as ``first_commit_right`` (1, 0, or absent when
the agent never committed) and ``commits``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from baselines.policy.features import patch_key

__all__ = [
    "DecisionRecorder",
    "decision_stats",
    "has_commitments",
    "trace_label",
    "after_failing_test",
    "right_first_failures",
    "decision_rates",
    "RATES",
]


class DecisionRecorder:
    """Forwards ``reset``/``act``/``seed`` to ``agent`` and records its first commitment."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self._solution: frozenset[str] = frozenset()
        self._last: str | None = None
        self._first_right: int | None = None
        self._commits = 0
        self._trace: list[str] = []
        self._keys: set[tuple | None] = set()  # patch_key of each patch so far (None: a bare `patch`)

    def seed(self, seed: int) -> None:
        fn = getattr(self.agent, "seed", None)
        if callable(fn):
            fn(seed)

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        task = getattr(env.unwrapped, "task", None)
        self._solution = frozenset(getattr(task, "solution", ()) or ())
        self._last, self._first_right, self._commits = None, None, 0
        self._trace, self._keys = [], set()
        self.agent.reset(env, obs, info)

    def _observe(self, info: dict[str, Any]) -> None:
        # info carries the events of the previous action
        if self._last is None:
            return
        events = list(info.get("events", ()))
        if any(e.get("kind") == "mutation" for e in events):
            self._commits += 1
            if self._first_right is None:
                self._first_right = int(self._last in self._solution)
        self._trace.append(trace_label(self._last, events, self._solution, self._keys))

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        self._observe(info)
        self._last = self.agent.act(obs, info)
        return self._last

    def forced(self, obs: dict[str, Any], info: dict[str, Any], action: str) -> None:
        """An intervention's forced turn: recorded like a chosen one (a forced wrong patch is the
        episode's first commit, and wrong), and shown to the agent (`agentgym.agents.base`)."""
        self._observe(info)
        self.agent.forced(obs, info, action)
        self._last = action

    def cost(self) -> dict[str, Any]:
        inner = getattr(self.agent, "cost", None)
        out = dict(inner() or {}) if callable(inner) else {}
        out["commits"] = self._commits
        # the last action's events never reach act(): it is labelled without them
        tail = [trace_label(self._last, None, self._solution, set(self._keys))] if self._last is not None else []
        out["trace"] = " ".join(self._trace + tail)
        if self._first_right is not None:
            out["first_commit_right"] = self._first_right
        return out


def trace_label(
    action: str, events: list[dict[str, Any]] | None, solution: frozenset[str], keys: set[tuple | None]
) -> str:
    """One step of an episode trace (diagnosis only: it reads the task's solution, which the agent never sees).

    ``P+`` a patch of the reference solution, ``P-`` a wrong one, ``*`` appended when the same
    change (`baselines.policy.features.patch_key`) was applied before in the episode, ``!`` when the
    patch did not apply; ``T+`` / ``T-`` a test that passed / failed (``T?``: its verdict
    unseen, the episode's last step); ``R`` revert, ``S`` submit, ``V`` view, ``O`` anything
    else. ``events`` None: the step's events are unknown (the last step).
    """

    verb = action.split(None, 1)[0] if action.strip() else ""
    if verb == "patch":
        key = patch_key(action)
        label = "P+" if action in solution else "P-"
        if key in keys:
            label += "*"
        if events is not None and not any(e.get("kind") == "mutation" for e in events):
            return label + "!"
        keys.add(key)
        return label
    if verb == "test" or action == "run tests":  # Coding-v0's `test`, the budget env's `run tests`
        verdicts = [bool(e.get("ok")) for e in events or () if e.get("kind") == "verification"]
        return "T?" if not verdicts else ("T+" if verdicts[-1] else "T-")
    return {"revert": "R", "submit": "S", "view": "V"}.get(verb, "O")


FOLLOW_UPS = ("revert", "patch on top", "same patch again", "submit", "test again", "view", "other", "out of turns")
"""What can follow a failing test, as `after_failing_test` names it."""


def after_failing_test(trace: str) -> list[str]:
    """For each failing test of a trace, what the agent did next (`FOLLOW_UPS`)."""
    steps = trace.split()
    stack: list[str] = []
    out: list[str] = []
    for i, s in enumerate(steps):
        if s.startswith("P") and not s.endswith("!"):
            stack.append(s)
        elif s == "R" and stack:
            stack.pop()
        elif s == "T-":
            nxt = steps[i + 1] if i + 1 < len(steps) else None
            if nxt is None:
                out.append("out of turns")
            elif nxt == "R":
                out.append("revert")
            elif nxt.startswith("P"):
                out.append("same patch again" if "*" in nxt else "patch on top")
            elif nxt == "S":
                out.append("submit")
            elif nxt.startswith("T"):
                out.append("test again")
            elif nxt == "V":
                out.append("view")
            else:
                out.append("other")
    return out


RIGHT_FIRST_FATES = (
    "success",
    "wrong patch on top at submit",
    "right patch reverted before submit",
    "out of turns",
    "submitted, hidden tests failed",
    "other",
)
"""How an episode whose first patch was right ended (`right_first_failures`)."""


def right_first_failures(trace: str, success: bool) -> str:
    """Why an episode whose first patch was right did (not) succeed, from its trace."""
    if success:
        return "success"
    stack: list[str] = []
    for s in trace.split():
        if s.startswith("P") and not s.endswith("!"):
            stack.append(s)
        elif s == "R" and stack:
            stack.pop()
        elif s == "S":
            if any(x.startswith("P-") for x in stack):
                return "wrong patch on top at submit"
            if not any(x.startswith("P+") for x in stack):
                return "right patch reverted before submit"
            return "submitted, hidden tests failed"
    return "out of turns"


def decision_stats(records: list[dict[str, Any]]) -> dict[int, dict[str, float | int | None]]:
    """Per T: first-commit accuracy, success when it was right, and recovery when it was wrong.

    ``success = acc * success_if_right + (1 - acc) * recovery`` over episodes that committed,
    which splits a gain into better first decisions and better recovery.
    """
    out: dict[int, dict[str, float | int | None]] = {}
    for t in sorted({int(r["T"]) for r in records}):
        rs = [r for r in records if int(r["T"]) == t and not r.get("infra_error") and not r.get("faults")]
        committed = [r for r in rs if "first_commit_right" in (r.get("cost") or {})]
        right = [r for r in committed if r["cost"]["first_commit_right"]]
        wrong = [r for r in committed if not r["cost"]["first_commit_right"]]
        out[t] = {
            "episodes": len(rs),
            "committed": len(committed),
            "first_commit_accuracy": len(right) / len(committed) if committed else None,
            "success_if_right": sum(bool(r["success"]) for r in right) / len(right) if right else None,
            "recovery_rate": sum(bool(r["success"]) for r in wrong) / len(wrong) if wrong else None,
            "wrong_first": len(wrong),
        }
    return out


RATES = ("test | unverified edit", "revert | failing test", "submit | passing test")
"""The three decisions recovery is made of (`decision_rates`): check one's own edit, undo what a
check refuted, commit what a check confirmed."""

MIN_TURNS_TO_CHECK = 4
"""Turns left from which testing one's own edit can pay: test, revert, patch, submit."""


def has_commitments(decisions: Mapping[str, Mapping[int, Mapping[str, Any]]]) -> bool:
    """Whether any agent at any T committed (`decision_stats`' ``committed``): a family whose records
    label no first commitment gets no decisions table or plot."""
    return any(d.get("committed", 0) for by_t in decisions.values() for d in by_t.values())


def decision_rates(records: list[dict[str, Any]]) -> dict[str, dict[str, int | float | None]]:
    """P(action | state) over the traces of ``records``, counted per decision (`RATES`).

    ``unverified edit``: a patch applied after the last test (or with no test yet), counted only
    with at least `MIN_TURNS_TO_CHECK` turns left (fewer leave no room to act on a failing test);
    ``failing test`` / ``passing test``: the decision right after a test with that verdict.
    Each entry: ``n`` decisions in that state, ``k`` that took the action, ``rate`` = k / n.
    """
    counts = {name: [0, 0] for name in RATES}
    for r in records:
        if r.get("infra_error") or r.get("faults"):
            continue
        steps = str((r.get("cost") or {}).get("trace", "")).split()
        unverified = False
        for i, s in enumerate(steps):
            left = int(r["T"]) - i
            prev = steps[i - 1] if i else ""
            if unverified and left >= MIN_TURNS_TO_CHECK:
                counts["test | unverified edit"][0] += 1
                counts["test | unverified edit"][1] += s.startswith("T")
            if prev == "T-":
                counts["revert | failing test"][0] += 1
                counts["revert | failing test"][1] += s == "R"
            if prev == "T+":
                counts["submit | passing test"][0] += 1
                counts["submit | passing test"][1] += s == "S"
            if s.startswith("P") and not s.endswith("!"):
                unverified = True
            elif s.startswith("T"):
                unverified = False
    return {name: {"n": n, "k": k, "rate": k / n if n else None} for name, (n, k) in counts.items()}
