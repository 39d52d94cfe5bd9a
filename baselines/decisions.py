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

from typing import Any

import gymnasium as gym

__all__ = ["DecisionRecorder", "decision_stats"]


class DecisionRecorder:
    """Forwards ``reset``/``act``/``seed`` to ``agent`` and records its first commitment."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self._solution: frozenset[str] = frozenset()
        self._last: str | None = None
        self._first_right: int | None = None
        self._commits = 0

    def seed(self, seed: int) -> None:
        fn = getattr(self.agent, "seed", None)
        if callable(fn):
            fn(seed)

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        task = getattr(env.unwrapped, "task", None)
        self._solution = frozenset(getattr(task, "solution", ()) or ())
        self._last, self._first_right, self._commits = None, None, 0
        self.agent.reset(env, obs, info)

    def _observe(self, info: dict[str, Any]) -> None:
        # info carries the events of the previous action
        if self._last is not None and any(e.get("kind") == "mutation" for e in info.get("events", ())):
            self._commits += 1
            if self._first_right is None:
                self._first_right = int(self._last in self._solution)

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        self._observe(info)
        self._last = self.agent.act(obs, info)
        return self._last

    def cost(self) -> dict[str, Any]:
        inner = getattr(self.agent, "cost", None)
        out = dict(inner() or {}) if callable(inner) else {}
        out["commits"] = self._commits
        if self._first_right is not None:
            out["first_commit_right"] = self._first_right
        return out


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
