"""The host's CPU per Coding-v0 step: what the env itself costs the trainer's process, sandbox aside.

    python benchmarks/coding_host.py --trace /tmp/trace.pkl --json     # a trace from benchmarks/encode.py --record

Replays the Coding-v0 episodes of a recorded trace (`benchmarks/encode.py --record`: random menu
actions, seeds 7, 8, ...) through one env on the local backend with the result cache on, as the
trainer steps it (the agentgym wrapper stack with T=12), ``--repeats`` times. The first pass
starts the sandbox and fills the caches; the later passes are timed: CPU seconds of this process
(the host side of every reset and step: task building, menus, patches and their echo, the result
cache's lookups, the wrappers), per reset and per step, median and p95 over passes. The local
backend's step server is a child process and is not counted. ``--check`` also compares every
observation, reward and info (costs' times aside) with the first pass: a cut must not change them.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import statistics
import sys
import warnings
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _untimed(info: dict[str, Any]) -> dict[str, Any]:
    out = dict(info)
    out.pop("cost", None)
    return out


def replay(env: Any, episodes: list[tuple[int, list[str]]]) -> tuple[float, float, int, int, list[Any]]:
    """(reset CPU s, step CPU s, resets, steps, what the env returned)."""
    reset_s = step_s = 0.0
    steps = 0
    seen: list[Any] = []
    for seed, actions in episodes:
        t0 = _cpu()
        obs, info = env.reset(seed=seed)
        reset_s += _cpu() - t0
        seen.append((obs["text"], _untimed(info)))
        for action in actions:
            t0 = _cpu()
            obs, reward, terminated, truncated, info = env.step(action)
            step_s += _cpu() - t0
            steps += 1
            seen.append((obs["text"], reward, terminated, truncated, _untimed(info)))
            if terminated or truncated:
                break
    return reset_s, step_s, len(episodes), steps, seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", required=True, help="a pickled trace of benchmarks/encode.py --record")
    parser.add_argument("--repeats", type=int, default=6, help="passes (the first untimed)")
    parser.add_argument("--check", action="store_true", help="every pass must return what the first returned")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    import agentgym
    from agentgym.make import wrap

    with open(opts.trace, "rb") as fh:
        traces = pickle.load(fh)
    trace = next(t for t in traces if "Coding" in t["env"])
    episodes = [(7 + e, [a for _, _, a in steps]) for e, steps in enumerate(trace["episodes"])]
    env = wrap(
        agentgym.make("agentgym/Coding-v0", backend="local", result_cache=True, test_timeout=2.0, shell_timeout=2.0),
        budget=12,
        labels=True,
        cost=True,
    )
    per_reset, per_step, same = [], [], True
    try:
        _, _, _, _, first = replay(env, episodes)
        for _ in range(max(2, opts.repeats) - 1):
            reset_s, step_s, resets, steps, seen = replay(env, episodes)
            per_reset.append(1e3 * reset_s / resets)
            per_step.append(1e3 * step_s / steps)
            same = same and (not opts.check or repr(seen) == repr(first))
    finally:
        env.close()
    result: dict[str, Any] = {
        "resets": len(episodes),
        "steps": sum(len(a) for _, a in episodes),
        "reset_cpu_ms": {"median": statistics.median(per_reset), "p95": float(np.percentile(per_reset, 95))},
        "step_cpu_ms": {"median": statistics.median(per_step), "p95": float(np.percentile(per_step, 95))},
    }
    if opts.check:
        result["identical"] = same
    print(json.dumps(result, indent=None if opts.json else 1))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
