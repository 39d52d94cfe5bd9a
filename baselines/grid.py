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
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agentgym.errors import ConfigError
from baselines.config import EXECUTORS, Args, default_workers
from baselines.trainer import train

__all__ = ["describe", "in_parallel", "run_jobs", "train_job", "land_checkpoint"]

def in_parallel(workers: int, executor: str) -> bool:
    """Whether jobs run outside this process (then their own progress bars are off)."""
    return workers > 1 or executor == "ray"


def describe(workers: int, executor: str) -> str:
    """``2 worker processes`` or ``2 Ray CPUs``: where the jobs run, for progress lines and reports."""
    return f"{workers} {'Ray CPUs' if executor == 'ray' else 'worker processes'}"


def _call(item: tuple[int, Callable[..., Any], tuple[Any, ...]]) -> tuple[int, Any]:
    index, fn, job = item
    return index, fn(*job)


def run_jobs(fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]], *, workers: int, executor: str = "local",
             on_done: Callable[[int, Any], None] | None = None, ray_address: str | None = None) -> list[Any]:
    """``fn(*job)`` for every job, in ``workers`` processes or Ray tasks; the results in job order.

    ``on_done(index, result)`` is called in this process as each job finishes (progress lines).
    ``fn`` must be importable by name (a module-level function) and the jobs picklable.
    """
    if executor not in EXECUTORS:
        raise ConfigError(f"executor={executor!r}; choose one of {EXECUTORS}")
    if workers < 1:
        raise ConfigError(f"workers={workers}; give at least 1 (default: the machine's cores, {default_workers()})")
    results: list[Any] = [None] * len(jobs)

    def done(index: int, result: Any) -> None:
        results[index] = result
        if on_done is not None:
            on_done(index, result)

    if executor == "ray":
        _run_ray(fn, jobs, workers, done, ray_address)
    elif workers == 1 or len(jobs) <= 1:
        for i, job in enumerate(jobs):
            done(i, fn(*job))
    else:
        # fork shares what this process imported (torch, agentgym) and costs milliseconds; it is
        # safe only while this process runs one thread
        method = "fork" if "fork" in mp.get_all_start_methods() and threading.active_count() == 1 else "spawn"
        with mp.get_context(method).Pool(min(workers, len(jobs))) as pool:
            for i, result in pool.imap_unordered(_call, [(i, fn, job) for i, job in enumerate(jobs)]):
                done(i, result)
    return results


def _run_ray(fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]], workers: int,
             done: Callable[[int, Any], None], address: str | None) -> None:
    from agentgym.eval.ray_backend import require_ray

    ray = require_ray()
    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS")
        # the driver's folder goes to the workers' import path: `baselines` is not an installed package
        runtime_env = {"env_vars": {"PYTHONPATH": os.pathsep.join(p for p in (str(Path.cwd()), os.environ.get("PYTHONPATH")) if p)}}
        if address:
            ray.init(address=address, runtime_env=runtime_env, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, runtime_env=runtime_env)
    task = ray.remote(num_cpus=1, max_retries=0)(fn)
    pending = {task.remote(*job): i for i, job in enumerate(jobs)}
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        done(pending.pop(ready[0]), ray.get(ready[0]))


def train_job(args: Args, run_name: str, ship_checkpoint: bool = False) -> dict[str, Any]:
    """One training run (`baselines.trainer.train`); with ``ship_checkpoint`` the summary carries
    the checkpoint's bytes (``checkpoint_bytes``), for a run on another machine."""

    summary = train(args, run_name)
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
