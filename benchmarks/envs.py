"""Speed of any agentgym env: reset, step, test run, and the oracle's episodes per second.

    python benchmarks/envs.py --env agentgym/Coding-v0 --json [--backend local] [--episodes 20]
    python benchmarks/envs.py --env agentgym/Browser-v0 --browser chromium --json
    python benchmarks/envs.py --env agentgym/MiniWoB-v0 --json     # Docker only; per page: benchmarks/miniwob.py

Generic over registered ids. "step" times the env's non-verification menu actions (everything in
``info["admissible_actions"]`` except submit and the test/verification action); "test run" times
the verification action, found through the env's optional ``verification_action`` attribute, or
else by name (``test``, ``tests``, ``run_tests``, ``verify``, ``check``). The oracle runs
`reference_action()` to the end of each episode; "submit_verify" times its submitting step, where
the task's verifier decides the reward. ``--browser`` is passed to envs that take one
(Browser-v0: ``text`` or ``chromium``). On Docker it also reports the sandbox's cgroup memory at the
end (``docker stats``' figure: usage less inactive file cache) and its peak. Prints one JSON object
(``--json``) or a table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import warnings
from typing import Any

import gymnasium as gym
import numpy as np

import agentgym  # noqa: F401  (registers the ids)

VERIFY_NAMES = ("test", "tests", "run_tests", "verify", "check")
SUBMIT_NAMES = ("submit", "finish", "answer", "done")


def _pct(xs: list[float]) -> dict[str, float | int | None]:
    if not xs:
        return {"p50": None, "p95": None, "n": 0}
    arr = np.asarray(xs) * 1000.0
    return {
        "p50": round(float(np.percentile(arr, 50)), 3),
        "p95": round(float(np.percentile(arr, 95)), 3),
        "n": len(xs),
    }


def timed(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """``fn(*args, **kwargs)`` and the seconds it took (the family benchmarks' one timer)."""
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def _verb(action: str) -> str:
    """The action's name: the first word, the name before ``(`` or a JSON call's ``"tool"``."""
    text = action.strip()
    if text.startswith("{"):
        try:
            return str(json.loads(text).get("tool", "")).lower()
        except (ValueError, AttributeError):
            return ""
    return re.split(r"[\s(]", text, maxsplit=1)[0].lower() if text else ""


def _verification_action(env: gym.Env, menu: list[str]) -> str | None:
    hook = getattr(env.unwrapped, "verification_action", None)
    if isinstance(hook, str) and hook:
        return hook
    for action in menu:
        if _verb(action) in VERIFY_NAMES:
            return action
    return None


def _cgroup_memory_mib(container_id: str) -> dict[str, float] | None:
    """The container's cgroup memory now (less inactive file cache, as `docker stats`) and its peak, MiB."""
    for base in (
        f"/sys/fs/cgroup/system.slice/docker-{container_id}.scope",
        f"/sys/fs/cgroup/docker/{container_id}",
        f"/sys/fs/cgroup/memory/docker/{container_id}",
    ):
        v2 = os.path.exists(os.path.join(base, "memory.current"))
        if not v2 and not os.path.exists(os.path.join(base, "memory.usage_in_bytes")):
            continue

        def read(name: str, base: str = base) -> int | None:
            try:
                with open(os.path.join(base, name)) as f:
                    return int(f.read())
            except (OSError, ValueError):
                return None

        with open(os.path.join(base, "memory.stat")) as f:
            stat = dict(line.split() for line in f)
        usage = read("memory.current" if v2 else "memory.usage_in_bytes") or 0
        cache = int(stat.get("inactive_file" if v2 else "total_inactive_file", 0))
        peak = read("memory.peak" if v2 else "memory.max_usage_in_bytes")
        return {"now_mib": round((usage - cache) / 2**20, 1), "peak_mib": round(peak / 2**20, 1) if peak else None}
    return None


def bench(
    env_id: str,
    backend: str = "auto",
    episodes: int = 20,
    split: str = "test",
    seed: int = 0,
    steps_per_episode: int = 4,
    tests_per_episode: int = 3,
    browser: str | None = None,
) -> dict[str, Any]:
    """Measure one env id; returns the figures as a dict (the JSON the CLI prints)."""
    rng = np.random.default_rng(seed)
    env = gym.make(env_id, backend=backend, split=split, **({"browser": browser} if browser else {}))
    try:
        start = time.perf_counter()
        obs, info = env.reset(seed=seed)
        first_reset = time.perf_counter() - start
        resets, steps, tests = [], [], []
        verify = None
        for ep in range(episodes):
            start = time.perf_counter()
            obs, info = env.reset(seed=seed + 1 + ep)
            resets.append(time.perf_counter() - start)
            verify = _verification_action(env, info["admissible_actions"]) or verify
            for _ in range(tests_per_episode if verify else 0):
                start = time.perf_counter()
                obs, _, terminated, truncated, info = env.step(verify)
                tests.append(time.perf_counter() - start)
            for _ in range(steps_per_episode):
                menu = [a for a in info["admissible_actions"] if a != verify and _verb(a) not in SUBMIT_NAMES]
                if not menu:
                    break
                action = menu[int(rng.integers(len(menu)))]
                start = time.perf_counter()
                obs, _, terminated, truncated, info = env.step(action)
                steps.append(time.perf_counter() - start)
                if terminated or truncated:
                    break
        # the oracle, end to end; its submitting step is timed apart (the verifier runs there)
        successes, turns, submits = 0, [], []
        start = time.perf_counter()
        for ep in range(episodes):
            obs, info = env.reset(seed=10_000 + seed + ep)
            limit = 4 * info.get("min_turns", 10) + 10
            for t in range(limit):
                step_start = time.perf_counter()
                obs, reward, terminated, truncated, info = env.step(env.unwrapped.reference_action())
                if terminated:
                    submits.append(time.perf_counter() - step_start)
                if terminated or truncated:
                    break
            successes += int(reward == 1.0)
            turns.append(t + 1)
        oracle_seconds = time.perf_counter() - start
        container = getattr(env.unwrapped.sandbox, "container", None)
        extra: dict[str, Any] = {"browser": browser} if browser else {}
        if container is not None:
            extra["memory"] = _cgroup_memory_mib(container.id)
        if getattr(env.unwrapped, "chromium", None):
            extra["chromium"] = {k: env.unwrapped.chromium[k] for k in ("version", "launch_ms")}
        return {
            "env": env_id,
            "backend": getattr(env.unwrapped.sandbox, "backend", backend),
            **extra,
            "split": split,
            "episodes": episodes,
            "first_reset_ms": round(first_reset * 1000, 1),
            "reset_ms": _pct(resets),
            "step_ms": _pct(steps),
            "test_run_ms": _pct(tests),
            "submit_verify_ms": _pct(submits),
            "verification_action": verify,
            "oracle": {
                "episodes_per_s": round(episodes / oracle_seconds, 3),
                "success_rate": successes / episodes,
                "mean_turns": round(float(np.mean(turns)), 2),
            },
        }
    finally:
        env.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="agentgym/Coding-v0", help="a registered agentgym id")
    parser.add_argument("--backend", default="auto", choices=["auto", "docker", "local"])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--split", default="test")
    parser.add_argument("--browser", default=None, help="for envs with a browser choice (Browser-v0: text, chromium)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the local backend's isolation notice is not a result
        result = bench(args.env, args.backend, args.episodes, args.split, args.seed, browser=args.browser)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
