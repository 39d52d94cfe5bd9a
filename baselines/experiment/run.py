"""The fixed-T vs BudgetMix experiment: train the arms per seed at equal env steps, evaluate, report.

`run_experiment` is what ``python -m baselines.budgetmix`` runs without ``--schedule``:

1. trains ``fixed-T<short>``, ``fixed-T<long>``, ``budgetmix``, the linear ``curriculum`` and
   the stepwise ``curriculum-steps`` with the same number of environment steps, once per
   training seed (``--seeds``; `baselines.experiment.arms`);
2. evaluates every trained policy, the random menu policy and the scripted references on one
   fixed list of tasks shared by all of them (``--eval-list``, `baselines.experiment.eval_lists`):
   one-bug tasks of modules never trained on (``--eval-split heldout``) over the T grid; then the
   second split, multi-bug held-out tasks when asked, an injected fault when asked, and the
   interventions (`baselines.experiment.evaluation`);
3. estimates success with intervals over seeds and tasks, and the contrasts named in advance
   (`baselines.report.contrasts.named_contrasts`) paired by task; probes each policy on forced
   states (`baselines.experiment.probe`); writes ``OUT/report.md`` with its plots (`baselines.report`).

Every step resumes: finished runs and episodes are skipped with ``--resume``.

Training runs, agent evaluations, the probe and the positive control's runs are jobs of one
`baselines.experiment.grid.run_graph` (`baselines.experiment.jobs`): ``--workers`` processes (the
machine's cores by default) or Ray tasks (``--executor ray``), with the same results either way.
Each worker keeps Coding-v0's result cache warm across its jobs, and all of them share its disk
cache: the agents play the same tasks, so most later test runs and verifications are looked up.
``OUT/timeline.json`` records where and when every job ran.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

from agentgym.agents import RandomAgent
from agentgym.envs.coding.result_cache import process_cache
from agentgym.errors import ConfigError
from baselines.config import Args, ReportSettings, describe, first_env_id, in_parallel, intervention_runs
from baselines.experiment import provenance
from baselines.experiment.arms import (
    experiment_runs,
    experiment_schedules,
    pick_loop_agent,
    pick_loop_seeds,
    training_seeds,
)
from baselines.experiment.eval_lists import seeded_list, split_task_ids, task_list
from baselines.experiment.evaluation import MULTI_TIERS
from baselines.experiment.grid import land_checkpoint, run_graph
from baselines.experiment.jobs import PICK_LOOP, experiment_jobs
from baselines.policy.agent import PolicyAgent, load_policy
from baselines.policy.env_pool import close_idle
from baselines.policy.families import check_family_interventions, plan_for
from baselines.policy.heuristics import BudgetAwareAgent, CarefulAgent, HastyAgent
from baselines.policy.train import make_env, progress_bar
from baselines.report.markdown import write_report

__all__ = ["run_experiment", "check_interventions", "check_family_wiring", "check_process_arms"]


def run_experiment(args: Args) -> int:
    """Train, evaluate, probe and run the positive control (one job graph) and report; returns the exit code."""

    import torch

    torch.set_num_threads(max(1, args.torch_threads))
    started = time.perf_counter()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env_id = first_env_id(args.env_ids)
    _check_resume(args, out)
    check_interventions(args, env_id)
    check_family_wiring(args, env_id)
    check_process_arms(args, env_id)
    task_lists = _task_lists(args, env_id, out)

    schedules, seeds = experiment_schedules(args), training_seeds(args.seeds)
    agents = _untrained_agents(args, env_id)
    progress = _Progress(args, schedules, seeds, agents)
    jobs, labels, assemble = experiment_jobs(args, schedules, seeds, task_lists, out, agents, progress.training)
    progress.start(len(labels), len(task_lists["primary"]))
    close_idle()  # sandboxes this process started (the family check): stopped before the workers fork
    setup_seconds = time.perf_counter() - started
    try:
        finished, timeline = run_graph(
            jobs,
            workers=args.workers,
            executor=args.executor,
            on_done=progress.done,
            ray_address=args.ray_address or None,
        )
    finally:
        progress.close()
    training, evals = progress.results(labels)
    control = assemble(finished) if assemble is not None else None
    if control is not None:
        (out / "control.json").write_text(json.dumps(control, indent=1))
    (out / "timeline.json").write_text(
        json.dumps({"workers": args.workers, "executor": args.executor, "jobs": timeline}, indent=1)
    )
    timing = _timing(args, out, timeline, training, started)
    report_started = time.perf_counter()
    path = write_report(
        out,
        ReportSettings.from_args(args),
        schedules,
        training,
        evals,
        timing,
        finished["probe"],
        task_lists,
        eval_cache=progress.eval_cache,
        control=control,
    )
    # where the time outside the job graph went (this process alone, one core): before it and the report
    timing["setup_seconds"], timing["report_seconds"] = setup_seconds, time.perf_counter() - report_started
    (out / "timing.json").write_text(json.dumps(timing, indent=1))
    print(f"[budgetmix] report: {path} ({timing['total_seconds']:.0f} s in all)", flush=True)
    return 0


# ---------------------------------------------------------------------- before any training
def _check_resume(args: Args, out: Path) -> None:
    """A folder holds the runs of one code version: ``--resume`` of a folder other code wrote fails
    (settings may change on purpose, e.g. a larger ``--total-env-steps``; the record keeps the last)."""
    if not (args.resume and (out / provenance.FILE).is_file()):
        return
    changed = provenance.differences(provenance.read(out), {"code": provenance.code_version()}, parts=("code",))
    if changed:
        raise ConfigError(
            f"--resume of {out}, written by other code: {'; '.join(changed)}; start a new --out "
            "(and pool the folders with `python -m baselines.experiment.pool`)"
        )


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
    """Fail before training when ``env_id``'s family plan (`baselines.policy.families`) would not hold:
    the trainer's envs must get the plan's menu (a policy trained on a menu that holds the oracle's
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


def check_process_arms(args: Args, env_id: str) -> None:
    """Fail before training when ``--process-arms`` asks for process-reward arms on a family whose
    tasks name no subtasks (MiniWoB-v0's pages score themselves): the process reward would be 0 on
    every step and the arms would train the plain arms' policies again, bit for bit."""
    if not args.process_arms:
        return
    env = gym.make(env_id, backend=args.backend, disable_env_checker=True)  # no sandbox until reset
    try:
        tasks = env.unwrapped.tasks  # type: ignore[attr-defined]
        named = any(tasks.get(task_id).subtasks for task_id in list(tasks.ids("train"))[:20])
    finally:
        env.close()
    if not named:
        raise ConfigError(
            f"--process-arms {args.process_arms:g}: {env_id}'s tasks name no subtasks, so the process reward is 0 "
            "and its arms would repeat the plain ones; pass --process-arms 0 (or a family with subtasks: Coding-v0, "
            "ToolUse-v0, Browser-v0)"
        )


def _task_lists(args: Args, env_id: str, out: Path) -> dict[str, list[str]]:
    """One fixed task list for everyone (and the second split's, the multi-bug one), written to
    ``eval_tasks.json`` with the folder's provenance record."""
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
    return task_lists


def _untrained_agents(args: Args, env_id: str) -> dict[str, dict[int, Any]]:
    """The agents evaluated without training: the random menu policy and, on Coding-v0, scripted
    strategies that pick patches blindly (what committing early vs verifying earns at each T)."""
    agents: dict[str, dict[int, Any]] = {"random": {0: RandomAgent()}}
    refs = {r.strip() for r in str(args.eval_references).split(",") if r.strip()} if "Coding" in env_id else set()
    scripts = {"hasty": HastyAgent, "careful": CarefulAgent, "budget-aware": BudgetAwareAgent}
    agents.update({f"script:{r}": {0: scripts[r]()} for r in scripts if r in refs})
    return agents


# ---------------------------------------------------------------------- while the job graph runs
class _Progress:
    """What the job graph's finished jobs feed: each trained run's summary and agent, each
    evaluation's result and result-cache counts, and the progress bars and lines."""

    def __init__(
        self, args: Args, schedules: dict[str, str], seeds: list[int], agents: dict[str, dict[int, Any]]
    ) -> None:
        self.args, self.seeds, self.agents = args, seeds, agents
        self.runs = experiment_runs(args, schedules, seeds)
        self.schedules = schedules
        self.training: dict[str, dict[int, dict[str, Any]]] = {
            name: {} for name in dict.fromkeys(n for n, _, _ in self.runs)
        }
        self.evaluated: dict[str, Any] = {}
        self.eval_cache = {kind: {"hits": 0, "misses": 0} for kind in process_cache().stats()}

    def start(self, n_evals: int, n_tasks: int) -> None:
        """Say what will run, and open one bar per kind (the runs' own bars are off when they run in
        other processes)."""
        args = self.args
        print(
            f"[budgetmix] training {len(self.runs)} runs ({len(self.schedules)} schedules, {len(self.seeds)} seeds) "
            f"for {args.total_env_steps} env steps each, {args.collect_mode} collection; evaluating {n_evals} agents "
            f"on {n_tasks} {args.eval_split} tasks over T={args.eval_ts}, each once its run is trained"
            + (f"; positive control: {args.control_steps} env steps per run" if args.control_steps else "")
            + f"; {describe(args.workers, args.executor)}",
            flush=True,
        )
        bar = progress_bar(args.progress)
        self.train_bar = bar(
            total=len(self.runs) * args.total_env_steps,
            desc="training",
            unit="step",
            disable=not in_parallel(args.workers, args.executor),
        )
        self.eval_bar = bar(total=n_evals, desc="evaluating", unit="agent")

    def done(self, job: str, result: Any) -> None:
        """The graph's ``on_done``: a trained run becomes an agent; an evaluation's result is kept."""
        if job.startswith("train:"):
            self._trained(job, result)
        elif job.startswith("eval:"):
            self.evaluated[job], counts = result
            for kind, by in counts.items():
                for c, v in by.items():
                    self.eval_cache[kind][c] += v
            self.eval_bar.update(1)
            print(f"[budgetmix] evaluated {job[5:]} ({result[0]['seconds']:.0f} s)", flush=True)

    def _trained(self, job: str, result: Any) -> None:
        name, seed = next((n, s) for n, _, s in self.runs if job == f"train:{n}-s{s}")
        summary = self.training[name][seed] = land_checkpoint(result)
        policy, ckpt = load_policy(summary["checkpoint"], "cpu")
        agents = self.agents
        agents.setdefault(name, {})[seed] = PolicyAgent(policy, max_actions=int(ckpt["max_actions"]))
        if (
            PICK_LOOP in agents
            and name == "budgetmix"
            and seed in pick_loop_seeds(self.seeds, self.args.pick_loop_seeds)
        ):
            agents[PICK_LOOP][seed] = pick_loop_agent(agents[name][seed])
        self.train_bar.update(summary["env_steps"])
        print(
            f"[budgetmix] {name} seed {seed}: {summary['steps_per_second']:.0f} env steps/s, "
            f"train success {summary['final_train_success']:.2f}",
            flush=True,
        )

    def close(self) -> None:
        self.train_bar.close()
        self.eval_bar.close()

    def results(
        self, labels: dict[str, tuple[str, int]]
    ) -> tuple[dict[str, dict[int, dict[str, Any]]], dict[str, dict[int, dict[str, Any]]]]:
        """The runs' summaries by name and seed, and every agent's evaluations in the report's order:
        references, then every trained schedule, the scripts, the pick+loop reference; seed-major."""
        training = {name: dict(sorted(by_seed.items())) for name, by_seed in self.training.items()}
        agents = self.agents
        order = ["random", *training, *(n for n in agents if n not in training and n != "random")]
        evals: dict[str, dict[int, dict[str, Any]]] = {name: {} for name in order if name in agents}
        for job in sorted(labels, key=lambda j: labels[j][1]):  # seed-major
            name, seed = labels[job]
            evals[name][seed] = self.evaluated[job]
        return training, evals


# ---------------------------------------------------------------------- after the job graph
def _timing(
    args: Args,
    out: Path,
    timeline: list[dict[str, Any]],
    training: dict[str, dict[int, dict[str, Any]]],
    started: float,
) -> dict[str, Any]:
    """The env steps trained now and where the time went, written to ``timing.json``.

    Over the wall time: the rate all workers reached together; a run ``--resume`` found finished took
    no time. The phases overlap: each is timed from the start of its first job to the end of its last
    (training from the start), so they add up to more than the total."""

    def span(prefix: str, since_start: bool = False) -> float:
        rows = [r for r in timeline if r["job"].startswith(prefix)]
        if not rows:
            return 0.0
        return max(r["end"] for r in rows) - (0.0 if since_start else min(r["start"] for r in rows))

    timing: dict[str, Any] = {
        "train_seconds": span("train:", since_start=True),
        "train_env_steps": sum(
            s["env_steps"] for by_seed in training.values() for s in by_seed.values() if not s.get("skipped")
        ),
        "eval_seconds": span("eval:"),
        "probe_seconds": span("probe"),
        "control_seconds": span("control:"),
        "total_seconds": time.perf_counter() - started,
    }
    path = out / "timing.json"
    if args.resume and path.exists():  # a resumed experiment reports the time of all its sessions together
        before = json.loads(path.read_text())
        timing = {k: v + float(before.get(k, 0.0)) for k, v in timing.items()}
    path.write_text(json.dumps(timing, indent=1))
    return timing
