"""Scripted Coding-v0 strategies: what they do at a short and a long budget (local sandbox)."""

from __future__ import annotations

import agentgym
from baselines.policy.heuristics import BudgetAwareAgent, CarefulAgent, HastyAgent


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


def test_learned_pick_takes_the_policys_favourite_patch_then_loops() -> None:
    import torch

    from baselines.policy.heuristics import LearnedPickAgent
    from baselines.policy.model import MenuPolicy

    task = _one_bug_task()
    torch.manual_seed(0)
    policy = MenuPolicy(dim=32, hidden=16)
    env = agentgym.make("agentgym/Coding-v0", budget=16, split="test", backend="local", labels=True)
    try:
        obs, info = env.reset(seed=0, options={"task_id": task})
    finally:
        env.close()
    patches = [a for a in info["admissible_actions"] if a.startswith("patch")]
    from baselines.policy.features import EpisodeMemory, stack_steps

    step = EpisodeMemory(32, 32).encode(obs, info)
    with torch.no_grad():
        logits, _ = policy.forward_batch({k: torch.as_tensor(v) for k, v in stack_steps([step], 32).items()})
    scores = {a: float(logits[0, i]) for i, a in enumerate(step.actions)}
    favourite = max(patches, key=scores.__getitem__)
    actions, _ = _episode(LearnedPickAgent(policy, max_actions=32), 16, task)
    assert actions[0] == favourite  # the pick is the policy's, not the script's random one
    verbs = [a.split("\n")[0] for a in actions]
    assert verbs[:2] == ["patch", "test"] and verbs[-1] == "submit"
    assert verbs.count("patch") - verbs.count("revert") == 1


def test_pick_loop_reference_uses_the_first_seeds_policies() -> None:
    from types import SimpleNamespace

    from baselines.experiment.arms import pick_loop_agents
    from baselines.policy.heuristics import LearnedPickAgent

    policies = {seed: SimpleNamespace(eval=lambda seed=seed: f"policy-{seed}") for seed in (5, 1, 3, 2)}
    trained = {seed: SimpleNamespace(policy=p, max_actions=32) for seed, p in policies.items()}
    refs = pick_loop_agents(trained, 3)
    assert sorted(refs) == [1, 2, 3] and all(isinstance(a, LearnedPickAgent) for a in refs.values())
    assert [refs[s].policy for s in (1, 2, 3)] == ["policy-1", "policy-2", "policy-3"]
    assert sorted(pick_loop_agents(trained, 0)) == [1, 2, 3, 5]
