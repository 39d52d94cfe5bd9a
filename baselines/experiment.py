"""The fixed-T vs BudgetMix experiment: train four schedules at equal env steps, evaluate, report.

`run_experiment` is what ``python -m baselines.budgetmix`` runs without ``--schedule``:

1. trains ``fixed-T<short>``, ``fixed-T<long>``, ``budgetmix`` and ``curriculum`` with the
   same number of environment steps and the same seed;
2. evaluates each trained policy, and the random menu policy as the floor, with the
   evaluation harness on held-out test tasks over the K x T grid (budgets below, between
   and above the training budgets), then again with an injected fault at a few T (the clean
   twins are reused, so the recovery rate is paired);
3. writes ``OUT/report.md`` with its plots (`baselines.report`).

Every step resumes: finished runs and episodes are skipped with ``--resume``.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import time
from pathlib import Path
from typing import Any

__all__ = ["run_experiment", "experiment_schedules", "evaluate_agent"]


def experiment_schedules(args: Any) -> dict[str, str]:
    """Run name -> schedule spec, in the order the report lists them."""
    return {
        f"fixed-T{args.t_short}": f"fixed:{args.t_short}",
        f"fixed-T{args.t_long}": f"fixed:{args.t_long}",
        "budgetmix": args.mix,
        "curriculum": args.curriculum,
    }


def evaluate_agent(args: Any, name: str, agent: Any, out: Path) -> dict[str, Any]:
    """Clean grid and fault runs of one agent; returns {"grid": summary, "faults": summary, "records": [...]}."""
    from agentgym.eval import evaluate

    from baselines.decisions import DecisionRecorder

    env_ids = [e for e in args.env_ids.split(",") if e]
    agent = DecisionRecorder(agent)
    common = dict(
        split="test",
        tasks=args.eval_tasks,
        workers=args.eval_workers,
        seed=args.seed,
        sandbox=args.backend,
        progress=args.progress,
    )
    grid_dir, fault_dir = out / name / "grid", out / name / "faults"
    if not args.resume:
        shutil.rmtree(out / name, ignore_errors=True)  # the harness resumes from what it finds
    grid = evaluate(
        env_ids, agent, ks=args.eval_ks, ts=args.eval_ts, n=args.eval_n, out=grid_dir, report=args.harness_reports, **common
    )
    result: dict[str, Any] = {"grid": grid.summary, "records": grid.records, "seconds": grid.seconds}
    if args.eval_faults and args.eval_fault_ts:
        fault_ts = {int(t) for t in args.eval_fault_ts.split(",")}
        fault_dir.mkdir(parents=True, exist_ok=True)
        if not (fault_dir / "episodes.jsonl").exists():
            # the clean twins of the faulted episodes are already in the grid run: reuse them
            shutil.copy(grid_dir / "run.json", fault_dir / "run.json")
            with (fault_dir / "episodes.jsonl").open("w") as fh:
                for r in grid.records:
                    if int(r["T"]) in fault_ts and not r.get("faults"):
                        fh.write(json.dumps(r, sort_keys=True) + "\n")
        faulted = evaluate(
            env_ids, agent, ks="1", ts=sorted(fault_ts), n=args.eval_n, faults=args.eval_faults, out=fault_dir,
            report=False, **common,
        )
        result["faults"] = faulted.summary
        result["seconds"] += faulted.seconds
    return result


def run_experiment(args: Any) -> int:
    """Train, evaluate and report; returns the exit code."""
    from baselines.agent import PolicyAgent, load_policy
    from baselines.budgetmix import train
    from baselines.report import write_report

    from agentgym.agents import RandomAgent

    import torch

    torch.set_num_threads(max(1, args.torch_threads))
    started = time.perf_counter()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    schedules = experiment_schedules(args)

    # ---------------------------------------------------------------- train at equal env steps
    training: dict[str, dict[str, Any]] = {}
    for name, spec in schedules.items():
        print(f"[budgetmix] training {name} ({spec}) for {args.total_env_steps} env steps", flush=True)
        training[name] = train(dataclasses.replace(args, schedule=spec), name)
        print(
            f"[budgetmix] {name}: {training[name]['steps_per_second']:.0f} env steps/s, "
            f"train success {training[name]['final_train_success']:.2f}",
            flush=True,
        )
    train_seconds = time.perf_counter() - started

    # ---------------------------------------------------------------- evaluate on held-out tasks
    evals: dict[str, dict[str, Any]] = {}
    agents: dict[str, Any] = {"random": RandomAgent()}
    for name, summary in training.items():
        policy, ckpt = load_policy(summary["checkpoint"], "cpu")
        agents[name] = PolicyAgent(policy, max_actions=int(ckpt["max_actions"]))
    if args.eval_references and args.env_ids == "agentgym/Coding-v0":
        from baselines.heuristics import BudgetAwareAgent, CarefulAgent, HastyAgent

        # scripted strategies that pick patches blindly: what committing early vs verifying earns at each T
        agents.update({"script:hasty": HastyAgent(), "script:careful": CarefulAgent(), "script:budget-aware": BudgetAwareAgent()})
    eval_started = time.perf_counter()
    for name, agent in agents.items():
        print(f"[budgetmix] evaluating {name} over T={args.eval_ts} K={args.eval_ks}", flush=True)
        evals[name] = evaluate_agent(args, name, agent, out / "eval")
    eval_seconds = time.perf_counter() - eval_started

    # ---------------------------------------------------------------- does each policy use the budget?
    from baselines.probe import budget_probe

    policies = {name: agents[name].policy for name in training}
    turns_left = sorted({1, 2, 3, 4, *(int(t) for t in str(args.eval_ts).split(","))})
    probe = budget_probe(
        policies, [e for e in args.env_ids.split(",") if e][0], max_actions=args.max_actions,
        turns_left=turns_left, tasks=8 if args.preset != "smoke" else 2, backend=args.backend,
    )

    # ---------------------------------------------------------------- report
    timing = {"train_seconds": train_seconds, "eval_seconds": eval_seconds, "total_seconds": time.perf_counter() - started}
    timing_path = out / "timing.json"
    if args.resume and timing_path.exists():
        # a resumed experiment reports the time of all its sessions together
        before = json.loads(timing_path.read_text())
        timing = {k: v + float(before.get(k, 0.0)) for k, v in timing.items()}
    timing_path.write_text(json.dumps(timing, indent=1))
    path = write_report(out, args, schedules, training, evals, timing, probe)
    print(f"[budgetmix] report: {path} ({timing['total_seconds']:.0f} s in all)", flush=True)
    return 0
