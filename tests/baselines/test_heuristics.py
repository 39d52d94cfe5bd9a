"""Scripted Coding-v0 strategies: what they do at a short and a long budget (local sandbox)."""

from __future__ import annotations

import agentgym
from baselines.heuristics import BudgetAwareAgent, CarefulAgent, HastyAgent


def _episode(agent, budget: int, task: str) -> tuple[list[str], dict]:
    env = agentgym.make("agentgym/Coding-v0", budget=budget, split="test", backend="local", labels=True)
    try:
        agent.seed(0)
        obs, info = env.reset(seed=0, options={"task_id": task})
        agent.reset(env, obs, info)
        actions, done = [], False
        while not done:
            actions.append(agent.act(obs, info))
            obs, _, terminated, truncated, info = env.step(actions[-1])
            done = terminated or truncated
        return actions, info
    finally:
        env.close()


def _one_bug_task() -> str:
    env = agentgym.make("agentgym/Coding-v0", split="test", backend="local", tiers="one_bug")
    try:
        return env.unwrapped.tasks.ids("test")[0]
    finally:
        env.close()


def test_strategies_differ_by_budget() -> None:
    task = _one_bug_task()
    hasty, _ = _episode(HastyAgent(), 8, task)
    assert [a.split("\n")[0] for a in hasty] == ["patch", "submit"]
    careful, _ = _episode(CarefulAgent(), 2, task)
    assert [a.split("\n")[0] for a in careful] == ["patch", "test"]  # ran out of turns before submitting
    aware, info = _episode(BudgetAwareAgent(), 2, task)
    assert [a.split("\n")[0] for a in aware] == ["patch", "submit"] and info["budget_exhausted"] is False
    aware_long, info = _episode(BudgetAwareAgent(), 16, task)
    verbs = [a.split("\n")[0] for a in aware_long]
    assert verbs[:2] == ["patch", "test"] and verbs[-1] == "submit"
    # it reverts every patch whose tests failed, so exactly one patch is applied when it submits
    assert verbs.count("patch") - verbs.count("revert") == 1
