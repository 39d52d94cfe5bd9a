"""Speed of the evaluation harness: its own overhead per episode, and how it scales with workers.

    python benchmarks/eval.py --json                         # ToolUse-v0 in Docker, oracle agent
    python benchmarks/eval.py --env agentgym/Coding-v0 --episodes 120

Runs the same oracle grid with 1 and 2 workers in two scenarios: ``sandbox_bound`` (the
oracle answers instantly; every episode is sandbox work, so it competes for the CPUs) and
``model_latency_bound`` (each turn first waits ``--model-delay`` seconds, as an LLM agent waits
on its endpoint). For each it reports:
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

from agentgym.agents import OracleAgent
from agentgym.cli_args import add_backend_argument
from agentgym.eval import evaluate


def _pct(fraction: float | None) -> float | None:
    return None if fraction is None else 100.0 * fraction


class DelayedOracle:
    """The oracle behind a simulated model call of ``delay`` seconds per turn, as an LLM agent
    spends waiting on its endpoint; the harness must overlap these waits across workers."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.oracle = OracleAgent()

    def reset(self, env, obs, info) -> None:
        self.oracle.reset(env, obs, info)

    def act(self, obs, info) -> str:
        time.sleep(self.delay)
        return self.oracle.act(obs, info)


def run(
    env_id: str, tasks: int, ts: list[int], n: int, workers: int, sandbox: str, seed: int, delay: float = 0.0
) -> dict:
    agent = DelayedOracle(delay) if delay > 0 else "oracle"
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        result = evaluate(
            env_id,
            agent,
            ks=[1],
            ts=ts,
            n=n,
            tasks=tasks,
            workers=workers,
            sandbox=sandbox,
            seed=seed,
            out=out,
            progress=False,
            report=False,
        )
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
        "overhead_pct_loop": _pct(timing["overhead_fraction"]),
        "overhead_pct_steady": _pct(timing["steady_overhead_fraction"]),
        "overhead_pct_with_summary": _pct((total - timing["episode_seconds"]) / timing["episode_seconds"])
        if workers == 1
        else None,
        "latency_p50_ms": 1000 * statistics.median(lat),
        "latency_p95_ms": 1000 * lat[min(len(lat) - 1, int(0.95 * len(lat)))],
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", default="agentgym/ToolUse-v0")
    add_backend_argument(p, old_names=("--sandbox",))
    p.add_argument("--tasks", type=int, default=8)
    p.add_argument("--t", default="4,16", help="turn budgets")
    p.add_argument("--n", type=int, default=8, help="episodes per task and T")
    p.add_argument("--repeats", type=int, default=1, help="repeat each configuration, report the median")
    p.add_argument(
        "--model-delay",
        type=float,
        default=0.02,
        help="seconds of simulated model latency per turn in the second scenario (0 to skip it)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args()
    ts = [int(t) for t in args.t.split(",")]
    scenarios = {"sandbox_bound": 0.0}
    if args.model_delay > 0:
        scenarios["model_latency_bound"] = args.model_delay
    report: dict = {
        "env": args.env,
        "sandbox": args.backend,
        "cpus": os.cpu_count(),
        "load_avg_1m_start": os.getloadavg()[0],
    }
    for name, delay in scenarios.items():
        runs: dict[int, list[dict]] = {1: [], 2: []}
        for i in range(args.repeats):
            for workers in (1, 2):
                runs[workers].append(run(args.env, args.tasks, ts, args.n, workers, args.backend, seed=i, delay=delay))

        def med(w: int, key: str, runs: dict[int, list[dict]] = runs) -> float:
            return statistics.median(r[key] for r in runs[w])

        report[name] = {
            "model_delay_s": delay,
            "episodes_per_run": runs[1][0]["episodes"],
            "overhead_pct": med(1, "overhead_pct_steady"),
            "overhead_pct_incl_startup": med(1, "overhead_pct_loop"),
            "overhead_pct_with_summary": med(1, "overhead_pct_with_summary"),
            "steady_episodes_per_s_1": med(1, "steady_episodes_per_s"),
            "steady_episodes_per_s_2": med(2, "steady_episodes_per_s"),
            "speedup_2v1": med(2, "steady_episodes_per_s") / med(1, "steady_episodes_per_s"),
            "end_to_end_speedup_2v1": med(2, "episodes_per_s") / med(1, "episodes_per_s"),
            "latency_p50_ms_1": med(1, "latency_p50_ms"),
            "latency_p95_ms_1": med(1, "latency_p95_ms"),
            "latency_p50_ms_2": med(2, "latency_p50_ms"),
            "runs": runs,
        }
    report["load_avg_1m_end"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for k, v in report.items():
            if isinstance(v, dict):
                print(k)
                for kk, vv in v.items():
                    if kk != "runs":
                        print(f"  {kk:28s} {vv:.3f}" if isinstance(vv, float) else f"  {kk:28s} {vv}")
            else:
                print(f"{k:30s} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
