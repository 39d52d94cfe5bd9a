"""An SWE-v0 task from its manifest record: buggy files, statement, verdict tests, menu and reference.

Everything here is rebuilt from the hash-checked host copy of the library (`agentgym.envs.swe.trees`)
and the record, so a task id is all a trajectory needs. The statement is written the way a user files
an issue, from the failing tests alone: their ids and an excerpt of what pytest printed. It never
names the modifier or the patch, and names the function only where a traceback shows it.
``statement="minimal"`` says only that the suite fails.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from agentgym.envs.swe import trees
from agentgym.envs.swe.bugs import Bug, buggy_files
from agentgym.envs.swe.fix_rules import RULE
from agentgym.envs.swe.libraries import library
from agentgym.envs.swe.modifiers import enumerate_modifications
from agentgym.envs.swe.tasks import P2P_SAMPLE, TIERS, TaskRecord, libraries, pass_to_pass_sample, records, split_of
from agentgym.errors import ConfigError
from agentgym.repo.views import full_diff
from agentgym.setup.swe_images import library_tree
from agentgym.tasks import Task, TaskSet, stable_hash

__all__ = ["SWETasks", "Candidate", "build_task", "statement", "default_taskset", "STATEMENTS", "DECOYS"]

STATEMENTS = ("full", "minimal")
DECOYS = 5
"""Wrong patches per bug on the menu: other modifications of the buggy function (of the functions
nearest it when it has fewer), plausible edits of the same code that do not restore it. Five keep a
uniform pick over the menu under the contract's 0.25 at T=20 (three did not)."""
_EXCERPT_TESTS = 3
_EXCERPT_CHARS = 600


@dataclass(frozen=True)
class Candidate:
    """A menu patch: the diff from the task's start to ``after`` in ``path``; ``fix``: it restores the original."""

    path: str
    before: str
    after: str
    fix: bool

    def action(self, current: str | None) -> str | None:
        """The ``patch`` action when ``path`` reads ``before`` now (None otherwise: it no longer applies)."""
        if current != self.before:
            return None
        return "patch\n" + full_diff(self.path, self.before, self.after)


def statement(rec: TaskRecord, kind: str = "full") -> str:
    """What the agent is told (see the module docstring)."""
    head = f"The test suite of {rec.library} {rec.version} fails."
    if kind == "minimal":
        body = head + " Find the bug in the library's code and fix it."
    else:
        shown = rec.fail_to_pass[:_EXCERPT_TESTS]
        more = len(rec.fail_to_pass) - len(shown)
        lines = [f"{head} Running", "", f"    python -m pytest {' '.join(shown)}", "", "gives:"]
        for test in shown:
            excerpt = rec.failures.get(test, "").strip()
            if len(excerpt) > _EXCERPT_CHARS:
                excerpt = excerpt[:_EXCERPT_CHARS].rstrip() + "\n[...]"
            lines += ["", f"FAILED {test}"] + ([excerpt] if excerpt else [])
        if more > 0:
            lines += ["", f"({more} more failing test{'s' * (more > 1)} not shown.)"]
        body = "\n".join(lines)
    return (
        f"{body}\n\nFix the library so that these tests pass and the rest of its test suite still passes; "
        "changing the tests does not count (the verdict runs the original tests). "
        f"{RULE}\n\nThe repository (the current directory):\n{trees.listing(rec.library)}"
    )


def _decoys(task_id: str, path: str, buggy: str, function: str, original: str) -> list[str]:
    """`DECOYS` wrong versions of ``buggy``: other modifications of the same function first, then of the
    functions nearest it in the file when it has too few (each group by a hash of the task), so the menu
    is never a giveaway."""
    mods = [m for m in enumerate_modifications(buggy, path) if m.text not in (buggy, original)]
    own = sorted(
        (m for m in mods if m.function == function), key=lambda m: stable_hash(f"{task_id}\n{m.modifier}@{m.site}")
    )
    if len(own) >= DECOYS:
        return [m.text for m in own[:DECOYS]]
    at = min((m.first for m in own), default=0) or next((m.first for m in mods if m.function == function), 0)
    others = sorted(
        (m for m in mods if m.function != function),
        key=lambda m: (abs(m.first - at), stable_hash(f"{task_id}\n{m.key}")),
    )
    return [m.text for m in (own + others)[:DECOYS]]


def build_task(rec: TaskRecord, split: str, kind: str = "full") -> Task:
    """The `Task` of a manifest record (``meta`` holds what the env's verdict and menu need)."""
    originals = {path: trees.text(rec.library, path) for path in rec.files}
    files = buggy_files(rec.library, [Bug.from_json(b) for b in rec.bugs], library_tree(library(rec.library)))
    candidates = [Candidate(p, files[p], originals[p], True) for p in rec.files]
    for bug in rec.bugs:
        path = str(bug["path"])
        candidates += [
            Candidate(path, files[path], d, False)
            for d in _decoys(rec.task_id, path, files[path], str(bug["function"]), originals[path])
        ]
    baseline = trees.baseline_tests(rec.library, rec.test_files)
    p2p_all = [t for t in baseline if t not in set(rec.fail_to_pass)]
    solution = tuple("patch\n" + full_diff(p, files[p], originals[p]) for p in rec.files) + ("test", "submit")
    subtasks = tuple(f"fixed:{p}" for p in rec.files) + tuple(f"passes:{t}" for t in rec.fail_to_pass)
    return Task(
        task_id=rec.task_id,
        family="swe",
        split=split,
        instruction=statement(rec, kind),
        files=files,
        subtasks=subtasks,
        solution=solution,
        tier=rec.tier,
        meta={
            "library": rec.library,
            "record": rec,
            "originals": originals,
            "candidates": tuple(candidates),
            "fail_to_pass": rec.fail_to_pass,
            "pass_to_pass": tuple(pass_to_pass_sample(rec.task_id, p2p_all, rec.fail_to_pass, P2P_SAMPLE)),
            "pass_to_pass_all": tuple(p2p_all),
            "menu_seed": stable_hash(rec.task_id) % (1 << 31),
        },
    )


class SWETasks(TaskSet):
    """Every SWE-v0 task, by split, tier and library (`agentgym.envs.swe.tasks`)."""

    family: ClassVar[str] = "swe"
    splits: ClassVar[tuple[str, ...]] = ("train", "test", "heldout")
    all_tiers: ClassVar[tuple[str, ...]] = TIERS
    all_groups: ClassVar[tuple[str, ...]] = libraries()
    group_filter: ClassVar[str] = "libraries"

    def catalog(self, split: str) -> Iterable[tuple[str, str, str]]:
        for tid, rec in records().items():
            if split_of(rec) == split:
                yield tid, rec.tier, rec.library

    @functools.lru_cache(maxsize=256)  # noqa: B019 - one task set per process (default_taskset)
    def get(self, task_id: str) -> Task:
        rec = records().get(task_id)
        if rec is None:
            raise ConfigError(
                f"no SWE-v0 task {task_id!r}: ids read swe/<tier>/<library>/<file>:<function>/<modifier>@<site>; "
                "`agentgym list --tasks` shows them"
            )
        split = split_of(rec)
        if split is None:
            raise ConfigError(f"SWE-v0 task {task_id!r} has bugs in train and test files, so it is in no split")
        return build_task(rec, split)


@functools.cache
def default_taskset() -> SWETasks:
    return SWETasks()
