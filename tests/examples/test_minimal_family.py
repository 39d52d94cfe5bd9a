"""examples/minimal_family.py: the one-file family runs as a script and passes the same contract checks."""

from __future__ import annotations

import importlib.util
import os

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from agentgym import events
from agentgym.agents import OracleAgent
from agentgym.testing import assert_recovers

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV_ID = "example/Ini-v0"


@pytest.fixture(scope="module")
def ini():
    spec = importlib.util.spec_from_file_location("minimal_family", os.path.join(ROOT, "examples", "minimal_family.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if ENV_ID not in gym.registry:
        gym.register(ENV_ID, entry_point=module.IniEnv)
    return module


def test_the_script_runs(run_example):
    out = run_example("minimal_family.py", "--backend", "local", "--episodes", "3").stdout
    assert "recovered from a tool error in 3/3 episodes" in out and "state_mismatch" in out


def test_contract_rendering_included(ini):
    env = gym.make(ENV_ID, backend="local", render_mode="ansi")
    try:
        check_env(env.unwrapped)
    finally:
        env.close()


@pytest.mark.parametrize("kind", ["tool_error", "timeout", "empty_output", "corrupted_output"])
def test_oracle_recovers_on_every_task_tier(ini, kind):
    tasks = ini.IniTasks()
    ids = [tasks.ids("test", tier)[0] for tier in tasks.all_tiers]
    for task_id in ids:
        (episode,) = assert_recovers(ENV_ID, OracleAgent(), fault=f"{kind}@turn=2", budget=10, seeds=(0,),
                                     options={"task_id": task_id}, backend="local")
        assert episode.faults == [kind] and all(events.check(e) for e in episode.events)


def test_the_verifier_rejects_a_wrong_value(ini):
    env = gym.make(ENV_ID, backend="local")
    try:
        env.reset(seed=0)
        env.step('set_value(section="cache", key="ttl_s", value="1")')
        _, reward, terminated, _, info = env.step('finish("done")')
        assert terminated and reward == 0.0 and info["success"] is False
    finally:
        env.close()
