"""The task model: data plus a verifier and a reference solution, generated from seeds.

A family owns a `TaskSet` that lists task ids per split and tier (``ids(split=..., tier=...)``,
the same for every family) and rebuilds any task from its id, so a task id is all a trajectory
needs to be replayed. Restricting a task set to some tiers or groups is shared here, so env
constructors pass their ``tiers=`` / ``domains=`` / ``sites=`` arguments through
`TaskSet.narrowed`. Splits are disjoint by construction: `stable_split` hashes a key (a source
module, a template) rather than drawing from an RNG.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from agentgym.errors import ConfigError

__all__ = ["Task", "TaskSet", "TemplateTaskSet", "stable_split", "stable_hash"]


@dataclass(frozen=True)
class Task:
    """One task instance.

    ``files`` is the initial workspace; ``meta`` holds what the family's verifier needs (hidden
    tests, expected records) and is never shown to the agent. ``solution`` is the reference
    action sequence an oracle replays; ``min_turns`` is its length, the smallest budget T at
    which the task can be solved.
    """

    task_id: str
    family: str
    split: str
    instruction: str
    files: Mapping[str, str] = field(default_factory=dict)
    subtasks: tuple[str, ...] = ()
    solution: tuple[str, ...] = ()
    min_turns: int = 0
    tier: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.min_turns <= 0:
            object.__setattr__(self, "min_turns", max(1, len(self.solution)))


def stable_hash(key: str) -> int:
    """A process-independent 64-bit hash (Python's `hash` is salted per process)."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


def stable_split(key: str, test_fraction: float = 0.25) -> str:
    """``"test"`` or ``"train"`` for a key, the same on every machine and run."""
    return "test" if (stable_hash(key) % 10_000) < test_fraction * 10_000 else "train"


class TaskSet(ABC):
    """All tasks of one family: ids per split and tier, and a task rebuilt from its id.

    One signature for every family: ``ids(split=..., tier=...)``. A family declares its
    ``splits``, ``all_tiers`` and, if its tasks come in groups an env may pick from (ToolUse's
    domains, Browser's sites), ``all_groups`` and the keyword that names them (``group_filter``);
    it lists its tasks in `catalog` and rebuilds one in `get`. Restricting (the constructor,
    `narrowed`), validating and caching are shared here.
    """

    family: ClassVar[str] = ""
    splits: ClassVar[tuple[str, ...]] = ("train", "test")
    all_tiers: ClassVar[tuple[str, ...]] = ()
    all_groups: ClassVar[tuple[str, ...]] = ()
    group_filter: ClassVar[str] = ""  # the keyword that restricts groups, e.g. "domains"

    def __init__(
        self, groups: Sequence[str] | None = None, tiers: Sequence[str] | None = None, **named: Sequence[str] | None
    ) -> None:
        """Only these groups and tiers (None or empty: all); groups may be passed by the family's keyword."""
        unknown = sorted(set(named) - {self.group_filter} if self.group_filter else named)
        if unknown:
            raise TypeError(
                f"{type(self).__name__} takes groups={self.group_filter or 'None'} and tiers, not {unknown}"
            )
        groups = groups or named.get(self.group_filter)
        self.groups = self._check(
            "group" if not self.group_filter else self.group_filter.rstrip("s"), groups, self.all_groups
        )
        self.tiers = self._check("tier", tiers, self.all_tiers)
        self._ids: dict[tuple[str, str | None], list[str]] = {}

    def _check(self, what: str, chosen: Sequence[str] | None, valid: tuple[str, ...]) -> tuple[str, ...]:
        bad = sorted(set(chosen or ()) - set(valid))
        if bad:
            raise ConfigError(f"unknown {self.family} {what}(s) {bad}; choose from {list(valid)}")
        return tuple(chosen or valid)

    def catalog(self, split: str) -> Iterable[tuple[str, str, str]]:
        """Every task of ``split`` as (id, tier, group), in a fixed order; ``group`` is "" without groups."""
        raise NotImplementedError(f"{type(self).__name__} lists its tasks in catalog() or overrides ids()")

    def tool_groups(self, split: str) -> Iterator[tuple[str, str]]:
        """Every task of ``split`` as (id, tool group), in a fixed order: the tasks of one tool group
        show the same tools, and the first one listed shows all of them at reset (a trainer that
        fixes its tools per class, TRL, reads them there). The catalog's group by default (ToolUse's
        domains); a family whose groups are not tool sets overrides it (BFCL: its API classes)."""
        for task_id, _tier, group in self.catalog(split):
            yield task_id, group

    def ids(self, split: str = "train", tier: str | None = None) -> Sequence[str]:
        """Every task id in ``split`` (of one ``tier``, if given) this task set holds, in a fixed order."""
        key = (self.check_split(split), tier)
        cache = self.__dict__.setdefault("_ids", {})
        if key not in cache:
            if tier is not None and tier not in self.all_tiers:
                raise ConfigError(f"unknown tier {tier!r} for {self.family}; choose from {self.all_tiers}")
            tiers = self.__dict__.get("tiers") or self.all_tiers
            groups = self.__dict__.get("groups") or self.all_groups
            cache[key] = [
                tid
                for tid, t, g in self.catalog(split)
                if (t == tier if tier is not None else t in tiers) and (not groups or g in groups)
            ]
        return cache[key]

    def narrowed(self, split: str, **filters: Sequence[str] | None) -> TaskSet:
        """This family's tasks restricted by an env's filter arguments (``tiers=``, ``domains=``...).

        Unset filters leave this task set as it is; a restriction that leaves ``split`` empty is a
        `ConfigError`. Env constructors pass their filter arguments straight through.
        """
        given = {k: tuple(v) for k, v in filters.items() if v}
        if not given:
            return self
        narrowed = type(self)(**given)
        if not narrowed.ids(split):
            shown = " ".join(f"{k}={list(v)}" for k, v in given.items())
            raise ConfigError(f"no {self.family} tasks in split {split!r} for {shown}")
        return narrowed

    @abstractmethod
    def get(self, task_id: str) -> Task:
        """The task with this id; raises `ConfigError` naming valid splits for an unknown id."""

    def check_split(self, split: str) -> str:
        if split not in self.splits:
            raise ConfigError(f"unknown split {split!r} for {self.family}; choose from {self.splits}")
        return split

    def sample(self, split: str, rng: np.random.Generator) -> Task:
        """A task drawn uniformly from ``split`` with the env's seeded generator."""
        ids = self.ids(self.check_split(split))
        return self.get(ids[int(rng.integers(len(ids)))])


class TemplateTaskSet(TaskSet):
    """Tasks generated from templates and seeds: ids read ``<family>/<group>/<template>/<seed>``.

    The held-out unit is the template: held-out templates form the ``heldout`` split and never
    appear in train or test; the other templates' seeds split into train and test by a stable
    hash of the task id. A family declares ``templates`` (``"<group>/<name>"`` -> an object with
    ``tier`` and ``heldout``) and ``seeds_per_template``, and builds a task in `get`.
    """

    splits: ClassVar[tuple[str, ...]] = ("train", "test", "heldout")
    templates: ClassVar[Mapping[str, Any]] = {}
    seeds_per_template: ClassVar[int] = 0
    test_fraction: ClassVar[float] = 0.25

    def catalog(self, split: str) -> Iterator[tuple[str, str, str]]:
        for key, t in self.templates.items():
            for seed in range(self.seeds_per_template):
                task_id = f"{self.family}/{key}/{seed}"
                if self.split_of(task_id) == split:
                    yield task_id, t.tier, key.partition("/")[0]

    @classmethod
    def template_of(cls, task_id: str) -> Any:
        """The template of a task id; `ConfigError` saying how ids read for one that is not a task."""
        parts = task_id.split("/")
        key = "/".join(parts[1:3])
        if len(parts) != 4 or parts[0] != cls.family or key not in cls.templates or not parts[3].isdigit():
            group = cls.group_filter.rstrip("s") or "group"
            raise ConfigError(
                f"unknown {cls.family} task id {task_id!r}: ids read {cls.family}/<{group}>/<template>/<seed>, with "
                f"templates {sorted(cls.templates)}; list them with {cls.__name__}().ids(split=...) for split in "
                f"{cls.splits}"
            )
        return cls.templates[key]

    @classmethod
    def split_of(cls, task_id: str) -> str:
        return "heldout" if cls.template_of(task_id).heldout else stable_split(task_id, cls.test_fraction)
