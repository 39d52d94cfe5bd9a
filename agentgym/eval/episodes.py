"""Episode specs and records: what one evaluation episode is, its seeds, and ``episodes.jsonl``.

An `EpisodeSpec` names one cell sample: env, task, budget T, sample index, fault spec and
intervention. Its seeds are derived from (run seed, env, task, T, sample) by a process-independent
hash, so the same spec gets the same seeds in any worker, on any backend, in any order, and on
resume. The fault spec is not part of the seed: a faulted episode and its clean twin share seeds,
which is what makes the recovery rate a paired comparison. Nor is the intervention: an episode
with a forced start shares seeds with its clean twin (and with the clean grid of another run of
the same seed), paired by (task, T, sample). Nor is the budget mode: a soft-budget episode
(``budget_mode="soft"``) and its hard twin share seeds, which pairs hard against soft.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agentgym.tasks import stable_hash

__all__ = [
    "EpisodeSpec",
    "episode_seed",
    "record_key",
    "twin_key",
    "budget_mode",
    "read_episodes",
    "append_episode",
    "write_episodes",
    "TIMING_FIELDS",
]

TIMING_FIELDS = ("latency_s", "startup_s", "worker", "turn_seconds")
"""Record fields that vary between identical runs (wall-clock timings, which worker ran it)."""

_SEED_MOD = 2**31 - 1


def episode_seed(seed: int, env_id: str, task_id: str, t: int, sample: int, stream: str) -> int:
    """A seed for one stream (``env`` or ``agent``) of one episode, stable across processes."""
    return stable_hash(f"{seed}|{env_id}|{task_id}|{t}|{sample}|{stream}") % _SEED_MOD


@dataclass(frozen=True, order=True)
class EpisodeSpec:
    """One episode of the grid. ``faults`` is a fault spec string, or ``""`` for a clean run;
    ``budget_mode`` is ``"hard"`` (a turn limit of T) or ``"soft"`` (T with the run's warning and
    extension, `agentgym.wrappers.apply_budget`); ``intervention`` names the family's forced start
    (`agentgym.core.AgentEnv.forced_start`), or ``""`` for none."""

    env: str
    task: str
    T: int
    sample: int
    faults: str
    seed: int
    budget_mode: str = "hard"
    intervention: str = ""

    @property
    def key(self) -> tuple[str, str, int, int, str, str, str]:
        """Identity used to skip finished episodes on resume (the run seed is checked apart)."""
        return (self.env, self.task, self.T, self.sample, self.faults, self.budget_mode, self.intervention)

    @property
    def env_seed(self) -> int:
        return episode_seed(self.seed, self.env, self.task, self.T, self.sample, "env")

    @property
    def agent_seed(self) -> int:
        return episode_seed(self.seed, self.env, self.task, self.T, self.sample, "agent")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def record_key(record: Mapping[str, Any]) -> tuple[str, str, int, int, str, str, str]:
    """The `EpisodeSpec.key` of a record read back from ``episodes.jsonl`` (records written before
    budget modes are hard-budget episodes; records without an intervention had none)."""
    return (
        record["env"],
        record["task"],
        int(record["T"]),
        int(record["sample"]),
        record.get("faults") or "",
        budget_mode(record),
        record.get("intervention") or "",
    )


def twin_key(record: Mapping[str, Any]) -> tuple[str, str, int, int, str, str]:
    """`record_key` less the budget mode: what a hard-budget episode and its soft twin share."""
    key = record_key(record)
    return key[:5] + key[6:]


def budget_mode(record: Mapping[str, Any]) -> str:
    """``"hard"`` or ``"soft"``: the budget an episode record ran under."""
    return record.get("budget_mode") or "hard"


def read_episodes(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Records of ``episodes.jsonl``; a torn last line (a run killed mid-write) is dropped."""
    p = Path(path)
    if not p.exists():
        return []
    out = []
    with p.open("r", encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


def append_episode(fh: Any, record: dict[str, Any]) -> None:
    """Append one record and flush it, so a killed run loses at most the episode in flight."""
    fh.write(json.dumps(record, sort_keys=True) + "\n")
    fh.flush()


def write_episodes(path: str | os.PathLike[str], records: Iterable[dict[str, Any]]) -> None:
    """Rewrite the file atomically (sorted by spec), so finished runs diff cleanly."""
    p = Path(path)
    tmp = p.with_suffix(".jsonl.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for r in sorted(records, key=record_key):
            fh.write(json.dumps(r, sort_keys=True) + "\n")
    os.replace(tmp, p)
