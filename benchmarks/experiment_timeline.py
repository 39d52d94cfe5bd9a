"""Where the experiment's wall time goes on N cores: jobs, idle cores, and the schedule's makespan.

    python benchmarks/experiment_timeline.py --out /tmp/t -- --preset quick --seeds 17   # run, then analyse
    python benchmarks/experiment_timeline.py --analyse /tmp/t --cores 2                  # analyse a finished run

The experiment runs its training runs, evaluations, probe and positive control as one job graph
(`baselines.experiment.grid.run_graph`) and writes ``OUT/timeline.json``: per job, its process, start, end
and CPU seconds. Run through this script, each job also counts the CPU of the Docker sandboxes its
process ran meanwhile (cgroup ``cpuacct``), which a 2-core machine spends too (about a sixth of the
experiment's CPU).

On a machine shared with other work, wall times stretch; CPU seconds do not. So the analysis takes
each job's CPU (its process's and its sandboxes') as its duration on a core of its own and
replays two schedules of those jobs on ``--cores`` cores:

- ``phased``: the experiment before the job graph (issue 34 item 7): every training run (in the
  order listed, on the cores), then every evaluation (in the order listed), then in one process
  the probe, the control's clone and the scoring of its cloned start, then the control's runs on
  the cores, then the best policy's scoring in one process;
- ``graph``: `run_graph`'s own rule (ready jobs by `baselines.experiment.grid.priorities`; its costs are the
  estimates in ``timeline.json``).

Printed (``--json``): per kind of job, the count and the median, p95 and total of its CPU seconds
(process, sandboxes); the run's measured idle core-seconds inside the graph (cores x span minus
the jobs' wall time; stretched by other load); and per schedule the replayed makespan, the idle
core-seconds in it, and the time the last core waits alone (the tail). The setup before the graph
and the report after it (one process) are in ``timing.json`` and added to both.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# ---------------------------------------------------------------------- sandbox CPU per job
def _container_usage(cid: str) -> float:
    """CPU seconds a container has used (cgroup v1 cpuacct or v2 cpu.stat); 0 when it is gone."""
    for path, scale in (
        (f"/sys/fs/cgroup/cpuacct/docker/{cid}/cpuacct.usage", 1e-9),
        (f"/sys/fs/cgroup/system.slice/docker-{cid}.scope/cpu.stat", 1e-6),
    ):
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        if path.endswith("cpu.stat"):
            return float(next(line.split()[1] for line in text.splitlines() if line.startswith("usage_usec"))) * scale
        return float(text) * scale
    return 0.0


def install_sandbox_meter() -> None:
    """Make every job's stats count the CPU of the Docker sandboxes of its process (forked workers
    inherit the patch): live containers read at each job's start and end, closed ones when closed."""
    import baselines.experiment.grid as grid
    from agentgym.sandbox.docker import DockerSandbox

    live: dict[int, Any] = {}  # id -> sandbox, held until it closes (a dropped one would take its CPU with it)
    closed = [0.0]
    init, terminate, meter = DockerSandbox.__init__, DockerSandbox._terminate, grid._meter

    def tracked_init(self: Any, *a: Any, **kw: Any) -> None:
        init(self, *a, **kw)
        live[id(self)] = self

    def tracked_terminate(self: Any) -> None:
        cid = getattr(self, "_container_id", None)
        if live.pop(id(self), None) is not None and cid:
            closed[0] += _container_usage(cid)
        terminate(self)

    def sandbox_meter() -> dict[str, float]:
        ids = [getattr(s, "_container_id", None) for s in list(live.values())]
        return {**meter(), "sandbox_cpu_s": closed[0] + sum(_container_usage(c) for c in ids if c)}

    DockerSandbox.__init__ = tracked_init  # type: ignore[method-assign]
    DockerSandbox._terminate = tracked_terminate  # type: ignore[method-assign]
    grid._meter = sandbox_meter


# ---------------------------------------------------------------------- analysis
def kind(job: str) -> str:
    """train, eval, eval:intervened..., probe, control:clone, control:cloned-start, control:run, control:best-policy."""
    if job.startswith("control:"):
        rest = job[len("control:") :]
        return "control:" + ("run" if rest.startswith("control-") else rest.rsplit("-T", 1)[0])
    return job.split(":", 1)[0]


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "n": len(values),
        "median": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
        "total": sum(ordered),
    }


def _replay(
    order: list[str],
    duration: dict[str, float],
    after: dict[str, list[str]],
    cores: int,
    rank: dict[str, float] | None = None,
) -> dict[str, float]:
    """List scheduling of the jobs on ``cores``: a free core takes the first ready job of ``order``
    (or, with ``rank``, the ready job ranked highest). Returns the makespan, idle core-seconds and tail."""
    free = [(0.0, c) for c in range(cores)]
    ends: dict[str, float] = {}
    pending = list(order)
    busy_until: list[float] = []
    while pending:
        now, core = heapq.heappop(free)
        ready = [j for j in pending if all(b in ends and ends[b] <= now for b in after[j])]
        if not ready:  # wait for the next job this one needs
            later = min(ends[b] for j in pending for b in after[j] if b in ends and ends[b] > now)
            heapq.heappush(free, (later, core))
            continue
        job = max(ready, key=lambda j: (rank[j], -pending.index(j))) if rank else ready[0]
        pending.remove(job)
        ends[job] = now + duration[job]
        busy_until.append(ends[job])
        heapq.heappush(free, (ends[job], core))
    span = max(ends.values())
    work = sum(duration.values())
    last_two = sorted(busy_until)[-2:] if cores > 1 and len(busy_until) > 1 else [span, span]
    return {"makespan_s": span, "idle_core_s": cores * span - work, "tail_s": last_two[-1] - last_two[0]}


def _serial(jobs: list[str], duration: dict[str, float]) -> float:
    return sum(duration[j] for j in jobs)


def phased(order: list[str], duration: dict[str, float], after: dict[str, list[str]], cores: int) -> dict[str, float]:
    """The schedule before the job graph: phases one after another (see the module docstring)."""

    def pick(prefix: str) -> list[str]:
        return [j for j in order if j.startswith(prefix)]

    no_deps = {j: [] for j in order}
    train = _replay(pick("train:"), duration, no_deps, cores)
    evals = _replay(_old_eval_order(pick("eval:")), duration, no_deps, cores)
    serial = _serial(
        pick("probe") + [j for j in order if j == "control:clone"] + pick("control:cloned-start"), duration
    )
    control = (
        _replay(pick("control:control-"), duration, no_deps, cores)
        if pick("control:control-")
        else {"makespan_s": 0.0, "idle_core_s": 0.0, "tail_s": 0.0}
    )
    best = _serial(pick("control:best-policy"), duration)
    span = train["makespan_s"] + evals["makespan_s"] + serial + control["makespan_s"] + best
    work = sum(duration[j] for j in order)
    return {
        "makespan_s": span,
        "idle_core_s": cores * span - work,
        "tail_s": train["tail_s"] + evals["tail_s"] + control["tail_s"] + serial + best,
        "phases_s": {
            "train": train["makespan_s"],
            "eval": evals["makespan_s"],
            "probe+clone+cloned start": serial,
            "control runs": control["makespan_s"],
            "best policy": best,
        },
    }


def _old_eval_order(jobs: list[str]) -> list[str]:
    """Seed-major (the references, seed 0, first), as the phased experiment listed its evaluations."""

    def seed(job: str) -> int:
        tail = job.rsplit("-s", 1)
        return int(tail[1]) if len(tail) == 2 and tail[1].isdigit() else 0

    return sorted(jobs, key=seed)


def analyse(out: Path, cores: int) -> dict[str, Any]:
    data = json.loads((out / "timeline.json").read_text())
    rows = data["jobs"]
    timing = json.loads((out / "timing.json").read_text()) if (out / "timing.json").exists() else {}
    rows_by = {r["job"]: r for r in rows}
    order = [r["job"] for r in sorted(rows, key=lambda r: r["start"])]
    listed = sorted(rows_by, key=lambda j: order.index(j))
    # a sandbox count below 0 comes from runs before the meter held its sandboxes (one dropped unclosed): 0
    for r in rows:
        r["sandbox_cpu_s"] = max(0.0, float(r.get("sandbox_cpu_s", 0.0)))
    duration = {j: r["cpu_s"] + r["sandbox_cpu_s"] for j, r in rows_by.items()}
    after = {j: list(r.get("after", [])) for j, r in rows_by.items()}

    kinds: dict[str, dict[str, list[float]]] = {}
    for r in rows:
        k = kind(r["job"])
        by = kinds.setdefault(k, {"cpu_s": [], "sandbox_cpu_s": [], "wall_s": []})
        by["cpu_s"].append(r["cpu_s"])
        by["sandbox_cpu_s"].append(r.get("sandbox_cpu_s", 0.0))
        by["wall_s"].append(r["end"] - r["start"])
    span = max(r["end"] for r in rows) - min(r["start"] for r in rows)
    measured_idle = data["workers"] * span - sum(r["end"] - r["start"] for r in rows)

    from baselines.experiment.grid import Job, priorities

    rank = priorities([Job(j, print, (), tuple(after[j]), float(rows_by[j].get("cost", 1.0))) for j in listed])
    outside = float(timing.get("setup_seconds", 0.0)) + float(timing.get("report_seconds", 0.0))
    schedules = {
        "phased": phased(_listing_order(listed), duration, after, cores),
        "graph": _replay(listed, duration, after, cores, rank),
    }
    for s in schedules.values():
        s["with_setup_and_report_s"] = s["makespan_s"] + outside
    return {
        "out": str(out),
        "cores": cores,
        "jobs": len(rows),
        "cpu_by_kind": {k: {m: _stats(v) for m, v in by.items()} for k, by in sorted(kinds.items())},
        "cpu_total_s": {
            "process": sum(r["cpu_s"] for r in rows),
            "sandboxes": sum(r.get("sandbox_cpu_s", 0.0) for r in rows),
        },
        "measured": {
            "graph_span_s": span,
            "workers": data["workers"],
            "idle_core_s": measured_idle,
            "setup_s": timing.get("setup_seconds"),
            "report_s": timing.get("report_seconds"),
            "total_s": timing.get("total_seconds"),
        },
        "replayed": schedules,
    }


def _listing_order(jobs: list[str]) -> list[str]:
    """The jobs as the phased experiment listed them: training runs seed-major as `experiment_runs`
    lists them (their order in the graph's start order is by priority, so restore seed-major)."""

    def seed(job: str) -> int:
        tail = job.rsplit("-s", 1)
        return int(tail[1]) if len(tail) == 2 and tail[1].isdigit() else 0

    train = sorted([j for j in jobs if j.startswith("train:")], key=seed)
    return train + [j for j in jobs if not j.startswith("train:")]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    experiment = argv[argv.index("--") + 1 :] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="run the experiment (the arguments after --) into this folder, then analyse it")
    parser.add_argument("--analyse", help="analyse this finished experiment folder")
    parser.add_argument("--cores", type=int, default=2, help="cores of the replayed schedules")
    opts = parser.parse_args(own)
    if opts.out:
        install_sandbox_meter()
        from baselines.budgetmix import main as budgetmix

        started = time.perf_counter()
        code = budgetmix([*experiment, "--out", opts.out])
        print(f"experiment: exit {code}, {time.perf_counter() - started:.0f} s", file=sys.stderr)
        if code:
            return code
    folder = Path(opts.out or opts.analyse or "")
    print(json.dumps(analyse(folder, opts.cores), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
