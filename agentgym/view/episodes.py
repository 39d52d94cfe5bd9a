"""The episode browser's data: a small column index for filtering, and the records in chunks.

The index holds, per episode, only what the filters and the list need (run, task, tier, T, sample,
outcome, category, fault, turns), as integer columns over string tables, so 100,000 episodes filter
in milliseconds. The records themselves (actions, the turn log, cost) are cut into chunks that the
page parses only when one of their episodes is opened: opening a page of the experiment's 97,200
records reads about 4 MB, not 140.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from agentgym.view.runs import Run

__all__ = ["CHUNK_EPISODES", "tier_of", "fault_of", "episode_index", "episode_chunks"]

CHUNK_EPISODES = 400
"""Episodes per chunk: a chunk of the experiment's records is about 0.6 MB, parsed in a few ms."""

_DROP = ("env_seed", "agent_seed", "worker", "attempts")  # never shown; saves about a tenth


def tier_of(task: str) -> str:
    """The tier (or domain, site, category) of a task id: its second path segment
    (``coding/one_bug/...`` -> ``one_bug``), or ``""`` for ids without one."""
    parts = task.split("/")
    return parts[1] if len(parts) > 2 else ""


def fault_of(record: Mapping[str, Any]) -> str:
    """What was done to an episode on purpose: its fault spec, its forced start, or ``none``."""
    if record.get("faults"):
        return str(record["faults"])
    if record.get("intervention"):
        return f"forced: {record['intervention']}"
    return "none"


def _outcome(record: Mapping[str, Any]) -> int:
    """1 success, 0 failure, -1 not scored (an infrastructure error, or no candidate for a forced start)."""
    if record.get("infra_error") or record.get("no_candidate") or record.get("success") is None:
        return -1
    return 1 if record["success"] else 0


class _Table:
    def __init__(self) -> None:
        self.values: list[str] = []
        self.ids: dict[str, int] = {}

    def id(self, value: str) -> int:
        i = self.ids.get(value)
        if i is None:
            i = self.ids[value] = len(self.values)
            self.values.append(value)
        return i


def episode_index(runs: Sequence[Run]) -> dict[str, Any]:
    """The filter index over every run's records, in the order `episode_chunks` stores them."""
    tables = {name: _Table() for name in ("task", "tier", "category", "fault", "env")}
    cols: dict[str, list[int]] = {
        c: [] for c in ("run", "task", "tier", "T", "sample", "ok", "category", "fault", "env", "turns", "errors")
    }
    for run_id, run in enumerate(runs):
        for r in run.records:
            task = str(r.get("task", ""))
            cols["run"].append(run_id)
            cols["task"].append(tables["task"].id(task))
            cols["tier"].append(tables["tier"].id(tier_of(task)))
            cols["T"].append(int(r.get("T", 0)))
            cols["sample"].append(int(r.get("sample", 0)))
            cols["ok"].append(_outcome(r))
            category = r.get("category") or ("infra_error" if r.get("infra_error") else "not scored")
            cols["category"].append(tables["category"].id(str(category)))
            cols["fault"].append(tables["fault"].id(fault_of(r)))
            cols["env"].append(tables["env"].id(str(r.get("env", ""))))
            cols["turns"].append(int(r.get("turns") or 0))
            cols["errors"].append(int(r.get("n_errors") or 0))
    return {
        "runs": [run.label for run in runs],
        "tables": {name: t.values for name, t in tables.items()},
        "cols": cols,
        "chunk": CHUNK_EPISODES,
    }


def episode_chunks(runs: Sequence[Run]) -> list[str]:
    """The records as JSON arrays of `CHUNK_EPISODES` each (the last one shorter), in index order."""
    flat = (_shown(r) for run in runs for r in run.records)
    chunks, current = [], []
    for record in flat:
        current.append(record)
        if len(current) == CHUNK_EPISODES:
            chunks.append(_dump(current))
            current = []
    if current:
        chunks.append(_dump(current))
    return chunks


def _shown(record: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in _DROP}


def _dump(records: list[dict[str, Any]]) -> str:
    # no "<" at all: "</script>" or "<!--" in an observation would end or derail the <script> holding
    # the chunk ("<" occurs only inside JSON strings, where \u003c reads back the same)
    try:
        text = json.dumps(records, separators=(",", ":"), allow_nan=False, default=str)
    except ValueError:  # a NaN or infinity somewhere: JSON has none, JSON.parse would refuse the chunk
        text = json.dumps(_finite(records), separators=(",", ":"), default=str)
    return text.replace("<", "\\u003c")


def _finite(value: Any) -> Any:
    """``value`` with every NaN and infinity replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
