"""Your own agent class over a Pass@(K,T) grid with the evaluation harness: does it need the turns?

    python examples/custom_agent_grid.py                      # a small grid on the local backend
    python examples/custom_agent_grid.py --backend docker --tasks 20 --t 2,4,8,16 --k 1,4

An agent is any object with ``reset(env, obs, info)`` and ``act(obs, info) -> str`` (`agentgym.agents.Agent`);
``seed(seed)`` lets the harness replay a stochastic agent exactly. `PatchTestRevert` knows nothing
about the bug: it applies a patch from Coding-v0's menu (``info["admissible_actions"]``) at random,
runs the visible tests, and reverts and tries another patch when they fail. With ``--budget-aware``
it submits what it has when too few turns are left for another try. Each budget T is its own set
of episodes, ``n >= max(K)`` samples per task, so every pass@K comes from the unbiased estimator;
``agentgym eval --agent examples.custom_agent_grid:PatchTestRevert`` runs the same from the command
line. The harness writes ``episodes.jsonl``, ``summary.json``, ``report.md`` and plots (the pass@K
heatmap over K and T among them) to ``--out``; a second run with the same arguments resumes.
"""

from __future__ import annotations

import argparse
import re
import warnings
from typing import Any

import gymnasium as gym
import numpy as np

from agentgym.eval import evaluate

_FAILED = re.compile(r"\b\d+ (failed|errors?)\b|^error:", re.MULTILINE)


class PatchTestRevert:
    """Patch at random, test, revert on failure; submit when the tests pass (or, budget-aware, when
    fewer than two turns are left)."""

    def __init__(self, budget_aware: bool = False, seed: int = 0) -> None:
        self.budget_aware = budget_aware
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int) -> None:  # called by the harness before every episode
        self.rng = np.random.default_rng(seed)

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        self.tried: set[str] = set()
        self.state = "start"  # start -> patched -> tested -> (reverted -> patched ...)

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        left = int(obs["turns_left"][0])
        if self.state == "patched":
            if self.budget_aware and left <= 1:
                return "submit"  # no turn for the test: commit the patch
            self.state = "tested"
            return "test"
        if self.state == "tested":
            if not _FAILED.search(obs["text"]) or (self.budget_aware and left <= 2):
                return "submit"
            self.state = "start"
            return "revert"
        fresh = [a for a in info["admissible_actions"] if a.startswith("patch") and a not in self.tried]
        if not fresh:
            return "submit"
        patch = fresh[int(self.rng.integers(len(fresh)))]
        self.tried.add(patch)
        self.state = "patched"
        return patch


def _ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",")]


def main(argv: list[str] | None = None) -> dict[int, dict[int, float | None]]:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--k", type=_ints, default=[1, 2], help="sample counts K (default 1,2)")
    p.add_argument("--t", type=_ints, default=[2, 4, 8], help="turn budgets T (default 2,4,8)")
    p.add_argument("--tasks", type=int, default=8, help="test tasks, drawn with --seed (default 8)")
    p.add_argument("--budget-aware", action="store_true", help="commit when turns run out")
    p.add_argument("--backend", choices=("local", "docker", "auto"), default="local", help="sandbox backend")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/custom-agent-grid", help="output folder (resumed if it holds a run)")
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore", message="agentgym local sandbox backend")  # said in the docstring

    result = evaluate(
        "agentgym/Coding-v0",
        PatchTestRevert(budget_aware=args.budget_aware),  # an instance; a zero-argument factory works too
        ks=args.k,
        ts=args.t,
        tasks=args.tasks,
        env_kwargs={"tiers": ["one_bug"]},  # one bug per task: the grid's story reads plainly
        sandbox=args.backend,
        seed=args.seed,
        out=args.out,
        progress=False,
    )
    grid = result.grid()  # {T: {K: pass@K}}
    print(f"pass@K of PatchTestRevert(budget_aware={args.budget_aware}) on {args.tasks} Coding-v0 tasks")
    print("      " + "".join(f"  K={k:<4}" for k in args.k))
    for t in sorted(grid):
        print(f"T={t:<3} " + "".join(f"  {grid[t][k]:.2f}  " if grid[t][k] is not None else "  -     " for k in args.k))
    print(f"\nreport, plots and every episode: {result.out}/report.md")
    return grid


if __name__ == "__main__":
    main()
