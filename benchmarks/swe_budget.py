"""How much the turn budget matters on real code: scripted menu agents on SWE-v0 next to Coding-v0.

    nice python benchmarks/swe_budget.py --t 3,5,8,12,16,24 --tasks 40 --out runs/swe-budget [--workers 2]

Runs, through `agentgym.eval.evaluate` on the test split's one-bug tasks (the same first ``--tasks``
tasks for every agent and T, one episode each): the oracle, a random menu agent, and the blind
test-and-revert scripts of `baselines.policy.heuristics` (``careful``: patch, test, revert and retry
until the failing tests pass; ``budget_aware``: the same loop, committing when the turns left cannot
fit another cycle). Prints success with its 95% bootstrap interval per agent, family and T as a
Markdown table, the paired difference budget-aware minus careful (over tasks), and writes
``curves.json``. Coding-v0 runs the same agents on its own test split for comparison.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agentgym.cli_args import add_backend_argument
from agentgym.eval import evaluate

AGENTS = {
    "oracle": "oracle",
    "random": "random",
    "careful": "baselines.policy.heuristics:careful",
    "budget_aware": "baselines.policy.heuristics:budget_aware",
}
FAMILIES = {"swe": "agentgym/SWE-v0", "coding": "agentgym/Coding-v0"}


def _task_ids(env_id: str, n: int) -> list[str]:
    import gymnasium as gym

    import agentgym  # noqa: F401  (registers the ids)

    env = gym.make(env_id)
    try:
        return list(env.unwrapped.tasks.ids("test", tier="one_bug"))[:n]
    finally:
        env.close()


def run(
    ts: list[int], n: int, out: Path, backend: str, workers: int, seed: int, families: list[str], agents: list[str]
) -> dict[str, dict[str, dict[int, dict[str, Any]]]]:
    curves: dict[str, dict[str, dict[int, dict[str, Any]]]] = {}
    for family in families:
        env_id = FAMILIES[family]
        tasks = _task_ids(env_id, n)
        for name in agents:
            result = evaluate(
                env_id,
                AGENTS[name],
                ks=[1],
                ts=ts,
                n=1,
                split="test",
                tasks=tasks,
                sandbox=backend,
                workers=workers,
                seed=seed,
                out=out / family / name,
                progress=True,
                report=False,
            )
            cells = result.summary["results"]["clean"][env_id]["pass"]
            curves.setdefault(family, {})[name] = {t: cells[str(t)]["1"] for t in ts}
    return curves


def table(curves: dict[str, dict[str, dict[int, dict[str, Any]]]], ts: list[int]) -> str:
    rows = ["| family | agent | " + " | ".join(f"T={t}" for t in ts) + " |", "|---|---" + "|---" * len(ts) + "|"]
    for family, by_agent in curves.items():
        for name, cells in by_agent.items():
            shown = [f"{cells[t]['mean']:.2f} [{cells[t]['lo']:.2f}, {cells[t]['hi']:.2f}]" for t in ts]
            rows.append(f"| {family} | {name} | " + " | ".join(shown) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--t", default="3,5,8,12,16,24", help="turn budgets T")
    parser.add_argument("--tasks", type=int, default=40, help="one-bug test tasks per family (the first ones)")
    parser.add_argument("--families", default="swe,coding")
    parser.add_argument("--agents", default=",".join(AGENTS))
    parser.add_argument("--out", default="runs/swe-budget")
    add_backend_argument(parser)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    ts = [int(x) for x in args.t.split(",")]
    families = [f for f in args.families.split(",") if f]
    agents = [a for a in args.agents.split(",") if a]
    unknown = sorted(set(families) - set(FAMILIES)) + sorted(set(agents) - set(AGENTS))
    if unknown:
        parser.error(f"unknown {unknown}; families: {sorted(FAMILIES)}, agents: {sorted(AGENTS)}")
    out = Path(args.out)
    curves = run(ts, args.tasks, out, args.backend, args.workers, args.seed, families, agents)
    print(table(curves, ts))
    out.mkdir(parents=True, exist_ok=True)
    (out / "curves.json").write_text(json.dumps(curves, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
