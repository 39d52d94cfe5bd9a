"""MiniWoB-v0 per task: the scripted solver, a random-menu baseline, turns used, and the speed.

    python benchmarks/miniwob.py [--seeds 20] [--budget 10] [--tasks click-button,search-engine] \
        [--json out.json] [--markdown]

For each registered page, ``--seeds`` test-split tasks (the page seeded by each) are played by the
page's scripted solver (``env.reference_action()``, up to 30 turns) and by a seeded random policy
over the menu (``info["admissible_actions"]``) under a turn budget of ``--budget``. One sandbox
serves the whole run, as in training. Reported per page: oracle success and median turns, random
success; overall: reset and step latency (p50, p95) and the sandbox's cgroup memory sampled after
every episode (p50, p95, peak), plus the sandbox's first reset (container start and Chromium's
launch). `benchmarks/envs.py --env agentgym/MiniWoB-v0` gives the generic row.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from agentgym.envs.miniwob import MiniWoBEnv
from agentgym.envs.miniwob.tasks import TASKS

_spec = importlib.util.spec_from_file_location("agentgym_bench_envs", Path(__file__).with_name("envs.py"))
_envs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_envs)
pct, cgroup_memory_mib, _timed = _envs._pct, _envs._cgroup_memory_mib, _envs.timed


def run(pages: list[str], seeds: int, budget: int) -> dict[str, Any]:
    env = MiniWoBEnv(split="test", help_in_observation=False)
    resets: list[float] = []
    steps: list[float] = []
    memory: list[float] = []
    rows = []
    try:
        _, first = _timed(env.reset, seed=0)
        container = env.sandbox.container
        for page in pages:
            ids = list(env.tasks.ids("test"))
            ids = [t for t in ids if t.split("/")[1] == page][:seeds]
            oracle_wins, oracle_turns, random_wins = 0, [], 0
            for i, task_id in enumerate(ids):
                (obs, info), dt = _timed(env.reset, seed=i, options={"task_id": task_id})
                resets.append(dt)
                for turn in range(1, 31):
                    (obs, reward, terminated, truncated, info), dt = _timed(env.step, env.reference_action())
                    steps.append(dt)
                    if terminated:
                        break
                oracle_wins += reward == 1.0
                oracle_turns.append(turn)
                rng = np.random.default_rng(i)
                (obs, info), dt = _timed(env.reset, seed=i, options={"task_id": task_id})
                resets.append(dt)
                reward = 0.0
                for _ in range(budget):
                    menu = info["admissible_actions"]
                    action = menu[int(rng.integers(len(menu)))]
                    (obs, reward, terminated, truncated, info), dt = _timed(env.step, action)
                    steps.append(dt)
                    if terminated:
                        break
                random_wins += reward == 1.0
                mem = cgroup_memory_mib(container.id)
                if mem:
                    memory.append(mem["now_mib"])
            rows.append(
                {
                    "task": page,
                    "tier": env.tasks.get(ids[0]).tier,
                    "episodes": len(ids),
                    "oracle": round(oracle_wins / len(ids), 3),
                    "oracle_turns_p50": float(np.median(oracle_turns)),
                    "random": round(random_wins / len(ids), 3),
                }
            )
            print(
                f"{page}: oracle {rows[-1]['oracle']:.2f} turns {rows[-1]['oracle_turns_p50']:g} "
                f"random {rows[-1]['random']:.2f}",
                file=sys.stderr,
                flush=True,
            )
        peak = cgroup_memory_mib(container.id)
    finally:
        env.close()
    mem = np.asarray(memory) if memory else np.asarray([np.nan])
    return {
        "env": "agentgym/MiniWoB-v0",
        "seeds": seeds,
        "random_budget": budget,
        "chromium": env.chromium,
        "first_reset_ms": round(first * 1000, 1),
        "reset_ms": pct(resets),
        "step_ms": pct(steps),
        "memory_mib": {
            "p50": round(float(np.nanpercentile(mem, 50)), 1),
            "p95": round(float(np.nanpercentile(mem, 95)), 1),
            "peak": peak["peak_mib"] if peak else None,
            "n": len(memory),
        },
        "tasks": rows,
        "oracle_mean": round(float(np.mean([r["oracle"] for r in rows])), 3),
        "random_mean": round(float(np.mean([r["random"] for r in rows])), 3),
    }


def markdown(result: dict[str, Any]) -> str:
    out = ["| task | tier | oracle | turns (p50) | random |", "|---|---|---|---|---|"]
    for r in result["tasks"]:
        out.append(f"| {r['task']} | {r['tier']} | {r['oracle']:.2f} | {r['oracle_turns_p50']:g} | {r['random']:.2f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="test-split tasks per page")
    parser.add_argument("--budget", type=int, default=10, help="the random policy's turn budget")
    parser.add_argument("--tasks", default="", help="comma-separated pages (default: every registered page)")
    parser.add_argument("--json", default=None, help="write the result here")
    parser.add_argument("--markdown", action="store_true", help="print the per-task table")
    args = parser.parse_args(argv)
    pages = [p for p in args.tasks.split(",") if p] or list(TASKS)
    result = run(pages, args.seeds, args.budget)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    summary = {k: v for k, v in result.items() if k != "tasks"}
    print(json.dumps(summary))
    if args.markdown:
        print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
