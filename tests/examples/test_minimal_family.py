"""examples/minimal_family.py: the one-file family runs as a script and passes the same contract checks."""

from __future__ import annotations

import importlib
import os
import sys

import gymnasium as gym
import pytest

from agentgym import events
from agentgym.agents import OracleAgent
from agentgym.testing import assert_recovers
from agentgym.testing.contract import check_contract

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV_ID = "example/Ini-v0"


@pytest.fixture(scope="module")
def ini():
    """The example imported as a module and registered with a string entry point, as a user's
    package would be, so ``env.spec`` pickles (the contract's round trip)."""
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        module = importlib.import_module("minimal_family")
    finally:
        sys.path.remove(os.path.join(ROOT, "examples"))
    if ENV_ID not in gym.registry:
        gym.register(ENV_ID, entry_point="minimal_family:IniEnv")
    return module


def test_the_script_runs(run_example):
    out = run_example("minimal_family.py", "--backend", "local", "--episodes", "3").stdout
    assert "recovered from a tool error in 3/3 episodes" in out and "state_mismatch" in out


def test_the_public_contract_suite_passes(ini):
    """The same checks every agentgym id passes (tests/envs/test_registry.py), from the package."""
    # the example's config has no other actor, so it declares no state drift: the other four fault kinds
    check_contract(ENV_ID, backend="local", fault_kinds=("tool_error", "timeout", "empty_output", "corrupted_output"))


@pytest.mark.parametrize("kind", ["tool_error", "timeout", "empty_output", "corrupted_output"])
def test_oracle_recovers_on_every_task_tier(ini, kind):
    tasks = ini.IniTasks()
    ids = [tasks.ids("test", tier)[0] for tier in tasks.all_tiers]
    for task_id in ids:
        (episode,) = assert_recovers(
            ENV_ID,
            OracleAgent(),
            fault=f"{kind}@turn=2",
            budget=10,
            seeds=(0,),
            options={"task_id": task_id},
            backend="local",
        )
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
