"""An oracle Pass@(K,T) evaluation over the test split of every registered family, in its sandbox:
1.0 wherever T reaches a task's minimum turns, 0 below."""

from __future__ import annotations

import gymnasium as gym
import pytest

import agentgym
from agentgym.eval import evaluate
from agentgym.eval.harness import select_tasks
from support.docker import require_docker

FAMILIES = sorted(agentgym.ENV_IDS)


@pytest.mark.docker
@pytest.mark.parametrize("env_id", FAMILIES)
def test_oracle_grid_on_the_test_split(env_id, tmp_path):
    probe = gym.make(env_id, split="test", backend="local")
    image, tasks = probe.unwrapped.image, probe.unwrapped.tasks
    probe.close()
    require_docker(image)
    ids = select_tasks(env_id, "test", 3, seed=0)
    min_turns = {t: tasks.get(t).min_turns for t in ids}
    ts = sorted({max(1, min(min_turns.values()) - 1), max(min_turns.values())})
    result = evaluate(
        env_id, "oracle", ks=[1, 2], ts=ts, n=2, tasks=ids, sandbox="docker", out=tmp_path, progress=False, report=False
    )
    assert result.summary["counts"]["infra_errors"] == 0
    for r in result.records:
        assert r["success"] == (r["T"] >= min_turns[r["task"]]), r
        assert r["category"] == ("success" if r["success"] else "timeout"), r
    grid = result.grid()
    assert grid[max(min_turns.values())] == {1: 1.0, 2: 1.0}
    if min(min_turns.values()) > 1:
        assert grid[ts[0]] == {1: 0.0, 2: 0.0}
