"""Budget must matter on Browser-v0 (issue 14 item 6): hasty vs careful success against T.

    nice python benchmarks/browser_budget.py --t 2,3,4,5,6,8,10,12,16,24 --out runs/browser-budget
        [--backend local] [--workers 2]

Runs both scripted policies of `agentgym.envs.browser.policies` through `agentgym.eval.evaluate`
on the test split (one episode per task and T, so each cell has every test task: 360 episodes),
prints success with its 95% bootstrap interval per T and policy and the paired difference
(hasty minus careful, bootstrapped over tasks) as a Markdown table, then success per template,
and says where the curves cross: the first T where the paired interval lies above 0 and the
first later T where it lies below. T = 2 is the shortest budget in which any walk finishes
(hasty's: open the order or user list, answer from it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from agentgym.cli_args import add_backend_argument
from agentgym.eval import evaluate
from agentgym.eval.episodes import read_episodes

POLICIES = ("hasty", "careful")


def run(ts: list[int], out: Path, sandbox: str, workers: int, seed: int) -> dict[str, dict[int, dict[str, Any]]]:
    curves: dict[str, dict[int, dict[str, Any]]] = {}
    for name in POLICIES:
        result = evaluate(
            "agentgym/Browser-v0",
            f"agentgym.envs.browser.policies:{name}",
            ks=[1],
            ts=ts,
            n=1,
            split="test",
            sandbox=sandbox,
            workers=workers,
            seed=seed,
            out=out / name,
            progress=False,
            report=False,
        )
        cells = result.summary["results"]["clean"]["agentgym/Browser-v0"]["pass"]
        curves[name] = {t: cells[str(t)]["1"] for t in ts}
    return curves


def paired(out: Path, ts: list[int], resamples: int = 2000, seed: int = 0) -> dict[int, dict[str, float]]:
    """hasty minus careful success per T, with a 95% bootstrap interval over tasks (paired by task)."""
    wins = {
        name: {(r["task"], r["T"]): float(r["success"]) for r in read_episodes(out / name / "episodes.jsonl")}
        for name in POLICIES
    }
    rng = np.random.default_rng(seed)
    diffs = {}
    for t in ts:
        tasks = sorted(task for task, tt in wins["hasty"] if tt == t and (task, t) in wins["careful"])
        d = np.array([wins["hasty"][k, t] - wins["careful"][k, t] for k in tasks])
        boot = d[rng.integers(len(d), size=(resamples, len(d)))].mean(axis=1)
        diffs[t] = {
            "mean": float(d.mean()),
            "lo": float(np.percentile(boot, 2.5)),
            "hi": float(np.percentile(boot, 97.5)),
            "tasks": len(d),
        }
    return diffs


def crossing(diffs: dict[int, dict[str, float]]) -> tuple[int | None, int | None]:
    """(first T where hasty is ahead with the paired interval above 0, first later T where careful is)."""
    ahead = next((t for t in sorted(diffs) if diffs[t]["lo"] > 0), None)
    behind = next((t for t in sorted(diffs) if ahead is not None and t > ahead and diffs[t]["hi"] < 0), None)
    return ahead, behind


def per_template(out: Path, ts: list[int]) -> str:
    """Success hasty / careful per template and T, as a Markdown table."""
    wins: dict[tuple[str, str, int], list[float]] = {}
    for name in POLICIES:
        for r in read_episodes(out / name / "episodes.jsonl"):
            template = "/".join(r["task"].split("/")[1:3])
            wins.setdefault((name, template, r["T"]), []).append(float(r["success"]))
    templates = sorted({k[1] for k in wins})
    rows = ["| template (test tasks) | " + " | ".join(f"T={t}" for t in ts) + " |", "|---" * (len(ts) + 1) + "|"]
    for tpl in templates:
        cells = [f"{np.mean(wins[('hasty', tpl, t)]):.2f} / {np.mean(wins[('careful', tpl, t)]):.2f}" for t in ts]
        rows.append(f"| `{tpl}` ({len(wins[('hasty', tpl, ts[0])])}) | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def table(curves: dict[str, dict[int, dict[str, Any]]], diffs: dict[int, dict[str, float]]) -> str:
    rows = ["| T | hasty | careful | hasty - careful (paired) | episodes per cell |", "|---|---|---|---|---|"]
    for t in sorted(curves["hasty"]):
        h, c, d = curves["hasty"][t], curves["careful"][t], diffs[t]
        rows.append(
            f"| {t} | {h['mean']:.2f} [{h['lo']:.2f}, {h['hi']:.2f}] | {c['mean']:.2f} [{c['lo']:.2f}, "
            f"{c['hi']:.2f}] | {d['mean']:+.2f} [{d['lo']:+.2f}, {d['hi']:+.2f}] | {h['tasks']} / {c['tasks']} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--t", default="2,3,4,5,6,8,10,12,16,24", help="turn budgets T")
    parser.add_argument("--out", default="runs/browser-budget")
    add_backend_argument(parser, old_names=("--sandbox",))
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    ts = [int(x) for x in args.t.split(",")]
    curves = run(ts, Path(args.out), args.backend, args.workers, args.seed)
    diffs = paired(Path(args.out), ts, seed=args.seed)
    print(table(curves, diffs))
    print("\nsuccess hasty / careful per template\n\n" + per_template(Path(args.out), ts))
    ahead, behind = crossing(diffs)
    print(
        f"\nhasty ahead (paired interval above 0) at T={ahead}; careful ahead after it at T={behind}; "
        f"{'the curves cross' if ahead and behind else 'no significant crossing'}"
    )
    (Path(args.out) / "curves.json").write_text(json.dumps({"curves": curves, "paired": diffs}, indent=1))
    return 0 if ahead and behind else 1


if __name__ == "__main__":
    sys.exit(main())
