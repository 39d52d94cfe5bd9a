"""The fixed-T vs BudgetMix experiment: train five schedules per seed at equal env steps, evaluate, report.

`run_experiment` is what ``python -m baselines.budgetmix`` runs without ``--schedule``:

1. trains ``fixed-T<short>``, ``fixed-T<long>``, ``budgetmix``, the linear ``curriculum`` and
   the stepwise ``curriculum-steps`` with the same number of environment steps, once per
   training seed (``--seeds``);
2. evaluates every trained policy, the random menu policy and the scripted references on one
   fixed list of tasks shared by all of them (``--eval-list``, `baselines.experiment.eval_lists`): one-bug tasks
   of modules never trained on (``--eval-split heldout``) over the T grid; then the second split (new
   mutants of training modules) at a few T, multi-bug held-out tasks when asked, and an
   injected fault when asked;
3. estimates success with intervals over seeds and tasks, and the contrasts named in advance
   (`baselines.report.contrasts.named_contrasts`) paired by task; probes each policy on forced states
   (`baselines.experiment.probe`); writes ``OUT/report.md`` with its plots (`baselines.report.markdown`).

Every step resumes: finished runs and episodes are skipped with ``--resume``.

Training runs, agent evaluations, the probe and the positive control's runs are jobs of one
`baselines.experiment.grid.run_graph`: ``--workers`` processes (the machine's cores by default) or Ray tasks
(``--executor ray``), with the same results either way. An agent's evaluation starts as soon as its
training run is done, the probe as soon as the first seed's are, and the control's clone and runs
fill the cores beside them; the job with the most work still behind it starts first (`JOB_COSTS`),
so no core waits for a phase to end. Each worker keeps Coding-v0's result cache warm across its
jobs, and all of them share its disk cache: the agents play the same tasks, so most later test runs
and verifications are looked up. ``OUT/timeline.json`` records where and when every job ran.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import time
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium as gym

from agentgym.agents import RandomAgent
from agentgym.envs.coding.result_cache import process_cache
from agentgym.errors import ConfigError
from agentgym.eval import evaluate
from baselines.config import NO_STARTS, Args, intervention_runs
from baselines.experiment import provenance
from baselines.experiment.control import CONTROL_ENV, control_jobs
from baselines.experiment.eval_lists import seeded_list, split_task_ids, task_list
from baselines.experiment.grid import Job, describe, in_parallel, land_checkpoint, run_graph, train_job
from baselines.experiment.probe import budget_probe
from baselines.policy.agent import PolicyAgent, load_policy
from baselines.policy.env_pool import borrow, close_idle
from baselines.policy.families import check_family_interventions, family_env_kwargs, plan_for
from baselines.policy.heuristics import (
    BudgetAwareAgent,
    CarefulAgent,
    HastyAgent,
    LearnedPickAgent,
)
from baselines.policy.train import coding_kwargs, make_env, progress_bar
from baselines.report.decisions import DecisionRecorder
from baselines.report.markdown import write_report

__all__ = [
    "run_experiment",
    "experiment_schedules",
    "experiment_runs",
    "run_settings",
    "check_interventions",
    "evaluate_agent",
    "training_seeds",
    "check_family_wiring",
    "experiment_jobs",
    "eval_episodes",
    "JOB_COSTS",
]

MULTI_TIERS = ("two_bugs", "cross_file")


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


def run_settings(args: Args, name: str) -> dict[str, Any]:
    """What a run of schedule ``name`` changes in ``args`` besides its schedule and seed."""
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


def check_interventions(args: Args, env_id: str) -> None:
    """Fail before training when ``--eval-interventions`` names a forced start ``env_id`` does not
    define (Coding-v0's ``wrong-patch`` on another family), or a fault that cannot bite on its
    family (`baselines.policy.families`), rather than at its first evaluation."""
    check_family_interventions(env_id, [name for name, _, _ in intervention_runs(args)])
    forced = [how["intervention"] for _, how, _ in intervention_runs(args) if "intervention" in how]
    if not forced:
        return
    env = gym.make(env_id, backend="local", disable_env_checker=True)
    try:
        known = tuple(getattr(env.unwrapped, "interventions", ()))
    finally:
        env.close()
    missing = [name for name in forced if name not in known]
    if missing:
        raise ConfigError(
            f"--eval-interventions {args.eval_interventions!r}: {env_id} defines no forced start "
            f"{missing} (its own: {list(known) or 'none'}); keep fault specs such as tool_error@turn=1, "
            "or pass --eval-interventions ''"
        )


def check_family_wiring(args: Args, env_id: str) -> None:
    """Fail before training when ``env_id``'s family plan (`baselines.policy.families`) would not hold: the
    trainer's envs must get the plan's menu (a policy trained on a menu that holds the oracle's
    action learns where the answer sits, not the task), and Coding's forced starts (a patch and its
    test) do not exist there, so ``--recovery-starts`` would train nothing it says."""
    plan = plan_for(env_id)
    if plan is None:
        return
    if args.recovery_starts:
        raise ConfigError(
            f"{env_id}: --recovery-starts {args.recovery_starts:g} plays Coding-v0's forced starts, which "
            "this family has none of; pass --recovery-starts 0 (its recovery is trained by --train-faults)"
        )
    env = make_env(env_id, None, backend=args.backend, test_timeout=args.test_timeout, result_cache=args.result_cache)()
    try:
        menu = getattr(env.unwrapped, "menu", None)
    finally:
        env.close()
    if menu != plan.env_kwargs["menu"]:
        raise ConfigError(
            f"{env_id}: the trainer builds its envs with menu={menu!r}, not {plan.env_kwargs['menu']!r} "
            "(baselines/policy/families.py); baselines.policy.train.make_env must pass family_env_kwargs(env_id)"
        )


def training_seeds(args: Args) -> list[int]:
    return [int(s) for s in str(args.seeds).split(",") if s.strip()]


def _evaluate(
    args: Args,
    agent: Any,
    out: Path,
    *,
    split: str,
    tasks: list[str],
    ts: str,
    ks: str,
    n: int,
    faults: str | None = None,
    intervention: str | None = None,
    env_kwargs: dict[str, Any] | None = None,
    report: bool = False,
) -> Any:
    env_id = [e for e in args.env_ids.split(",") if e][0]
    env_kwargs = {
        **coding_kwargs(env_id, args.test_timeout, args.result_cache),
        **family_env_kwargs(env_id),
        **(env_kwargs or {}),
    }
    return evaluate(
        env_id,
        agent,
        ks=ks,
        ts=ts,
        n=n,
        split=split,
        tasks=tasks,
        faults=faults,
        workers=1,
        seed=0,
        out=out,
        sandbox=args.backend,
        progress=args.progress and not in_parallel(args.workers, args.executor),
        report=report,
        intervention=intervention,
        env_kwargs=env_kwargs,
        base_env=borrow,  # this worker's warm envs, kept from one evaluation to the next
    )


def _seed_with_clean_twins(grid: Any, grid_dir: Path, folder: Path, ts: set[int]) -> None:
    """Start ``folder``'s run with the clean grid's episodes at ``ts``: they are the clean twins
    the harness pairs a faulted or intervened episode with, so it need not play them again."""
    folder.mkdir(parents=True, exist_ok=True)
    if (folder / "episodes.jsonl").exists():
        return
    shutil.copy(grid_dir / "run.json", folder / "run.json")
    with (folder / "episodes.jsonl").open("w") as fh:
        for r in grid.records:
            if int(r["T"]) in ts and not r.get("faults") and not r.get("intervention"):
                fh.write(json.dumps(r, sort_keys=True) + "\n")


def evaluate_agent(
    args: Args, name: str, agent: Any, out: Path, task_lists: dict[str, list[str]], *, intervene: bool = False
) -> dict[str, Any]:
    """Every evaluation of one agent: {"grid", "records", "split2_records", "multi_records", "faults",
    "interventions", "seconds"}; ``interventions`` (intervention name -> records, clean twins
    included) only when ``intervene``.

    The harness seed is the same for every agent, so each (task, T, sample) episode gets the same
    env seed whoever plays it, with or without an intervention.
    """

    agent = DecisionRecorder(agent)
    if not args.resume:
        shutil.rmtree(out / name, ignore_errors=True)  # the harness resumes from what it finds
    tier = {"tiers": (args.eval_tier,)} if args.eval_tier and "Coding" in args.env_ids else None
    grid = _evaluate(
        args,
        agent,
        out / name / "grid",
        split=args.eval_split,
        tasks=task_lists["primary"],
        ts=args.eval_ts,
        ks=args.eval_ks,
        n=args.eval_n,
        env_kwargs=tier,
        report=args.harness_reports,
    )
    result: dict[str, Any] = {"grid": grid.summary, "records": grid.records, "seconds": grid.seconds}
    if args.eval_split2:
        second = _evaluate(
            args,
            agent,
            out / name / "split2",
            split=args.eval_split2,
            tasks=task_lists["split2"],
            ts=args.eval_split2_ts,
            ks="1",
            n=1,
            env_kwargs=tier,
        )
        result["split2_records"] = second.records
        result["seconds"] += second.seconds
    if task_lists.get("multi"):
        multi = _evaluate(
            args,
            agent,
            out / name / "multi",
            split=args.eval_split,
            tasks=task_lists["multi"],
            ts=args.eval_ts,
            ks="1",
            n=1,
            env_kwargs={"tiers": MULTI_TIERS},
        )
        result["multi_records"] = multi.records
        result["seconds"] += multi.seconds
    if args.eval_faults and args.eval_fault_ts:
        fault_dir = out / name / "faults"
        fault_ts = {int(t) for t in args.eval_fault_ts.split(",")}
        _seed_with_clean_twins(grid, out / name / "grid", fault_dir, fault_ts)
        faulted = _evaluate(
            args,
            agent,
            fault_dir,
            split=args.eval_split,
            tasks=task_lists["primary"],
            ts=",".join(map(str, sorted(fault_ts))),
            ks="1",
            n=args.eval_n,
            faults=args.eval_faults,
            env_kwargs=tier,
        )
        result["faults"] = faulted.summary
        result["seconds"] += faulted.seconds
    if intervene:
        result["interventions"] = {}
        for i, (iv, how, ts) in enumerate(intervention_runs(args)):
            folder = out / name / f"intervention-{i}"
            _seed_with_clean_twins(grid, out / name / "grid", folder, {int(t) for t in ts.split(",")})
            run = _evaluate(
                args,
                agent,
                folder,
                split=args.eval_split,
                tasks=task_lists["primary"],
                ts=ts,
                ks="1",
                n=args.eval_n,
                env_kwargs=tier,
                faults=how.get("faults"),
                intervention=how.get("intervention"),
            )
            result["interventions"][iv] = run.records
            result["seconds"] += run.seconds
    return result


# ---------------------------------------------------------------------- the jobs, in parallel
JOB_COSTS = {"train_step": 2.5, "eval_episode": 22.0, "probe": 12_000.0}
"""CPU milliseconds (a 2-core x86 machine, Docker sandboxes, benchmarks/experiment_timeline.py) of a
training env step, of an evaluation episode and of the probe: what orders the jobs
(`baselines.experiment.grid.priorities`; the positive control's are `baselines.experiment.control.CONTROL_COSTS`).
Only their ratios matter, and only roughly: they decide which ready job starts first."""


def _eval_job(
    args: Args, name: str, agent: Any, out: Path, task_lists: dict[str, list[str]], intervene: bool = False
) -> tuple[dict[str, Any], dict[str, dict[str, int]]]:
    """One agent's evaluations, with the result-cache hits and misses they made in this worker."""

    before = process_cache().stats()
    result = evaluate_agent(args, name, agent, out, task_lists, intervene=intervene)
    after = process_cache().stats()
    return result, {kind: {c: after[kind][c] - before[kind][c] for c in ("hits", "misses")} for kind in after}


def _with_agent(
    job_args: tuple[Any, ...], agents: dict[str, dict[int, Any]], name: str, seed: int, _done: dict[str, Any]
) -> tuple[Any, ...]:
    """An evaluation job's arguments once the agent's run is trained: ``job_args`` with the agent third."""
    return (*job_args[:2], agents[name][seed], *job_args[3:])


def _probe_job(policies: dict[str, Any], env_id: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    return budget_probe(policies, env_id, **kwargs)


def eval_episodes(args: Args, task_lists: dict[str, list[str]], intervene: bool) -> int:
    """The episodes `evaluate_agent` plays for one agent (clean twins copied from the grid not counted)."""

    def count(ts: str) -> int:
        return len([t for t in str(ts).split(",") if t.strip()])

    n = len(task_lists["primary"]) * count(args.eval_ts) * args.eval_n
    n += len(task_lists.get("split2") or []) * count(args.eval_split2_ts) if args.eval_split2 else 0
    n += len(task_lists.get("multi") or []) * count(args.eval_ts)
    if args.eval_faults and args.eval_fault_ts:
        n += len(task_lists["primary"]) * count(args.eval_fault_ts) * args.eval_n
    if intervene:
        n += sum(len(task_lists["primary"]) * count(ts) * args.eval_n for _, _, ts in intervention_runs(args))
    return n


def experiment_jobs(
    args: Args,
    schedules: dict[str, str],
    seeds: list[int],
    task_lists: dict[str, list[str]],
    out: Path,
    agents: dict[str, dict[int, Any]],
    training: dict[str, dict[int, dict[str, Any]]],
) -> tuple[list[Job], dict[str, tuple[str, int]], Any]:
    """Every job of the experiment: ``train:`` runs, ``eval:`` agents (each after the run it
    evaluates), the ``probe`` (after the first seed's runs) and the positive control's (``control:``).
    Returns the jobs, the (agent, seed) of each evaluation job, and the function that assembles the
    control's results (None without a control).

    ``agents`` holds the agents evaluated without training (random, scripts) and receives each
    trained policy's agent as ``training`` receives its run's summary (the caller's ``on_done``);
    an evaluation's arguments are built from them when its run is done.
    """

    env_id = [e for e in args.env_ids.split(",") if e][0]
    parallel = in_parallel(args.workers, args.executor)
    costs = JOB_COSTS
    jobs: list[Job] = []
    for name, spec, seed in experiment_runs(args, schedules, seeds):
        run_args = dataclasses.replace(
            args, schedule=spec, seed=seed, progress=args.progress and not parallel, **run_settings(args, name)
        )
        jobs.append(
            Job(
                f"train:{name}-s{seed}",
                train_job,
                (run_args, f"{name}-s{seed}", args.executor == "ray"),
                cost=costs["train_step"] * args.total_env_steps,
            )
        )

    coding = "Coding" in env_id
    refs = {r.strip() for r in str(args.eval_references).split(",") if r.strip()} if coding else set()
    picks = pick_loop_seeds(seeds, args.pick_loop_seeds) if "pick+loop" in refs and "budgetmix" in training else []
    # the recovery contrasts' agents also play every intervention (the same forced start for all), and
    # BudgetMix without forced starts: does the start-state curriculum cause the recovery?
    intervened = (
        set(list(schedules)[:2]) | {"budgetmix", NO_STARTS, "script:budget-aware"} if args.eval_interventions else set()
    )
    # (agent, seed, the training run it needs): references first, then seed-major as the report lists them
    evaluated: list[tuple[str, int, tuple[str, int] | None]] = [
        (name, 0, None) for name, by_seed in agents.items() if 0 in by_seed
    ]
    if picks:
        agents.setdefault("ref:budgetmix-pick+loop", {})  # filled as BudgetMix's runs finish
    for seed in seeds:
        evaluated += [
            (name, seed, (name, seed))
            for name in training
            if any(n == name and s == seed for n, _, s in experiment_runs(args, schedules, seeds))
        ]
        if seed in picks:
            evaluated.append(("ref:budgetmix-pick+loop", seed, ("budgetmix", seed)))
    labels: dict[str, tuple[str, int]] = {}
    for name, seed, run in evaluated:
        label = f"{name}-s{seed}" if seed else name
        labels[f"eval:{label}"] = (name, seed)
        cost = costs["eval_episode"] * eval_episodes(args, task_lists, name in intervened)
        job_args = (args, label, None, out / "eval", task_lists, name in intervened)
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

    # does each policy use the budget and the verdict? (the first seed's policies)
    turns_left = sorted({1, 2, 3, 4, *(int(t) for t in str(args.eval_ts).split(","))})
    tier = (args.eval_tier,) if args.eval_tier and coding else None
    probe_kwargs = {
        "max_actions": args.max_actions,
        "turns_left": turns_left,
        "tasks": 24 if args.preset != "smoke" else 2,
        "backend": args.backend,
        "split": args.eval_split,
        "env_kwargs": {
            **coding_kwargs(env_id, args.test_timeout, args.result_cache),
            **({"tiers": tier} if tier else {}),
        },
    }
    first = [
        name
        for name in training
        if any(n == name and s == seeds[0] for n, _, s in experiment_runs(args, schedules, seeds))
    ]
    jobs.append(
        Job(
            "probe",
            _probe_job,
            lambda _: ({name: agents[name][seeds[0]].policy for name in first}, env_id, probe_kwargs),
            after=tuple(f"train:{name}-s{seeds[0]}" for name in first),
            cost=costs["probe"],
        )
    )

    assemble = None
    if args.control_steps:  # the positive control (sandbox-free, known optimum)
        control, assemble = control_jobs(
            args.control_steps,
            tuple(training_seeds(dataclasses.replace(args, seeds=args.control_seeds))),
            2,
            10,
            (2, 5, 10),
            args.control_episodes,
            str(out / "control"),
            env_id=CONTROL_ENV,
            base=dataclasses.replace(args, progress=False),
        )
        jobs += control
    return jobs, labels, assemble


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


def run_experiment(args: Args) -> int:
    """Train, evaluate, probe and run the positive control (`experiment_jobs`, one job graph) and
    report; returns the exit code."""

    import torch

    torch.set_num_threads(max(1, args.torch_threads))
    started = time.perf_counter()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    schedules = experiment_schedules(args)
    seeds = training_seeds(args)

    if args.resume and (out / provenance.FILE).is_file():  # a folder holds the runs of one code version
        # (settings may change on purpose, e.g. a larger --total-env-steps; the record keeps the last)
        changed = provenance.differences(provenance.read(out), {"code": provenance.code_version()}, parts=("code",))
        if changed:
            raise ConfigError(
                f"--resume of {out}, written by other code: {'; '.join(changed)}; start a new --out "
                "(and pool the folders with `python -m baselines.experiment.pool`)"
            )

    check_interventions(args, [e for e in args.env_ids.split(",") if e][0])
    check_family_wiring(args, [e for e in args.env_ids.split(",") if e][0])

    # ---------------------------------------------------------------- one fixed task list for everyone
    env_id = [e for e in args.env_ids.split(",") if e][0]
    coding = "Coding" in env_id
    tier = (args.eval_tier,) if args.eval_tier and coding else None
    task_lists = {
        "primary": task_list(args.eval_list, env_id, args.eval_split, tier, args.eval_tasks),
        "split2": seeded_list(env_id, args.eval_split2, tier, args.eval_tasks) if args.eval_split2 else [],
        "multi": seeded_list(env_id, args.eval_split, MULTI_TIERS, args.eval_multi_tasks)
        if args.eval_multi_tasks and coding
        else [],
    }
    (out / "eval_tasks.json").write_text(json.dumps(task_lists, indent=1))
    train_tiers = tuple(t for t in str(args.train_tier).split(",") if t) if coding else ()
    (out / provenance.FILE).write_text(
        json.dumps(provenance.record(args, task_lists, split_task_ids(env_id, "train", train_tiers or None)), indent=1)
    )

    # ---------------------------------------------------------------- the agents evaluated without training
    agents: dict[str, dict[int, Any]] = {"random": {0: RandomAgent()}}
    refs = {r.strip() for r in str(args.eval_references).split(",") if r.strip()} if coding else set()
    # scripted strategies that pick patches blindly: what committing early vs verifying earns at each T
    scripts = {"hasty": HastyAgent, "careful": CarefulAgent, "budget-aware": BudgetAwareAgent}
    agents.update({f"script:{r}": {0: scripts[r]()} for r in scripts if r in refs})

    # ---------------------------------------------------------------- train, evaluate, probe, control: one graph
    runs = experiment_runs(args, schedules, seeds)
    training: dict[str, dict[int, dict[str, Any]]] = {name: {} for name in dict.fromkeys(n for n, _, _ in runs)}
    jobs, labels, assemble = experiment_jobs(args, schedules, seeds, task_lists, out, agents, training)
    n_evals = len(labels)
    print(
        f"[budgetmix] training {len(runs)} runs ({len(schedules)} schedules, {len(seeds)} seeds) for "
        f"{args.total_env_steps} env steps each, {args.collect_mode} collection; evaluating {n_evals} agents on "
        f"{len(task_lists['primary'])} {args.eval_split} tasks over T={args.eval_ts}, each once its run is trained"
        + (f"; positive control: {args.control_steps} env steps per run" if args.control_steps else "")
        + f"; {describe(args.workers, args.executor)}",
        flush=True,
    )
    parallel = in_parallel(args.workers, args.executor)
    # one bar per kind when the runs' own bars are off (they run in other processes)
    train_bar = progress_bar(args)(
        total=len(runs) * args.total_env_steps, desc="training", unit="step", disable=not parallel
    )
    eval_bar = progress_bar(args)(total=n_evals, desc="evaluating", unit="agent")
    results: dict[str, Any] = {}
    eval_cache = {kind: {"hits": 0, "misses": 0} for kind in process_cache().stats()}

    def done(job: str, result: Any) -> None:
        if job.startswith("train:"):
            name, seed = next((n, s) for n, _, s in runs if job == f"train:{n}-s{s}")
            summary = training[name][seed] = land_checkpoint(result)
            policy, ckpt = load_policy(summary["checkpoint"], "cpu")
            agents.setdefault(name, {})[seed] = PolicyAgent(policy, max_actions=int(ckpt["max_actions"]))
            if (
                "ref:budgetmix-pick+loop" in agents
                and name == "budgetmix"
                and seed in pick_loop_seeds(seeds, args.pick_loop_seeds)
            ):
                agents["ref:budgetmix-pick+loop"][seed] = pick_loop_agent(agents[name][seed])
            train_bar.update(summary["env_steps"])
            print(
                f"[budgetmix] {name} seed {seed}: {summary['steps_per_second']:.0f} env steps/s, "
                f"train success {summary['final_train_success']:.2f}",
                flush=True,
            )
        elif job.startswith("eval:"):
            results[job], counts = result
            for kind, by in counts.items():
                for c, v in by.items():
                    eval_cache[kind][c] += v
            eval_bar.update(1)
            print(f"[budgetmix] evaluated {job[5:]} ({result[0]['seconds']:.0f} s)", flush=True)

    close_idle()  # sandboxes this process started (the family check): stopped before the workers fork
    setup_seconds = time.perf_counter() - started
    try:
        finished, timeline = run_graph(
            jobs, workers=args.workers, executor=args.executor, on_done=done, ray_address=args.ray_address or None
        )
    finally:
        train_bar.close()
        eval_bar.close()
    training = {name: dict(sorted(by_seed.items())) for name, by_seed in training.items()}
    # the report's order: references, then every trained schedule, the scripts, the pick+loop reference
    order = ["random", *training, *(n for n in agents if n not in training and n != "random")]
    evals: dict[str, dict[int, dict[str, Any]]] = {name: {} for name in order if name in agents}
    for job in sorted(labels, key=lambda j: labels[j][1]):  # seed-major
        name, seed = labels[job]
        evals[name][seed] = results[job]
    probe = finished["probe"]
    control = assemble(finished) if assemble is not None else None
    if control is not None:
        (out / "control.json").write_text(json.dumps(control, indent=1))
    (out / "timeline.json").write_text(
        json.dumps({"workers": args.workers, "executor": args.executor, "jobs": timeline}, indent=1)
    )

    # ---------------------------------------------------------------- report
    # the env steps trained now (over the wall time: the rate all workers reached together; a run
    # --resume found finished took no time). The phases overlap: each is timed from the start of its
    # first job to the end of its last (training from the start), so they add up to more than the total.
    def span(prefix: str, since_start: bool = False) -> float:
        rows = [r for r in timeline if r["job"].startswith(prefix)]
        if not rows:
            return 0.0
        return max(r["end"] for r in rows) - (0.0 if since_start else min(r["start"] for r in rows))

    train_env_steps = sum(
        s["env_steps"] for by_seed in training.values() for s in by_seed.values() if not s.get("skipped")
    )
    timing = {
        "train_seconds": span("train:", since_start=True),
        "train_env_steps": train_env_steps,
        "eval_seconds": span("eval:"),
        "probe_seconds": span("probe"),
        "control_seconds": span("control:"),
        "total_seconds": time.perf_counter() - started,
    }
    timing_path = out / "timing.json"
    if args.resume and timing_path.exists():
        # a resumed experiment reports the time of all its sessions together
        before = json.loads(timing_path.read_text())
        timing = {k: v + float(before.get(k, 0.0)) for k, v in timing.items()}
    timing_path.write_text(json.dumps(timing, indent=1))
    report_started = time.perf_counter()
    path = write_report(
        out, args, schedules, training, evals, timing, probe, task_lists, eval_cache=eval_cache, control=control
    )
    # where the time outside the job graph went (this process alone, one core): before it and the report
    timing["setup_seconds"], timing["report_seconds"] = setup_seconds, time.perf_counter() - report_started
    timing_path.write_text(json.dumps(timing, indent=1))
    print(f"[budgetmix] report: {path} ({timing['total_seconds']:.0f} s in all)", flush=True)
    return 0
