"""The fixed-T vs BudgetMix experiment: train five schedules per seed at equal env steps, evaluate, report.

`run_experiment` is what ``python -m baselines.budgetmix`` runs without ``--schedule``:

1. trains ``fixed-T<short>``, ``fixed-T<long>``, ``budgetmix``, the linear ``curriculum`` and
   the stepwise ``curriculum-steps`` with the same number of environment steps, once per
   training seed (``--seeds``);
2. evaluates every trained policy, the random menu policy and the scripted references on one
   fixed list of tasks shared by all of them (``--eval-list``, `baselines.eval_lists`): one-bug tasks of modules
   never trained on (``--eval-split heldout``) over the T grid; then the second split (new
   mutants of training modules) at a few T, multi-bug held-out tasks when asked, and an
   injected fault when asked;
3. estimates success with intervals over seeds and tasks, and the contrasts named in advance
   (`baselines.contrasts.named_contrasts`) paired by task; probes each policy on forced states
   (`baselines.probe`); writes ``OUT/report.md`` with its plots (`baselines.report`).

Every step resumes: finished runs and episodes are skipped with ``--resume``.

Training runs and agent evaluations are jobs of `baselines.grid`: ``--workers`` processes (the
machine's cores by default) or Ray tasks (``--executor ray``), with the same results either way.
Each worker keeps Coding-v0's result cache warm across its jobs, and all of them share its disk
cache: the agents play the same tasks, so most later test runs and verifications are looked up.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

from agentgym.agents import RandomAgent
from agentgym.envs.coding.result_cache import process_cache
from agentgym.errors import ConfigError
from agentgym.eval import evaluate
from baselines import provenance
from baselines.agent import PolicyAgent, load_policy
from baselines.config import NO_STARTS, Args, intervention_runs
from baselines.decisions import DecisionRecorder
from baselines.env_pool import borrow, close_idle
from baselines.eval_lists import seeded_list, split_task_ids, task_list
from baselines.families import check_family_interventions, family_env_kwargs, plan_for
from baselines.grid import describe, in_parallel, land_checkpoint, run_jobs, train_job
from baselines.heuristics import (
    BudgetAwareAgent,
    CarefulAgent,
    HastyAgent,
    LearnedPickAgent,
)
from baselines.positive_control import run_control
from baselines.probe import budget_probe
from baselines.report import write_report
from baselines.trainer import coding_kwargs, make_env, progress_bar

__all__ = ["run_experiment", "experiment_schedules", "experiment_runs", "run_settings", "check_interventions", "evaluate_agent",
           "training_seeds", "check_family_wiring"]

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
    return [(name, spec, seed) for seed in seeds for name, spec in schedules.items()
            if name != NO_STARTS or seed in seeds[: args.no_starts_seeds]]


def check_interventions(args: Args, env_id: str) -> None:
    """Fail before training when ``--eval-interventions`` names a forced start ``env_id`` does not
    define (Coding-v0's ``wrong-patch`` on another family), or a fault that cannot bite on its
    family (`baselines.families`), rather than at its first evaluation."""
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
        raise ConfigError(f"--eval-interventions {args.eval_interventions!r}: {env_id} defines no forced start "
                          f"{missing} (its own: {list(known) or 'none'}); keep fault specs such as tool_error@turn=1, "
                          "or pass --eval-interventions ''")


def check_family_wiring(args: Args, env_id: str) -> None:
    """Fail before training when ``env_id``'s family plan (`baselines.families`) would not hold: the
    trainer's envs must get the plan's menu (a policy trained on a menu that holds the oracle's
    action learns where the answer sits, not the task), and Coding's forced starts (a patch and its
    test) do not exist there, so ``--recovery-starts`` would train nothing it says."""
    plan = plan_for(env_id)
    if plan is None:
        return
    if args.recovery_starts:
        raise ConfigError(f"{env_id}: --recovery-starts {args.recovery_starts:g} plays Coding-v0's forced starts, which "
                          "this family has none of; pass --recovery-starts 0 (its recovery is trained by --train-faults)")
    env = make_env(env_id, None, backend=args.backend, test_timeout=args.test_timeout, result_cache=args.result_cache)()
    try:
        menu = getattr(env.unwrapped, "menu", None)
    finally:
        env.close()
    if menu != plan.env_kwargs["menu"]:
        raise ConfigError(f"{env_id}: the trainer builds its envs with menu={menu!r}, not {plan.env_kwargs['menu']!r} "
                          "(baselines/families.py); baselines.trainer.make_env must pass family_env_kwargs(env_id)")


def training_seeds(args: Args) -> list[int]:
    return [int(s) for s in str(args.seeds).split(",") if s.strip()]


def _evaluate(args: Args, agent: Any, out: Path, *, split: str, tasks: list[str], ts: str, ks: str, n: int,
              faults: str | None = None, intervention: str | None = None, env_kwargs: dict[str, Any] | None = None,
              report: bool = False) -> Any:
    env_id = [e for e in args.env_ids.split(",") if e][0]
    env_kwargs = {**coding_kwargs(env_id, args.test_timeout, args.result_cache), **family_env_kwargs(env_id),
                  **(env_kwargs or {})}
    return evaluate(
        env_id, agent, ks=ks, ts=ts, n=n, split=split, tasks=tasks, faults=faults, workers=1,
        seed=0, out=out, sandbox=args.backend, progress=args.progress and not in_parallel(args.workers, args.executor),
        report=report, intervention=intervention,
        env_kwargs=env_kwargs, base_env=borrow,  # this worker's warm envs, kept from one evaluation to the next
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


def evaluate_agent(args: Args, name: str, agent: Any, out: Path, task_lists: dict[str, list[str]], *,
                   intervene: bool = False) -> dict[str, Any]:
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
    grid = _evaluate(args, agent, out / name / "grid", split=args.eval_split, tasks=task_lists["primary"], ts=args.eval_ts,
                     ks=args.eval_ks, n=args.eval_n, env_kwargs=tier, report=args.harness_reports)
    result: dict[str, Any] = {"grid": grid.summary, "records": grid.records, "seconds": grid.seconds}
    if args.eval_split2:
        second = _evaluate(args, agent, out / name / "split2", split=args.eval_split2, tasks=task_lists["split2"],
                           ts=args.eval_split2_ts, ks="1", n=1, env_kwargs=tier)
        result["split2_records"] = second.records
        result["seconds"] += second.seconds
    if task_lists.get("multi"):
        multi = _evaluate(args, agent, out / name / "multi", split=args.eval_split, tasks=task_lists["multi"],
                          ts=args.eval_ts, ks="1", n=1, env_kwargs={"tiers": MULTI_TIERS})
        result["multi_records"] = multi.records
        result["seconds"] += multi.seconds
    if args.eval_faults and args.eval_fault_ts:
        fault_dir = out / name / "faults"
        fault_ts = {int(t) for t in args.eval_fault_ts.split(",")}
        _seed_with_clean_twins(grid, out / name / "grid", fault_dir, fault_ts)
        faulted = _evaluate(args, agent, fault_dir, split=args.eval_split, tasks=task_lists["primary"],
                            ts=",".join(map(str, sorted(fault_ts))), ks="1", n=args.eval_n, faults=args.eval_faults,
                            env_kwargs=tier)
        result["faults"] = faulted.summary
        result["seconds"] += faulted.seconds
    if intervene:
        result["interventions"] = {}
        for i, (iv, how, ts) in enumerate(intervention_runs(args)):
            folder = out / name / f"intervention-{i}"
            _seed_with_clean_twins(grid, out / name / "grid", folder, {int(t) for t in ts.split(",")})
            run = _evaluate(args, agent, folder, split=args.eval_split, tasks=task_lists["primary"], ts=ts, ks="1",
                            n=args.eval_n, env_kwargs=tier, faults=how.get("faults"), intervention=how.get("intervention"))
            result["interventions"][iv] = run.records
            result["seconds"] += run.seconds
    return result


# ---------------------------------------------------------------------- the grid, in parallel
def _eval_job(args: Args, name: str, agent: Any, out: Path, task_lists: dict[str, list[str]], intervene: bool = False
              ) -> tuple[dict[str, Any], int, dict[str, dict[str, int]]]:
    """One agent's evaluations; with the worker's pid and its result-cache counts so far (cumulative)."""

    return evaluate_agent(args, name, agent, out, task_lists, intervene=intervene), os.getpid(), process_cache().stats()


def train_all(args: Args, schedules: dict[str, str], seeds: list[int]) -> dict[str, dict[int, dict[str, Any]]]:
    """Train every (schedule, seed) run at equal env steps, in ``args.workers`` processes or Ray
    tasks (`baselines.grid`); returns summary per schedule and seed."""

    runs = experiment_runs(args, schedules, seeds)
    parallel = in_parallel(args.workers, args.executor)
    print(f"[budgetmix] training {len(runs)} runs ({len(schedules)} schedules, {len(seeds)} seeds) for "
          f"{args.total_env_steps} env steps each, {args.collect_mode} collection, "
          f"{describe(args.workers, args.executor)}", flush=True)
    jobs = [(dataclasses.replace(args, schedule=spec, seed=seed, progress=args.progress and not parallel,
                                 **run_settings(args, name)),
             f"{name}-s{seed}", args.executor == "ray") for name, spec, seed in runs]
    # one bar for the grid when the runs' own bars are off (they run in other processes)
    bar = progress_bar(args)(total=len(runs) * args.total_env_steps, desc="training", unit="step", disable=not parallel)
    training: dict[str, dict[int, dict[str, Any]]] = {name: {} for name in dict.fromkeys(n for n, _, _ in runs)}

    def done(i: int, summary: dict[str, Any]) -> None:
        name, _, seed = runs[i]
        training[name][seed] = land_checkpoint(summary)
        bar.update(summary["env_steps"])
        print(f"[budgetmix] {name} seed {seed}: {summary['steps_per_second']:.0f} env steps/s, "
              f"train success {summary['final_train_success']:.2f}", flush=True)

    try:
        run_jobs(train_job, jobs, workers=args.workers, executor=args.executor, on_done=done,
                 ray_address=args.ray_address or None)
    finally:
        bar.close()
    return {name: dict(sorted(by_seed.items())) for name, by_seed in training.items()}


def evaluate_all(args: Args, jobs: list[tuple[str, Any, bool]], out: Path, task_lists: dict[str, list[str]]
                 ) -> tuple[list[dict[str, Any]], dict[str, dict[str, int]]]:
    """`evaluate_agent` for every (name, agent, intervene) of ``jobs``, in ``args.workers`` processes or Ray
    tasks; returns the results in the order of ``jobs`` and the result-cache counts summed over workers.

    A worker evaluates whole agents one after another with one warm base env per evaluation and
    its own process-wide result cache, so the later agents of a worker look up the test runs and
    verifications of states an earlier agent already reached.
    """

    baseline = process_cache().stats()  # forked workers start from the parent's counts
    latest: dict[int, dict[str, dict[str, int]]] = {}  # per worker pid: its cumulative counts
    bar = progress_bar(args)(total=len(jobs), desc="evaluating", unit="agent")

    def done(i: int, result: tuple[dict[str, Any], int, dict[str, dict[str, int]]]) -> None:
        latest[result[1]] = result[2]
        bar.update(1)
        print(f"[budgetmix] evaluated {jobs[i][0]} ({result[0]['seconds']:.0f} s)", flush=True)

    try:
        results = run_jobs(_eval_job, [(args, name, agent, out, task_lists, intervene) for name, agent, intervene in jobs],
                           workers=args.workers, executor=args.executor, on_done=done,
                           ray_address=args.ray_address or None)
    finally:
        bar.close()
    # a Ray worker's pid may repeat on another machine: counts are summed per (pid), best effort there
    totals = {kind: {c: sum(w[kind][c] - baseline[kind][c] for w in latest.values()) for c in ("hits", "misses")}
              for kind in baseline}
    return [r[0] for r in results], totals


def pick_loop_agents(policy_agents: dict[int, Any], seeds: int) -> dict[int, Any]:
    """The pick+loop reference (each policy's patch pick inside the scripted test-and-revert loop)
    for the first ``seeds`` training seeds (0: all): the ceiling of a policy that learned the loop."""

    picked = sorted(policy_agents)[: seeds or None]
    return {seed: LearnedPickAgent(policy_agents[seed].policy, max_actions=policy_agents[seed].max_actions)
            for seed in picked}


def run_experiment(args: Args) -> int:
    """Train (`train_all`), evaluate (`evaluate_all`) and report; returns the exit code."""


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
            raise ConfigError(f"--resume of {out}, written by other code: {'; '.join(changed)}; start a new --out "
                              "(and pool the folders with `python -m baselines.pool`)")

    check_interventions(args, [e for e in args.env_ids.split(",") if e][0])
    check_family_wiring(args, [e for e in args.env_ids.split(",") if e][0])

    # ---------------------------------------------------------------- train at equal env steps, per seed
    training = train_all(args, schedules, seeds)
    train_seconds = time.perf_counter() - started

    close_idle()  # the training envs' sandboxes: stopped before the evaluation forks its workers

    # ---------------------------------------------------------------- one fixed task list for everyone
    env_id = [e for e in args.env_ids.split(",") if e][0]
    coding = "Coding" in env_id
    tier = (args.eval_tier,) if args.eval_tier and coding else None
    task_lists = {
        "primary": task_list(args.eval_list, env_id, args.eval_split, tier, args.eval_tasks),
        "split2": seeded_list(env_id, args.eval_split2, tier, args.eval_tasks) if args.eval_split2 else [],
        "multi": seeded_list(env_id, args.eval_split, MULTI_TIERS, args.eval_multi_tasks)
        if args.eval_multi_tasks and coding else [],
    }
    (out / "eval_tasks.json").write_text(json.dumps(task_lists, indent=1))
    train_tiers = tuple(t for t in str(args.train_tier).split(",") if t) if coding else ()
    (out / provenance.FILE).write_text(json.dumps(provenance.record(
        args, task_lists, split_task_ids(env_id, "train", train_tiers or None)), indent=1))

    # ---------------------------------------------------------------- evaluate: references once, policies per seed
    agents: dict[str, dict[int, Any]] = {"random": {0: RandomAgent()}}
    for name, by_seed in training.items():
        agents[name] = {}
        for seed, summary in by_seed.items():
            policy, ckpt = load_policy(summary["checkpoint"], "cpu")
            agents[name][seed] = PolicyAgent(policy, max_actions=int(ckpt["max_actions"]))
    refs = {r.strip() for r in str(args.eval_references).split(",") if r.strip()} if coding else set()
    if refs:
        # scripted strategies that pick patches blindly: what committing early vs verifying earns at each T
        scripts = {"hasty": HastyAgent, "careful": CarefulAgent, "budget-aware": BudgetAwareAgent}
        agents.update({f"script:{r}": {0: scripts[r]()} for r in scripts if r in refs})
        if "pick+loop" in refs and "budgetmix" in training:
            # the ceiling of a policy that learned the loop: BudgetMix's patch pick, the scripted loop
            agents["ref:budgetmix-pick+loop"] = pick_loop_agents(agents["budgetmix"], args.pick_loop_seeds)
    eval_started = time.perf_counter()
    print(f"[budgetmix] evaluating {sum(map(len, agents.values()))} agents on {len(task_lists['primary'])} "
          f"{args.eval_split} tasks over T={args.eval_ts} in {describe(args.workers, args.executor)}", flush=True)
    # seed-major order, so that every worker's cache meets each task early
    order = [(name, seed) for seed in sorted({s for b in agents.values() for s in b}) for name in agents
             if seed in agents[name]]
    # the recovery contrasts' agents also play every intervention (the same forced start for all), and
    # BudgetMix without forced starts: does the start-state curriculum cause the recovery?
    intervened = set(list(schedules)[:2]) | {"budgetmix", NO_STARTS, "script:budget-aware"} \
        if args.eval_interventions else set()
    results, eval_cache = evaluate_all(args, [(f"{n}-s{s}" if s else n, agents[n][s], n in intervened) for n, s in order],
                                       out / "eval", task_lists)
    evals: dict[str, dict[int, dict[str, Any]]] = {name: {} for name in agents}
    for (name, seed), result in zip(order, results):
        evals[name][seed] = result
    eval_seconds = time.perf_counter() - eval_started

    # ---------------------------------------------------------------- does each policy use the budget and the verdict?

    probe_started = time.perf_counter()
    policies = {name: agents[name][seeds[0]].policy for name in training}
    turns_left = sorted({1, 2, 3, 4, *(int(t) for t in str(args.eval_ts).split(","))})
    probe = budget_probe(
        policies, env_id, max_actions=args.max_actions, turns_left=turns_left,
        tasks=24 if args.preset != "smoke" else 2, backend=args.backend, split=args.eval_split,
        env_kwargs={**coding_kwargs(env_id, args.test_timeout, args.result_cache), **({"tiers": tier} if tier else {})},
    )
    probe_seconds = time.perf_counter() - probe_started

    # ---------------------------------------------------------------- the positive control (sandbox-free, known optimum)
    control = None
    control_started = time.perf_counter()
    if args.control_steps:
        print(f"[budgetmix] positive control: {args.control_steps} env steps per run", flush=True)
        control = run_control(args.control_steps, tuple(training_seeds(dataclasses.replace(args, seeds=args.control_seeds))),
                              t_short=2, t_long=10, eval_ts=(2, 5, 10), episodes=args.control_episodes,
                              out=str(out / "control"), base=dataclasses.replace(args, progress=False))
        (out / "control.json").write_text(json.dumps(control, indent=1))
    control_seconds = time.perf_counter() - control_started

    # ---------------------------------------------------------------- report
    # the env steps trained now (over the wall time: the rate all workers reached together; a run
    # --resume found finished took no time)
    train_env_steps = sum(s["env_steps"] for by_seed in training.values() for s in by_seed.values()
                          if not s.get("skipped"))
    timing = {"train_seconds": train_seconds, "train_env_steps": train_env_steps, "eval_seconds": eval_seconds,
              "probe_seconds": probe_seconds, "control_seconds": control_seconds,
              "total_seconds": time.perf_counter() - started}
    timing_path = out / "timing.json"
    if args.resume and timing_path.exists():
        # a resumed experiment reports the time of all its sessions together
        before = json.loads(timing_path.read_text())
        timing = {k: v + float(before.get(k, 0.0)) for k, v in timing.items()}
    timing_path.write_text(json.dumps(timing, indent=1))
    path = write_report(out, args, schedules, training, evals, timing, probe, task_lists, eval_cache=eval_cache,
                        control=control)
    print(f"[budgetmix] report: {path} ({timing['total_seconds']:.0f} s in all)", flush=True)
    return 0
