"""Training throughput of the BudgetMix trainer: env steps per second, where the time goes.

    python benchmarks/train.py --json                    # quick-preset settings, 1,024 env steps per run
    python benchmarks/train.py --steps 2048 --repeats 3 --configs lockstep@10,async@10,async@2

Runs `baselines.policy.train.train` with the quick preset's settings (8 envs, 4 threads, 128 steps
per PPO update, the BudgetMix schedule uniform:2-12) for a fixed number of env steps, once per
configuration per repeat. A configuration is ``MODE@TIMEOUT[/CACHE]``: the collection mode
(``lockstep``, the trainer before #15: the batch waits for its slowest env; ``async``: it does
not), Coding-v0's test timeout in seconds, and where Coding-v0's result cache keeps outcomes:
``/nocache`` (no cache), none (in memory only, the trainer before the disk cache),
``/disk-cold`` (memory over an empty `DiskStore`: every outcome is run and written) or
``/disk-warm`` (memory over a `DiskStore` that an untimed run of the same settings and seed filled
first; its hit rate is reported) or ``/disk`` (memory over the user's `DiskStore` as it is, e.g.
filled by ``python -m baselines.budgetmix --warm-cache 2``; ``AGENTGYM_CACHE_DIR`` chooses it).
Each cached run starts with an empty memory (in the experiment the process's cache carries
over from one run to the next, so later runs hit more). The default compares the preset without
the cache (``async@2/nocache``, the trainer before the cache) with the preset as it trains.
Configurations are interleaved, in alternating order, so that load from other processes on a
shared machine falls on all of them. A configuration's first run starts its sandboxes; its later
runs borrow the warm envs of the runs before (`baselines/policy/env_pool.py`), as the experiment's runs do.
Prints one JSON object (``--json``) with, per configuration, the median over repeats of:

- ``env_steps_per_s``: env steps over the whole training run (rollout + update), as the preset trains;
- ``rollout_seconds`` / ``update_seconds``: time collecting episodes vs in PPO updates;
- ``straggler_seconds``: env-seconds idle because another env's step was still running, per env;
- ``step_ms_by_kind``: step-time percentiles per action kind (what timeouts should be sized from);

and ``after_over_before``, the ratio of the medians of the last configuration over the first.

``--slow P:S`` makes each env step take S more seconds with probability P (a sleep, as while
a sandbox runs into its timeout), to measure what one slow step costs the other envs.
``cache_potential`` measures what a result cache for Coding-v0 ``test`` and verification could
save: a ``test`` or ``submit`` step whose (task, sequence of edits that changed the workspace)
was already seen in the same run would be a cache hit; it reports the share of such repeats
and the step-seconds spent on them.
``result_cache``: hits and misses per kind (``test``, ``verify``) in the cached runs.
``--train-tasks N`` trains on a fixed pool of N tasks (the preset uses the whole split, where
tasks rarely repeat within a run); ``--warm`` lets cached runs keep the entries of the runs
before, as the experiment's fifteen runs in one process do. Together they measure what the
trainer costs when the sandbox's work is mostly looked up.
``cpu_ms_per_step``: CPU milliseconds per env step of the trainer process, of its reaped children
(the local backend's step servers and their forked test runs; Docker's run outside this process
tree) and of the whole machine (other load included), and ``cpu_bound_env_steps_per_s``, the rate
the machine's cores allow for that much CPU per step: the ceiling no scheduling change can pass.
``sandbox_bound_env_steps_per_s`` is the same ceiling for the CPU outside the trainer process alone
(step servers, their forked test runs and verifications, the Docker engine): the rate even a
trainer that cost nothing could not pass on this machine.
``sandbox_containers`` in ``cpu_ms_per_step`` is the CPU of this process's Docker sandboxes (their
cgroups): with Docker, the test runs and verifications forked inside the containers.
``--breakdown`` times the parts of each Coding-v0 step on the host (`Breakdown`: the verifier,
the visible test runs, the result cache), per call and per env step. With both ``/disk-cold`` and
``/disk-warm`` configurations, ``cold_vs_warm`` sets their medians and p95 side by side:

    python benchmarks/train.py --grid '' --configs lockstep@2/disk-cold,lockstep@2/disk-warm \
        --schedule fixed:12 --steps 2048 --repeats 3 --breakdown --json

``env_steps_per_s`` at the top level is the last configuration's; ``env_steps_per_s_uncached``
is the last ``/nocache`` configuration's, and ``cached_over_uncached`` their ratio.

``--grid SxN`` (default ``3x2``: the first S schedules of the experiment, fixed-T3, fixed-T12 and
BudgetMix, times N seeds, ``--grid-steps`` each, default 2,048) measures the whole grid as the experiment trains it
(`baselines.experiment.jobs.train_grid`): ``grid_env_steps_per_s`` is the grid's env steps per wall
second, run by run interleaved in these configurations, each ``--grid-repeats`` times:

- ``before``: one process, runs one after another, async collection, the result cache in memory
  only (the trainer as issue 23 found it);
- ``cold``: ``--workers`` processes (default: the cores), lockstep, over an empty disk cache;
- ``warm``: the same over the disk cache its ``cold`` run just filled (``grid_env_steps_per_s``);
- ``warm-1``: one process, lockstep, over that warm cache (what the workers add).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gymnasium as gym
import numpy as np

import baselines.policy.train as trainer
from agentgym.envs.coding.result_cache import DiskStore
from agentgym.errors import ConfigError
from baselines.config import PRESETS, Args, TrainSettings, with_overrides
from baselines.policy.train import train


class SlowSteps(gym.Wrapper):
    """With probability ``p`` a step first sleeps ``seconds`` (a sandbox waiting out a timeout)."""

    def __init__(self, env: gym.Env, p: float, seconds: float, seed: int) -> None:
        super().__init__(env)
        self.p, self.seconds, self.rng = p, seconds, np.random.default_rng(seed)

    def step(self, action):
        if self.rng.random() < self.p:
            time.sleep(self.seconds)
        return self.env.step(action)


class CacheProbe(gym.Wrapper):
    """Counts ``test``/``submit`` steps whose (task, workspace edits) key was already seen in the run."""

    def __init__(self, env: gym.Env, seen: dict) -> None:
        super().__init__(env)
        self.seen, self.task, self.edits = seen, "", []

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self.task, self.edits = str(info.get("task_id", "")), []
        return obs, info

    def step(self, action):
        started = time.perf_counter()
        result = self.env.step(action)
        seconds = time.perf_counter() - started
        kind = action.split(None, 1)[0] if action.strip() else ""
        changed = any(e.get("kind") == "mutation" for e in result[4].get("events") or [])
        if kind == "patch" and changed:
            self.edits.append(action)
        elif kind == "revert" and changed and self.edits:
            self.edits.pop()
        elif kind in ("test", "submit"):
            key = (kind, self.task, tuple(self.edits))
            stats = self.seen.setdefault(kind, {"n": 0, "repeats": 0, "seconds": 0.0, "seconds_on_repeats": 0.0})
            stats["n"] += 1
            stats["seconds"] += seconds
            if key in self.seen.setdefault("keys", set()):
                stats["repeats"] += 1
                stats["seconds_on_repeats"] += seconds
            self.seen["keys"].add(key)
        elif kind in ("run", "replace"):
            self.edits.append(f"opaque:{len(self.seen.setdefault('keys', set()))}:{action}")  # run/replace: unkeyable
        return result


_MAKE_ENV = trainer.make_env


def _instrumented(slow: tuple[float, float] | None, seen: dict):
    """`make_env` with the cache probe (and slow steps) around each env; `train` builds its envs with it."""

    def make_env(*a, **kw):
        thunk = _MAKE_ENV(*a, **kw)
        counter = iter(range(1 << 30))

        def build() -> gym.Env:
            env = CacheProbe(thunk(), seen)
            return SlowSteps(env, slow[0], slow[1], next(counter)) if slow else env

        return build

    return make_env


CACHES = ("nocache", "", "disk-cold", "disk-warm", "disk")


def parse_config(config: str) -> tuple[str, float | None, str]:
    """``MODE@TIMEOUT[/CACHE]`` -> (mode, timeout or None, cache: one of `CACHES`, "" for memory only)."""
    spec, _, flag = config.partition("/")
    if flag not in CACHES:
        raise SystemExit(f"config {config!r}: the suffix is one of /nocache, /disk-cold, /disk-warm, /disk (or none)")
    mode, _, timeout = spec.partition("@")
    return mode, (float(timeout) if timeout else None), flag


def _disk_for(cache: str, warm_dir: str) -> DiskStore | None:
    if cache == "disk-cold":
        return DiskStore(tempfile.mkdtemp(prefix="train-bench-cold-"))
    if cache == "disk":
        return DiskStore()
    return DiskStore(warm_dir) if cache == "disk-warm" else None


def containers_cpu_seconds() -> float:
    """CPU seconds used so far by the running Docker sandboxes this process started (label
    ``io.agentgym.owner_pid``): their step servers, forked test runs and verifier harnesses, read from
    each container's cgroup (v1 ``cpuacct`` or v2 ``cpu.stat``); 0 without Docker. The env pool keeps
    a run's containers running until the process exits, so a run's delta is its sandboxes' work."""
    try:
        from agentgym.sandbox.docker import docker_client

        ids = [
            c.id
            for c in docker_client().containers.list(
                filters={"label": f"io.agentgym.owner_pid={os.getpid()}"}, sparse=True
            )
        ]
    except Exception:  # no engine: the local backend's servers are reaped children instead
        return 0.0
    total = 0.0
    for cid in ids:
        for path, scale in (
            (f"/sys/fs/cgroup/cpuacct/docker/{cid}/cpuacct.usage", 1e-9),
            (f"/sys/fs/cgroup/system.slice/docker-{cid}.scope/cpu.stat", 1e-6),
        ):
            try:
                text = open(path).read()
            except OSError:
                continue
            value = text.split("usage_usec", 1)[1].split()[0] if "usage_usec" in text else text.strip()
            total += int(value) * scale
            break
    return total


def cpu_seconds() -> dict[str, float]:
    """CPU seconds so far: this process (the trainer and its env threads), its reaped children (local
    step servers and their forks, counted once closed), its Docker sandboxes (`containers_cpu_seconds`)
    and the whole machine (from /proc/stat)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    busy = sum(ticks) - ticks[3] - (ticks[4] if len(ticks) > 4 else 0)  # all but idle and iowait
    return {
        "trainer_process": own.ru_utime + own.ru_stime,
        "reaped_children": kids.ru_utime + kids.ru_stime,
        "sandbox_containers": containers_cpu_seconds(),
        "machine": busy / os.sysconf("SC_CLK_TCK"),
    }


class Breakdown:
    """Host CPU (thread time) and wall time spent in each part of a Coding-v0 step, summed over a run:
    the verifier (recording the reference, talking to the harness, replaying on the host), the
    visible test runs (the step server's ``warm`` and ``fork_call``), the result cache (lookups and
    stores, memory and disk) and the env's own step. Parts nest (``CodingEnv.step`` holds the
    others), so they do not add up. ``--breakdown`` installs it around every run."""

    PARTS = (
        ("agentgym.envs.coding.env", "CodingEnv", ("step", "reset", "_verify", "_visible_run")),
        ("agentgym.envs.coding.verifier", None, ("record", "_read", "_replay")),
        ("agentgym.sandbox.base", "Sandbox", ("fork_call", "call", "harness")),
        ("agentgym.envs.coding.result_cache", "ResultCache", ("get", "put")),
        ("agentgym.envs.coding.result_cache", "DiskStore", ("get", "put")),
    )

    def __init__(self) -> None:
        import importlib
        import threading

        self.totals: dict[str, list[float]] = {}
        self._lock = threading.Lock()
        self._saved: list[tuple[Any, str, Any]] = []
        for module, cls, names in self.PARTS:
            owner = importlib.import_module(module)
            owner = getattr(owner, cls) if cls else owner
            for name in names:
                self._wrap(owner, name, f"{cls or module.rsplit('.', 1)[1]}.{name}")

    def _wrap(self, owner: Any, name: str, label: str) -> None:
        import functools

        fn = getattr(owner, name)
        self._saved.append((owner, name, owner.__dict__.get(name)))  # None: inherited, deleted again on remove

        @functools.wraps(fn)
        def timed(*a: Any, **k: Any) -> Any:
            cpu, wall = time.thread_time(), time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
                with self._lock:
                    entry = self.totals.setdefault(label, [0, 0.0, 0.0])
                    entry[0] += 1
                    entry[1] += cpu
                    entry[2] += wall

        setattr(owner, name, timed)

    def take(self, steps: int) -> dict[str, dict[str, float]]:
        """Per part: calls, host CPU ms per call and per env step, wall ms per call; then zero the totals."""
        with self._lock:
            totals, self.totals = self.totals, {}
        return {
            label: {
                "calls": n,
                "cpu_ms_per_call": round(cpu * 1e3 / max(n, 1), 3),
                "cpu_ms_per_env_step": round(cpu * 1e3 / max(steps, 1), 3),
                "wall_ms_per_call": round(wall * 1e3 / max(n, 1), 3),
            }
            for label, (n, cpu, wall) in sorted(totals.items())
        }

    def remove(self) -> None:
        for owner, name, fn in reversed(self._saved):
            if fn is None:
                delattr(owner, name)
            else:
                setattr(owner, name, fn)
        self._saved.clear()


BREAKDOWN: Breakdown | None = None


def one_run(
    base: Args,
    config: str,
    steps: int,
    out: str,
    tag: str,
    slow: tuple[float, float] | None = None,
    warm: bool = False,
    warm_dir: str = "",
) -> dict:
    from agentgym.envs.coding.result_cache import process_cache

    mode, timeout, cache = parse_config(config)
    cached = cache != "nocache"
    process_cache().disk = _disk_for(cache, warm_dir)
    seen: dict = {}
    trainer.make_env = _instrumented(slow, seen)
    args = dataclasses.replace(
        base,
        collect_mode=mode,
        total_env_steps=steps,
        out=out,
        track=False,
        progress=False,
        test_timeout=timeout if timeout is not None else base.test_timeout,
        result_cache=cached,
    )
    if not warm:
        process_cache().clear()  # every cached run starts empty: no run profits from another's entries
    if BREAKDOWN is not None:
        BREAKDOWN.take(1)  # what came before this run (a fill run) is not its own
    started, cpu_before, stats_before = time.perf_counter(), cpu_seconds(), process_cache().stats()
    try:
        summary = train(TrainSettings.from_args(args), f"{mode}-{args.test_timeout:g}-{cache or 'memory'}-{tag}")
    finally:
        trainer.make_env = _MAKE_ENV
        if cache == "disk-cold":
            shutil.rmtree(process_cache().disk.root, ignore_errors=True)
    seen.pop("keys", None)
    cpu_after = cpu_seconds()
    counts = summary.get("result_cache")
    for kind, c in (counts or {}).items():  # the trainer's summary counts hits; which of them came from disk
        c["disk_hits"] = process_cache().stats()[kind]["disk_hits"] - stats_before[kind]["disk_hits"]
    return {
        "breakdown": BREAKDOWN.take(summary["env_steps"]) if BREAKDOWN is not None else None,
        "cpu_ms_per_step": {k: (cpu_after[k] - cpu_before[k]) * 1e3 / max(summary["env_steps"], 1) for k in cpu_after},
        "cache_potential": seen,
        "env_steps": summary["env_steps"],
        "wall_seconds": time.perf_counter() - started,
        "env_steps_per_s": summary["steps_per_second"],
        "rollout_seconds": summary["rollout_seconds"],
        "update_seconds": summary["update_seconds"],
        "straggler_seconds": summary["straggler_seconds"],
        "forward_seconds": summary["forward_seconds"],
        "step_ms_by_kind": summary["step_ms_by_kind"],
        "train_success": summary["final_train_success"],
        "result_cache": counts,
        "timeouts": summary.get("timeouts", 0),
    }


def _cache_summary(runs: list[dict]) -> dict:
    """Repeats of (task, edits) among test/submit steps, summed over the runs of one configuration."""
    out: dict = {}
    for kind in ("test", "submit"):
        n = sum(r["cache_potential"].get(kind, {}).get("n", 0) for r in runs)
        rep = sum(r["cache_potential"].get(kind, {}).get("repeats", 0) for r in runs)
        sec = sum(r["cache_potential"].get(kind, {}).get("seconds", 0.0) for r in runs)
        sec_rep = sum(r["cache_potential"].get(kind, {}).get("seconds_on_repeats", 0.0) for r in runs)
        out[kind] = {
            "n": n,
            "repeat_rate": rep / n if n else None,
            "step_seconds": sec,
            "step_seconds_on_repeats": sec_rep,
        }
    return out


def _hits(runs: list[dict]) -> dict | None:
    """Result-cache hits (of them from disk) and misses per kind, summed over the runs of one configuration
    (None: uncached)."""
    counted = [r["result_cache"] for r in runs if r.get("result_cache")]
    if not counted:
        return None
    out = {}
    for kind in ("test", "verify"):
        hits = sum(c[kind]["hits"] for c in counted)
        misses = sum(c[kind]["misses"] for c in counted)
        out[kind] = {
            "hits": hits,
            "misses": misses,
            "hit_rate": hits / (hits + misses) if hits + misses else None,
            "disk_hits": sum(c[kind].get("disk_hits", 0) for c in counted),
        }
    return out


def _median(runs: list[dict], key: str) -> float:
    return float(statistics.median(r[key] for r in runs))


GRID_CONFIGS = ("before", "cold", "warm", "warm-1")


def grid_run(base: Args, config: str, grid: tuple[int, int], steps: int, workers: int, cache_dir: str | None) -> dict:
    """One pass over the grid (`train_grid`) in ``config``; its env steps per wall second."""
    import contextlib

    from agentgym.envs.coding.result_cache import process_cache
    from baselines.experiment.arms import experiment_schedules
    from baselines.experiment.jobs import train_grid

    n_schedules, n_seeds = grid
    schedules = dict(list(experiment_schedules(base).items())[:n_schedules])
    args = dataclasses.replace(
        base,
        total_env_steps=steps,
        track=False,
        progress=False,
        out=tempfile.mkdtemp(prefix=f"grid-{config}-"),
        collect_mode="async" if config == "before" else "lockstep",
        workers=1 if config in ("before", "warm-1") else workers,
    )
    cache = process_cache()  # forked workers inherit this object: its disk store is theirs too
    cache.clear()
    cache.disk = DiskStore(cache_dir) if cache_dir else None
    load = os.getloadavg()[0]
    started = time.perf_counter()
    try:
        with contextlib.redirect_stdout(sys.stderr):  # the runs' progress lines; stdout keeps the JSON
            training = train_grid(args, schedules, list(range(1, n_seeds + 1)))
    finally:
        shutil.rmtree(args.out, ignore_errors=True)
    wall = time.perf_counter() - started
    env_steps = sum(s["env_steps"] for by_seed in training.values() for s in by_seed.values())
    return {
        "env_steps": env_steps,
        "wall_seconds": wall,
        "grid_env_steps_per_s": env_steps / wall,
        "workers": args.workers,
        "collect_mode": args.collect_mode,
        "load_average_1min_before": round(load, 2),
        "per_run_env_steps_per_s": sorted(round(s["steps_per_second"]) for b in training.values() for s in b.values()),
    }


def grid_benchmark(base: Args, grid: tuple[int, int], steps: int, workers: int, repeats: int, json_only: bool) -> dict:
    """`grid_run` in every configuration of `GRID_CONFIGS`, ``repeats`` times; medians and p95."""
    runs: dict[str, list[dict]] = {c: [] for c in GRID_CONFIGS}
    for r in range(repeats):
        with tempfile.TemporaryDirectory(prefix="grid-cache-") as cache_dir:
            order = ["before", "cold", "warm", "warm-1"] if r % 2 == 0 else ["cold", "warm-1", "warm", "before"]
            for config in order:  # cold always precedes the warm runs that reuse its store
                runs[config].append(
                    grid_run(base, config, grid, steps, workers, None if config == "before" else cache_dir)
                )
                if not json_only:
                    print(
                        f"grid {config} run {r}: {runs[config][-1]['grid_env_steps_per_s']:.0f} env steps/s",
                        file=sys.stderr,
                        flush=True,
                    )
    per = {
        c: {
            "grid_env_steps_per_s": _median(rs, "grid_env_steps_per_s"),
            "grid_env_steps_per_s_p95": float(np.percentile([x["grid_env_steps_per_s"] for x in rs], 95)),
            "runs": rs,
        }
        for c, rs in runs.items()
    }
    return {
        "grid": f"{grid[0]} schedules x {grid[1]} seeds x {steps} env steps",
        "grid_workers": workers,
        "grid_env_steps_per_s": per["warm"]["grid_env_steps_per_s"],
        "grid_env_steps_per_s_cold": per["cold"]["grid_env_steps_per_s"],
        "grid_env_steps_per_s_before": per["before"]["grid_env_steps_per_s"],
        "grid_warm_over_before": per["warm"]["grid_env_steps_per_s"] / per["before"]["grid_env_steps_per_s"],
        "grid_workers_over_one": per["warm"]["grid_env_steps_per_s"] / per["warm-1"]["grid_env_steps_per_s"],
        "grid_configs": per,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=1024, help="env steps per training run")
    parser.add_argument("--repeats", type=int, default=2, help="runs per mode (medians are reported)")
    parser.add_argument(
        "--configs", default="", help="MODE@TIMEOUT,... to compare (default: lockstep@10 and the preset's)"
    )
    parser.add_argument("--schedule", default="uniform:2-12", help="budget schedule trained")
    parser.add_argument("--backend", default="auto", help="sandbox backend: auto, docker, local")
    parser.add_argument("--preset", default="quick", choices=sorted(PRESETS))
    parser.add_argument(
        "--train-tasks",
        type=int,
        default=0,
        help="a fixed pool of this many training tasks (0: the whole split, as the preset trains)",
    )
    parser.add_argument(
        "--warm",
        action="store_true",
        help="cached runs keep the process's cache from the runs before (as in the experiment)",
    )
    parser.add_argument("--slow", default="", help="P:S: a step sleeps S seconds with probability P (straggler test)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--grid", default="3x2", help="SxN: the grid benchmark over S schedules x N seeds (empty: skip)"
    )
    parser.add_argument(
        "--grid-steps",
        type=int,
        default=2048,
        help="env steps per run of the grid benchmark (shorter runs measure sandbox start-up more)",
    )
    parser.add_argument("--grid-repeats", type=int, default=2, help="passes over each grid configuration")
    parser.add_argument("--workers", type=int, default=0, help="processes of the grid benchmark (0: the cores)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="override an Args field of the preset (repeatable), e.g. --set env_threads=1",
    )
    parser.add_argument(
        "--per-run",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also measure single runs per configuration (--configs)",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="time the parts of each Coding-v0 step (verifier, test runs, result cache: `Breakdown`)",
    )
    opts = parser.parse_args(argv)
    global BREAKDOWN
    if opts.breakdown:
        BREAKDOWN = Breakdown()

    try:
        base = with_overrides(
            Args(**{**PRESETS[opts.preset], "preset": opts.preset, "workers": opts.workers}), opts.set
        )
    except ConfigError as exc:
        raise SystemExit(str(exc)) from None
    base = dataclasses.replace(base, schedule=opts.schedule, backend=opts.backend, train_tasks=opts.train_tasks)
    slow = tuple(float(x) for x in opts.slow.split(":")) if opts.slow else None
    preset = f"{base.collect_mode}@{base.test_timeout:g}"
    modes = [m for m in opts.configs.split(",") if m] or [f"{preset}/nocache", preset]
    for m in modes:
        parse_config(m)
    runs: dict[str, list[dict]] = {m: [] for m in modes}
    load_before = os.getloadavg()
    grid = None
    if opts.grid:
        shape = tuple(int(x) for x in opts.grid.lower().split("x"))
        if len(shape) != 2 or min(shape) < 1:
            raise SystemExit(f"--grid {opts.grid!r}: give SxN, e.g. 3x2 (schedules x seeds)")
        grid = grid_benchmark(
            dataclasses.replace(base, schedule=""), shape, opts.grid_steps, base.workers, opts.grid_repeats, opts.json
        )
    if not opts.per_run:
        print(
            json.dumps(
                {
                    "benchmark": "train",
                    "cpus": os.cpu_count(),
                    "backend": opts.backend,
                    "load_average_before": [round(x, 2) for x in load_before],
                    "load_average_after": [round(x, 2) for x in os.getloadavg()],
                    **grid,
                },
                indent=None if opts.json else 1,
            )
        )
        return 0
    fill_seconds = {}
    with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory(prefix="train-bench-warm-") as warm_dir:
        for mode in modes:  # fill the warm disk cache: one untimed run of the same settings and seed
            if parse_config(mode)[2] == "disk-warm" and mode not in fill_seconds:
                fill_seconds[mode] = one_run(base, mode, opts.steps, out, "fill", slow, opts.warm, warm_dir)[
                    "wall_seconds"
                ]
        for r in range(opts.repeats):
            for mode in modes if r % 2 == 0 else modes[::-1]:
                runs[mode].append(one_run(base, mode, opts.steps, out, str(r), slow, opts.warm, warm_dir))
                if not opts.json:
                    print(f"{mode} run {r}: {runs[mode][-1]['env_steps_per_s']:.1f} env steps/s", flush=True)
    per_mode = {
        mode: {
            **{
                k: _median(rs, k)
                for k in (
                    "env_steps_per_s",
                    "rollout_seconds",
                    "update_seconds",
                    "straggler_seconds",
                    "forward_seconds",
                    "wall_seconds",
                )
            },
            "env_steps_per_s_runs": [round(r["env_steps_per_s"], 1) for r in rs],
            "cpu_ms_per_step": {
                k: float(statistics.median(r["cpu_ms_per_step"][k] for r in rs)) for k in rs[0]["cpu_ms_per_step"]
            },
            "step_ms_by_kind": rs[-1]["step_ms_by_kind"],
            "cache_potential": _cache_summary(rs),
            "result_cache": _hits(rs),
            "timeouts": sum(r["timeouts"] for r in rs),
            "env_steps_per_s_p95": float(np.percentile([r["env_steps_per_s"] for r in rs], 95)),
            **(
                {
                    "breakdown": {
                        part: {
                            k: float(statistics.median(r["breakdown"].get(part, {}).get(k, 0.0) for r in rs))
                            for k in ("calls", "cpu_ms_per_call", "cpu_ms_per_env_step", "wall_ms_per_call")
                        }
                        for part in rs[-1]["breakdown"]
                    }
                }
                if rs[-1].get("breakdown")
                else {}
            ),
        }
        for mode, rs in runs.items()
    }
    # cold and warm side by side: the same settings over an empty disk cache and over one filled first
    cold_warm = {
        mode: {
            "env_steps_per_s_median": m["env_steps_per_s"],
            "env_steps_per_s_p95": m["env_steps_per_s_p95"],
            "cpu_ms_per_step": m["cpu_ms_per_step"],
            "result_cache": m["result_cache"],
        }
        for mode, m in per_mode.items()
        if parse_config(mode)[2] in ("disk-cold", "disk-warm")
    }
    headline = per_mode[modes[-1]]
    uncached = [m for m in modes if parse_config(m)[2] == "nocache"]
    result = {
        "benchmark": "train",
        "preset": opts.preset,
        "schedule": opts.schedule,
        "steps_per_run": opts.steps,
        "repeats": opts.repeats,
        "num_envs": base.num_envs,
        "env_threads": base.env_threads,
        "configs": modes,
        "backend": opts.backend,
        "slow": opts.slow or None,
        "train_tasks": opts.train_tasks,
        "warm_cache": opts.warm,
        "cpus": os.cpu_count(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "warm_fill_seconds": fill_seconds or None,
        "env_steps_per_s": headline["env_steps_per_s"],
        "env_steps_per_s_uncached": per_mode[uncached[-1]]["env_steps_per_s"] if uncached else None,
        "result_cache": headline["result_cache"],
        "rollout_seconds": headline["rollout_seconds"],
        "update_seconds": headline["update_seconds"],
        "straggler_seconds": headline["straggler_seconds"],
        "cpu_ms_per_step": headline["cpu_ms_per_step"],
        # the rate this machine's cores would allow if every one were busy with this run's work
        "cpu_bound_env_steps_per_s": (os.cpu_count() or 1) * 1e3 / max(headline["cpu_ms_per_step"]["machine"], 1e-9),
        # ... and if the trainer process cost nothing: what the sandboxes' own CPU per step allows
        "sandbox_bound_env_steps_per_s": (os.cpu_count() or 1)
        * 1e3
        / max(headline["cpu_ms_per_step"]["machine"] - headline["cpu_ms_per_step"]["trainer_process"], 1e-9),
        "modes": per_mode,
        **({"cold_vs_warm": cold_warm} if cold_warm else {}),
        **(grid or {}),
    }
    if uncached and parse_config(modes[-1])[2] != "nocache":
        result["cached_over_uncached"] = headline["env_steps_per_s"] / per_mode[uncached[-1]]["env_steps_per_s"]
    if len(modes) > 1:
        result["after_over_before"] = per_mode[modes[-1]]["env_steps_per_s"] / per_mode[modes[0]]["env_steps_per_s"]
    print(json.dumps(result, indent=None if opts.json else 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
