"""Does a trained policy use the budget? Probe it: same states, only the turns left changed.

`budget_probe` takes the opening state of held-out tasks, and the state after the policy's own
first action, and asks the policy for its menu distribution with each number of turns left.
It reports the probability of ``submit`` (committing now) and the total-variation distance
between the distributions at the smallest and largest budgets. A policy blind to the budget
gives the same numbers in every column.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from baselines.features import EpisodeMemory, stack_steps
from baselines.policy import MenuPolicy

__all__ = ["budget_probe", "SUBMIT"]

SUBMIT = "submit"


def _probs(policy: MenuPolicy, memory_factory: Any, obs: dict[str, Any], info: dict[str, Any], history: list[str],
           turns_left: int, max_actions: int) -> tuple[list[str], np.ndarray]:
    mem: EpisodeMemory = memory_factory()
    for action in history:
        mem.record(action)
    step = mem.encode({**obs, "turns_left": np.array([turns_left])}, info)
    batch = {k: torch.as_tensor(v) for k, v in stack_steps([step], max_actions).items()}
    with torch.no_grad():
        logits, _ = policy(batch["observation"], batch["budget"], batch["candidates"], batch["candidate_extras"], batch["mask"])
    return step.actions, torch.softmax(logits[0, : len(step.actions)], -1).numpy()


def budget_probe(
    policies: dict[str, MenuPolicy],
    env_id: str,
    *,
    max_actions: int,
    turns_left: list[int],
    tasks: int = 8,
    backend: str = "auto",
    env_kwargs: dict[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per policy: mean P(submit) per turns-left at the opening state and after one action,
    and the mean total-variation distance between the smallest and largest turns-left."""
    import agentgym

    env = agentgym.make(env_id, split="test", backend=backend, **(env_kwargs or {}))
    out: dict[str, dict[str, Any]] = {}
    try:
        ids = list(env.unwrapped.tasks.ids("test"))
        picked = [ids[i] for i in np.random.default_rng(0).choice(len(ids), size=min(tasks, len(ids)), replace=False)]
        for name, policy in policies.items():
            policy = policy.eval()

            def factory() -> EpisodeMemory:
                return EpisodeMemory(policy.dim, max_actions)

            acc: dict[str, dict[int, list[float]]] = {"opening": {t: [] for t in turns_left}, "after one action": {t: [] for t in turns_left}}
            tv: list[float] = []
            for i, task in enumerate(picked):
                obs, info = env.reset(seed=i, options={"task_id": task})
                states = [(obs, info, [], "opening")]
                # the policy's own most likely first action at the largest budget, then the state it leads to
                actions, p = _probs(policy, factory, obs, info, [], max(turns_left), max_actions)
                first = actions[int(np.argmax(p))]
                obs2, _, terminated, truncated, info2 = env.step(first)
                if not (terminated or truncated):
                    states.append((obs2, info2, [first], "after one action"))
                for o, inf, hist, where in states:
                    dists = {}
                    for t in turns_left:
                        acts, p = _probs(policy, factory, o, inf, hist, t, max_actions)
                        dists[t] = p
                        acc[where][t].append(float(p[acts.index(SUBMIT)]) if SUBMIT in acts else 0.0)
                    tv.append(0.5 * float(np.abs(dists[min(turns_left)] - dists[max(turns_left)]).sum()))
            out[name] = {
                "p_submit": {where: {t: float(np.mean(v)) if v else None for t, v in by_t.items()} for where, by_t in acc.items()},
                "tv_min_max": float(np.mean(tv)) if tv else None,
                "states": len(tv),
            }
    finally:
        env.close()
    return out
