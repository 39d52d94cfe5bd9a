"""The experiment as one job graph: ``train:`` runs, ``eval:`` agents (each after the run it
evaluates), the ``probe`` (after the first seed's runs) and the positive control's ``control:`` jobs.

`experiment_jobs` builds the stages' settings once from the command line (`TrainSettings` per run,
`EvalSettings` for every evaluation) and hands each job only those. The job with the most work still
behind it starts first (`JOB_COSTS`, `baselines.experiment.grid.priorities`), so no core waits for a
phase to end.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from agentgym.envs.coding.result_cache import process_cache
from baselines.config import NO_STARTS, PROCESS_SUFFIX, Args, EvalSettings, TrainSettings, first_env_id, in_parallel
from baselines.experiment.arms import experiment_runs, pick_loop_seeds, run_settings, training_seeds
from baselines.experiment.control import CONTROL_ENV, control_jobs
from baselines.experiment.evaluation import eval_episodes, evaluate_agent
from baselines.experiment.grid import Job, land_checkpoint, run_graph, train_job
from baselines.experiment.probe import budget_probe
from baselines.policy.train import coding_kwargs

__all__ = ["JOB_COSTS", "experiment_jobs", "eval_settings", "train_grid"]

JOB_COSTS = {"train_step": 2.5, "eval_episode": 22.0, "probe": 12_000.0}
"""CPU milliseconds (a 2-core x86 machine, Docker sandboxes, benchmarks/experiment_timeline.py) of a
training env step, of an evaluation episode and of the probe: what orders the jobs
(`baselines.experiment.grid.priorities`; the positive control's are `baselines.experiment.control.CONTROL_COSTS`).
Only their ratios matter, and only roughly: they decide which ready job starts first."""

PICK_LOOP = "ref:budgetmix-pick+loop"
"""The agent name of the pick+loop reference (`baselines.experiment.arms.pick_loop_agent`)."""


def eval_settings(args: Args) -> EvalSettings:
    """The evaluations' settings; their progress bars only when they run in this process."""
    return EvalSettings.from_args(args, progress=args.progress and not in_parallel(args.workers, args.executor))


def experiment_jobs(
    args: Args,
    schedules: dict[str, str],
    seeds: list[int],
    task_lists: dict[str, list[str]],
    out: Path,
    agents: dict[str, dict[int, Any]],
    training: dict[str, dict[int, dict[str, Any]]],
) -> tuple[list[Job], dict[str, tuple[str, int]], Any]:
    """Every job of the experiment. Returns the jobs, the (agent, seed) of each evaluation job, and
    the function that assembles the control's results (None without a control).

    ``agents`` holds the agents evaluated without training (random, scripts) and receives each
    trained policy's agent as ``training`` receives its run's summary (the caller's ``on_done``);
    an evaluation's arguments are built from them when its run is done.
    """

    runs = experiment_runs(args, schedules, seeds)
    jobs = _train_jobs(args, runs)
    eval_jobs, labels = _eval_jobs(args, schedules, runs, seeds, task_lists, out, agents, training)
    jobs += eval_jobs
    first = [name for name in training if any(n == name and s == seeds[0] for n, _, s in runs)]
    jobs.append(_probe_job(args, first, seeds[0], agents))
    assemble = None
    if args.control_steps:  # the positive control (sandbox-free, known optimum)
        control, assemble = control_jobs(
            args.control_steps,
            tuple(training_seeds(args.control_seeds)),
            2,
            10,
            (2, 5, 10),
            args.control_episodes,
            str(out / "control"),
            env_id=CONTROL_ENV,
            base=TrainSettings.from_args(args, progress=False),
        )
        jobs += control
    return jobs, labels, assemble


def train_grid(args: Args, schedules: dict[str, str], seeds: list[int]) -> dict[str, dict[int, dict[str, Any]]]:
    """Train every (schedule, seed) run of ``schedules`` as the experiment does (the same jobs, in
    ``--workers`` processes or on Ray), without evaluating: each run's summary by name and seed.
    What the grid-throughput benchmark (benchmarks/train.py) measures."""
    runs = experiment_runs(args, schedules, seeds)
    finished, _ = run_graph(
        _train_jobs(args, runs), workers=args.workers, executor=args.executor, ray_address=args.ray_address or None
    )
    training: dict[str, dict[int, dict[str, Any]]] = {}
    for name, _, seed in runs:
        training.setdefault(name, {})[seed] = land_checkpoint(finished[f"train:{name}-s{seed}"])
    return training


def _train_jobs(args: Args, runs: list[tuple[str, str, int]]) -> list[Job]:
    """A ``train:NAME-sSEED`` job per run, each with its own `TrainSettings`."""
    progress = args.progress and not in_parallel(args.workers, args.executor)
    return [
        Job(
            f"train:{name}-s{seed}",
            train_job,
            (
                TrainSettings.from_args(
                    args, schedule=spec, seed=seed, progress=progress, **run_settings(name, args.process_arms)
                ),
                f"{name}-s{seed}",
                args.executor == "ray",
            ),
            cost=JOB_COSTS["train_step"] * args.total_env_steps,
        )
        for name, spec, seed in runs
    ]


def _evaluated(
    args: Args,
    runs: list[tuple[str, str, int]],
    seeds: list[int],
    agents: dict[str, dict[int, Any]],
    training: dict[str, dict[int, dict[str, Any]]],
) -> list[tuple[str, int, tuple[str, int] | None]]:
    """(agent, seed, the training run it needs) of every evaluation: the references first, then
    seed-major as the report lists them, the pick+loop reference after its seed's BudgetMix."""
    coding = "Coding" in first_env_id(args.env_ids)
    refs = {r.strip() for r in str(args.eval_references).split(",") if r.strip()} if coding else set()
    picks = pick_loop_seeds(seeds, args.pick_loop_seeds) if "pick+loop" in refs and "budgetmix" in training else []
    evaluated: list[tuple[str, int, tuple[str, int] | None]] = [
        (name, 0, None) for name, by_seed in agents.items() if 0 in by_seed
    ]
    if picks:
        agents.setdefault(PICK_LOOP, {})  # filled as BudgetMix's runs finish
    for seed in seeds:
        evaluated += [
            (name, seed, (name, seed)) for name in training if any(n == name and s == seed for n, _, s in runs)
        ]
        if seed in picks:
            evaluated.append((PICK_LOOP, seed, ("budgetmix", seed)))
    return evaluated


def _eval_jobs(
    args: Args,
    schedules: dict[str, str],
    runs: list[tuple[str, str, int]],
    seeds: list[int],
    task_lists: dict[str, list[str]],
    out: Path,
    agents: dict[str, dict[int, Any]],
    training: dict[str, dict[int, dict[str, Any]]],
) -> tuple[list[Job], dict[str, tuple[str, int]]]:
    """An ``eval:`` job per agent and seed, after the run it evaluates; and each job's (agent, seed).

    The recovery contrasts' agents also play every intervention (the same forced start for all), and
    BudgetMix without forced starts (does the start-state curriculum cause the recovery?) and the
    process-reward arms (does process supervision teach local recovery?)."""
    settings = eval_settings(args)
    intervened = (
        set(list(schedules)[:2])
        | {"budgetmix", NO_STARTS, "script:budget-aware"}
        | {name for name in schedules if name.endswith(PROCESS_SUFFIX)}
        if args.eval_interventions
        else set()
    )
    jobs: list[Job] = []
    labels: dict[str, tuple[str, int]] = {}
    for name, seed, run in _evaluated(args, runs, seeds, agents, training):
        label = f"{name}-s{seed}" if seed else name
        labels[f"eval:{label}"] = (name, seed)
        cost = JOB_COSTS["eval_episode"] * eval_episodes(settings, task_lists, name in intervened)
        job_args = (settings, label, None, out / "eval", task_lists, name in intervened)
        if run is None:
            jobs.append(Job(f"eval:{label}", _eval_job, (*job_args[:2], agents[name][seed], *job_args[3:]), cost=cost))
        else:
            jobs.append(
                Job(
                    f"eval:{label}",
                    _eval_job,
                    partial(_with_agent, job_args, agents, name, seed),
                    after=(f"train:{run[0]}-s{run[1]}",),
                    cost=cost,
                )
            )
    return jobs, labels


def _probe_job(args: Args, first: list[str], seed: int, agents: dict[str, dict[int, Any]]) -> Job:
    """Does each policy use the budget and the verdict? The probe of the first seed's policies."""
    env_id = first_env_id(args.env_ids)
    tier = (args.eval_tier,) if args.eval_tier and "Coding" in env_id else None
    probe_kwargs = {
        "max_actions": args.max_actions,
        "turns_left": sorted({1, 2, 3, 4, *(int(t) for t in str(args.eval_ts).split(","))}),
        "tasks": 24 if args.preset != "smoke" else 2,
        "backend": args.backend,
        "split": args.eval_split,
        "env_kwargs": {
            **coding_kwargs(env_id, args.test_timeout, args.result_cache),
            **({"tiers": tier} if tier else {}),
        },
    }
    return Job(
        "probe",
        _run_probe,
        lambda _: ({name: agents[name][seed].policy for name in first}, env_id, probe_kwargs),
        after=tuple(f"train:{name}-s{seed}" for name in first),
        cost=JOB_COSTS["probe"],
    )


def _eval_job(
    settings: EvalSettings,
    name: str,
    agent: Any,
    out: Path,
    task_lists: dict[str, list[str]],
    intervene: bool = False,
) -> tuple[dict[str, Any], dict[str, dict[str, int]]]:
    """One agent's evaluations, with the result-cache hits and misses they made in this worker."""

    before = process_cache().stats()
    result = evaluate_agent(settings, name, agent, out, task_lists, intervene=intervene)
    after = process_cache().stats()
    return result, {kind: {c: after[kind][c] - before[kind][c] for c in ("hits", "misses")} for kind in after}


def _with_agent(
    job_args: tuple[Any, ...], agents: dict[str, dict[int, Any]], name: str, seed: int, _done: dict[str, Any]
) -> tuple[Any, ...]:
    """An evaluation job's arguments once the agent's run is trained: ``job_args`` with the agent third."""
    return (*job_args[:2], agents[name][seed], *job_args[3:])


def _run_probe(policies: dict[str, Any], env_id: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    return budget_probe(policies, env_id, **kwargs)
