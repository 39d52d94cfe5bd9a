"""The trained policy as an `agentgym.agents.Agent`, so the evaluation harness can drive it.

``--agent baselines.policy.agent:load`` with ``checkpoint=PATH`` loads a BudgetMix checkpoint for
``agentgym eval``; the experiment builds `PolicyAgent` directly. It encodes observations with
the encoder training used for the env's family (`baselines.policy.family_features.episode_memory`:
Coding's `EpisodeMemory`, or `FamilyMemory`), so it sees the turns left the harness's budget
gives it; a policy is refused an env whose encoder is not the one it was trained on.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium as gym
import torch

from agentgym.errors import ConfigError
from baselines.policy.family_features import FAMILY_FEATURES_VERSION, FamilyMemory, encoder_for, family_of, features_tag
from baselines.policy.features import FEATURES_VERSION, EpisodeMemory, stack_steps
from baselines.policy.model import MenuPolicy, pick_device
from baselines.policy.rollout import FALLBACK_ACTION

__all__ = ["PolicyAgent", "load", "save_checkpoint", "load_policy"]


class PolicyAgent:
    """Acts with a `MenuPolicy`: samples from its menu distribution (``greedy=False``, so
    pass@k over k samples means something) or takes the argmax. Seeded per episode by the harness.
    """

    def __init__(self, policy: MenuPolicy, *, max_actions: int, greedy: bool = False, seed: int = 0) -> None:
        self.policy = policy.eval()
        self.max_actions = max_actions
        self.greedy = greedy
        self.memory: EpisodeMemory | FamilyMemory = EpisodeMemory(policy.dim, max_actions)
        self.generator = torch.Generator().manual_seed(seed)

    def seed(self, seed: int) -> None:
        self.generator.manual_seed(int(seed))

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """A fresh memory from the env's family's encoder; refuses an env the policy's inputs do not fit."""
        expected = features_tag(env)
        if self.policy.features != expected:
            raise ConfigError(
                f"this policy was trained on {_features_name(self.policy.features)} inputs, and "
                f"{getattr(getattr(env, 'unwrapped', env), 'family', env)!r} envs are encoded with "
                f"{_features_name(expected)}; evaluate it on the family it was trained on"
            )
        encoder = encoder_for(family_of(env))
        if type(self.memory) is encoder:
            self.memory.reset()
        else:
            self.memory = encoder(self.policy.dim, self.max_actions)

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        step = self.memory.encode(obs, info)
        if not step.actions:
            action = FALLBACK_ACTION
        else:
            index, _, _ = self.policy.act(
                stack_steps([step], self.max_actions), greedy=self.greedy, generator=self.generator
            )
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


def _features_name(tag: int | str) -> str:
    return f"family features {tag[len('family-') :]}" if isinstance(tag, str) else f"Coding's features v{tag}"


def load_policy(
    path: str | os.PathLike[str], device: str = "cpu", *, features: int | str | None = None
) -> tuple[MenuPolicy, dict[str, Any]]:
    """The policy stored in a checkpoint, and the checkpoint dict.

    Refused: a checkpoint whose encoder this code no longer builds (an older features version), and,
    given ``features`` (`baselines.policy.family_features.features_tag` of the env it is for), one trained
    on another encoder: a Coding checkpoint for ToolUse-v0 or the reverse.
    """
    ckpt = torch.load(path, map_location=pick_device(device), weights_only=False)
    config = dict(ckpt["policy_config"])
    version = config.pop("features", 1)
    family = f"family-v{FAMILY_FEATURES_VERSION}"
    if version != FEATURES_VERSION and version != family:
        current = family if isinstance(version, str) else FEATURES_VERSION
        raise ConfigError(
            f"checkpoint {path} encodes observations with {_features_name(version)}, this code with "
            f"{_features_name(current)}; retrain it (delete its run folder, or rerun without --resume)"
        )
    if features is not None and version != features:
        raise ConfigError(
            f"checkpoint {path} was trained on {_features_name(version)} inputs, not the "
            f"{_features_name(features)} this env family is encoded with; train one on this family "
            "(another --out, or --env-ids of the family it was trained on)"
        )
    policy = MenuPolicy(**config, features=version).to(pick_device(device))
    policy.load_state_dict(ckpt["policy"])
    return policy, ckpt


def load(checkpoint: str, greedy: bool = False, device: str = "cpu", **_: Any) -> PolicyAgent:
    """Factory for ``agentgym eval --agent baselines.policy.agent:load`` (pass ``checkpoint=PATH``)."""
    policy, ckpt = load_policy(checkpoint, device)
    return PolicyAgent(policy, max_actions=int(ckpt.get("max_actions", 32)), greedy=greedy)
