"""examples/cleanrl_ppo.py: a PPO loop over an async vector env (default shared memory)."""

from __future__ import annotations

import re

import pytest


@pytest.mark.slow
def test_cleanrl_ppo_runs_over_async_vector_envs(run_example):
    proc = run_example(
        "cleanrl_ppo.py",
        "--num-envs",
        "2",
        "--num-steps",
        "16",
        "--total-timesteps",
        "64",
        "--budget",
        "4",
        "--backend",
        "local",
    )
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("global_step=64") and int(re.search(r"episodes=(\d+)", last).group(1)) >= 4
