"""What serving costs: ``agentgym serve`` over loopback against the same env in process.

    python benchmarks/serve.py            # a table
    python benchmarks/serve.py --json     # one JSON object
    python benchmarks/serve.py --quick    # fewer samples (seconds)

Servers are real ``agentgym serve`` processes on 127.0.0.1 (the client never shares their GIL).
Measures, with medians and p95:

- **added latency per step** for each text family: oracle episodes played step by step on a
  local env and on a `RemoteEnv` (one WebSocket, OpenEnv's protocol) with the same actions,
  timed per step; the added latency is the paired difference, remote minus local, per step
  (target: p50 <= 1 ms);
- **steps/s** of one `AsyncVectorEnv` of ``--num-envs`` remote envs spread over 1 and over 2
  server processes (``shared_memory=False``, as text envs need), beside the same vector env
  in process, each stepping ``help`` (a full-size observation, no episode end);
- **sessions per server process**: the server's RSS with idle sessions (env built, no sandbox)
  and with reset sessions (a local sandbox each), per session, and how fast sessions open.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import signal
import statistics
import subprocess
import sys
import time
import warnings
from contextlib import contextmanager
from functools import partial
from typing import Any

import gymnasium as gym

import agentgym
from agentgym.remote import RemoteEnv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ids_on(backend: str) -> list[str]:
    """The registered ids whose family runs on ``backend`` (MiniWoB-v0 runs only in Docker)."""
    import importlib

    out = []
    for env_id, entry in sorted(agentgym.ENV_IDS.items()):
        module, _, name = entry.partition(":")
        if backend in getattr(getattr(importlib.import_module(module), name), "backends", ("local", "docker")) \
                or backend == "auto":
            out.append(env_id)
    return out


def _q(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _ms(samples: list[float]) -> dict[str, float]:
    return {"p50_ms": round(statistics.median(samples) * 1e3, 4), "p95_ms": round(_q(samples, 0.95) * 1e3, 4),
            "n": len(samples)}


@contextmanager
def server(env_id: str, token: str, backend: str, max_sessions: int = 64):
    """One ``agentgym serve`` process on 127.0.0.1 and a free port; yields (url, pid)."""
    env = {**os.environ, "AGENTGYM_SERVE_TOKEN": token, "PYTHONPATH": ROOT, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.Popen([sys.executable, "-m", "agentgym", "serve", env_id, "--backend", backend, "--port", "0",
                             "--max-sessions", str(max_sessions), "--log-level", "info"],
                            env=env, cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    try:
        deadline, port = time.monotonic() + 120, None
        while port is None:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("the server did not start")
            found = re.search(r"at http://127\.0\.0\.1:(\d+)", proc.stderr.readline())
            port = int(found.group(1)) if found else None
        yield f"http://127.0.0.1:{port}", proc.pid
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        proc.stderr.close()


def added_latency(env_id: str, token: str, backend: str, episodes: int) -> dict[str, Any]:
    local_steps: list[float] = []
    remote_steps: list[float] = []
    added: list[float] = []
    with server(env_id, token, backend) as (url, _):
        remote = RemoteEnv(url, token=token)
        local = gym.make(env_id, backend=backend)
        try:
            for seed in range(episodes):
                remote.reset(seed=seed)
                local.reset(seed=seed)
                for _ in range(60):
                    action = local.unwrapped.reference_action()
                    t0 = time.perf_counter()
                    out = local.step(action)
                    t1 = time.perf_counter()
                    remote.step(action)
                    t2 = time.perf_counter()
                    local_steps.append(t1 - t0)
                    remote_steps.append(t2 - t1)
                    added.append((t2 - t1) - (t1 - t0))
                    if out[2] or out[3]:
                        break
        finally:
            remote.close()
            local.close()
    return {"local": _ms(local_steps), "remote": _ms(remote_steps), "added": _ms(added)}


def vector_throughput(env_id: str, token: str, backend: str, num_envs: int, servers: int, steps: int) -> float:
    """Steps/s of one AsyncVectorEnv; ``servers=0`` builds the envs in process."""
    def run(urls: list[str]) -> float:
        if urls:
            fns = [partial(RemoteEnv, urls[i % len(urls)], token=token) for i in range(num_envs)]
        else:
            fns = [lambda: gym.make(env_id, backend=backend) for _ in range(num_envs)]
        envs = gym.vector.AsyncVectorEnv(fns, shared_memory=False)
        try:
            envs.reset(seed=list(range(num_envs)))
            envs.step(["help"] * num_envs)
            start = time.perf_counter()
            for _ in range(steps):
                envs.step(["help"] * num_envs)
            return steps * num_envs / (time.perf_counter() - start)
        finally:
            envs.close()

    if servers == 0:
        return run([])
    with contextlib_stack(env_id, token, backend, servers) as urls:
        return run(urls)


@contextmanager
def contextlib_stack(env_id: str, token: str, backend: str, n: int):
    from contextlib import ExitStack

    with ExitStack() as stack:
        yield [stack.enter_context(server(env_id, token, backend))[0] for _ in range(n)]


def _rss_mib(pid: int) -> float:
    """RSS of a process and its children (local sandboxes are children), MiB."""
    total = 0
    pids = [pid]
    try:
        out = subprocess.run(["ps", "-o", "pid=,ppid=,rss=", "-A"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return float("nan")
    rows = [tuple(int(x) for x in line.split()) for line in out.splitlines() if line.strip()]
    frontier = {pid}
    while frontier:
        frontier = {p for p, pp, _ in rows if pp in frontier} - set(pids)
        pids.extend(frontier)
    total = sum(rss for p, _, rss in rows if p in pids)
    return total / 1024


def sessions_per_process(env_id: str, token: str, backend: str, idle: int, reset: int) -> dict[str, Any]:
    from websockets.sync.client import connect

    with server(env_id, token, backend, max_sessions=idle + reset + 8) as (url, pid):
        ws_url = url.replace("http://", "ws://") + "/ws"
        headers = {"Authorization": f"Bearer {token}"}
        time.sleep(0.5)
        base = _rss_mib(pid)
        conns = []
        start = time.perf_counter()
        for _ in range(idle):
            conn = connect(ws_url, additional_headers=headers, proxy=None, compression=None, legacy=True)
            conn.send(json.dumps({"type": "state"}))
            conn.recv(timeout=30)
            conns.append(conn)
        open_rate = idle / (time.perf_counter() - start)
        idle_rss = _rss_mib(pid)
        start = time.perf_counter()
        for i in range(reset):
            conn = connect(ws_url, additional_headers=headers, proxy=None, compression=None, legacy=True)
            conn.send(json.dumps({"type": "reset", "data": {"seed": i}}))
            answer = json.loads(conn.recv(timeout=120))
            assert answer["type"] == "observation", answer
            conns.append(conn)
        reset_rate = reset / (time.perf_counter() - start) if reset else 0.0
        reset_rss = _rss_mib(pid)
        for conn in conns:
            conn.close()
    per_idle = (idle_rss - base) / max(1, idle)
    per_reset = (reset_rss - idle_rss) / max(1, reset)
    return {"server_rss_mib": round(base, 1), "idle_sessions": idle, "rss_with_idle_mib": round(idle_rss, 1),
            "mib_per_idle_session": round(per_idle, 3), "reset_sessions": reset,
            "rss_with_reset_mib": round(reset_rss, 1), "mib_per_reset_session": round(per_reset, 2),
            "idle_sessions_opened_per_s": round(open_rate, 1), "reset_sessions_opened_per_s": round(reset_rate, 1),
            "note": f"reset sessions hold a sandbox each (backend {backend}); the RSS counts the server and its children"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", action="store_true")
    p.add_argument("--quick", action="store_true", help="fewer samples")
    p.add_argument("--backend", default="local", help="sandbox backend of both sides (loopback cost does not depend on it)")
    p.add_argument("--episodes", type=int, default=None)
    p.add_argument("--num-envs", type=int, default=4)
    p.add_argument("--vector-steps", type=int, default=None)
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore")
    token = secrets.token_urlsafe(32)
    episodes = args.episodes or (3 if args.quick else 12)
    vsteps = args.vector_steps or (30 if args.quick else 200)
    result: dict[str, Any] = {"backend": args.backend, "cpus": os.cpu_count(), "latency": {}, "vector": {}}
    for env_id in ids_on(args.backend):
        result["latency"][env_id] = added_latency(env_id, token, args.backend, episodes)
    vec_id = "agentgym/ToolUse-v0"
    result["vector"] = {"env_id": vec_id, "num_envs": args.num_envs, "action": "help", "steps_per_s": {
        "in_process": round(vector_throughput(vec_id, token, args.backend, args.num_envs, 0, vsteps), 1),
        "1_server": round(vector_throughput(vec_id, token, args.backend, args.num_envs, 1, vsteps), 1),
        "2_servers": round(vector_throughput(vec_id, token, args.backend, args.num_envs, 2, vsteps), 1)}}
    result["sessions"] = sessions_per_process(vec_id, token, args.backend, idle=50 if args.quick else 300,
                                              reset=5 if args.quick else 30)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"backend {args.backend}, {result['cpus']} cpus")
    print(f"{'id':24} {'local p50/p95 ms':>18} {'remote p50/p95 ms':>18} {'added p50/p95 ms':>18}")
    for env_id, row in result["latency"].items():
        cells = [f"{row[k]['p50_ms']:.3f}/{row[k]['p95_ms']:.3f}" for k in ("local", "remote", "added")]
        print(f"{env_id:24} {cells[0]:>18} {cells[1]:>18} {cells[2]:>18}")
    print("vector steps/s:", result["vector"]["steps_per_s"])
    print("sessions:", result["sessions"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
