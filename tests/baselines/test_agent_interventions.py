"""Forced starts (``agentgym eval --intervention``) reach the menu agents' history as their own steps:
`PolicyAgent`'s memory exactly as the trainer's forced starts feed it, the scripted loops' state too."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import agentgym
from agentgym.envs.coding.tasks import default_taskset
from agentgym.eval.episodes import EpisodeSpec
from agentgym.eval.runner import run_episode
from baselines.policy.agent import PolicyAgent
from baselines.policy.features import EpisodeMemory
from baselines.policy.heuristics import CarefulAgent, LearnedPickAgent
from baselines.policy.model import MenuPolicy

DIM, MAX_ACTIONS = 32, 32


@pytest.fixture(scope="module")
def env():
    e = agentgym.make("agentgym/Coding-v0", budget=8, split="test", backend="local", labels=True)
    yield e
    e.close()


@pytest.fixture(scope="module")
def task(env) -> str:
    """A one-bug test task whose forced wrong patch fails the visible tests (some decoys pass them)."""
    tasks = default_taskset()
    for i in tasks.ids("test", "one_bug"):
        if set(tasks.bugs_of(i)[0].covering) & set(tasks.corpus[tasks.bugs_of(i)[0].module].visible):
            env.reset(seed=0, options={"task_id": i})
            env.step(env.unwrapped.wrong_patch())
            *_, info = env.step("test")
            if [e["ok"] for e in info["events"] if e["kind"] == "verification"] == [False]:
                return i
    raise AssertionError("no task whose wrong patch fails the visible tests")


def forced_start(env, task, agent, name: str = "wrong-patch-tested", memory: EpisodeMemory | None = None):
    """Reset, then show ``agent`` the forced actions and play them (and feed ``memory`` as the trainer's
    `baselines.policy.rollout` forced starts do: encode, record, step); returns the obs, info and actions."""
    obs, info = env.reset(seed=0, options={"task_id": task})
    agent.reset(env, obs, info)
    forced = env.unwrapped.forced_start(name)
    for action in forced:
        agent.forced(obs, info, action)
        if memory is not None:
            memory.encode(obs, info)
            memory.record(action)
        obs, _, _, _, info = env.step(action)
    return obs, info, forced


def test_policy_memory_sees_the_forced_steps_as_the_trainers_forced_starts(env, task):
    torch.manual_seed(0)
    agent = PolicyAgent(MenuPolicy(dim=DIM, hidden=16), max_actions=MAX_ACTIONS)
    reference = EpisodeMemory(DIM, MAX_ACTIONS)
    obs, info, forced = forced_start(env, task, agent, memory=reference)
    mine, theirs = agent.memory.encode(obs, info), reference.encode(obs, info)
    for field in ("observation", "budget", "progress", "candidates", "candidate_extras"):
        np.testing.assert_array_equal(getattr(mine, field), getattr(theirs, field), err_msg=field)
    assert agent.memory.progress.verdict is False  # it saw its (forced) patch's test fail
    assert agent.memory._taken[forced[0]] == 1 and agent.memory._turns_used == 2


def test_policy_agent_plays_an_intervened_episode_through_the_harness(env, task):
    torch.manual_seed(0)
    agent = PolicyAgent(MenuPolicy(dim=DIM, hidden=16), max_actions=MAX_ACTIONS, greedy=True)
    spec = EpisodeSpec("agentgym/Coding-v0", task, 8, 0, "", 0, "hard", "wrong-patch")
    record = run_episode(env, agent, spec)
    assert record["forced_turns"] == 1 and record["actions"][0] == record["forced_actions"][0]
    assert agent.memory._turns_used == record["turns"]  # forced and chosen turns alike


def test_scripted_loop_reverts_after_a_forced_failing_test_and_tries_another_patch(env, task):
    agent = CarefulAgent()
    obs, info, forced = forced_start(env, task, agent)
    assert agent.act(obs, info) == "revert"
    obs, *_, info = env.step("revert")
    patch = agent.act(obs, info)
    assert patch.startswith("patch") and patch != forced[0]  # the forced patch counts as tried


def test_scripted_loop_tests_a_forced_untested_patch(env, task):
    agent = CarefulAgent()
    obs, info, _ = forced_start(env, task, agent, "wrong-patch")
    assert agent.act(obs, info) == "test"


def test_learned_pick_memory_and_loop_take_the_forced_steps(env, task):
    torch.manual_seed(0)
    agent = LearnedPickAgent(MenuPolicy(dim=DIM, hidden=16), max_actions=MAX_ACTIONS)
    obs, info, forced = forced_start(env, task, agent)
    assert agent.memory._taken[forced[0]] == 1 and agent.memory._turns_used == 2
    assert agent.act(obs, info) == "revert"
