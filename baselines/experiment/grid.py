"""The experiment's jobs in parallel: training runs and agent evaluations in worker processes or Ray tasks.

A job is a module-level function and its arguments. Its result depends only on those arguments:
training collects in lockstep (`Args.collect_mode`) from seeded envs and a seeded policy, the
evaluation harness seeds every episode from its spec, and Coding-v0's result cache gives the
outcome a fresh run would give. So ``--workers 1``, ``--workers N`` and ``--executor ray`` return
the same results, in the order of the jobs, whatever order they finish in.

- ``local`` with one worker runs the jobs here, one after another (the warm env pool and the
  result cache of this process carry over from one job to the next);
- ``local`` with N workers runs them in N processes (forked where that is safe: Linux and one
  thread; spawned otherwise). Each worker keeps its own warm envs and memory cache across the
  jobs it runs; all of them share Coding-v0's disk cache (`envs/coding/result_cache.py`), so a
  state one worker ran is a lookup for the others;
- ``ray`` runs each job as a Ray task (one CPU each), on the cluster ``ray.init(address=...)``
  or ``RAY_ADDRESS`` names, else on a local Ray session with ``workers`` CPUs. A training task
  sends its checkpoint back, so the driver holds every policy even when the task ran on another
  machine.

`run_graph` runs jobs that wait for others (an agent's evaluation for its training run, the
positive control's cloned arm for the clone): each starts as soon as the jobs it waits for are
done, the job with the longest chain of work still behind it first, so no core waits for a phase
to end and the last jobs to finish are short ones. It returns a timeline (start, end and CPU
seconds of every job, and the process that ran it) to measure idle cores with.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentgym.errors import ConfigError
from baselines.config import EXECUTORS, TrainSettings, default_workers, describe, in_parallel
from baselines.policy.train import train

__all__ = ["describe", "in_parallel", "run_jobs", "run_graph", "Job", "priorities", "train_job", "land_checkpoint"]


@dataclass(frozen=True)
class Job:
    """``fn(*args)``, run once the jobs named in ``after`` are done. ``args`` may be a function of
    their results (name -> result), called in this process when they are (an agent built from a
    training run's checkpoint); ``cost`` (any unit, the same for every job of a graph) orders the
    jobs that are ready (`priorities`)."""

    name: str
    fn: Callable[..., Any]
    args: tuple[Any, ...] | Callable[[dict[str, Any]], tuple[Any, ...]] = ()
    after: tuple[str, ...] = ()
    cost: float = 1.0


def priorities(jobs: Sequence[Job]) -> dict[str, float]:
    """Each job's cost plus the costliest chain of jobs waiting for it (its bottom level): started
    highest first, the jobs on the longest chain never wait and the graph ends on short jobs."""
    waiting: dict[str, list[str]] = {job.name: [] for job in jobs}
    for job in jobs:
        for before in job.after:
            waiting[before].append(job.name)
    cost = {job.name: float(job.cost) for job in jobs}
    level: dict[str, float] = {}
    visiting: set[str] = set()

    def bottom(name: str) -> float:
        if name not in level:
            if name in visiting:
                raise ConfigError(f"jobs wait for each other in a cycle: {sorted(visiting)}")
            visiting.add(name)
            level[name] = cost[name] + max((bottom(w) for w in waiting[name]), default=0.0)
            visiting.discard(name)
        return level[name]

    return {job.name: bottom(job.name) for job in jobs}


def _timed(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, dict[str, Any]]:
    """``fn(*args)`` and where and when it ran: pid, wall-clock start and end (``time.time``, so
    several processes of one machine share the clock) and what `_meter` counted meanwhile."""
    start, before = time.time(), _meter()
    result = fn(*args)
    after = _meter()
    return result, {"pid": os.getpid(), "start": start, "end": time.time(), **{k: after[k] - before[k] for k in after}}


def _meter() -> dict[str, float]:
    """This process's counters that a job's stats are differences of: its CPU seconds
    (benchmarks/experiment_timeline.py adds its sandboxes')."""
    return {"cpu_s": time.process_time()}


def run_graph(
    jobs: Sequence[Job],
    *,
    workers: int,
    executor: str = "local",
    on_done: Callable[[str, Any], None] | None = None,
    ray_address: str | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run every job of ``jobs`` after those it waits for, in ``workers`` processes (``local``; one:
    here, one after another) or Ray tasks, the ready job with the highest `priorities` first (ties:
    in the order listed). Returns the results by job name and the timeline: per job, in the order
    they finished, ``job``, ``after``, ``cost``, ``pid``, ``start`` and ``end`` (seconds since the
    graph started) and ``cpu_s``. ``on_done(name, result)`` runs here as each job finishes, before
    the jobs waiting for it are given their arguments. A job that raises stops the graph and the
    error is raised here.
    """
    _check_graph(jobs, workers, executor)
    graph = _Graph(jobs, on_done)
    if executor == "ray":
        _graph_on_ray(workers, ray_address, graph.ready, graph.take, graph.finish, graph.pending)
    elif workers == 1 or len(jobs) <= 1:
        while graph.pending:
            job = graph.ready()[0]  # a graph without cycles always has a ready job here
            result, stats = _timed(job.fn, graph.take(job))
            graph.finish(job.name, result, stats)
    else:
        _graph_in_pool(graph, workers)
    return graph.results, graph.timeline


def _check_graph(jobs: Sequence[Job], workers: int, executor: str) -> None:
    """Fail before any job runs: an unknown executor, no workers, a repeated name, a missing job waited for."""
    if executor not in EXECUTORS:
        raise ConfigError(f"executor={executor!r}; choose one of {EXECUTORS}")
    if workers < 1:
        raise ConfigError(f"workers={workers}; give at least 1 (default: the machine's cores, {default_workers()})")
    names = [job.name for job in jobs]
    if len(set(names)) != len(jobs):
        raise ConfigError(f"job names repeat: {sorted(n for n in set(names) if names.count(n) > 1)}")
    unknown = sorted({b for job in jobs for b in job.after if b not in names})
    if unknown:
        raise ConfigError(f"jobs wait for jobs the graph lacks: {unknown}")


class _Graph:
    """A job graph being run: the jobs still pending, the results and the timeline so far."""

    def __init__(self, jobs: Sequence[Job], on_done: Callable[[str, Any], None] | None) -> None:
        self.by_name = {job.name: job for job in jobs}
        self.rank = priorities(jobs)
        self.order = {job.name: i for i, job in enumerate(jobs)}
        self.pending = dict(self.by_name)
        self.results: dict[str, Any] = {}
        self.timeline: list[dict[str, Any]] = []
        self.on_done = on_done
        self.started = time.time()

    def ready(self) -> list[Job]:
        """The pending jobs whose jobs before are done, highest priority first."""
        now = [job for job in self.pending.values() if all(b in self.results for b in job.after)]
        return sorted(now, key=lambda job: (-self.rank[job.name], self.order[job.name]))

    def take(self, job: Job) -> tuple[Any, ...]:
        """``job`` out of the pending ones, with its arguments (built from the results it waited for)."""
        del self.pending[job.name]
        return job.args({b: self.results[b] for b in job.after}) if callable(job.args) else job.args

    def finish(self, name: str, result: Any, stats: dict[str, Any]) -> None:
        """Keep a finished job's result and its row of the timeline, then tell ``on_done``."""
        self.results[name] = result
        job = self.by_name[name]
        start, end = stats["start"] - self.started, stats["end"] - self.started
        self.timeline.append(
            {"job": name, "after": list(job.after), "cost": job.cost, **stats, "start": start, "end": end}
        )
        if self.on_done is not None:
            self.on_done(name, result)


def _graph_in_pool(graph: _Graph, workers: int) -> None:
    """Run the graph in a pool of ``workers`` processes, handing a job over only when a worker is free,
    so the pool's own queue never decides the order."""
    # fork shares what this process imported (torch, agentgym) and costs milliseconds; it is
    # safe only while this process runs one thread
    method = "fork" if "fork" in mp.get_all_start_methods() and threading.active_count() == 1 else "spawn"
    done: queue.SimpleQueue[tuple[str, Any, BaseException | None]] = queue.SimpleQueue()
    with mp.get_context(method).Pool(min(workers, len(graph.by_name))) as pool:
        running = 0
        while graph.pending or running:
            for job in graph.ready()[: max(0, workers - running)]:
                ok, failed = _replies(job.name, done)
                pool.apply_async(_timed, (job.fn, graph.take(job)), callback=ok, error_callback=failed)
                running += 1
            if not running:
                raise ConfigError(f"jobs wait for each other in a cycle: {sorted(graph.pending)}")
            name, outcome, error = done.get()
            running -= 1
            if error is not None:
                raise error
            graph.finish(name, *outcome)


def _replies(
    name: str, done: queue.SimpleQueue[tuple[str, Any, BaseException | None]]
) -> tuple[Callable[[Any], None], Callable[[BaseException], None]]:
    """The pool's callback and error callback for job ``name``: both report to ``done``."""

    def ok(result: Any) -> None:
        done.put((name, result, None))

    def failed(error: BaseException) -> None:
        done.put((name, None, error))

    return ok, failed


def _graph_on_ray(
    workers: int,
    address: str | None,
    ready: Callable[[], list[Job]],
    take: Callable[[Job], tuple[Any, ...]],
    finish: Callable[[str, Any, dict[str, Any]], None],
    pending: dict[str, Job],
) -> None:
    """`run_graph` on Ray: every ready job is submitted at once (highest priority first; Ray starts
    them as CPUs free up), the others as the jobs they wait for finish."""
    ray = _ray(workers, address)
    task = ray.remote(num_cpus=1, max_retries=0)(_timed)
    running: dict[Any, str] = {}
    while pending or running:
        for job in ready():
            running[task.remote(job.fn, take(job))] = job.name
        if not running:
            raise ConfigError(f"jobs wait for each other in a cycle: {sorted(pending)}")
        finished, _ = ray.wait(list(running), num_returns=1)
        finish(running.pop(finished[0]), *ray.get(finished[0]))


def run_jobs(
    fn: Callable[..., Any],
    jobs: Sequence[tuple[Any, ...]],
    *,
    workers: int,
    executor: str = "local",
    on_done: Callable[[int, Any], None] | None = None,
    ray_address: str | None = None,
) -> list[Any]:
    """``fn(*job)`` for every job, in ``workers`` processes or Ray tasks (started in the order
    listed); the results in job order.

    ``on_done(index, result)`` is called in this process as each job finishes (progress lines).
    ``fn`` must be importable by name (a module-level function) and the jobs picklable.
    """
    graph = [Job(str(i), fn, tuple(job)) for i, job in enumerate(jobs)]
    results, _ = run_graph(
        graph,
        workers=workers,
        executor=executor,
        ray_address=ray_address,
        on_done=None if on_done is None else lambda name, result: on_done(int(name), result),
    )
    return [results[str(i)] for i in range(len(jobs))]


def _ray(workers: int, address: str | None) -> Any:
    """The Ray module, initialised on ``address`` (or ``RAY_ADDRESS``), else on a local session of ``workers`` CPUs."""
    from agentgym.eval.ray_backend import require_ray

    ray = require_ray()
    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS")
        # the driver's folder goes to the workers' import path: `baselines` is not an installed package
        runtime_env = {
            "env_vars": {"PYTHONPATH": os.pathsep.join(p for p in (str(Path.cwd()), os.environ.get("PYTHONPATH")) if p)}
        }
        if address:
            ray.init(address=address, runtime_env=runtime_env, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, runtime_env=runtime_env)
    return ray


def train_job(settings: TrainSettings, run_name: str, ship_checkpoint: bool = False) -> dict[str, Any]:
    """One training run (`baselines.policy.train.train`); with ``ship_checkpoint`` the summary carries
    the checkpoint's bytes (``checkpoint_bytes``), for a run on another machine."""

    summary = train(settings, run_name)
    if ship_checkpoint:
        summary = {**summary, "checkpoint_bytes": Path(summary["checkpoint"]).read_bytes()}
    return summary


def land_checkpoint(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary without its shipped checkpoint bytes, which are written to its checkpoint path
    when that file is not here (the run was on another machine)."""
    data = summary.pop("checkpoint_bytes", None)
    path = Path(summary["checkpoint"])
    if data is not None and not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return summary
