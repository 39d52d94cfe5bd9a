"""SWE-v0's tasks: validated bugs in pinned libraries, in tiers and splits, rebuilt from their ids.

The task list is data (``data/tasks/<library>.json``, written by `agentgym.envs.swe.generate`): per
task its bugs (file, function, modifier, site, the patch's hash), its FAIL_TO_PASS tests, the test
files the validation ran (PASS_TO_PASS is every baseline-passing test of those files that still
passed) and excerpts of the failures. Library code is not in this repository: the buggy files are
rebuilt from the hash-checked host copy that ``agentgym setup --only swe`` lays out
(`agentgym.envs.swe.bugs`), so listing tasks is a file read and building one needs the set-up.

Splits: the libraries `library_is_heldout` picks (a hash of the name: about a fifth) form
``heldout``, whole libraries never trained on; the other libraries' source files are split into
``train`` and ``test`` by a hash of the file (held out by module), and a task whose bugs fall in
files of both is in neither. Tiers: ``one_bug``, ``two_bugs`` (two functions of one file),
``two_files``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentgym.envs.swe.libraries import LIBRARIES
from agentgym.tasks import stable_hash, stable_split

__all__ = [
    "TaskRecord",
    "TIERS",
    "TASKS_DIR",
    "library_is_heldout",
    "P2P_SAMPLE",
    "pass_to_pass_sample",
    "records",
    "libraries",
    "library_env_id",
    "split_of",
]

TIERS = ("one_bug", "two_bugs", "two_files")
TASKS_DIR = Path(__file__).with_name("data") / "tasks"
HELDOUT_FRACTION = 0.2
"""About a fifth of the libraries are held out whole (``heldout``), chosen by a hash of the name."""
TEST_FRACTION = 0.25
P2P_SAMPLE = 30
"""PASS_TO_PASS tests the verdict runs per task by default (a fixed sample, for speed)."""


@dataclass(frozen=True)
class TaskRecord:
    """One task as the manifest lists it."""

    task_id: str
    library: str
    version: str
    tier: str
    bugs: tuple[Mapping[str, Any], ...]
    fail_to_pass: tuple[str, ...]
    test_files: tuple[str, ...]
    failures: Mapping[str, str]

    @property
    def files(self) -> tuple[str, ...]:
        """The source files the bugs are in, sorted."""
        return tuple(sorted({str(b["path"]) for b in self.bugs}))


def library_is_heldout(name: str) -> bool:
    """Whether a library is held out whole: a hash of its name, the same on every machine."""
    return stable_split(f"swe-heldout/{name}", HELDOUT_FRACTION) == "test"


def split_of(record: TaskRecord) -> str | None:
    """``heldout``, ``train`` or ``test``; None for a task whose files fall in both train and test."""
    if library_is_heldout(record.library):
        return "heldout"
    splits = {stable_split(f"swe-module/{record.library}/{path}", TEST_FRACTION) for path in record.files}
    return splits.pop() if len(splits) == 1 else None


@functools.cache
def records(tasks_dir: Path = TASKS_DIR) -> dict[str, TaskRecord]:
    """Every task of the manifest by id (each library's file read once per process)."""
    out: dict[str, TaskRecord] = {}
    for path in _manifests(tasks_dir):
        data = json.loads(path.read_text())
        for t in data["tasks"]:
            out[t["id"]] = TaskRecord(
                task_id=t["id"],
                library=data["library"],
                version=data["version"],
                tier=t["tier"],
                bugs=tuple(t["bugs"]),
                fail_to_pass=tuple(t["FAIL_TO_PASS"]),
                test_files=tuple(t["test_files"]),
                failures=dict(t.get("failures", {})),
            )
    return out


def library_env_id(name: str) -> str:
    """The per-library Gymnasium id, e.g. ``agentgym/SWE-boltons-v0``."""
    return f"agentgym/SWE-{name}-v0"


def _manifests(tasks_dir: Path = TASKS_DIR) -> list[Path]:
    """The manifest's files, one per library (the folder also holds the generator's ``yield.json``)."""
    names = {lib.name for lib in LIBRARIES}
    return [p for p in sorted(tasks_dir.glob("*.json")) if p.stem in names]


def libraries() -> tuple[str, ...]:
    """The libraries the manifest has tasks for, sorted (no file is parsed)."""
    return tuple(p.stem for p in _manifests())


def pass_to_pass_sample(task_id: str, candidates: Sequence[str], fail_to_pass: Sequence[str], k: int) -> list[str]:
    """A fixed sample of ``k`` PASS_TO_PASS tests (all of them when ``k`` <= 0), the same on every machine:
    the tests of the failing tests' own files first, then the others, each group by a hash of the task."""
    f2p = set(fail_to_pass)
    pool = [t for t in candidates if t not in f2p]
    if k <= 0 or len(pool) <= k:
        return sorted(pool)
    files = {t.split("::", 1)[0] for t in fail_to_pass}
    ranked = sorted(pool, key=lambda t: (t.split("::", 1)[0] not in files, stable_hash(f"{task_id}\n{t}")))
    return sorted(ranked[:k])
