"""The task model: data plus a verifier and a reference solution, generated from seeds.

A family owns a `TaskSet` that lists task ids per split and rebuilds any task from its id, so a
task id is all a trajectory needs to be replayed. Splits are disjoint by construction:
`stable_split` hashes a key (a source module, a template) rather than drawing from an RNG.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agentgym.errors import ConfigError

__all__ = ["Task", "TaskSet", "stable_split", "stable_hash"]


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
    """All tasks of one family: ids per split, and a task rebuilt from its id."""

    family: str = ""
    splits: tuple[str, ...] = ("train", "test")

    @abstractmethod
    def ids(self, split: str) -> Sequence[str]:
        """Every task id in ``split``, in a fixed order."""

    @abstractmethod
    def get(self, task_id: str) -> Task:
        """The task with this id; raises `ConfigError` naming valid splits for an unknown id."""

    def check_split(self, split: str) -> str:
        if split not in self.splits:
            raise ConfigError(f"unknown split {split!r} for {self.family}; choose one of {self.splits}")
        return split

    def sample(self, split: str, rng: np.random.Generator) -> Task:
        """A task drawn uniformly from ``split`` with the env's seeded generator."""
        ids = self.ids(self.check_split(split))
        return self.get(ids[int(rng.integers(len(ids)))])
