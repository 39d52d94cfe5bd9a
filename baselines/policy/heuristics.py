"""Scripted menu strategies for Coding-v0, to measure what each budget rewards.

They know nothing about which patch is right (they pick among the menu's patches at random,
seeded per episode), so they isolate the value of *verifying* against *committing early*:

- `HastyAgent`: apply one patch, submit (two turns).
- `CarefulAgent`: apply a patch, run the visible tests; if they pass, submit, else revert and
  try the next patch (three turns per try); submit when out of patches.
- `BudgetAwareAgent`: careful while turns allow, but commits (patch then submit, or submit)
  when the turns left are too few for another test cycle.
- `LearnedPickAgent`: the budget-aware loop, but each patch is the one a trained policy scores
  highest among those not yet tried: a learned pick with a scripted test-and-revert loop, the
  measured ceiling of a policy that would learn the loop.

``python -m agentgym eval --agent baselines.policy.heuristics:careful`` runs one with the harness.
"""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym
import numpy as np

from baselines.policy.features import EpisodeMemory, stack_steps

__all__ = ["HastyAgent", "CarefulAgent", "BudgetAwareAgent", "LearnedPickAgent", "hasty", "careful", "budget_aware"]

_FAILED = re.compile(r"\b\d+ (failed|errors?)\b|^error:", re.MULTILINE)


class _MenuScript:
    budget_aware = False
    test_first = True

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        self.tried: set[str] = set()
        self.applied = False
        self.tested = False

    def forced(self, obs: dict[str, Any], info: dict[str, Any], action: str) -> None:
        """An intervention's forced action, taken into the script's state as if it had chosen it: a
        patch is tried and applied (untested), a test tests it, a revert undoes it."""
        if action.startswith("patch"):
            self.tried.add(action)
            self.applied, self.tested = True, False
        elif action == "test":
            self.tested = self.applied
        elif action == "revert":
            self.applied = self.tested = False

    def _next_patch(self, menu: list[str]) -> str | None:
        fresh = [a for a in menu if a.startswith("patch") and a not in self.tried]
        return fresh[int(self.rng.integers(len(fresh)))] if fresh else None

    def _left(self, obs: dict[str, Any], info: dict[str, Any]) -> int:
        if "turns_left" in obs:
            return int(np.asarray(obs["turns_left"]).reshape(-1)[0])
        return int(info.get("turns_left", 1_000))

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        menu = list(info.get("admissible_actions") or [])
        left = self._left(obs, info)
        text = str(obs.get("text", ""))
        if self.applied and self.tested:
            self.tested = False
            if not _FAILED.search(text):
                return "submit"
            if self.budget_aware and left <= 2:
                return "submit"  # no room for another cycle: keep the patch and commit
            self.applied = False
            return "revert"
        if self.applied:
            if not self.test_first or (self.budget_aware and left <= 1):
                return "submit"
            self.tested = True
            return "test"
        patch = self._next_patch(menu)
        if patch is None or (self.budget_aware and left <= 1):
            return "submit"
        self.tried.add(patch)
        self.applied = True
        return patch


class HastyAgent(_MenuScript):
    """Patch once, submit."""

    test_first = False


class CarefulAgent(_MenuScript):
    """Patch, test, and revert-and-retry until the visible tests pass; blind to the budget."""


class BudgetAwareAgent(_MenuScript):
    """Careful while turns allow; commits when the turns left cannot fit another test cycle."""

    budget_aware = True


class LearnedPickAgent(BudgetAwareAgent):
    """`BudgetAwareAgent` whose next patch is the policy's highest-scored untried one.

    The policy's memory is fed as on-policy (``encode`` at every turn, ``record`` after), so its
    patch scores are those it would give in its own episodes.
    """

    def __init__(self, policy: Any, *, max_actions: int, seed: int = 0) -> None:
        super().__init__(seed)
        self.policy = policy.eval()
        self.max_actions = max_actions

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        super().reset(env, obs, info)
        self.memory = EpisodeMemory(self.policy.dim, self.max_actions)

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        self._step = self.memory.encode(obs, info)
        action = super().act(obs, info)
        self.memory.record(action)
        return action

    def forced(self, obs: dict[str, Any], info: dict[str, Any], action: str) -> None:
        """The script's state as in `_MenuScript.forced`; the policy's memory as in `act`."""
        self.memory.encode(obs, info)
        super().forced(obs, info, action)
        self.memory.record(action)

    def _next_patch(self, menu: list[str]) -> str | None:
        import torch

        fresh = [i for i, a in enumerate(self._step.actions) if a.startswith("patch") and a not in self.tried]
        if not fresh:
            return None
        batch = {k: torch.as_tensor(v) for k, v in stack_steps([self._step], self.max_actions).items()}
        with torch.no_grad():
            logits, _ = self.policy.forward_batch(batch)
        return self._step.actions[max(fresh, key=lambda i: float(logits[0, i]))]

    def __setstate__(self, state: dict[str, Any]) -> None:
        import torch

        torch.set_num_threads(1)  # in an evaluation worker: the pool already uses the cores
        self.__dict__.update(state)


def hasty(**kwargs: Any) -> HastyAgent:
    return HastyAgent(**kwargs)


def careful(**kwargs: Any) -> CarefulAgent:
    return CarefulAgent(**kwargs)


def budget_aware(**kwargs: Any) -> BudgetAwareAgent:
    return BudgetAwareAgent(**kwargs)
