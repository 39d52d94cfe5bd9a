"""Browser-v0 on Chromium against the text backend: the oracle on every test task, both backends in lock-step.

    python benchmarks/browser_chromium.py [--split test] [--json]

For each task the oracle runs on the Chromium backend (Docker) and on the text backend (local) with
the same seed; every step's observation, reward, flags and info must be identical. Reports the
oracle's success and turns on Chromium, the number of episodes that differed (with the first
difference), Chromium's step and reset times and the run's wall time (``seconds``). The tests run a
sample of this (tests/envs/browser/test_browser_chromium.py); this runs every task of the split
(two minutes or so for the 360 test tasks on a 2-core machine; see docs/browser.md for measured runs).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from typing import Any

import numpy as np

from agentgym.envs.browser import BrowserEnv

NAMES = ("observation", "reward", "terminated", "truncated", "info")


def run(split: str = "test", seed: int = 0) -> dict[str, Any]:
    text = BrowserEnv(split=split, backend="local")
    chromium = BrowserEnv(split=split, backend="docker", browser="chromium")
    solved, in_min, differed, first_diff = 0, 0, 0, None
    steps, resets = [], []
    tasks = text.tasks.ids(split)
    start = time.perf_counter()
    try:
        for tid in tasks:
            text_out = text.reset(seed=seed, options={"task_id": tid})
            t = time.perf_counter()
            chrome_out = chromium.reset(seed=seed, options={"task_id": tid})
            resets.append(time.perf_counter() - t)
            diff = None if text_out == chrome_out else "reset"
            reward = 0.0
            for turn in range(1, 4 * chromium.task.min_turns + 10):
                action = chromium.reference_action()
                t = time.perf_counter()
                got = chromium.step(action)
                steps.append(time.perf_counter() - t)
                want = text.step(action) if not text.episode_over else None
                if diff is None and want != got:
                    bad = next(n for n, a, b in zip(NAMES, want or (None,) * 5, got) if a != b)
                    diff = f"turn {turn} {action!r}: the {bad}s differ"
                if got[2] or got[3]:
                    reward = got[1]
                    break
            solved += reward == 1.0
            in_min += reward == 1.0 and chromium.turn == chromium.task.min_turns
            if diff is not None:
                differed += 1
                first_diff = first_diff or f"{tid}: {diff}"
    finally:
        text.close()
        chromium.close()

    def pct(xs: list[float]) -> dict[str, float]:
        arr = np.asarray(xs) * 1000
        return {"p50": round(float(np.percentile(arr, 50)), 1), "p95": round(float(np.percentile(arr, 95)), 1)}

    return {
        "split": split,
        "tasks": len(tasks),
        "oracle_solved": solved,
        "oracle_in_min_turns": in_min,
        "episodes_that_differed": differed,
        "first_difference": first_diff,
        "chromium_step_ms": pct(steps),
        "chromium_reset_ms": pct(resets),
        "seconds": round(time.perf_counter() - start, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="test")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the local backend's isolation notice is not a result
        result = run(args.split, args.seed)
    print(json.dumps(result) if args.json else "\n".join(f"{k:>24}: {v}" for k, v in result.items()))
    return 0 if result["oracle_solved"] == result["tasks"] and not result["episodes_that_differed"] else 1


if __name__ == "__main__":
    sys.exit(main())
