"""`WorldTasks`: the task set of a stateful world, one task per (template, seed).

Task ids read ``<family>/<group>/<template>/<seed>`` (`agentgym.tasks.TemplateTaskSet`: splits,
held-out templates). A family declares its task set in its class statement::

    class ToolUseTasks(WorldTasks, family="tooluse", group_filter="domains", templates=TEMPLATES,
                       tiers=TIERS, seeds_per_template=24, build=_build):
        ...
 The scenario of a task is its template's builder run on a generator seeded
by a stable hash of the id, so a task is the same on every machine; `task` wraps what the family
makes of it (instruction, subtasks, the oracle's walk, what its world needs) into a `Task`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agentgym.tasks import Task, TemplateTaskSet, stable_hash
from agentgym.world.templates import Template

__all__ = ["WorldTasks", "templates_by_key"]


def templates_by_key(templates: Iterable[Template]) -> dict[str, Template]:
    """``"<group>/<name>"`` -> template: what `TemplateTaskSet.templates` holds."""
    return {t.key: t for t in templates}


class WorldTasks(TemplateTaskSet):
    """A family's tasks built from `Template` objects. The class statement's keywords declare it;
    ``build(task_id)`` (cache it) makes the `Task`, with `scenario` and `task`. Groups are the
    templates' groups, in the order they first appear."""

    _build: Callable[[str], Task]

    def __init_subclass__(
        cls,
        *,
        family: str,
        group_filter: str,
        templates: Mapping[str, Template],
        tiers: tuple[str, ...],
        seeds_per_template: int,
        build: Callable[[str], Task],
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        cls.family, cls.group_filter, cls.templates, cls.all_tiers = family, group_filter, templates, tiers
        cls.all_groups = tuple(dict.fromkeys(t.group for t in templates.values()))
        cls.seeds_per_template = seeds_per_template
        cls._build = staticmethod(build)

    def get(self, task_id: str) -> Task:
        return self._build(task_id)

    @classmethod
    def scenario(cls, task_id: str) -> tuple[Template, Any]:
        """The task's template and the scenario its builder makes from the task's seed."""
        t = cls.template_of(task_id)
        return t, t.build(random.Random(stable_hash(task_id)))

    @classmethod
    def task(
        cls,
        task_id: str,
        template: Template,
        *,
        instruction: str,
        subtasks: tuple[str, ...],
        solution: tuple[str, ...],
        meta: Mapping[str, Any],
    ) -> Task:
        """The `Task`; its meta starts with the template's group (under the family's group name) and name."""
        group = cls.group_filter.rstrip("s") or "group"
        return Task(
            task_id=task_id,
            family=cls.family,
            split=cls.split_of(task_id),
            instruction=instruction,
            subtasks=subtasks,
            solution=solution,
            tier=template.tier,
            meta={group: template.group, "template": template.name, **meta},
        )
