"""Task templates of a stateful world: a seeded builder per request, grouped and tiered.

A family declares its templates as `Template` objects (ToolUse in each domain module, Browser in
its templates module); the kit's task set (`agentgym.world.tasks.WorldTasks`) turns every
(template, seed) pair into a task id, a split (held-out templates only in ``heldout``) and the
scenario the builder makes from the seed.

Stdlib only: ToolUse's domains declare their templates at import, inside the sandbox too, where
this file is loaded under this name (``agentgym.world.templates``).
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class Template:
    """A request template: ``build(random.Random)`` returns the family's scenario (its world, the
    request, what success means). ``group`` is the family's unit of content (a ToolUse domain, a
    Browser site); ``heldout`` templates only ever appear in the ``heldout`` split."""

    name: str
    group: str
    tier: str
    build: object
    heldout: bool = False

    @property
    def key(self):
        """``"<group>/<name>"``: how task ids and the task set name the template."""
        return "%s/%s" % (self.group, self.name)
