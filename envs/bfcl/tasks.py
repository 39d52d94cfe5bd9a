"""BFCL's multi-turn tasks as agentgym tasks: ids, categories (the group filter), tiers and splits.

Task ids read ``bfcl/<category>/<index>`` (``bfcl/miss_param/17`` is BFCL's
``multi_turn_miss_param_17``). The four categories are variants of the same 200 scenarios (they
share the index, mostly the first question and the initial state), so the split is by scenario:
all four variants of a scenario are in the same split, by a stable hash of ``bfcl/<index>``.
Tiers: ``one_api`` (one class involved) and ``two_apis``. Tool groups (`BFCLTasks.tool_groups`): the
task's set of API classes (``GorillaFileSystem+TwitterAPI``), the same in all four variants.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from agentgym.errors import ConfigError
from agentgym.tasks import Task, TaskSet, stable_split

if TYPE_CHECKING:  # the data module loads BFCL's files: imported when a task is listed, not when registered
    from agentgym.envs.bfcl.data import Entry

__all__ = [
    "BFCLTasks",
    "CATEGORIES",
    "TEST_FRACTION",
    "INTRO",
    "REPLY_DONE",
    "REPLY_CANNOT",
    "category_env_id",
    "scenario_split",
    "class_set",
]

CATEGORIES = ("base", "miss_func", "miss_param", "long_context")
"""BFCL's four multi-turn categories (the data files ``BFCL_v4_multi_turn_<category>.json``)."""
TEST_FRACTION = 0.25
REPLY_DONE = 'reply("Done.")'
REPLY_CANNOT = 'reply("I cannot do that yet: I need a detail or a tool I do not have.")'
INTRO = (
    "You are talking with a user over several turns. Do what the user asks by calling the tools, one call per "
    "action; each call's result comes back to you. When the request is done, or you cannot do it (a detail "
    'or a tool is missing: then say so), reply("...") hands the turn back and the user\'s next message '
    "follows. Every action counts toward your budget."
)


def category_env_id(category: str) -> str:
    """The per-category Gymnasium id, e.g. ``agentgym/BFCL-miss_func-v0``."""
    return f"agentgym/BFCL-{category}-v0"


def scenario_split(index: int) -> str:
    return stable_split(f"bfcl/{index}", TEST_FRACTION)


def class_set(classes: tuple[str, ...]) -> str:
    """A task's tool group: its API classes, sorted and joined by ``+`` (``GorillaFileSystem+TwitterAPI``)."""
    return "+".join(sorted(classes))


def _tier(classes: tuple[str, ...]) -> str:
    return "one_api" if len(classes) == 1 else "two_apis"


def _listing(split: str) -> Iterator[tuple[str, Entry]]:
    """(task id, `Entry`) of every task of ``split``, category by category in `CATEGORIES`' order."""
    from agentgym.envs.bfcl.data import entries

    for category in CATEGORIES:
        for e in entries(category):
            if scenario_split(e.index) == split:
                yield f"bfcl/{category}/{e.index}", e


class BFCLTasks(TaskSet):
    """BFCL's 800 multi-turn tasks (``BFCLTasks(categories=[...], tiers=[...])``)."""

    family: ClassVar[str] = "bfcl"
    all_tiers: ClassVar[tuple[str, ...]] = ("one_api", "two_apis")
    all_groups: ClassVar[tuple[str, ...]] = CATEGORIES
    group_filter: ClassVar[str] = "categories"

    def catalog(self, split: str) -> Iterator[tuple[str, str, str]]:
        for task_id, e in _listing(split):
            yield task_id, _tier(e.classes), e.category

    def tool_groups(self, split: str) -> Iterator[tuple[str, str]]:
        """Every task of ``split`` as (id, its classes' `class_set`): the categories share the scenarios'
        classes, and ``base`` is listed first, whose tasks show every tool at reset (``miss_func``
        withholds one until its turn)."""
        for task_id, e in _listing(split):
            yield task_id, class_set(e.classes)

    def get(self, task_id: str) -> Task:
        from agentgym.envs.bfcl.data import entry, render

        parts = task_id.split("/")
        if (
            len(parts) != 3
            or parts[0] != "bfcl"
            or parts[1] not in CATEGORIES
            or not parts[2].isdigit()
            or not 0 <= int(parts[2]) < 200
        ):
            raise ConfigError(
                f"unknown bfcl task id {task_id!r}: ids read bfcl/<category>/<index> with a category of "
                f"{list(CATEGORIES)} and an index from 0 to 199"
            )
        e = entry(parts[1], int(parts[2]))
        solution: list[str] = []
        for calls in e.ground_truth:
            solution += [render(c) for c in calls]
            solution.append(REPLY_DONE if calls else REPLY_CANNOT)
        return Task(
            task_id=task_id,
            family="bfcl",
            split=scenario_split(e.index),
            instruction=e.turns[0],
            subtasks=tuple(f"turn_{k + 1}" for k, calls in enumerate(e.ground_truth) if calls),
            solution=tuple(solution),
            tier=_tier(e.classes),
            meta={"category": e.category, "index": e.index},
        )
