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

    python benchmarks/serve.py --concurrency 1,64,256,512 --json   # Docker-backed Coding-v0 (minutes)

``--concurrency`` measures instead one server holding many Docker-backed sessions, opened
over WebSockets from one asyncio client, growing level by level: how fast sessions start (a
reset each, ``--start-parallel`` in flight), memory per session (each container's cgroup memory and
containerd-shim RSS, the server's RSS and the machine's used memory, the last two as differences
over the sessions added; the machine's is noisy on a shared machine), step latency p50/p95 at each
level (``--step-workers`` clients stepping ``test`` on sessions drawn in turn, as many trainers'
rollout workers would), the latency a reset with options (a budget and a fault plan) adds to a
plain reset, and how fast closing every session removes its container. It quotes the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import re
import secrets
import signal
import statistics
import subprocess
import sys
import threading
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
        if (
            backend in getattr(getattr(importlib.import_module(module), name), "backends", ("local", "docker"))
            or backend == "auto"
        ):
            out.append(env_id)
    return out


def _q(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _ms(samples: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(samples) * 1e3, 4),
        "p95_ms": round(_q(samples, 0.95) * 1e3, 4),
        "n": len(samples),
    }


@contextmanager
def server(env_id: str, token: str, backend: str, max_sessions: int = 64, flags: tuple[str, ...] = ()):
    """One ``agentgym serve`` process on 127.0.0.1 and a free port; yields (url, pid)."""
    env = {**os.environ, "AGENTGYM_SERVE_TOKEN": token, "PYTHONPATH": ROOT, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentgym",
            "serve",
            env_id,
            "--backend",
            backend,
            "--port",
            "0",
            "--max-sessions",
            str(max_sessions),
            "--log-level",
            "info",
            *flags,
        ],
        env=env,
        cwd=ROOT,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        deadline, port = time.monotonic() + 120, None
        while port is None:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("the server did not start")
            found = re.search(r"at http://127\.0\.0\.1:(\d+)", proc.stderr.readline())
            port = int(found.group(1)) if found else None
        # keep reading its log, so a server that logs a lot never blocks on a full pipe
        threading.Thread(target=lambda: collections.deque(proc.stderr, maxlen=50), daemon=True).start()
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
    return {
        "server_rss_mib": round(base, 1),
        "idle_sessions": idle,
        "rss_with_idle_mib": round(idle_rss, 1),
        "mib_per_idle_session": round(per_idle, 3),
        "reset_sessions": reset,
        "rss_with_reset_mib": round(reset_rss, 1),
        "mib_per_reset_session": round(per_reset, 2),
        "idle_sessions_opened_per_s": round(open_rate, 1),
        "reset_sessions_opened_per_s": round(reset_rate, 1),
        "note": f"reset sessions hold a sandbox each (backend {backend}); the RSS counts the server and its children",
    }


def _used_mib() -> float:
    """The machine's used memory (MemTotal - MemAvailable), MiB: containers, shims and the server."""
    info = dict(line.split(":", 1) for line in open("/proc/meminfo"))
    return (int(info["MemTotal"].split()[0]) - int(info["MemAvailable"].split()[0])) / 1024


def _containers(pid: int) -> int:
    """Containers the server process ``pid`` started that still exist (running or not)."""
    out = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label=io.agentgym.owner_pid={pid}"],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    return len(out.split())


def _container_mib(pid: int) -> dict[str, float]:
    """Per container of server ``pid``: its cgroup memory as ``docker stats`` counts it (usage less
    inactive file cache), and the RSS of its ``containerd-shim`` (outside the cgroup; shared pages
    counted in each), MiB."""
    ids = subprocess.run(
        ["docker", "ps", "-q", "--no-trunc", "--filter", f"label=io.agentgym.owner_pid={pid}"],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.split()
    cgroup = 0
    for cid in ids:
        for base, inactive in (
            (f"/sys/fs/cgroup/memory/docker/{cid}", "total_inactive_file"),
            (f"/sys/fs/cgroup/system.slice/docker-{cid}.scope", "inactive_file"),
        ):
            try:
                name = "memory.usage_in_bytes" if "memory/docker" in base else "memory.current"
                usage = int(open(os.path.join(base, name)).read())
                stat = dict(line.split() for line in open(os.path.join(base, "memory.stat")))
            except OSError:
                continue
            cgroup += usage - int(stat.get(inactive, 0))
            break
    rows = subprocess.run(["ps", "-eo", "rss=,args="], capture_output=True, text=True, timeout=60).stdout.splitlines()
    shims = [int(r.split()[0]) for r in rows if "containerd-shim" in r and any(c in r for c in ids)]
    n = max(1, len(ids))
    return {
        "containers": len(ids),
        "cgroup_mib": round(cgroup / n / 2**20, 2),
        "shim_rss_mib": round(sum(shims) / 1024 / n, 2),
    }


async def _step_for(
    seconds: float, workers: int, sessions: list[Any], steps_left: list[int], call: Any, action: str
) -> tuple[list[float], int]:
    """``workers`` clients stepping ``action`` on the sessions in turn for ``seconds``: the step
    round trips, and how many untimed resets began new episodes (a budget of 32 nearly spent)."""
    samples: list[float] = []
    resets = 0
    free: asyncio.Queue[int] = asyncio.Queue()  # sessions no client is stepping, longest idle first
    for i in range(len(sessions)):
        free.put_nowait(i)
    deadline = time.perf_counter() + seconds

    async def stepper() -> None:
        nonlocal resets
        while time.perf_counter() < deadline:
            i = await free.get()
            if steps_left[i] == 0:
                await call(sessions[i], "reset", {"seed": i})
                steps_left[i], resets = 31, resets + 1
            else:
                t0 = time.perf_counter()
                await call(sessions[i], "step", {"action": action})
                samples.append(time.perf_counter() - t0)
                steps_left[i] -= 1
            free.put_nowait(i)

    await asyncio.gather(*(stepper() for _ in range(workers)))
    return samples, resets


async def _concurrency(
    url: str,
    token: str,
    pid: int,
    levels: list[int],
    start_parallel: int,
    step_workers: int,
    step_seconds: float,
    action: str,
) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    ws_url, headers = url.replace("http://", "ws://") + "/ws", {"Authorization": f"Bearer {token}"}
    sessions: list[Any] = []
    steps_left: list[int] = []

    async def call(conn: Any, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        await conn.send(json.dumps({"type": kind, "data": data}))
        answer = json.loads(await asyncio.wait_for(conn.recv(), 600))
        if answer["type"] != "observation":
            raise RuntimeError(f"{kind} failed: {answer}")
        return answer["data"]

    async def open_one(i: int, gate: asyncio.Semaphore) -> Any:
        async with gate:
            conn = await connect(
                ws_url,
                additional_headers=headers,
                max_size=None,
                compression=None,
                open_timeout=120,
                ping_interval=None,
                proxy=None,
            )
            await call(conn, "reset", {"seed": i, "options": {"budget": 32}})
            return conn

    rows: dict[str, Any] = {}
    base_used, base_rss = _used_mib(), _rss_mib(pid)
    for level in levels:
        new = level - len(sessions)
        used0, rss0 = _used_mib(), _rss_mib(pid)
        start = time.perf_counter()
        gate = asyncio.Semaphore(start_parallel)
        sessions += await asyncio.gather(*(open_one(len(sessions) + i, gate) for i in range(new)))
        steps_left += [31] * new
        start_s = time.perf_counter() - start
        await asyncio.sleep(2)  # let the containers settle before reading memory
        used1, rss1 = _used_mib(), _rss_mib(pid)
        samples, resets = await _step_for(step_seconds, min(step_workers, level), sessions, steps_left, call, action)
        rows[str(level)] = {
            "sessions": level,
            "started": new,
            "start_seconds": round(start_s, 1),
            "starts_per_s": round(new / start_s, 2),
            "mib_per_session_machine": round((used1 - used0) / max(1, new), 1),
            "mib_per_session_server_rss": round((rss1 - rss0) / max(1, new), 2),
            "machine_used_mib": round(used1, 0),
            "server_rss_mib": round(rss1, 1),
            "per_container": _container_mib(pid),
            "step": _ms(samples),
            "steps_per_s": round(len(samples) / step_seconds, 1),
            "untimed_resets": resets,
            "loadavg": [round(x, 2) for x in os.getloadavg()],
        }
        print(f"[{level} sessions] {rows[str(level)]}", file=sys.stderr, flush=True)
    # a reset with options against a plain one, paired on the same sessions
    plain: list[float] = []
    chosen: list[float] = []
    pair = ((None, plain), ({"budget": 8, "faults": "tool_error@turn=1"}, chosen))
    for i in range(min(64, len(sessions))):
        for options, out in pair if i % 2 else pair[::-1]:  # alternate which goes first
            t0 = time.perf_counter()
            await call(sessions[i], "reset", {"seed": i, "options": options})
            out.append(time.perf_counter() - t0)
    added = [b - a for a, b in zip(plain, chosen)]
    total_used, total_rss = _used_mib() - base_used, _rss_mib(pid) - base_rss
    containers = _containers(pid)
    start = time.perf_counter()
    await asyncio.gather(*(conn.close() for conn in sessions))
    while _containers(pid) and time.perf_counter() - start < 600:
        await asyncio.sleep(0.5)
    close_s = time.perf_counter() - start
    return {
        "levels": rows,
        "reset": {"plain": _ms(plain), "with_options": _ms(chosen), "added": _ms(added)},
        "total": {
            "sessions": len(sessions),
            "containers": containers,
            "mib_per_session_machine": round(total_used / len(sessions), 1),
            "mib_per_session_server_rss": round(total_rss / len(sessions), 2),
        },
        "close": {
            "seconds": round(close_s, 1),
            "closed_per_s": round(len(sessions) / close_s, 1),
            "containers_left": _containers(pid),
        },
    }


def concurrency(
    env_id: str, token: str, levels: list[int], start_parallel: int, step_workers: int, step_seconds: float, action: str
) -> dict[str, Any]:
    """One Docker-backed server holding ``levels`` sessions in turn (see the module docstring)."""
    flags = ("--client-budget", "2-32", "--client-faults", "tool_error,timeout")
    load0 = [round(x, 2) for x in os.getloadavg()]
    with server(env_id, token, "docker", max_sessions=max(levels) + 8, flags=flags) as (url, pid):
        out = asyncio.run(_concurrency(url, token, pid, levels, start_parallel, step_workers, step_seconds, action))
    return {
        "env_id": env_id,
        "backend": "docker",
        "cpus": os.cpu_count(),
        "start_parallel": start_parallel,
        "step_workers": step_workers,
        "step_action": action,
        "loadavg_before": load0,
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        **out,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", action="store_true")
    p.add_argument("--quick", action="store_true", help="fewer samples")
    p.add_argument(
        "--backend", default="local", help="sandbox backend of both sides (loopback cost does not depend on it)"
    )
    p.add_argument("--episodes", type=int, default=None)
    p.add_argument("--num-envs", type=int, default=4)
    p.add_argument("--vector-steps", type=int, default=None)
    p.add_argument(
        "--concurrency",
        default=None,
        metavar="N,N,...",
        help="instead: one Docker-backed server holding these numbers of sessions in turn, e.g. 1,64,256,512",
    )
    p.add_argument("--concurrency-id", default="agentgym/Coding-v0")
    p.add_argument("--start-parallel", type=int, default=32, help="resets in flight while sessions start")
    p.add_argument("--step-workers", type=int, default=8, help="clients stepping at once at each level")
    p.add_argument("--step-seconds", type=float, default=20.0, help="seconds of stepping timed at each level")
    p.add_argument("--step-action", default="test")
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore")
    token = secrets.token_urlsafe(32)
    if args.concurrency:
        levels = sorted(int(n) for n in args.concurrency.split(","))
        out = concurrency(
            args.concurrency_id,
            token,
            levels,
            args.start_parallel,
            args.step_workers,
            args.step_seconds,
            args.step_action,
        )
        print(json.dumps(out, indent=2 if args.json else None))
        return 0
    episodes = args.episodes or (3 if args.quick else 12)
    vsteps = args.vector_steps or (30 if args.quick else 200)
    result: dict[str, Any] = {"backend": args.backend, "cpus": os.cpu_count(), "latency": {}, "vector": {}}
    for env_id in ids_on(args.backend):
        result["latency"][env_id] = added_latency(env_id, token, args.backend, episodes)
    vec_id = "agentgym/ToolUse-v0"
    result["vector"] = {
        "env_id": vec_id,
        "num_envs": args.num_envs,
        "action": "help",
        "steps_per_s": {
            "in_process": round(vector_throughput(vec_id, token, args.backend, args.num_envs, 0, vsteps), 1),
            "1_server": round(vector_throughput(vec_id, token, args.backend, args.num_envs, 1, vsteps), 1),
            "2_servers": round(vector_throughput(vec_id, token, args.backend, args.num_envs, 2, vsteps), 1),
        },
    }
    result["sessions"] = sessions_per_process(
        vec_id, token, args.backend, idle=50 if args.quick else 300, reset=5 if args.quick else 30
    )
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
