"""Positive control: the BudgetMix trainer on the sandbox-free budget env, where the answers are known.

    python -m baselines.positive_control            # about a minute on one core
    python -m baselines.positive_control --steps 4000 --seeds 1

`baselines.budget_env` is Coding-v0's menu task in miniature with a known optimum per budget.
The control runs on its faithful variant (`RECOVER_ENV_ID`: a patch on top of another breaks
the code until ``revert``, the right patch's test fails 10% of the time), whose optimum is an
exact dynamic programme (`recover_optimum`: 0.60 / 0.69 / 0.80 at T = 2 / 5 / 10); ``--easy``
runs the original (a new patch replaces the old, a perfect test: 0.6 at T=2, 1.0 at T >= 10). The control trains fixed-T short, fixed-T
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
from typing import Any, cast

import numpy as np

import agentgym
from baselines.agent import PolicyAgent, load_policy
from baselines.budget_env import BudgetChoiceEnv, optimum, recover_best_action, recover_optimum
from baselines.config import PRESETS, Args
from baselines.grid import run_jobs
from baselines.trainer import train

__all__ = ["run_control", "CONTROL_ENV", "EASY_CONTROL_ENV", "best_policy_score"]

CONTROL_ENV = "baselines.budget_env:agentgym-test/BudgetRecover-v0"
"""The faithful variant (recovery needs a revert; a failing test is evidence, not proof); the
original, where a new patch replaces the old and the test is perfect, is `EASY_CONTROL_ENV`."""
EASY_CONTROL_ENV = "baselines.budget_env:agentgym-test/BudgetChoice-v0"


def _optimum(env_id: str, t: int) -> float:
    """The env's known optimum at budget ``t`` (its registered kwargs say which variant it is)."""
    import gymnasium as gym


    kwargs = gym.spec(env_id.split(":")[-1]).kwargs
    n, clue = int(kwargs.get("n", 5)), float(kwargs.get("clue_accuracy", 0.6))
    if kwargs.get("stacking"):
        return recover_optimum(t, n=n, clue_accuracy=clue, fn=float(kwargs.get("test_false_negative", 0.0)))
    return optimum(t, n=n, clue_accuracy=clue)


def best_policy_score(t: int, episodes: int, seed: int = 0) -> float:
    """Success of the known best policy (`recover_best_action`) played on the faithful env: the
    dynamic programme's value, checked by simulation."""

    env = agentgym.make(CONTROL_ENV, budget=t, split="test")
    rng = np.random.default_rng(seed)
    wins = 0
    try:
        for e in range(episodes):
            obs, info = env.reset(seed=seed * 100_000 + e)
            names = list(cast(BudgetChoiceEnv, env.unwrapped).names)
            clue = next(w for w in names if w in obs["text"])
            others = [w for w in names if w != clue]
            order = [clue] + [others[j] for j in rng.permutation(len(others))]  # the others are alike: a blind order
            cur: int | None = None
            fails = [0] * len(order)
            left, done, passed = t, False, False
            while not done:
                action = recover_best_action(left, cur, tuple(fails), passed=passed)
                if action.startswith("patch "):
                    cur = int(action.split()[1])
                    action = f"patch {order[cur]}"
                elif action == "revert":
                    cur = None
                elif action == "test":
                    action = "run tests"
                obs, _, terminated, truncated, info = env.step(action)
                done = terminated or truncated
                left -= 1
                if str(obs["text"]).startswith("tests fail") and cur is not None:
                    fails[cur] += 1
                passed = str(obs["text"]).startswith("tests pass")
            wins += bool(info.get("success", False))
    finally:
        env.close()
    return wins / episodes


def _score(policy: Any, max_actions: int, t: int, episodes: int, seed: int, env_id: str = CONTROL_ENV) -> dict[str, Any]:
    env = agentgym.make(env_id, budget=t, split="test")
    agent = PolicyAgent(policy, max_actions=max_actions, seed=seed)
    wins, wrong_first, recovered, reverts, fails = 0, 0, 0, 0, 0
    try:
        for e in range(episodes):
            obs, info = env.reset(seed=seed * 100_000 + e)
            agent.reset(env, obs, info)
            first_right: bool | None = None
            done, failed = False, False
            while not done:
                action = agent.act(obs, info)
                reverts += failed and action == "revert"
                if first_right is None and action.startswith("patch "):
                    base = cast(BudgetChoiceEnv, env.unwrapped)
                    first_right = action[6:] == base.names[base.answer]
                obs, _, terminated, truncated, info = env.step(action)
                failed = str(obs.get("text", "")).startswith("tests fail")
                fails += failed
                done = terminated or truncated
            success = bool(info.get("success", False))
            wins += success
            if first_right is False:
                wrong_first += 1
                recovered += success
    finally:
        env.close()
    return {"success": wins / episodes, "optimum": _optimum(env_id, t), "recovered": recovered, "wrong_first": wrong_first,
            "reverts_after_failing_test": reverts, "failing_tests": fails}


def _control_job(base: Any, spec: str, seed: int, run_name: str, eval_ts: tuple[int, ...], episodes: int,
                 env_id: str) -> dict[int, dict[str, Any]]:
    """Train one control run and score it at each T (a `baselines.grid` job)."""

    summary = train(dataclasses.replace(base, schedule=spec, seed=seed), run_name)
    policy, ckpt = load_policy(summary["checkpoint"])
    return {t: _score(policy, int(ckpt["max_actions"]), t, episodes, seed, env_id) for t in eval_ts}


def run_control(steps: int = 6000, seeds: tuple[int, ...] = (1, 2), t_short: int = 2, t_long: int = 10,
                eval_ts: tuple[int, ...] = (2, 4, 6, 10), episodes: int = 200, out: str | None = None,
                env_id: str = CONTROL_ENV, base: Any = None, **overrides: Any) -> dict[str, Any]:
    """Train the three schedules per seed on the budget env with `baselines.trainer.train`; success per T against the optimum.

    ``base``: the trainer's `Args` (the experiment passes its own; by default the quick preset's);
    its ``workers`` and ``executor`` run the (schedule, seed) runs in parallel (`baselines.grid`).
    """

    if base is None:
        base = Args(**{**PRESETS["quick"], "preset": "quick"})
    schedules = {f"fixed-T{t_short}": f"fixed:{t_short}", f"fixed-T{t_long}": f"fixed:{t_long}",
                 "budgetmix": f"uniform:{t_short}-{t_long}"}
    results: dict[str, Any] = {"env": env_id, "steps": steps, "seeds": list(seeds), "schedules": schedules, "by_T": {}}
    runs = [(name, seed) for seed in seeds for name in schedules]
    with tempfile.TemporaryDirectory() as tmp:
        config = dataclasses.replace(base, env_ids=env_id, backend="local", total_env_steps=steps, track=False,
                                     progress=False, dim=64, hidden=64, collect_mode="async", env_threads=1,
                                     out=out or tmp, **overrides)
        scored = run_jobs(_control_job, [(config, schedules[name], seed, f"control-{name}-s{seed}", eval_ts, episodes,
                                          env_id) for name, seed in runs],
                          workers=base.workers, executor=base.executor, ray_address=base.ray_address or None)
    scores: dict[str, dict[int, list[dict[str, Any]]]] = {n: {t: [] for t in eval_ts} for n in schedules}
    for (name, _), by_t in zip(runs, scored):  # seed-major, as the runs were listed
        for t in eval_ts:
            scores[name][t].append(by_t[t])
    if env_id == CONTROL_ENV:
        results["best_policy"] = {str(t): best_policy_score(t, episodes * len(seeds)) for t in eval_ts}
    for name, by_t in scores.items():
        results["by_T"][name] = {
            str(t): {
                "success": float(np.mean([r["success"] for r in rs])),
                "success_per_seed": [r["success"] for r in rs],
                "optimum": rs[0]["optimum"],
                "recovered": sum(r["recovered"] for r in rs),
                "wrong_first": sum(r["wrong_first"] for r in rs),
                "reverts_after_failing_test": sum(r["reverts_after_failing_test"] for r in rs),
                "failing_tests": sum(r["failing_tests"] for r in rs),
            }
            for t, rs in by_t.items()
        }
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=6000, help="env steps per training run")
    parser.add_argument("--seeds", default="1,2", help="training seeds")
    parser.add_argument("--episodes", type=int, default=200, help="evaluation episodes per T")
    parser.add_argument("--easy", action="store_true", help="the original env (a new patch replaces the old, a perfect test)")
    parser.add_argument("--recovery-starts", type=float, default=None, help="the trainer's start-state curriculum share")
    opts = parser.parse_args(argv)
    extra = {} if opts.recovery_starts is None else {"recovery_starts": opts.recovery_starts}
    print(json.dumps(run_control(opts.steps, tuple(int(s) for s in opts.seeds.split(",")), episodes=opts.episodes,
                                 env_id=EASY_CONTROL_ENV if opts.easy else CONTROL_ENV, **extra), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
