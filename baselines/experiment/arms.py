"""The experiment's arms: which budget schedules are trained, on which seeds, and the references
built from trained policies.

The schedules are fixed-T-short, fixed-T-long, BudgetMix and the curricula, each trained once per
seed at the same environment steps; BudgetMix without forced starts (`baselines.config.NO_STARTS`)
on the first few seeds tells what the start-state curriculum contributes. The pick+loop reference
puts a trained policy's patch pick inside the scripted test-and-revert loop.
"""

from __future__ import annotations

from typing import Any

from baselines.config import NO_STARTS, Args
from baselines.policy.heuristics import LearnedPickAgent

__all__ = [
    "experiment_schedules",
    "experiment_runs",
    "run_settings",
    "training_seeds",
    "pick_loop_seeds",
    "pick_loop_agent",
    "pick_loop_agents",
]


def experiment_schedules(args: Args) -> dict[str, str]:
    """Run name -> schedule spec, in the order the report lists them."""
    out = {
        f"fixed-T{args.t_short}": f"fixed:{args.t_short}",
        f"fixed-T{args.t_long}": f"fixed:{args.t_long}",
        "budgetmix": args.mix,
        "curriculum": args.curriculum,
    }
    if args.curriculum_steps:
        out["curriculum-steps"] = args.curriculum_steps
    if args.no_starts_seeds and args.recovery_starts:
        out[NO_STARTS] = args.mix
    return out


def run_settings(name: str) -> dict[str, Any]:
    """What a run of schedule ``name`` changes in the training settings besides its schedule and seed."""
    return {"recovery_starts": 0.0} if name == NO_STARTS else {}


def experiment_runs(args: Args, schedules: dict[str, str], seeds: list[int]) -> list[tuple[str, str, int]]:
    """(name, spec, seed) of every training run, seed-major; the no-starts arm on the first
    ``--no-starts-seeds`` seeds only."""
    return [
        (name, spec, seed)
        for seed in seeds
        for name, spec in schedules.items()
        if name != NO_STARTS or seed in seeds[: args.no_starts_seeds]
    ]


def training_seeds(seeds: str) -> list[int]:
    """The seeds of a comma-separated ``--seeds`` (or ``--control-seeds``) value."""
    return [int(s) for s in str(seeds).split(",") if s.strip()]


def pick_loop_agents(policy_agents: dict[int, Any], seeds: int) -> dict[int, Any]:
    """The pick+loop reference (each policy's patch pick inside the scripted test-and-revert loop)
    for the first ``seeds`` training seeds (0: all): the ceiling of a policy that learned the loop."""

    return {seed: pick_loop_agent(policy_agents[seed]) for seed in pick_loop_seeds(list(policy_agents), seeds)}


def pick_loop_seeds(seeds: list[int], first: int) -> list[int]:
    """The training seeds of the pick+loop reference: the first ``first`` (0: all)."""
    return sorted(seeds)[: first or None]


def pick_loop_agent(policy_agent: Any) -> Any:
    """A trained policy's patch pick inside the scripted loop (the pick+loop reference)."""
    return LearnedPickAgent(policy_agent.policy, max_actions=policy_agent.max_actions)
