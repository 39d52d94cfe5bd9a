"""The coding family's tasks: corpus modules with injected bugs, in tiers and splits.

Tiers: ``one_bug`` (one mutant in one module), ``two_bugs`` (two mutants in different functions
of one module), ``cross_file`` (one mutant in each of two modules). Splits: ``heldout`` holds
every task of the held-out modules (a fixed fifth of the corpus, chosen by hash) and those
modules never appear in ``train`` or ``test``; the other modules' mutants are split between
``train`` and ``test`` by hash, and a multi-bug task only pairs mutants of the same split, so no
test-split bug is ever seen in training.

Which mutants exist is data: ``data/mutants.json`` lists, per module, the mutants some hidden test
fails on (found by executing the tests; see `agentgym.envs.coding.build_tasks`), so building the
task list is a file read. A task id names its bugs, so any task is rebuilt from its id alone:
``coding/one_bug/roman_numerals/comparison_flip@33:01234``.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from agentgym.envs.coding.corpus_loader import CORPUS_DIR, SourceModule, load_corpus
from agentgym.envs.coding.mutations import Mutant
from agentgym.errors import ConfigError
from agentgym.repo.diffs import find_block, make_patch
from agentgym.tasks import Task, TaskSet, stable_hash, stable_split

__all__ = [
    "CodingTasks",
    "Bug",
    "Candidate",
    "TIERS",
    "DATA_PATH",
    "MUTATOR_VERSION",
    "mutant_split",
    "module_is_heldout",
    "default_taskset",
    "StaleMutantData",
]

TIERS = ("one_bug", "two_bugs", "cross_file")
DATA_PATH = Path(__file__).with_name("data") / "mutants.json"
MUTATOR_VERSION = 1  # bump when mutations.py changes what it generates: the shipped data goes stale
HELDOUT_FRACTION = 0.2
TEST_FRACTION = 0.25
CROSS_PAIRS = {"train": 4, "test": 2, "heldout": 6}  # bug pairs per (module, next module) couple
WRONG_PER_BUG = 3


class StaleMutantData(UserWarning):
    """The corpus changed since data/mutants.json was built; affected modules are left out."""


def module_is_heldout(name: str) -> bool:
    return stable_split(f"heldout-module/{name}", HELDOUT_FRACTION) == "test"


def mutant_split(module: str, key: str) -> str:
    """``heldout`` for a held-out module, else ``train``/``test`` by the mutant's hash."""
    if module_is_heldout(module):
        return "heldout"
    return stable_split(f"{module}/{key}", TEST_FRACTION)


@dataclass(frozen=True)
class Bug:
    """An injected bug: which file, which mutant, and the hidden tests that catch it."""

    module: str
    mutant: Mutant
    covering: tuple[str, ...]

    @property
    def file(self) -> str:
        return f"{self.module}.py"

    @property
    def subtask(self) -> str:
        return f"fix:{self.file}:{self.mutant.func}"


@dataclass(frozen=True)
class Candidate:
    """A menu patch: in ``file``, replace the block ``old`` (expected near 0-based ``line``) with ``new``."""

    file: str
    line: int
    old: tuple[str, ...]
    new: tuple[str, ...]
    fix: bool

    def locate(self, text: str) -> int | None:
        return find_block(text.splitlines(), self.old, self.line)

    def patch(self, text: str) -> str | None:
        """This candidate as a unified diff against ``text``, or None if its block is not there."""
        at = self.locate(text)
        return None if at is None else make_patch(self.file, text, at, self.old, self.new)


def _strip(lines: Sequence[str]) -> tuple[str, ...]:
    return tuple(line.rstrip("\n") for line in lines)


class CodingTasks(TaskSet):
    """Every coding task, rebuilt from its id; see the module docstring for tiers and splits."""

    family = "coding"
    splits = ("train", "test", "heldout")
    all_tiers = TIERS

    def __init__(
        self, corpus_dir: Path | str = CORPUS_DIR, data_path: Path | str = DATA_PATH, tiers: Sequence[str] | None = None
    ) -> None:
        super().__init__(tiers=tiers)
        self.corpus = load_corpus(corpus_dir)
        self.data_path = Path(data_path)
        raw = json.loads(self.data_path.read_text()) if self.data_path.exists() else {"modules": {}}
        self.stale: list[str] = []
        self.entries: dict[str, dict[str, Any]] = {}
        for name, module in self.corpus.items():
            entry = raw.get("modules", {}).get(name)
            if entry is None or entry.get("digest") != module.digest or raw.get("version") != MUTATOR_VERSION:
                self.stale.append(name)
                continue
            if entry.get("mutants"):
                self.entries[name] = entry
        if self.stale:
            warnings.warn(
                f"coding tasks: {len(self.stale)} corpus module(s) have no current mutant data and are left out "
                f"({', '.join(self.stale[:5])}{'...' if len(self.stale) > 5 else ''}). "
                "Run `python -m agentgym.envs.coding.build_tasks` to rebuild data/mutants.json.",
                StaleMutantData,
                stacklevel=2,
            )

    # ------------------------------------------------------------------ catalog
    @cached_property
    def _mutants(self) -> dict[str, dict[str, tuple[Mutant, tuple[str, ...]]]]:
        """module -> mutant key -> (mutant, names of the hidden tests it fails)."""
        out: dict[str, dict[str, tuple[Mutant, tuple[str, ...]]]] = {}
        for name, entry in self.entries.items():
            out[name] = {}
            for m in entry["mutants"]:
                mutant = Mutant.from_json(m)
                out[name][mutant.key] = (mutant, tuple(m["fails"]))
        return out

    @cached_property
    def _catalog(self) -> dict[str, dict[str, list[str]]]:
        """split -> tier -> task ids, in a fixed order."""
        cat: dict[str, dict[str, list[str]]] = {s: {t: [] for t in TIERS} for s in self.splits}
        for name in sorted(self._mutants):
            for key in self._mutants[name]:
                cat[mutant_split(name, key)]["one_bug"].append(f"coding/one_bug/{name}/{key}")
            for a, b in self.entries[name].get("pairs", []):
                if a in self._mutants[name] and b in self._mutants[name]:
                    cat[mutant_split(name, a)]["two_bugs"].append(f"coding/two_bugs/{name}/{a}+{name}/{b}")
        for group in ("heldout", "regular"):
            names = sorted(
                (n for n in self._mutants if module_is_heldout(n) == (group == "heldout")),
                key=lambda n: stable_hash(f"ring/{n}"),
            )
            if len(names) < 2:
                continue
            for i, a in enumerate(names):
                b = names[(i + 1) % len(names)]
                if a == b or (len(names) == 2 and i == 1):
                    continue
                for split in ("heldout",) if group == "heldout" else ("train", "test"):
                    ka = self._ordered_keys(a, split)
                    kb = self._ordered_keys(b, split)
                    for x, y in list(zip(ka, kb))[: CROSS_PAIRS[split]]:
                        cat[split]["cross_file"].append(f"coding/cross_file/{a}/{x}+{b}/{y}")
        return cat

    def _ordered_keys(self, module: str, split: str) -> list[str]:
        keys = [k for k in self._mutants[module] if mutant_split(module, k) == split]
        return sorted(keys, key=lambda k: stable_hash(f"pair/{module}/{k}"))

    @cached_property
    def _all_ids(self) -> frozenset[str]:
        return frozenset(i for tiers in self._catalog.values() for ids in tiers.values() for i in ids)

    def catalog(self, split: str) -> Iterator[tuple[str, str, str]]:
        for tier, ids in self._catalog[split].items():
            yield from ((task_id, tier, "") for task_id in ids)

    def narrowed(self, split: str, **filters: Sequence[str] | None) -> TaskSet:
        """`TaskSet.narrowed`, built once per split and filter: the experiment builds an env per
        evaluation (about 200 in the default command), each narrowing the same tasks to the same
        tier, and a new task set reads the mutant data and hashes its whole catalog again (0.12-0.15 s
        of CPU). Task sets are read-only, so envs may share one."""
        key = (split, tuple(sorted((k, tuple(v)) for k, v in filters.items() if v)))
        cache = self.__dict__.setdefault("_narrowed", {})
        if key not in cache:
            cache[key] = super().narrowed(split, **filters)
        return cache[key]

    def counts(self) -> dict[str, dict[str, int]]:
        """Number of tasks per split and tier."""
        return {s: {t: len(ids) for t, ids in tiers.items()} for s, tiers in self._catalog.items()}

    # ------------------------------------------------------------------ one task
    def get(self, task_id: str) -> Task:
        """The task, built once per task set and id (`Task` is frozen and nothing writes its files or
        meta): every episode resets to a task, about 140,000 times in README command (1), over a
        few thousand ids, and building one (mutants applied, wrong patches placed, the reference
        solution played) costs about 0.5 ms of CPU."""
        return _built_task(self, task_id)

    def bugs_of(self, task_id: str) -> list[Bug]:
        parts = task_id.split("/", 2)
        if len(parts) != 3 or parts[0] != "coding" or parts[1] not in TIERS or task_id not in self._all_ids:
            raise ConfigError(
                f"unknown coding task id {task_id!r}; list valid ids with "
                f"CodingTasks().ids(split) for split in {self.splits}"
            )
        bugs = []
        for spec in parts[2].split("+"):
            module, key = spec.split("/", 1)
            mutant, fails = self._mutants[module][key]
            bugs.append(Bug(module, mutant, fails))
        return bugs

    def wrong_candidates(
        self, bug: Bug, fix: Candidate, bugs: list[Bug], text: str, taken: set[int], limit: int = WRONG_PER_BUG
    ) -> list[Candidate]:
        """Plausible wrong patches near a bug: another wrong version of its lines, other bugs nearby."""
        same_site, nearby = [], []
        lines = text.splitlines()
        for key, (m, _) in sorted(self._mutants[bug.module].items()):
            if m == bug.mutant:
                continue
            if (m.start, m.end) == (bug.mutant.start, bug.mutant.end) and m.new != bug.mutant.new:
                pos = bug.mutant.start - 1 + _shift(bugs, bug.module, bug.mutant.start)
                same_site.append(_context_candidate(bug.file, lines, pos, len(bug.mutant.new), _strip(m.new), False))
            elif not any(line in taken for line in range(m.start, m.end + 1)) and m.func == bug.mutant.func:
                nearby.append((abs(m.start - bug.mutant.start), key, m))
        out = same_site[:1]
        seen_lines: set[int] = set()
        for _, _, m in sorted(nearby):
            if len(out) >= limit:
                break
            if m.start in seen_lines:
                continue
            seen_lines.add(m.start)
            pos = m.start - 1 + _shift(bugs, bug.module, m.start)
            out.append(_context_candidate(bug.file, lines, pos, len(m.old), _strip(m.new), False))
        return out


def _shift(bugs: list[Bug], module: str, line: int) -> int:
    """How far original line ``line`` moved in the mutated file (bugs above it changed line counts)."""
    return sum(len(b.mutant.new) - len(b.mutant.old) for b in bugs if b.module == module and b.mutant.end < line)


def _context_candidate(file: str, lines: list[str], pos: int, n_old: int, new: tuple[str, ...], fix: bool) -> Candidate:
    """Replace ``lines[pos:pos+n_old]`` by ``new``, with one unchanged line of context on each side."""
    a = max(0, pos - 1)
    b = min(len(lines), pos + n_old + 1)
    before, after = tuple(lines[a:pos]), tuple(lines[pos + n_old : b])
    return Candidate(file, a, before + tuple(lines[pos : pos + n_old]) + after, before + new + after, fix)


def _fix_candidate(bug: Bug, bugs: list[Bug], text: str) -> Candidate:
    pos = bug.mutant.start - 1 + _shift(bugs, bug.module, bug.mutant.start)
    return _context_candidate(bug.file, text.splitlines(), pos, len(bug.mutant.new), _strip(bug.mutant.old), True)


@lru_cache(maxsize=2048)  # about 12 KB a task
def _built_task(tasks: CodingTasks, task_id: str) -> Task:
    return _build_task(tasks, task_id)


def _build_task(tasks: CodingTasks, task_id: str) -> Task:
    bugs = tasks.bugs_of(task_id)
    modules: list[SourceModule] = []
    for bug in bugs:
        if tasks.corpus[bug.module] not in modules:
            modules.append(tasks.corpus[bug.module])
    originals: dict[str, str] = {}
    files: dict[str, str] = {}
    for module in modules:
        originals[module.file] = module.source
        originals[module.test_file] = module.visible_tests
        mutated = module.source
        # apply bottom-up so line numbers of the other bug stay valid
        for bug in sorted((b for b in bugs if b.module == module.name), key=lambda b: -b.mutant.start):
            mutated = bug.mutant.apply(mutated)
        files[module.file] = mutated
        files[module.test_file] = module.visible_tests
    # the true fixes, then the wrong patches near each bug (blocks carry a line of context each side)
    fixes = [_fix_candidate(b, bugs, files[b.file]) for b in bugs]
    taken = {line for b in bugs for line in range(b.mutant.start, b.mutant.end + 1)}
    candidates = list(fixes)
    for bug, fix in zip(bugs, fixes):
        candidates += tasks.wrong_candidates(bug, fix, bugs, files[bug.file], taken)
    # reference solution: each fix as a patch against the state the previous fixes left, then test, submit
    state = dict(files)
    solution: list[str] = []
    for fix in fixes:
        diff = fix.patch(state[fix.file])
        assert diff is not None, f"{task_id}: a fix does not apply to its own mutant"
        solution.append("patch\n" + diff)
        at = fix.locate(state[fix.file])
        assert at is not None, f"{task_id}: a fix does not locate in its own mutant"
        lines = state[fix.file].splitlines()
        lines[at : at + len(fix.old)] = list(fix.new)
        state[fix.file] = "\n".join(lines) + "\n"
    solution += ["test", "submit"]
    split = "heldout" if module_is_heldout(bugs[0].module) else mutant_split(bugs[0].module, bugs[0].mutant.key)
    tier = task_id.split("/")[1]
    return Task(
        task_id=task_id,
        family="coding",
        split=split,
        instruction=_instruction(modules, bugs, files),
        files=files,
        subtasks=tuple(b.subtask for b in bugs) + ("visible_tests",),
        solution=tuple(solution),
        tier=tier,
        meta={
            "bugs": tuple(bugs),
            "candidates": tuple(candidates),
            "originals": originals,
            "hidden": {m.test_file: m.tests for m in modules},  # host-side only: see verifier.py
            "reference": {m.name: m.source for m in modules},
            "visible_test_files": tuple(m.test_file for m in modules),
            "menu_seed": stable_hash(task_id),
        },
    )


def _instruction(modules: list[SourceModule], bugs: list[Bug], files: Mapping[str, str]) -> str:
    listing = ", ".join(
        f"{m.file} ({files[m.file].count(chr(10))} lines), {m.test_file} ({len(m.visible)} visible tests)"
        for m in modules
    )
    reports = []
    for bug in bugs:
        where = (
            f"`{bug.mutant.func}` in {bug.file}"
            if bug.mutant.func != "<module>"
            else f"a module-level definition in {bug.file}"
        )
        reports.append(f"- {where} misbehaves: the hidden test `{bug.covering[0]}` fails.")
    n = len(bugs)
    return "\n".join(
        [
            f"Fix {'the bug' if n == 1 else f'the {n} bugs'} in this Python repository "
            "so that its hidden test suite passes, "
            "then submit.",
            f"Files: {listing}.",
            "Bug report:",
            *reports,
            "The visible tests are a subset of the hidden ones.",
        ]
    )


@lru_cache(maxsize=1)
def default_taskset() -> CodingTasks:
    """The packaged corpus and mutant data, built once per process."""
    return CodingTasks()
