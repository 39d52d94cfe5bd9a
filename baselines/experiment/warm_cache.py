"""Fill Coding-v0's disk result cache before training: ``python -m baselines.budgetmix --warm-cache D``.

A menu policy's test runs and verifications are deterministic over a few thousand code states: the
states reachable from each task's start by up to ``D`` menu patches (a revert returns to one of
them). `prefill` plays each such state once, through the env the trainer builds (the same
constructor arguments, so the same cache keys): reset, replay the patches, ``test``, ``submit``.
The outcomes land in the `agentgym.envs.coding.result_cache.DiskStore` (``AGENTGYM_CACHE_DIR``),
where every later training and evaluation process finds them. Entries already there are hits, so
a second fill costs little and an interrupted one resumes. It reports its time and the store's size.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agentgym.envs.coding.result_cache import (
    DiskStore,
    disk_enabled,
    process_cache,
    workspace_digest,
)
from agentgym.errors import ConfigError
from baselines.config import Args, first_env_id
from baselines.experiment.eval_lists import split_task_ids, task_list
from baselines.policy.train import coding_kwargs

__all__ = ["prefill", "fill_task"]


def fill_task(env: Any, task_id: str, depth: int) -> int:
    """Play every state of ``task_id`` reachable by up to ``depth`` menu patches once; returns how many."""

    seen: set[str] = set()
    frontier: list[tuple[str, ...]] = [()]
    for level in range(depth + 1):
        children: list[tuple[str, ...]] = []
        for path in frontier:
            env.reset(seed=0, options={"task_id": task_id})
            for action in path:
                env.step(action)
            digest = workspace_digest(env._files)
            if digest in seen:
                continue
            seen.add(digest)
            if level < depth:
                children += [path + (a,) for a in env.admissible_actions() if a.startswith("patch")]
            env.step("test")
            env.step("submit")
        frontier = children
    return len(seen)


def _fill_jobs(args: Args, env_id: str) -> list[tuple[str, tuple[str, ...] | None, str]]:
    """(split, tiers, task id) of every task to fill: the training split's, then the evaluation list's
    (each the first ``--warm-cache-tasks`` when given)."""
    train_tiers = tuple(t for t in str(args.train_tier).split(",") if t) or None
    eval_tiers = (args.eval_tier,) if args.eval_tier else None
    limit = args.warm_cache_tasks or None
    jobs: list[tuple[str, tuple[str, ...] | None, str]] = [
        ("train", train_tiers, t) for t in split_task_ids(env_id, "train", train_tiers)[:limit]
    ]
    jobs += [
        (args.eval_split, eval_tiers, t)
        for t in task_list(args.eval_list, env_id, args.eval_split, eval_tiers, args.eval_tasks)[:limit]
    ]
    return jobs


def prefill(args: Args) -> dict[str, Any]:
    """Fill the disk cache for the training split and the evaluation list of ``args`` (`baselines.config.Args`)."""
    import gymnasium as gym

    env_id = first_env_id(args.env_ids)
    if "Coding" not in env_id:
        raise ConfigError(f"--warm-cache fills Coding-v0's result cache; the env is {env_id}")
    if not disk_enabled():
        raise ConfigError("--warm-cache with AGENTGYM_DISK_CACHE=0 would fill nothing that lasts: unset it")
    jobs = _fill_jobs(args, env_id)
    kwargs = coding_kwargs(env_id, args.test_timeout, True)
    local = threading.local()
    envs: list[Any] = []
    lock = threading.Lock()

    def one(job: tuple[str, Any, str]) -> int:
        split, tiers, task_id = job
        key = (split, tiers)
        cache = getattr(local, "envs", None)
        if cache is None:
            cache = local.envs = {}
        if key not in cache:
            env = gym.make(
                env_id,
                split=split,
                backend=args.backend,
                disable_env_checker=True,
                **({"tiers": tiers} if tiers else {}),
                **kwargs,
            ).unwrapped
            cache[key] = env
            with lock:
                envs.append(env)
        return fill_task(cache[key], task_id, args.warm_cache)

    before = process_cache().stats()
    started = time.perf_counter()
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.env_threads)) as pool:
            states = sum(pool.map(one, jobs))
    finally:
        for env in envs:
            env.close()
    seconds = time.perf_counter() - started
    after = process_cache().stats()
    info = (process_cache().disk or DiskStore()).info()  # the store the envs wrote to
    return {
        "warm_cache_depth": args.warm_cache,
        "tasks": len(jobs),
        "states": states,
        "seconds": seconds,
        "lookups": {k: {n: after[k][n] - before[k][n] for n in after[k]} for k in after},
        "store": {"path": info["path"], "entries": info["entries"], "bytes": info["bytes"]},
    }
