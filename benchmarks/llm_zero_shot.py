"""The first language-model table: SmolLM2-135M-Instruct zero-shot beside the oracle, on three families.

    python benchmarks/llm_zero_shot.py --out runs/llm-zero-shot        # resumable; prints the table
    python benchmarks/llm_zero_shot.py --out runs/llm-zero-shot --families tooluse --tasks 2
    python benchmarks/llm_zero_shot.py --out runs/llm-t12 --families tooluse --tasks 2 --ts 12 --agents hf

For each family, one `agentgym eval` grid per agent over the same test tasks and budgets:
``--n`` samples per (task, T) at temperature ``--temperature`` give pass@1 and pass@4 (the unbiased
estimator over the n samples); T runs from about the tasks' minimum turns to about three times it.
The families: ToolUse-v0 (test split), MiniWoB-v0 (five ordinary-control pages, one task each) and
Coding-v0 (held-out one-bug tasks). Each row: pass@k per T, the failure categories of all episodes,
and per episode the turns, prompt tokens,
completion tokens and model seconds. Runs are folders of `agentgym eval` output, so `agentgym report
DIR` renders each one's full report too.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
from pathlib import Path
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from agentgym.cli_args import add_backend_argument  # noqa: E402
from agentgym.eval import evaluate  # noqa: E402
from agentgym.eval.episodes import read_episodes  # noqa: E402
from agentgym.eval.metrics import pass_grid  # noqa: E402

MINIWOB_PAGES = ["click-button", "click-link", "enter-text", "focus-text", "login-user"]
FAMILIES: dict[str, dict[str, Any]] = {  # T: the tasks' largest minimum turns, then about 3x the smallest
    "tooluse": {
        "env": "agentgym/ToolUse-v0",
        "ts": [6, 12],
        "env_kwargs": {"tiers": ["single", "refusal"]},
        "tasks": 4,
    },
    "miniwob": {"env": "agentgym/MiniWoB-v0", "ts": [3, 9], "env_kwargs": {"tasks": MINIWOB_PAGES}, "tasks": 5},
    "coding": {"env": "agentgym/Coding-v0", "ts": [3, 9], "env_kwargs": {"tiers": ["one_bug"]}, "tasks": 3},
}


def run(args: argparse.Namespace, family: str, agent: str) -> dict[str, Any]:
    spec = FAMILIES[family]
    tasks = args.tasks or spec["tasks"]
    agent_kwargs: dict[str, Any] = {}
    if agent == "hf":
        agent_kwargs = {
            "model": args.model,
            "temperature": args.temperature,
            "max_new_tokens": args.max_new_tokens,
            "device": "cpu",
            "threads": args.threads,
        }
    out = Path(args.out) / family / agent
    ts = [int(t) for t in args.ts.split(",")] if args.ts else spec["ts"]
    result = evaluate(
        spec["env"],
        agent,
        ks=[1, args.n],
        ts=ts,
        n=args.n,
        tasks=_tasks(spec, tasks),
        sandbox=args.backend,
        out=out,
        agent_kwargs=agent_kwargs,
        env_kwargs=spec["env_kwargs"],
        seed=args.seed,
        progress=True,
        report=True,
    )
    return {"family": family, "agent": agent, "records": result.records}


def read(out: str, family: str, agent: str) -> dict[str, Any] | None:
    """The episodes a (possibly unfinished) run has written so far."""
    records = [r for r in read_episodes(Path(out) / family / agent / "episodes.jsonl") if not r.get("infra_error")]
    return {"family": family, "agent": agent, "records": records} if records else None


def _tasks(spec: dict[str, Any], n: int) -> list[str]:
    """``n`` test tasks of the family by a fixed rule, the first of each (tier, group) in the catalog's
    order (one per page for MiniWoB; single and refusal tasks of each ToolUse domain; one per held-out
    module for Coding), so every agent and rerun gets the same list."""
    import gymnasium as gym

    env = gym.make(spec["env"], split="test", backend="local", **spec["env_kwargs"])
    try:
        catalog = list(env.unwrapped.tasks.catalog("test"))
        allowed = set(env.unwrapped.tasks.ids("test"))
    finally:
        env.close()
    firsts: dict[str, str] = {}
    for task_id, _tier, group in catalog:
        if task_id in allowed:
            firsts.setdefault(f"{_tier}/{group or task_id.rsplit('/', 1)[0]}", task_id)  # Coding: per module
    return list(firsts.values())[:n]


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| family | agent | T | tasks | pass@1 [95% CI] | pass@4 | episodes | turns / ep | prompt tok / ep | "
        "completion tok / ep | model s / ep | failure categories |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        by_t = collections.defaultdict(list)
        for r in row["records"]:
            by_t[r["T"]].append(r)
        grid = pass_grid(row["records"], [1, 4], sorted(by_t))
        for t, cell in sorted(grid.items()):
            recs = by_t[t]
            n = len(recs)
            cost = _means(recs)
            cats = collections.Counter(r["category"] for r in recs)
            lines.append(
                f"| {row['family']} | {row['agent']} | {t} | {cell[1]['tasks']} | "
                f"{_ci(cell[1])} | {_ci(cell[4], False)} | {n} | "
                f"{sum(r['turns'] for r in recs) / n:.1f} | {cost('prompt_tokens'):.0f} | "
                f"{cost('completion_tokens'):.0f} | {cost('model_seconds'):.1f} | "
                + ", ".join(f"{k} {v}" for k, v in cats.most_common())
                + " |"
            )
    return "\n".join(lines)


def _means(recs: list[dict[str, Any]]) -> Any:
    """``cost(key)``: the mean of a cost field over ``recs``."""
    return lambda key: sum(r["cost"].get(key, 0) for r in recs) / len(recs)


def _ci(cell: dict[str, Any], interval: bool = True) -> str:
    if not cell["tasks"]:
        return "–"
    mean = f"{cell['mean']:.2f}"
    return f"{mean} [{cell['lo']:.2f}, {cell['hi']:.2f}]" if interval else mean


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--families", default="miniwob,tooluse,coding")
    p.add_argument("--model", default="smollm2-135m")
    p.add_argument("--tasks", type=int, default=None, help="tasks per family (default 4 ToolUse, 5 MiniWoB, 3 Coding)")
    p.add_argument(
        "--ts",
        default=None,
        help="budgets to run, comma-separated (default: each family's own, FAMILIES); e.g. a cell a run left out",
    )
    p.add_argument("--n", type=int, default=4, help="samples per (task, T); pass@1 and pass@n are reported")
    p.add_argument("--temperature", type=float, default=0.7)
    p.add_argument("--max-new-tokens", type=int, default=32)
    p.add_argument("--threads", type=int, default=2)
    add_backend_argument(p, old_names=("--sandbox",))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--agents", default="oracle,hf", help="which rows to run (the oracle's, the model's or both)")
    p.add_argument("--table-only", action="store_true", help="tabulate the episodes already in --out (runs nothing)")
    args = p.parse_args()
    if args.table_only:
        found = [read(args.out, f, a) for f in args.families.split(",") for a in args.agents.split(",")]
        print(table([r for r in found if r]))
        return
    rows = []
    for family in args.families.split(","):
        for agent in args.agents.split(","):
            rows.append(run(args, family, agent))
            print(table(rows[-1:]), flush=True)
    text = table(rows)
    (Path(args.out) / "table.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
