"""The trained policy as an `agentgym.agents.Agent`, so the evaluation harness can drive it.

``--agent baselines.agent:load`` with ``checkpoint=PATH`` loads a BudgetMix checkpoint for
``agentgym eval``; the experiment builds `PolicyAgent` directly. It encodes observations with
the same `EpisodeMemory` as training, so it sees the turns left the harness's budget gives it.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium as gym
import torch

from agentgym.errors import ConfigError
from baselines.features import FEATURES_VERSION, EpisodeMemory, stack_steps
from baselines.policy import MenuPolicy, pick_device
from baselines.rollout import FALLBACK_ACTION

__all__ = ["PolicyAgent", "load", "save_checkpoint", "load_policy"]


class PolicyAgent:
    """Acts with a `MenuPolicy`: samples from its menu distribution (``greedy=False``, so
    pass@k over k samples means something) or takes the argmax. Seeded per episode by the harness.
    """

    def __init__(self, policy: MenuPolicy, *, max_actions: int, greedy: bool = False, seed: int = 0) -> None:
        self.policy = policy.eval()
        self.max_actions = max_actions
        self.greedy = greedy
        self.memory = EpisodeMemory(policy.dim, max_actions)
        self.generator = torch.Generator().manual_seed(seed)

    def seed(self, seed: int) -> None:
        self.generator.manual_seed(int(seed))

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        self.memory.reset()

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        step = self.memory.encode(obs, info)
        if not step.actions:
            action = FALLBACK_ACTION
        else:
            index, _, _ = self.policy.act(stack_steps([step], self.max_actions), greedy=self.greedy, generator=self.generator)
            action = step.actions[int(index[0])]
        self.memory.record(action)
        return action

    def forced(self, obs: dict[str, Any], info: dict[str, Any], action: str) -> None:
        """An intervention's forced action, kept in memory as if the policy had chosen it (the same
        ``encode`` then ``record`` as `act`, and as the trainer's forced starts)."""
        self.memory.encode(obs, info)
        self.memory.record(action)

    def __getstate__(self) -> dict[str, Any]:
        # worker processes rebuild the generator from the per-episode seed the harness sends
        state = dict(self.__dict__)
        state["generator"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        # in an evaluation worker: one torch thread per process (the pool already uses the cores)
        torch.set_num_threads(1)
        self.__dict__.update(state)
        self.generator = torch.Generator().manual_seed(0)


def save_checkpoint(path: str | os.PathLike[str], policy: MenuPolicy, **extra: Any) -> None:
    """Write the policy (config and weights) plus ``extra`` (optimizer, step, args) atomically."""
    tmp = f"{path}.tmp"
    torch.save({"policy_config": policy.config(), "policy": policy.state_dict(), **extra}, tmp)
    os.replace(tmp, path)


def load_policy(path: str | os.PathLike[str], device: str = "cpu") -> tuple[MenuPolicy, dict[str, Any]]:
    """The policy stored in a checkpoint, and the checkpoint dict."""
    ckpt = torch.load(path, map_location=pick_device(device), weights_only=False)
    config = dict(ckpt["policy_config"])
    version = config.pop("features", 1)
    if version != FEATURES_VERSION:
        raise ConfigError(
            f"checkpoint {path} encodes observations with baseline features v{version}, this code with "
            f"v{FEATURES_VERSION}; retrain it (delete its run folder, or rerun without --resume)"
        )
    policy = MenuPolicy(**config).to(pick_device(device))
    policy.load_state_dict(ckpt["policy"])
    return policy, ckpt


def load(checkpoint: str, greedy: bool = False, device: str = "cpu", **_: Any) -> PolicyAgent:
    """Factory for ``agentgym eval --agent baselines.agent:load`` (pass ``checkpoint=PATH``)."""
    policy, ckpt = load_policy(checkpoint, device)
    return PolicyAgent(policy, max_actions=int(ckpt.get("max_actions", 32)), greedy=greedy)
