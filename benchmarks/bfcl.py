"""BFCL-v0 per category: the ground-truth oracle, a random-menu baseline, turns used, and the speed.

    python benchmarks/bfcl.py [--split test] [--budget 1.5] [--backend docker] [--categories base,miss_func] \
        [--json out.json] [--markdown]

Every task of ``--split`` (default: test, 50 scenarios x 4 categories) is played by the oracle
(``env.reference_action()``, the ground truth's calls and a ``reply`` per user turn, up to 100
actions) and by a seeded random policy over the menu (``info["admissible_actions"]``) under a
budget of ``--budget`` times the task's ``min_turns`` (the ground truth's calls plus one reply per
turn). One sandbox serves the whole run. Reported per category: oracle success, its actions (p50,
max), user turns (mean), random success; overall: reset and step latency (p50, p95), oracle
episodes per second, and with Docker the sandbox's cgroup memory after every episode.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from agentgym.envs.bfcl import BFCLEnv
from agentgym.envs.bfcl.tasks import CATEGORIES

_spec = importlib.util.spec_from_file_location("agentgym_bench_envs", Path(__file__).with_name("envs.py"))
_envs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_envs)
pct, cgroup_memory_mib, _timed = _envs._pct, _envs._cgroup_memory_mib, _envs.timed


def run(categories: list[str], split: str, budget: float, backend: str) -> dict[str, Any]:
    env = BFCLEnv(split=split, backend=backend, help_in_observation=False)
    resets: list[float] = []
    steps: list[float] = []
    memory: list[float] = []
    rows = []
    oracle_seconds, oracle_episodes = 0.0, 0
    try:
        _, first = _timed(env.reset, seed=0)
        container = getattr(env.sandbox, "container", None)
        for category in categories:
            ids = [t for t in env.tasks.ids(split) if t.split("/")[1] == category]
            oracle_wins, actions, user_turns, random_wins, failed = 0, [], [], 0, []
            for i, task_id in enumerate(ids):
                start = time.perf_counter()
                (obs, info), dt = _timed(env.reset, seed=i, options={"task_id": task_id})
                resets.append(dt)
                min_turns = info["min_turns"]
                for turn in range(1, 101):
                    (obs, reward, terminated, truncated, info), dt = _timed(env.step, env.reference_action())
                    steps.append(dt)
                    if terminated:
                        break
                oracle_seconds += time.perf_counter() - start
                oracle_episodes += 1
                oracle_wins += reward == 1.0
                if reward != 1.0:
                    failed.append(task_id)
                actions.append(turn)
                user_turns.append(len(env.entry.turns))
                rng = np.random.default_rng(i)
                (obs, info), dt = _timed(env.reset, seed=i, options={"task_id": task_id})
                resets.append(dt)
                reward = 0.0
                for _ in range(max(1, math.ceil(budget * min_turns))):
                    menu = info["admissible_actions"]
                    (obs, reward, terminated, truncated, info), dt = _timed(
                        env.step, menu[int(rng.integers(len(menu)))]
                    )
                    steps.append(dt)
                    if terminated:
                        break
                random_wins += reward == 1.0
                if container is not None:
                    mem = cgroup_memory_mib(container.id)
                    if mem:
                        memory.append(mem["now_mib"])
            rows.append(
                {
                    "category": category,
                    "tasks": len(ids),
                    "oracle": round(oracle_wins / len(ids), 3),
                    "actions_p50": float(np.median(actions)),
                    "actions_max": int(max(actions)),
                    "user_turns_mean": round(float(np.mean(user_turns)), 2),
                    "random": round(random_wins / len(ids), 3),
                    "oracle_failed": failed,
                }
            )
            print(
                f"{category}: oracle {rows[-1]['oracle']:.3f} actions {rows[-1]['actions_p50']:g} "
                f"random {rows[-1]['random']:.3f}",
                file=sys.stderr,
                flush=True,
            )
        peak = cgroup_memory_mib(container.id) if container is not None else None
    finally:
        env.close()
    mem = np.asarray(memory) if memory else np.asarray([np.nan])
    return {
        "env": "agentgym/BFCL-v0",
        "split": split,
        "backend": backend,
        "random_budget_x_min_turns": budget,
        "first_reset_ms": round(first * 1000, 1),
        "reset_ms": pct(resets),
        "step_ms": pct(steps),
        "oracle_episodes_per_s": round(oracle_episodes / oracle_seconds, 2) if oracle_seconds else None,
        "memory_mib": {
            "p50": round(float(np.nanpercentile(mem, 50)), 1),
            "p95": round(float(np.nanpercentile(mem, 95)), 1),
            "peak": peak["peak_mib"] if peak else None,
            "n": len(memory),
        },
        "categories": rows,
    }


def markdown(result: dict[str, Any]) -> str:
    out = [
        "| category | tasks | oracle | actions (p50 / max) | user turns (mean) | random |",
        "|---|---|---|---|---|---|",
    ]
    for r in result["categories"]:
        out.append(
            f"| {r['category']} | {r['tasks']} | {r['oracle']:.2f} | {r['actions_p50']:g} / {r['actions_max']} "
            f"| {r['user_turns_mean']:.2f} | {r['random']:.2f} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="test", choices=("train", "test"))
    parser.add_argument("--budget", type=float, default=1.5, help="the random policy's budget, times min_turns")
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--categories", default="", help="comma-separated categories (default: all four)")
    parser.add_argument("--json", default=None, help="write the result here")
    parser.add_argument("--markdown", action="store_true", help="print the per-category table")
    args = parser.parse_args(argv)
    categories = [c for c in args.categories.split(",") if c] or list(CATEGORIES)
    result = run(categories, args.split, args.budget, args.backend)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    print(json.dumps({k: v for k, v in result.items() if k != "categories"}))
    if args.markdown:
        print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
