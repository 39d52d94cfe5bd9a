"""Speed of the evaluation harness: its own overhead per episode, and how it scales with workers.

    python benchmarks/eval.py --json                         # ToolUse-v0 in Docker, oracle agent
    python benchmarks/eval.py --env agentgym/Coding-v0 --episodes 120

Runs the same oracle grid three ways and reports:
- ``overhead_pct``: with one in-process worker and warm envs, the time between back-to-back
  episodes beyond their own latency (env + agent), as a share of episode time. Also reported
  with start-up (building envs before the first episode) and with the end-of-run summary
  statistics, which run once per evaluation.
- ``speedup_2v1``: steady-state episodes per second with a pool of 2 worker processes over 1
  worker (first finished episode to last, so process and sandbox start-up are left out;
  end-to-end figures are reported too).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from agentgym.eval import evaluate


def run(env_id: str, tasks: int, ts: list[int], n: int, workers: int, sandbox: str, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        result = evaluate(env_id, "oracle", ks=[1], ts=ts, n=n, tasks=tasks, workers=workers, sandbox=sandbox,
                          seed=seed, out=out, progress=False, report=False)
        total = time.perf_counter() - start
    timing = result.summary["timing"]
    lat = sorted(r["latency_s"] for r in result.records)
    return {
        "workers": workers,
        "episodes": timing["episodes_run"],
        "success": result.summary["counts"]["successes"] / max(1, result.summary["counts"]["scored"]),
        "infra_errors": result.summary["counts"]["infra_errors"],
        "total_s": total,
        "loop_s": timing["loop_seconds"],
        "episode_s_sum": timing["episode_seconds"],
        "first_episode_s": timing["first_episode_s"],
        "episodes_per_s": timing["episodes_per_s"],
        "steady_episodes_per_s": timing["steady_episodes_per_s"],
        "overhead_pct_loop": 100.0 * timing["overhead_fraction"],
        "overhead_pct_steady": 100.0 * timing["steady_overhead_fraction"],
        "overhead_pct_with_summary": 100.0 * (total - timing["episode_seconds"]) / timing["episode_seconds"],
        "latency_p50_ms": 1000 * statistics.median(lat),
        "latency_p95_ms": 1000 * lat[min(len(lat) - 1, int(0.95 * len(lat)))],
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", default="agentgym/ToolUse-v0")
    p.add_argument("--sandbox", default="auto")
    p.add_argument("--tasks", type=int, default=8)
    p.add_argument("--t", default="4,16", help="turn budgets")
    p.add_argument("--n", type=int, default=8, help="episodes per task and T")
    p.add_argument("--repeats", type=int, default=1, help="repeat each configuration, report the median")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args()
    ts = [int(t) for t in args.t.split(",")]
    runs: dict[int, list[dict]] = {1: [], 2: []}
    for i in range(args.repeats):
        for workers in (1, 2):
            runs[workers].append(run(args.env, args.tasks, ts, args.n, workers, args.sandbox, seed=i))

    def med(w: int, key: str) -> float:
        return statistics.median(r[key] for r in runs[w])

    report = {
        "env": args.env,
        "sandbox": args.sandbox,
        "cpus": os.cpu_count(),
        "load_avg_1m": os.getloadavg()[0],
        "episodes_per_run": runs[1][0]["episodes"],
        "overhead_pct": med(1, "overhead_pct_steady"),
        "overhead_pct_incl_startup": med(1, "overhead_pct_loop"),
        "overhead_pct_with_summary": med(1, "overhead_pct_with_summary"),
        "steady_episodes_per_s_1": med(1, "steady_episodes_per_s"),
        "steady_episodes_per_s_2": med(2, "steady_episodes_per_s"),
        "speedup_2v1": med(2, "steady_episodes_per_s") / med(1, "steady_episodes_per_s"),
        "end_to_end_speedup_2v1": med(2, "episodes_per_s") / med(1, "episodes_per_s"),
        "latency_p50_ms": med(1, "latency_p50_ms"),
        "latency_p95_ms": med(1, "latency_p95_ms"),
        "runs": runs,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for k, v in report.items():
            if k != "runs":
                print(f"{k:28s} {v:.3f}" if isinstance(v, float) else f"{k:28s} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
