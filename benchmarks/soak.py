"""Soak: many episodes per family with faults on, watching the host for leaks.

    python benchmarks/soak.py --episodes 10000 --json                  # every registered id, Docker
    python benchmarks/soak.py --env agentgym/ToolUse-v0 --episodes 500 --backend local

Each episode: a seeded reset, then the oracle's action or (with ``--hostile`` probability) a
hostile one from `agentgym.fuzz`, under a turn limit and every fault kind at ``--fault-p``,
until it ends. Every ``--recycle`` episodes the env is closed and rebuilt, so sandbox start and
stop are soaked too. Printed per id: episodes/s, escaped exceptions, infrastructure errors,
and open fds, threads, host RSS and agentgym containers at the start (after one warm episode),
at each tenth and at the end, plus what was left after the last close (containers, channel
folders). A flat series and zero leftovers is a pass.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import tempfile
import threading
import time
import warnings
from typing import Any

import numpy as np

import agentgym
from agentgym.errors import InfrastructureError
from agentgym.fuzz import hostile_action

FAULTS = "tool_error+timeout+empty_output+corrupted_output+state_drift@p={p}"


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _containers() -> int | None:
    try:
        from agentgym.sandbox.docker import LABEL, docker_client

        client = docker_client(timeout=5)
    except Exception:  # no engine: the count is unknown, not zero
        return None
    try:  # closed after counting: an open client is a socket, and the probe must not add fds of its own
        mine = [LABEL, f"io.agentgym.owner_pid={os.getpid()}"]  # other processes' sandboxes are not ours to count
        return len(client.containers.list(all=True, filters={"label": mine}, sparse=True))
    finally:
        client.close()


def _channel_dirs() -> int:
    return len(glob.glob(os.path.join(tempfile.gettempdir(), f"agentgym-chan-{os.getpid()}-*")))


def probe() -> dict[str, Any]:
    """The host-side resources a leak would grow (containers: this process's own)."""
    return {
        "fds": len(os.listdir("/proc/self/fd")),
        "threads": threading.active_count(),
        "rss_mb": round(_rss_mb(), 1),
        "containers": _containers(),
        "channel_dirs": _channel_dirs(),
    }


def soak(
    env_id: str, episodes: int, *, backend: str, seed: int, budget: int, fault_p: float, hostile: float, recycle: int
) -> dict[str, Any]:
    rng = np.random.default_rng(seed)

    def build() -> Any:
        return agentgym.make(
            env_id,
            backend=backend,
            budget=budget,
            faults=FAULTS.format(p=fault_p),
            labels=True,
        )

    before = probe()
    env = build()
    escaped: dict[str, int] = {}
    infra = steps = 0
    series: list[dict[str, Any]] = []
    start_probe: dict[str, Any] | None = None
    started = time.perf_counter()
    timed_from = started
    for ep in range(episodes):
        if ep and recycle and ep % recycle == 0:
            env.close()
            env = build()
        try:
            obs, info = env.reset(seed=int(rng.integers(1 << 31)))
            done = False
            while not done:
                if rng.random() < hostile:
                    action = hostile_action(rng, info.get("admissible_actions") or [], shell_safe=backend != "docker")
                else:
                    action = env.unwrapped.reference_action() or "help"
                obs, _r, terminated, truncated, info = env.step(action)
                steps += 1
                done = terminated or truncated
        except InfrastructureError as exc:
            infra += 1
            escaped_key = f"infra {type(exc).__name__}"
            escaped[escaped_key] = escaped.get(escaped_key, 0) + 1
        except Exception as exc:  # counted: must stay 0
            escaped[f"{type(exc).__name__}: {str(exc)[:80]}"] = (
                escaped.get(f"{type(exc).__name__}: {str(exc)[:80]}", 0) + 1
            )
        if ep == 0:
            start_probe, timed_from = probe(), time.perf_counter()
        if episodes >= 10 and (ep + 1) % max(1, episodes // 10) == 0:
            series.append({"episode": ep + 1, **probe()})
    end_probe = probe()
    seconds = time.perf_counter() - timed_from
    env.close()
    time.sleep(1.0)
    after = probe()
    return {
        "env": env_id,
        "backend": backend,
        "episodes": episodes,
        "steps": steps,
        "episodes_per_s": round((episodes - 1) / seconds, 2) if seconds > 0 and episodes > 1 else None,
        "exceptions": sum(v for k, v in escaped.items() if not k.startswith("infra ")),
        "infra_errors": infra,
        "errors": escaped,
        "before_env": before,
        "start": start_probe,
        "end": end_probe,
        "after_close": after,
        "series": series,
        "leaked_containers": (after["containers"] or 0) - (before["containers"] or 0)
        if after["containers"] is not None
        else None,
        "leaked_channel_dirs": after["channel_dirs"] - before["channel_dirs"],
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", action="append", help="env id (repeatable; default: every registered id)")
    p.add_argument("--episodes", type=int, default=10_000, help="episodes per id")
    p.add_argument("--backend", default="docker", choices=("docker", "local"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budget", type=int, default=12, help="turn limit per episode")
    p.add_argument("--fault-p", type=float, default=0.2, help="probability of a fault on each tool call")
    p.add_argument("--hostile", type=float, default=0.2, help="share of hostile actions among the agent's")
    p.add_argument("--recycle", type=int, default=500, help="rebuild the env every this many episodes (0: never)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore", message="agentgym local sandbox backend")
    results = [
        soak(
            e,
            args.episodes,
            backend=args.backend,
            seed=args.seed,
            budget=args.budget,
            fault_p=args.fault_p,
            hostile=args.hostile,
            recycle=args.recycle,
        )
        for e in (args.env or sorted(agentgym.ENV_IDS))
    ]
    if args.json:
        print(json.dumps({"results": results}, indent=2))
    else:
        for r in results:
            print(
                f"{r['env']} ({r['backend']}): {r['episodes']} episodes, {r['episodes_per_s']} episodes/s, "
                f"{r['exceptions']} exceptions, {r['infra_errors']} infra errors"
            )
            for label in ("start", "end", "after_close"):
                print(f"  {label:<12} {r[label]}")
            print(f"  leaked containers {r['leaked_containers']}, channel dirs {r['leaked_channel_dirs']}")
    bad = any(r["exceptions"] or r["leaked_containers"] or r["leaked_channel_dirs"] > 0 for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
