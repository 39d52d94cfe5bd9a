"""The experiment's arms: which budget schedules are trained, on which seeds, and the references
built from trained policies.

The schedules are fixed-T-short, fixed-T-long, BudgetMix and the curricula, each trained once per
seed at the same environment steps; BudgetMix without forced starts (`baselines.config.NO_STARTS`)
on the first few seeds tells what the start-state curriculum contributes. With ``--process-arms W``,
fixed-T-long and BudgetMix are also trained with `ProcessReward` of weight W on the first
``--process-seeds`` seeds (``fixed-T<long>+pr``, ``budgetmix+pr``): process supervision against
budget design. The pick+loop reference
puts a trained policy's patch pick inside the scripted test-and-revert loop.
"""

from __future__ import annotations

from typing import Any

from baselines.config import NO_STARTS, PROCESS_SUFFIX, Args
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
    if args.process_arms:
        out[f"fixed-T{args.t_long}{PROCESS_SUFFIX}"] = f"fixed:{args.t_long}"
        out[f"budgetmix{PROCESS_SUFFIX}"] = args.mix
    return out


def run_settings(name: str, process_weight: float = 0.0) -> dict[str, Any]:
    """What a run of schedule ``name`` changes in the training settings besides its schedule and seed:
    no forced starts for `NO_STARTS`, the process reward for a ``+pr`` arm."""
    if name == NO_STARTS:
        return {"recovery_starts": 0.0}
    if name.endswith(PROCESS_SUFFIX):
        return {"process_reward": process_weight}
    return {}


def experiment_runs(args: Args, schedules: dict[str, str], seeds: list[int]) -> list[tuple[str, str, int]]:
    """(name, spec, seed) of every training run, seed-major; the no-starts arm on the first
    ``--no-starts-seeds`` seeds only, the process-reward arms on the first ``--process-seeds``."""

    def trained(name: str, seed: int) -> bool:
        if name == NO_STARTS:
            return seed in seeds[: args.no_starts_seeds]
        if name.endswith(PROCESS_SUFFIX):
            return seed in seeds[: args.process_seeds]
        return True

    return [(name, spec, seed) for seed in seeds for name, spec in schedules.items() if trained(name, seed)]


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
