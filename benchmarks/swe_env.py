"""SWE-v0's oracle on every task of a split, with reset, step and verdict times per library.

    nice python benchmarks/swe_env.py --split test --workers 2 --out runs/swe-env.json [--limit N]

For each task: reset, then ``view`` and ``search`` of the buggy file, ``find`` of its function (the
steps a reader takes), then the oracle (`SWEEnv.reference_action`: the reverse patch, ``test``,
``submit``) to the end. Prints, per library, the oracle's success (it must be 1.00), and the
median and p95 of reset, each action kind and the verdict (``submit``), in one run; the JSON file
keeps every number. Exits 1 when the oracle fails any task.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np


def _library_run(library: str, task_ids: list[str], backend: str) -> dict[str, Any]:
    from agentgym.envs.swe import SWEEnv

    env = SWEEnv(split="test", backend=backend)
    times: dict[str, list[float]] = {}
    failed: list[str] = []
    try:
        for tid in task_ids:
            start = time.perf_counter()
            env.reset(options={"task_id": tid})
            times.setdefault("reset", []).append(time.perf_counter() - start)
            task = env.task
            assert task is not None
            path = task.meta["record"].files[0]
            function = str(task.meta["record"].bugs[0]["function"]).split(".")[-1]
            for action in (f"view {path}", f"search {function} {path}", f"find {function}"):
                start = time.perf_counter()
                env.step(action)
                times.setdefault(action.split()[0], []).append(time.perf_counter() - start)
            reward = 0.0
            for _ in range(4 * task.min_turns + 4):
                action = env.reference_action()
                kind = "verdict" if action == "submit" else action.split()[0]
                start = time.perf_counter()
                _, reward, terminated, truncated, _ = env.step(action)
                times.setdefault(kind, []).append(time.perf_counter() - start)
                if terminated or truncated:
                    break
            if reward != 1.0:
                failed.append(tid)
    finally:
        env.close()
    return {"library": library, "tasks": len(task_ids), "failed": failed, "times": times}


def _stats(values: list[float]) -> str:
    if not values:
        return "-"
    a = np.asarray(values) * 1000
    return f"{np.median(a):.0f} / {np.percentile(a, 95):.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="test")
    parser.add_argument("--limit", type=int, default=0, help="tasks per library (0: all)")
    parser.add_argument("--backend", default="docker")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default="runs/swe-env.json")
    args = parser.parse_args(argv)

    from agentgym.envs.swe.build import default_taskset

    ts = default_taskset()
    by_library: dict[str, list[str]] = {}
    for tid, _tier, library in ts.catalog(args.split):
        by_library.setdefault(library, []).append(tid)
    if args.limit:
        by_library = {k: v[: args.limit] for k, v in by_library.items()}
    start = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(_library_run, by_library, by_library.values(), [args.backend] * len(by_library)))
    wall = time.perf_counter() - start
    kinds = ["reset", "view", "search", "find", "patch", "test", "verdict"]
    print(f"SWE-v0 {args.split} split, oracle, {sum(r['tasks'] for r in results)} tasks, {wall:.0f} s wall\n")
    print("| library | tasks | oracle | " + " | ".join(f"{k} ms p50 / p95" for k in kinds) + " |")
    print("|---" * (3 + len(kinds)) + "|")
    for r in sorted(results, key=lambda r: r["library"]):
        ok = 1 - len(r["failed"]) / max(r["tasks"], 1)
        print(
            f"| {r['library']} | {r['tasks']} | {ok:.2f} | "
            + " | ".join(_stats(r["times"].get(k, [])) for k in kinds)
            + " |"
        )
    every = {k: [x for r in results for x in r["times"].get(k, [])] for k in kinds}
    total = sum(r["tasks"] for r in results)
    failed = [t for r in results for t in r["failed"]]
    print(
        f"| all | {total} | {1 - len(failed) / max(total, 1):.2f} | "
        + " | ".join(_stats(every[k]) for k in kinds)
        + " |"
    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"wall_seconds": wall, "results": results}, indent=1))
    if failed:
        print(f"\nthe oracle failed {len(failed)} task(s): {failed[:10]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
