"""Sandbox speed and footprint, side by side in one run: agentgym's step server vs `docker exec`.

    python benchmarks/sandbox.py           # a table
    python benchmarks/sandbox.py --json    # one JSON object

Measures, on the Docker backend:
- a no-op step (``ping``) and a trivial command (``run(["true"])``) through the agentgym
  sandbox: one round trip over the container's attached stdio to the long-lived step server;
- the same trivial command through the docker SDK's ``exec_run``, as exec-per-step harnesses
  do it, in the same container;
- a warm reset: restore a 2 MB, 200-file workspace inside the running container after an
  episode changed a few files (the restore rewrites only what changed), and the worst case
  where every file differs;
- a new sandbox: create, start and first answer of a hardened container;
- idle memory per container (cgroup memory of N idle sandboxes, as ``docker stats`` counts it).
Targets (issue 2): step p50 <= 0.5 ms and >= 100x faster than exec_run; reset p50 <= 20 ms;
idle <= 10 MiB per container.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from agentgym.sandbox.docker import DockerSandbox, docker_client


def _ms(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3, 4)


def _time(fn: Callable[[], Any], n: int, warmup: int = 0) -> list[float]:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def _cgroup_memory(container_id: str) -> tuple[int, int] | None:
    """(usage minus inactive file cache, as `docker stats` shows it; raw usage) in bytes."""
    v1 = f"/sys/fs/cgroup/memory/docker/{container_id}"
    for base in (f"/sys/fs/cgroup/system.slice/docker-{container_id}.scope", f"/sys/fs/cgroup/docker/{container_id}"):
        if os.path.exists(os.path.join(base, "memory.current")):
            usage = int(open(os.path.join(base, "memory.current")).read())
            stat = dict(line.split() for line in open(os.path.join(base, "memory.stat")))
            return usage - int(stat.get("inactive_file", 0)), usage
    if os.path.exists(v1):
        usage = int(open(os.path.join(v1, "memory.usage_in_bytes")).read())
        stat = dict(line.split() for line in open(os.path.join(v1, "memory.stat")))
        return usage - int(stat.get("total_inactive_file", 0)), usage
    return None


def _stats_memory(container: Any) -> tuple[int, int]:
    stats = container.stats(stream=False)["memory_stats"]
    usage = int(stats.get("usage", 0))
    inner = stats.get("stats", {})
    cache = int(inner.get("total_inactive_file", inner.get("inactive_file", 0)))
    return usage - cache, usage


def bench(args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {"image": args.image, "engine": docker_client().version().get("Version")}
    with DockerSandbox(args.image) as sb:
        ping = _time(sb.ping, args.steps, warmup=200)
        run = _time(lambda: sb.run(["true"]), args.runs, warmup=20)
        container = sb.container
        exec_run = _time(lambda: container.exec_run(["true"], user="65534:65534"), args.execs, warmup=2)

        files = {f"pkg{i % 20}/module_{i}.py": os.urandom(5_000).hex()[:10_000] for i in range(200)}
        sb.write_files(files)
        sb.snapshot("bench")

        def reset() -> None:
            sb.restore("bench")

        def dirty() -> None:
            sb.run("rm -rf pkg3 && echo change >> pkg1/module_1.py && echo new > new.txt")

        resets = []
        for _ in range(args.resets):
            dirty()
            resets.append(_time(reset, 1)[0])
        size = sum(len(v) for v in files.values())
        # Worst case: every file differs (alternate between two snapshots of different content).
        sb.write_files({path: data[::-1] for path, data in files.items()})
        sb.snapshot("reversed")
        full_resets = [
            _time(lambda n=name: sb.restore(n), 1)[0] for _ in range(args.resets // 2) for name in ("bench", "reversed")
        ]
    new_container = []
    for _ in range(args.new):
        start = time.perf_counter()
        sandbox = DockerSandbox(args.image)
        sandbox.ping()
        new_container.append(time.perf_counter() - start)
        sandbox.close()

    idle = [DockerSandbox(args.image) for _ in range(args.idle)]
    try:
        time.sleep(2.0)
        memory = []
        for sandbox in idle:
            m = _cgroup_memory(sandbox.container.id) or _stats_memory(sandbox.container)
            memory.append(m)
    finally:
        for sandbox in idle:
            sandbox.close()

    result.update(
        agentgym_step_p50_ms=_ms(ping, 0.5),
        agentgym_step_p95_ms=_ms(ping, 0.95),
        agentgym_steps_per_s=round(len(ping) / sum(ping)),
        agentgym_run_p50_ms=_ms(run, 0.5),
        agentgym_run_p95_ms=_ms(run, 0.95),
        exec_run_step_p50_ms=_ms(exec_run, 0.5),
        exec_run_step_p95_ms=_ms(exec_run, 0.95),
        reset_p50_ms=_ms(resets, 0.5),
        reset_p95_ms=_ms(resets, 0.95),
        reset_full_rewrite_p50_ms=_ms(full_resets, 0.5),
        reset_workspace_bytes=size,
        reset_workspace_files=len(files),
        new_container_p50_ms=_ms(new_container, 0.5),
        new_container_p95_ms=_ms(new_container, 0.95),
        idle_container_mib=round(statistics.median(m[0] for m in memory) / 2**20, 2),
        idle_container_raw_mib=round(statistics.median(m[1] for m in memory) / 2**20, 2),
        idle_containers=len(memory),
    )
    result["ratio_exec_run_vs_step"] = round(result["exec_run_step_p50_ms"] / result["agentgym_step_p50_ms"], 1)
    result["ratio_exec_run_vs_run"] = round(result["exec_run_step_p50_ms"] / result["agentgym_run_p50_ms"], 1)
    result["samples"] = {
        "steps": args.steps,
        "runs": args.runs,
        "exec_run": args.execs,
        "resets": args.resets,
        "new": args.new,
    }
    result["targets_met"] = {
        "step_p50_le_0.5ms": result["agentgym_step_p50_ms"] <= 0.5,
        "step_100x_faster_than_exec_run": result["ratio_exec_run_vs_step"] >= 100,
        "reset_p50_le_20ms": result["reset_p50_ms"] <= 20,
        "idle_le_10mib": result["idle_container_mib"] <= 10,
    }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--image", default="agentgym/base:latest")
    parser.add_argument("--steps", type=int, default=3000, help="no-op steps timed")
    parser.add_argument("--runs", type=int, default=300, help="trivial commands timed")
    parser.add_argument("--execs", type=int, default=40, help="exec_run calls timed")
    parser.add_argument("--resets", type=int, default=40, help="warm resets timed")
    parser.add_argument("--new", type=int, default=10, help="new containers timed")
    parser.add_argument("--idle", type=int, default=5, help="idle containers measured")
    args = parser.parse_args(argv)
    result = bench(args)
    if args.json:
        print(json.dumps(result))
        return 0
    for key, value in result.items():
        print(f"{key:32} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
