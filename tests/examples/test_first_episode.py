"""examples/first_episode.py: one whole episode, on the local backend and on Docker."""

from __future__ import annotations

from support.docker import require_docker


def test_the_oracle_finishes_an_episode_on_the_local_backend(run_example):
    out = run_example("first_episode.py").stdout
    assert "local backend" in out and "[11 turns left] > " in out
    assert "reward=1.0 success=True failure_category=success turns=" in out


def test_a_random_agent_runs_out_of_turns(run_example):
    out = run_example("first_episode.py", "--env", "agentgym/Coding-v0", "--agent", "random", "--budget", "1").stdout
    assert "turns=1 of 1" in out and "success=False" in out


def test_the_same_episode_in_a_container(run_example):
    require_docker("agentgym/tooluse:latest")
    out = run_example("first_episode.py", "--backend", "docker").stdout
    assert "local backend" not in out and "reward=1.0 success=True failure_category=success" in out
