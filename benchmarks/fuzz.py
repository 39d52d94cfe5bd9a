"""Fuzz every registered agentgym id with hostile actions and report what escaped.

    python benchmarks/fuzz.py --actions 10000 --json            # every id, its default backend
    python benchmarks/fuzz.py --env agentgym/ToolUse-v0 --backend local --actions 2000

Per id: actions played, episodes, exceptions that escaped ``reset``/``step`` (must be 0), the
slowest step (must stay under 5 s) and the largest observation. The exit status is 1 when any
exception escaped or any step ran past the limit. The generator and runner are `agentgym.fuzz`.
"""

from __future__ import annotations

import argparse
import json
import sys

import gymnasium as gym

import agentgym
from agentgym.fuzz import fuzz_env


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", action="append", help="env id (repeatable; default: every registered id)")
    p.add_argument("--actions", type=int, default=10_000, help="actions per id")
    p.add_argument(
        "--backend",
        default="docker",
        choices=("docker", "local"),
        help="sandbox backend (docker: `run`-style actions go in raw; local: they are made harmless)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--step-limit", type=float, default=5.0, help="seconds a step may take")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)

    results = []
    for env_id in args.env or sorted(agentgym.ENV_IDS):
        env = gym.make(env_id, backend=args.backend)
        try:
            report = fuzz_env(env, actions=args.actions, seed=args.seed, env_id=env_id, step_limit_s=args.step_limit)
        finally:
            env.close()
        results.append({**report.as_dict(), "backend": args.backend})
        if not args.json:
            r = results[-1]
            print(
                f"{env_id} ({args.backend}): {r['actions']} actions, {r['episodes']} episodes, "
                f"{r['exceptions']} exceptions, max step {r['max_step_s']:.3f} s, "
                f"max observation {r['max_observation_chars']} chars, {r['seconds']:.0f} s"
            )
            for line in r["distinct_exceptions"]:
                print("   ", line)
    bad = any(r["exceptions"] or r["slow_steps"] for r in results)
    if args.json:
        print(json.dumps({"results": results, "ok": not bad}, indent=2))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
