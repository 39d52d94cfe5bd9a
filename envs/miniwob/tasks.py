"""MiniWoB++ tasks: which pages, their tiers, and every (page, seed) pair with its split.

Task ids read ``miniwob/<page>/<seed>``; the seed seeds the page (``Math.seedrandom``), so a task id
is one concrete problem. Seeds split into train and test by a stable hash of the id (the pages are
the benchmark's own; there is no held-out unit beyond the seed).

Which pages (the rule, applied to all 130 pages of ``miniwob`` 1.1.0; docs/miniwob.md lists the rest):

1. ``controls``: the task is done with ordinary links, buttons, text boxes, check boxes, radio
   buttons and drop-downs, which Browser-v0's renderer shows as they are;
2. ``clickable``: the targets include ``div``/``span``/heading elements the page listens to for
   clicks, which the renderer gives ids through its listener probe;
3. and the page is reachable through the text observation and Browser-v0's actions, shown by a
   scripted solver (`agentgym.envs.miniwob.solvers`) that succeeds on at least 95% of seeds 0-19.
   So every registered task has an oracle, as every agentgym task does.

Left out: pages that need a canvas or SVG read as an image, dragging, sliders and spinners,
colour or shape perception, text selection, hovering, or acting within a time limit (46 pages),
and pages of kinds 1-2 without a solver yet (choose-date, click-menu, phone-book, ...).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import ClassVar

from agentgym.envs.miniwob.solvers import min_turns
from agentgym.errors import ConfigError
from agentgym.tasks import Task, TaskSet, stable_split

__all__ = ["MiniWoBTasks", "CONTROLS", "CLICKABLE", "TASKS", "SEEDS_PER_TASK", "task_env_id"]

SEEDS_PER_TASK = 1000
TEST_FRACTION = 0.25

CONTROLS: tuple[str, ...] = (
    "choose-list",
    "click-button",
    "click-button-sequence",
    "click-checkboxes",
    "click-checkboxes-large",
    "click-checkboxes-transfer",
    "click-dialog",
    "click-dialog-2",
    "click-link",
    "click-option",
    "click-tab",
    "click-test",
    "click-test-2",
    "click-test-transfer",
    "click-widget",
    "copy-paste",
    "copy-paste-2",
    "enter-date",
    "enter-password",
    "enter-text",
    "enter-text-2",
    "enter-text-dynamic",
    "enter-time",
    "find-word",
    "focus-text",
    "focus-text-2",
    "form-sequence-2",
    "form-sequence-3",
    "guess-number",
    "login-user",
    "login-user-popup",
    "multi-layouts",
    "multi-orderings",
    "read-table",
    "read-table-2",
    "search-engine",
    "simple-algebra",
    "simple-arithmetic",
    "text-transform",
    "unicode-test",
)
"""Pages done with ordinary links, buttons, boxes and drop-downs."""
CLICKABLE: tuple[str, ...] = (
    "book-flight",
    "book-flight-nodelay",
    "click-collapsible",
    "click-collapsible-nodelay",
    "click-collapsible-2",
    "click-collapsible-2-nodelay",
    "click-tab-2",
    "click-tab-2-easy",
    "click-tab-2-medium",
    "click-tab-2-hard",
    "email-inbox",
    "email-inbox-delete",
    "email-inbox-forward",
    "email-inbox-important",
    "email-inbox-noscroll",
    "email-inbox-reply",
    "email-inbox-star-reply",
    "navigate-tree",
    "social-media",
    "social-media-all",
    "social-media-some",
    "use-autocomplete",
    "use-autocomplete-nodelay",
)
"""Pages whose targets include div/span/heading elements the page listens to (autocomplete suggestions,
section headers, e-mail rows and icons, tree nodes, post buttons)."""
TASKS: tuple[str, ...] = CONTROLS + CLICKABLE


def _tier(page: str) -> str:
    return "controls" if page in CONTROLS else "clickable"


@functools.cache
def _catalog(split: str) -> tuple[tuple[str, str, str], ...]:
    """Every (id, tier, page) of ``split``, hashed once per process: the 63,000 ids' SHA-256 took about
    a second on a loaded 2-core machine, paid again by every env built (a narrowed task set lists afresh)."""
    ids = ((f"miniwob/{page}/{seed}", page) for page in TASKS for seed in range(SEEDS_PER_TASK))
    return tuple((task_id, _tier(page), page) for task_id, page in ids if stable_split(task_id, TEST_FRACTION) == split)


def task_env_id(page: str) -> str:
    """The per-task Gymnasium id of a page, e.g. ``agentgym/MiniWoB-click-button-v0``."""
    return f"agentgym/MiniWoB-{page}-v0"


class MiniWoBTasks(TaskSet):
    """Every selected page times `SEEDS_PER_TASK` seeds (``MiniWoBTasks(tasks=[...], tiers=[...])``)."""

    family: ClassVar[str] = "miniwob"
    all_tiers: ClassVar[tuple[str, ...]] = ("controls", "clickable")
    all_groups: ClassVar[tuple[str, ...]] = TASKS
    group_filter: ClassVar[str] = "tasks"

    def catalog(self, split: str) -> Iterator[tuple[str, str, str]]:
        return iter(_catalog(split))

    def get(self, task_id: str) -> Task:
        parts = task_id.split("/")
        if (
            len(parts) != 3
            or parts[0] != "miniwob"
            or parts[1] not in TASKS
            or not parts[2].isdigit()
            or int(parts[2]) >= SEEDS_PER_TASK
        ):
            raise ConfigError(
                f"unknown miniwob task id {task_id!r}: ids read miniwob/<page>/<seed> with a page of "
                f"{list(TASKS)} and a seed below {SEEDS_PER_TASK}"
            )
        page, seed = parts[1], int(parts[2])

        return Task(
            task_id=task_id,
            family="miniwob",
            split=stable_split(task_id, TEST_FRACTION),
            instruction=f"MiniWoB++ task {page}: the page says what to do.",
            tier=_tier(page),
            min_turns=min_turns(page),
            meta={"page": page, "seed": seed},
        )
