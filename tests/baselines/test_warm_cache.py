"""`python -m baselines.budgetmix --warm-cache D`: the disk cache filled before training serves the trainer's envs."""

from __future__ import annotations

import dataclasses

import gymnasium as gym
import pytest

import agentgym  # noqa: F401
from agentgym.envs.coding.result_cache import DiskStore, ResultCache
from agentgym.errors import ConfigError
from baselines.config import Args
from baselines.experiment.eval_lists import split_task_ids
from baselines.experiment.warm_cache import prefill
from baselines.policy.train import coding_kwargs


def test_a_filled_cache_serves_every_state_one_patch_away() -> None:
    args = dataclasses.replace(Args(), backend="local", warm_cache=1, warm_cache_tasks=2, eval_tasks=2, env_threads=2)
    report = prefill(args)
    assert report["tasks"] == 4 and report["states"] >= 4 and report["store"]["entries"] > 0 and report["seconds"] > 0
    again = prefill(args)  # everything is there now: only hits
    assert again["states"] == report["states"]
    assert all(c["misses"] == 0 and c["hits"] > 0 for c in again["lookups"].values()), again["lookups"]
    # a fresh process's env, built as the trainer builds it, finds each state on disk
    cache = ResultCache(disk=DiskStore())
    env = gym.make(
        "agentgym/Coding-v0",
        split="train",
        backend="local",
        tiers=args.train_tier,
        disable_env_checker=True,
        **coding_kwargs("agentgym/Coding-v0", args.test_timeout, True),
    ).unwrapped
    env.result_cache = cache
    try:
        task = split_task_ids("agentgym/Coding-v0", "train", (args.train_tier,))[0]
        env.reset(options={"task_id": task})
        patch = [a for a in env.admissible_actions() if a.startswith("patch")][-1]
        env.step(patch)
        _, _, _, _, tested = env.step("test")
        _, _, _, _, submitted = env.step("submit")
        assert tested["cost"]["cache_hit"] and submitted["cost"]["cache_hit"]
        assert cache.stats()["test"]["disk_hits"] == 1 and cache.stats()["verify"]["disk_hits"] == 1
    finally:
        env.close()


def test_only_for_coding() -> None:
    with pytest.raises(ConfigError, match="Coding-v0"):
        prefill(dataclasses.replace(Args(), env_ids="agentgym/ToolUse-v0", warm_cache=1))
