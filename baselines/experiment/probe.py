"""Does a trained policy use the budget and the verdict? Probe it on forced states.

`budget_probe` drives held-out tasks into named states with a fixed script, feeding the
policy's `EpisodeMemory` exactly as on-policy (the opening instruction first, then one
``encode`` per decision point with that point's observation and events, and ``record`` after
each action), and asks the policy for its menu distribution at each state with only the turns
left changed. The states:

- ``opening``: the task's instruction, nothing done;
- ``unverified edit``: one patch applied (the first patch in the menu), not tested;
- ``failing test``: a patch applied and the visible tests then failed (patches are tried in
  menu order, reverting between, until a test fails; tasks where none fails are skipped);
- ``passing test``: a patch applied and the visible tests then passed (likewise).

It reports P(submit), P(revert) and P(test) per state and turns left, with the number of states.
The tables answer: P(revert | failing test, turns left) — does the policy recover when a check
says its edit is wrong and turns allow? P(submit | unverified edit, turns left) — does it commit
when turns run low? A policy blind to the budget gives the same number in every column.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import torch

import agentgym
from agentgym.core import AgentEnv
from baselines.policy.families import plan_for
from baselines.policy.features import EpisodeMemory, stack_steps
from baselines.policy.model import MenuPolicy

__all__ = ["budget_probe", "forced_states", "SUBMIT", "STATES"]

SUBMIT = "submit"
STATES = ("opening", "unverified edit", "failing test", "passing test")
_PROBED = ("submit", "revert", "test")


def _verdict(info: dict[str, Any]) -> bool | None:
    for e in info.get("events") or []:
        if e.get("kind") == "verification":
            return bool(e.get("ok"))
    return None


def forced_states(
    env: Any, task_id: str, seed: int, dim: int, max_actions: int
) -> dict[str, tuple[EpisodeMemory, dict, dict]]:
    """The named states of one task: state name -> (memory before the state's encode, obs, info).

    The memory is fed as on-policy: ``encode`` at every decision point, ``record`` after each action.
    """
    out: dict[str, tuple[EpisodeMemory, dict, dict]] = {}
    mem = EpisodeMemory(dim, max_actions)
    obs, info = env.reset(seed=seed, options={"task_id": task_id})

    def step(action: str) -> tuple[dict, dict, bool]:
        nonlocal obs, info
        mem.encode(obs, info)
        mem.record(action)
        obs, _, terminated, truncated, info = env.step(action)
        return obs, info, bool(terminated or truncated)

    out["opening"] = (copy.deepcopy(mem), obs, info)
    patches = [a for a in info.get("admissible_actions") or [] if a.startswith("patch\n")]
    for n, patch in enumerate(patches):
        if n:
            _, _, ended = step("revert")
            if ended:
                break
        _, _, ended = step(patch)
        if ended:
            break
        if "unverified edit" not in out:
            out["unverified edit"] = (copy.deepcopy(mem), obs, info)
        _, _, ended = step("test")
        if ended:
            break
        verdict = _verdict(info)
        name = {True: "passing test", False: "failing test"}.get(verdict)  # type: ignore[arg-type]
        if name is not None and name not in out:
            out[name] = (copy.deepcopy(mem), obs, info)
        if "failing test" in out and "passing test" in out:
            break
    return out


def _probs(
    policy: MenuPolicy, mem: EpisodeMemory, obs: dict[str, Any], info: dict[str, Any], turns_left: int, max_actions: int
) -> tuple[list[str], np.ndarray]:
    step = copy.deepcopy(mem).encode({**obs, "turns_left": np.array([turns_left])}, info)
    batch = {k: torch.as_tensor(v) for k, v in stack_steps([step], max_actions).items()}
    with torch.no_grad():
        logits, _ = policy.forward_batch(batch)
    return step.actions, torch.softmax(logits[0, : len(step.actions)], -1).numpy()


def budget_probe(
    policies: dict[str, MenuPolicy],
    env_id: str,
    *,
    max_actions: int,
    turns_left: Sequence[int],
    tasks: int = 8,
    backend: str = "auto",
    split: str = "heldout",
    env_kwargs: dict[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per policy: ``p[action][state][turns_left]`` (mean probability), ``states`` (count per state),
    and ``tv_min_max`` (mean total-variation distance between the smallest and largest turns left).

    Empty for a family with a plan (`baselines.policy.families`: ToolUse-v0, MiniWoB-v0): the states are
    Coding's (a patch, its test, a revert), and those families' recovery is measured by intervention.
    """
    if plan_for(env_id) is not None:
        return {}
    env = agentgym.make(env_id, split=split, backend=backend, budget=64, **(env_kwargs or {}))
    out: dict[str, dict[str, Any]] = {}
    try:
        ids = list(cast(AgentEnv, env.unwrapped).tasks.ids(split))
        picked = [ids[i] for i in np.random.default_rng(0).choice(len(ids), size=min(tasks, len(ids)), replace=False)]
        dims = {p.dim for p in policies.values()}
        states = {d: [forced_states(env, task, i, d, max_actions) for i, task in enumerate(picked)] for d in dims}
        for name, policy in policies.items():
            policy = policy.eval()
            acc: dict[str, dict[str, dict[int, list[float]]]] = {
                a: {s: {t: [] for t in turns_left} for s in STATES} for a in _PROBED
            }
            tv: list[float] = []
            for per_task in states[policy.dim]:
                for where, (mem, obs, info) in per_task.items():
                    dists = {}
                    for t in turns_left:
                        acts, p = _probs(policy, mem, obs, info, t, max_actions)
                        dists[t] = p
                        for a in _PROBED:
                            acc[a][where][t].append(float(p[acts.index(a)]) if a in acts else 0.0)
                    tv.append(0.5 * float(np.abs(dists[min(turns_left)] - dists[max(turns_left)]).sum()))
            out[name] = {
                "p": {
                    a: {s: {t: float(np.mean(v)) if v else None for t, v in by_t.items()} for s, by_t in by_s.items()}
                    for a, by_s in acc.items()
                },
                "states": {s: sum(1 for per_task in states[policy.dim] if s in per_task) for s in STATES},
                "tv_min_max": float(np.mean(tv)) if tv else None,
            }
    finally:
        env.close()
    return out
