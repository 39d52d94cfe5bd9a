"""Does a BudgetMix learner recover after a wrong patch? Train one schedule for a few seeds, then read its traces.

    python benchmarks/recovery_probe.py --seeds 1,2 --steps 3200                     # Coding-v0, 100 held-out tasks
    python benchmarks/recovery_probe.py --env control --seeds 1,2,3 --steps 8000     # the sandbox-free positive control
    python benchmarks/recovery_probe.py --set recovery_start_patch=right:0.3 --set ent_coef=0.05

Issue 24's fast loop, between full runs of the experiment (`python -m baselines.budgetmix`,
about 12 minutes). Each seed trains `baselines.policy.train.train` with the quick preset's settings
(``--set FIELD=VALUE`` overrides any `Args` field), then evaluates the checkpoint with the
experiment's own machinery (`baselines.experiment.evaluation.evaluate_agent`: the harness, a
`DecisionRecorder` per episode) at a few budgets T on one fixed task list:

- ``coding``: the tuning list ``tuning-1`` (100 held-out one-bug Coding-v0 tasks, `baselines.experiment.eval_lists`;
  never the experiment's fresh headline list);
- ``control``: the test split of the faithful budget env (`baselines.experiment.control.CONTROL_ENV`,
  50 tasks x ``--n`` episodes), whose optimum (`recover_optimum`) is printed beside it.

Per seed and T it prints success, first-commit accuracy, recovered / wrong first commit, and
the three decisions recovery is made of (`baselines.report.decisions.decision_rates`): P(test |
unverified edit) with >= 4 turns left, P(revert | failing test), P(submit | passing test), as
``k/n``. The last block pools the seeds. ``--json`` prints everything as one object instead.
Single seeds guide; they prove nothing (a seed's success moves by 0.1-0.2 on Coding-v0).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agentgym.errors import ConfigError  # noqa: E402
from baselines.config import PRESETS, Args, EvalSettings, TrainSettings, with_overrides  # noqa: E402
from baselines.policy.train import train  # noqa: E402
from baselines.report.decisions import RATES, decision_rates, decision_stats  # noqa: E402

CODING = "agentgym/Coding-v0"


def make_args(env: str, schedule: str, steps: int, ts: str, out: str, sets: list[str]) -> Args:
    """The quick preset's `Args` for one schedule, with ``--set FIELD=VALUE`` overrides."""
    args = Args(**{**PRESETS["quick"], "preset": "quick"})
    base: dict[str, Any] = dict(
        schedule=schedule,
        total_env_steps=steps,
        track=False,
        progress=False,
        out=out,
        eval_ts=ts,
        eval_ks="1",
        eval_split2="",
        eval_multi_tasks=0,
        eval_faults="",
        harness_reports=False,
    )
    if env == "control":
        from baselines.experiment.control import CONTROL_ENV

        # the positive control's own trainer settings (`run_control`)
        base.update(
            env_ids=CONTROL_ENV,
            backend="local",
            dim=64,
            hidden=64,
            collect_mode="async",
            env_threads=1,
            eval_split="test",
            eval_tier="",
            result_cache=False,
        )
    try:
        return with_overrides(dataclasses.replace(args, **base), sets)
    except ConfigError as exc:
        raise SystemExit(str(exc)) from None


def task_list(args: Args, env: str) -> list[str]:
    from baselines.experiment.eval_lists import task_list as named_list

    if env == "control":
        from baselines.experiment.budget_env import BudgetChoiceTasks

        return BudgetChoiceTasks().ids("test")
    # a probe is for tuning: it scores the spent tuning list, never the experiment's fresh headline list
    return named_list(
        "tuning-1", CODING, args.eval_split, (args.eval_tier,) if args.eval_tier else None, args.eval_tasks
    )


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per T: success, the decision statistics and the three decision rates."""
    out: dict[str, Any] = {}
    stats = decision_stats(records)
    for t in sorted(stats):
        rs = [r for r in records if int(r["T"]) == t and not r.get("infra_error")]
        s = stats[t]
        out[str(t)] = {
            "success": sum(bool(r["success"]) for r in rs) / len(rs) if rs else None,
            "episodes": len(rs),
            "first_commit_accuracy": s["first_commit_accuracy"],
            "recovered": sum(bool(r["success"]) for r in rs if (r.get("cost") or {}).get("first_commit_right") == 0),
            "wrong_first": s["wrong_first"],
            "rates": decision_rates(rs),
        }
    return out


def run(args: Args, env: str, seeds: list[int], n: int, keep: str | None) -> dict[str, Any]:
    from baselines.experiment.evaluation import evaluate_agent
    from baselines.policy.agent import PolicyAgent, load_policy

    result: dict[str, Any] = {"env": env, "schedule": args.schedule, "steps": args.total_env_steps, "seeds": {}}
    if env == "control":
        from baselines.experiment.budget_env import recover_optimum

        result["optimum"] = {t: recover_optimum(int(t)) for t in args.eval_ts.split(",")}
    pooled: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(keep or tmp)
        tasks = task_list(args, env)
        for seed in seeds:
            run_args = dataclasses.replace(args, seed=seed, out=str(out), eval_n=n)
            t0 = time.perf_counter()
            summary = train(TrainSettings.from_args(run_args), f"probe-s{seed}")
            t1 = time.perf_counter()
            policy, ckpt = load_policy(summary["checkpoint"])
            agent = PolicyAgent(policy, max_actions=int(ckpt["max_actions"]), seed=seed)
            evaluated = evaluate_agent(
                EvalSettings.from_args(run_args), f"eval-s{seed}", agent, out, {"primary": tasks}
            )
            pooled += evaluated["records"]
            result["seeds"][seed] = {
                "train_s": round(t1 - t0, 1),
                "eval_s": round(time.perf_counter() - t1, 1),
                "by_T": summarise(evaluated["records"]),
            }
    result["pooled"] = summarise(pooled)
    return result


def _fmt(cell: dict[str, Any]) -> str:
    def frac(x: float | None) -> str:
        return "-" if x is None else f"{x:.2f}"

    rates = "  ".join(
        f"{name.split(' | ')[0]}|{name.split(' | ')[1].split()[0]} {r['k']}/{r['n']}"
        for name, r in cell["rates"].items()
    )
    return (
        f"success {frac(cell['success'])}  first-right {frac(cell['first_commit_accuracy'])}  "
        f"rec {cell['recovered']}/{cell['wrong_first']}  {rates}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", choices=("coding", "control"), default="coding")
    parser.add_argument(
        "--schedule",
        default="",
        help="budget schedule (default: the experiment's BudgetMix mix, uniform:2-10 on the control)",
    )
    parser.add_argument("--seeds", default="1,2", help="training seeds")
    parser.add_argument("--steps", type=int, default=3200, help="env steps per training run")
    parser.add_argument("--ts", default="", help="evaluation budgets (default 2,8,16; the control 2,5,10)")
    parser.add_argument("--n", type=int, default=0, help="episodes per task and T (default 1; the control 4)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="override an Args field")
    parser.add_argument("--keep", default=None, help="keep checkpoints and episodes in this folder")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    opts = parser.parse_args(argv)
    control = opts.env == "control"
    schedule = opts.schedule or ("uniform:2-10" if control else Args.mix)
    ts = opts.ts or ("2,5,10" if control else "2,8,16")
    args = make_args(opts.env, schedule, opts.steps, ts, opts.keep or "", opts.set)
    result = run(
        args, opts.env, [int(s) for s in opts.seeds.split(",") if s], opts.n or (4 if control else 1), opts.keep
    )
    if opts.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"{opts.env} {schedule} {opts.steps} steps; sets: {' '.join(opts.set) or '-'}; rates: {', '.join(RATES)}")
    for seed, res in result["seeds"].items():
        for t, cell in res["by_T"].items():
            print(f"seed {seed} T={t:>2}: {_fmt(cell)}")
        print(f"seed {seed}: train {res['train_s']} s, eval {res['eval_s']} s")
    for t, cell in result["pooled"].items():
        optimum = f"  (optimum {result['optimum'][t]:.2f})" if "optimum" in result else ""
        print(f"pooled T={t:>2}: {_fmt(cell)}{optimum}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
