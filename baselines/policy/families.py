"""What the budget experiment needs to know per env family beyond Coding-v0: menus, tasks, faults, interventions.

One `FamilyPlan` per family the experiment runs on besides Coding-v0 (`PLANS`), read through
`plan_for(env_id)`:

- ``env_kwargs``: the env's constructor arguments for training *and* evaluation: the menu that
  does not hand out the answer (``menu="no-oracle"``, `agentgym.menus`), and for MiniWoB-v0 the
  pages it runs on (`MINIWOB_PAGES`);
- ``headline_split``: where the headline numbers come from (`HEADLINE_WHY` says why);
- ``train_faults``: the seeded faults injected in training (`agentgym.wrappers.faults` specs),
  since without them these families rarely punish a first wrong step and recovery never pays;
- ``interventions``: the fault specs ``--eval-interventions`` may force on every agent, paired by
  task (neither family defines forced starts), primary first; ``unsupported`` names the specs
  that cannot bite there, with why (`check_family_interventions` refuses them before training).

Coding-v0 has no plan: the experiment's defaults are its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentgym.envs.miniwob.tasks import CONTROLS
from agentgym.errors import ConfigError
from agentgym.wrappers.faults import parse_faults

__all__ = [
    "FamilyPlan",
    "PLANS",
    "MINIWOB_PAGES",
    "HEADLINE_WHY",
    "plan_for",
    "family_env_kwargs",
    "check_family_interventions",
]

_WORKED_OUT: frozenset[str] = frozenset(
    {
        "copy-paste",
        "copy-paste-2",
        "enter-date",
        "enter-text-2",
        "enter-time",
        "find-word",
        "guess-number",
        "read-table",
        "read-table-2",
        "simple-algebra",
        "simple-arithmetic",
        "text-transform",
    }
)
"""The controls pages whose answer is worked out or read off the page: no menu offers it."""

MINIWOB_PAGES: tuple[str, ...] = tuple(page for page in CONTROLS if page not in _WORKED_OUT)
"""MiniWoB-v0's pages for the experiment, by a committed rule: the ``controls`` tier (ordinary
links, buttons, boxes and drop-downs: the issue's ordinary-control pages) whose no-oracle menu
lets a menu player (the solver's action when the menu holds it, else give up) solve at least 9
of the first 10 test-split seeds. Measured once (all 28 solved 10 of 10; every other controls
page solved at most 3: the answer is worked out or read off the page, which no menu offers);
`tests/baselines/test_families.py` rechecks two seeds per page under Docker."""

HEADLINE_WHY: Mapping[str, str] = {
    "tooluse": "heldout: the 4 held-out templates (96 tasks) are never trained on, so a trained policy cannot have "
    "met their requests' shapes; the test split (new seeds of training templates) is the second column",
    "miniwob": "test: held-out seeds of the training pages (MiniWoB-v0 splits by seed, 25% test by a stable hash). A "
    "seed draws a new problem (other target texts, other elements and orders), and no answer of a test "
    "seed is a training decoy's inverse (Coding's leak); held-out pages would measure transfer between "
    "page types, which a hashed-feature menu policy cannot make, so every schedule would score 0 there "
    "and the budget would show nothing",
}
"""Why each family's headline split is the one it is."""


@dataclass(frozen=True)
class FamilyPlan:
    """How the experiment runs one family (see the module docstring)."""

    family: str
    env_id: str
    env_kwargs: Mapping[str, Any]
    headline_split: str
    second_split: str
    train_faults: str
    interventions: tuple[str, ...]
    unsupported: Mapping[str, str] = field(default_factory=dict)
    """A fault kind, or ``kind@schedule-key`` (``state_drift@mutation``) -> why it cannot bite here."""


PLANS: Mapping[str, FamilyPlan] = {
    "tooluse": FamilyPlan(
        family="tooluse",
        env_id="agentgym/ToolUse-v0",
        env_kwargs={"menu": "no-oracle"},
        headline_split="heldout",
        second_split="test",
        # a failed or cut-short call retried, a record another actor changed read again
        train_faults="tool_error+timeout+corrupted_output@p=0.08;state_drift@p=0.04",
        interventions=(
            "tool_error@turn=1",  # the first call fails (a rate limit): retry it
            "corrupted_output@turn=2",  # the second call's result comes back cut short: read it again
            "state_drift@mutation=1",  # another actor changes a record right after the agent's first write
        ),
    ),
    "miniwob": FamilyPlan(
        family="miniwob",
        env_id="agentgym/MiniWoB-v0",
        env_kwargs={"menu": "no-oracle", "tasks": MINIWOB_PAGES},
        headline_split="test",
        second_split="",
        # a dropped action redone, a reloaded page filled in again
        train_faults="tool_error+timeout@p=0.08;state_drift@p=0.04",
        interventions=(
            "tool_error@turn=1",  # the page drops the first action: do it again
            "state_drift@turn=2",  # the page reloads after the second action: everything entered is gone
        ),
        unsupported={
            "state_drift@mutation": "MiniWoB-v0 emits no mutation events (the page keeps its own state), so a "
            "drift armed for the agent's first write never fires; use state_drift@turn=N",
        },
    ),
}
"""Family name -> its plan."""


def plan_for(env_id: str) -> FamilyPlan | None:
    """The plan of ``env_id``'s family (an ``agentgym/<Family>-v0`` id or a per-task id), or None (Coding-v0)."""
    name = env_id.rsplit("/", 1)[-1].lower()
    return next((p for f, p in PLANS.items() if name.startswith(f)), None)


def family_env_kwargs(env_id: str) -> dict[str, Any]:
    """The constructor arguments the experiment gives ``env_id`` in training and evaluation ({} for Coding-v0)."""
    plan = plan_for(env_id)
    return dict(plan.env_kwargs) if plan else {}


def check_family_interventions(env_id: str, specs: Sequence[str]) -> None:
    """Refuse ``--eval-interventions`` fault specs that cannot bite on ``env_id``'s family (before
    training, with what to pass instead); forced starts are `experiment.check_interventions`' part."""
    plan = plan_for(env_id)
    if plan is None:
        return
    for spec in specs:
        if "@" not in spec:
            continue
        parsed = parse_faults(spec)
        for rule in parsed.get("rules", [parsed]):
            keys = [k for k in ("at_turns", "first_k", "p", "at_mutations") if k in rule]
            schedule = {"at_turns": "turn", "first_k": "first", "p": "p", "at_mutations": "mutation"}[keys[0]]
            for kind in rule["kinds"]:
                why = plan.unsupported.get(f"{kind}@{schedule}") or plan.unsupported.get(kind)
                if why:
                    raise ConfigError(
                        f"--eval-interventions {spec!r} on {env_id}: {why}. This family's interventions: "
                        f"{','.join(plan.interventions)}"
                    )
