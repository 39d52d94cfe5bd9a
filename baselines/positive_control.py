"""Positive control: the BudgetMix trainer on the sandbox-free budget env, where the answers are known.

    python -m baselines.positive_control            # about a minute on one core
    python -m baselines.positive_control --steps 4000 --seeds 1

`baselines.budget_env` is Coding-v0's menu task in miniature with a known optimum per budget
(`baselines.budget_env.optimum`): patch the clue and submit (0.6 at any T), or test and try the
other patches in turn (0.9 at T=8, 1.0 at T >= 10). The control trains fixed-T short, fixed-T
long and BudgetMix with the real trainer and features, and scores each at short and long T
against the optimum, with the recovery rate: success among episodes whose first patch was
wrong. If a schedule cannot approach the optimum here, a null result on Coding-v0 says
nothing about BudgetMix; if it can, the trainer and features are able to learn both "commit
when turns run low" and "recover after a failing test".
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from typing import Any

import numpy as np

__all__ = ["run_control", "CONTROL_ENV"]

CONTROL_ENV = "baselines.budget_env:agentgym-test/BudgetChoice-v0"


def _score(policy: Any, max_actions: int, t: int, episodes: int, seed: int) -> dict[str, Any]:
    import agentgym
    from baselines.agent import PolicyAgent
    from baselines.budget_env import optimum

    env = agentgym.make(CONTROL_ENV, budget=t, split="test")
    agent = PolicyAgent(policy, max_actions=max_actions, seed=seed)
    wins, wrong_first, recovered = 0, 0, 0
    try:
        for e in range(episodes):
            obs, info = env.reset(seed=seed * 100_000 + e)
            agent.reset(env, obs, info)
            first_right: bool | None = None
            done = False
            while not done:
                action = agent.act(obs, info)
                if first_right is None and action.startswith("patch "):
                    base = env.unwrapped
                    first_right = action[6:] == base.names[base.answer]
                obs, _, terminated, truncated, info = env.step(action)
                done = terminated or truncated
            success = bool(info.get("success", False))
            wins += success
            if first_right is False:
                wrong_first += 1
                recovered += success
    finally:
        env.close()
    return {"success": wins / episodes, "optimum": optimum(t), "recovered": recovered, "wrong_first": wrong_first}


def run_control(steps: int = 6000, seeds: tuple[int, ...] = (1, 2), t_short: int = 2, t_long: int = 10,
                eval_ts: tuple[int, ...] = (2, 4, 6, 10), episodes: int = 200, out: str | None = None) -> dict[str, Any]:
    """Train the three schedules per seed on the budget env; success per T against the optimum."""
    from baselines.agent import load_policy
    from baselines.budgetmix import PRESETS, Args, train

    schedules = {f"fixed-T{t_short}": f"fixed:{t_short}", f"fixed-T{t_long}": f"fixed:{t_long}",
                 "budgetmix": f"uniform:{t_short}-{t_long}"}
    base = Args(**{**PRESETS["quick"], "preset": "quick"})
    base = dataclasses.replace(base, env_ids=CONTROL_ENV, backend="local", total_env_steps=steps, track=False,
                               progress=False, dim=64, hidden=64, collect_mode="async", env_threads=1)
    results: dict[str, Any] = {"steps": steps, "seeds": list(seeds), "schedules": schedules, "by_T": {}}
    with tempfile.TemporaryDirectory() as tmp:
        scores: dict[str, dict[int, list[dict[str, Any]]]] = {n: {t: [] for t in eval_ts} for n in schedules}
        for seed in seeds:
            for name, spec in schedules.items():
                summary = train(dataclasses.replace(base, schedule=spec, seed=seed, out=out or tmp), f"control-{name}-s{seed}")
                policy, ckpt = load_policy(summary["checkpoint"])
                for t in eval_ts:
                    scores[name][t].append(_score(policy, int(ckpt["max_actions"]), t, episodes, seed))
    for name, by_t in scores.items():
        results["by_T"][name] = {
            str(t): {
                "success": float(np.mean([r["success"] for r in rs])),
                "success_per_seed": [r["success"] for r in rs],
                "optimum": rs[0]["optimum"],
                "recovered": sum(r["recovered"] for r in rs),
                "wrong_first": sum(r["wrong_first"] for r in rs),
            }
            for t, rs in by_t.items()
        }
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=6000, help="env steps per training run")
    parser.add_argument("--seeds", default="1,2", help="training seeds")
    parser.add_argument("--episodes", type=int, default=200, help="evaluation episodes per T")
    opts = parser.parse_args(argv)
    print(json.dumps(run_control(opts.steps, tuple(int(s) for s in opts.seeds.split(",")), episodes=opts.episodes), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
