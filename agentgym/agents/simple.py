"""Agents that need no model: a uniform random policy, the oracle, and a fixed script.

They are the reference points of every report: the random agent is the floor, the oracle the
ceiling (it must solve every task when the budget allows and recover from injected faults), and
scripted agents reproduce a known behaviour, e.g. a careful or a hasty one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import gymnasium as gym
import numpy as np

from agentgym.core import AgentEnv

__all__ = ["RandomAgent", "OracleAgent", "ScriptedAgent"]


class RandomAgent:
    """Uniform over ``info["admissible_actions"]``; seeded per episode by the harness.

    When an env offers no menu it sends ``fallback`` (default ``"help"``), which costs a turn
    and never raises.
    """

    def __init__(self, seed: int | None = None, fallback: str = "help") -> None:
        self.fallback = fallback
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        pass

    def forced(self, obs: dict[str, Any], info: dict[str, Any], action: str) -> None:
        """No history to keep (see `agentgym.agents.base`)."""

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        menu = list(info.get("admissible_actions") or [])
        if not menu:
            return self.fallback
        return str(menu[int(self.rng.integers(len(menu)))])


class OracleAgent:
    """Returns the env's reference action (``env.unwrapped.reference_action()``) every turn."""

    def __init__(self) -> None:
        self._env: gym.Env | None = None

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        self._env = env

    def forced(self, obs: dict[str, Any], info: dict[str, Any], action: str) -> None:
        """Nothing to keep: the oracle reads the env's true state every turn, so it recovers from the start."""

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        if self._env is None:
            raise RuntimeError("OracleAgent.act before reset: the harness calls reset(env, obs, info) first")
        return str(cast(AgentEnv, self._env.unwrapped).reference_action())


class ScriptedAgent:
    """Replays a fixed action list, or one list per task id; repeats ``fallback`` when done.

    ``fallback`` defaults to ``"submit"`` so a script that ends early still ends its episode.
    """

    def __init__(self, actions: Sequence[str] | Mapping[str, Sequence[str]], fallback: str = "submit") -> None:
        self.actions = actions
        self.fallback = fallback
        self._script: list[str] = []
        self._pos = 0

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        if isinstance(self.actions, Mapping):
            script = self.actions.get(str(info.get("task_id")), ())
        else:
            script = self.actions
        self._script = [str(a) for a in script]
        self._pos = 0

    def forced(self, obs: dict[str, Any], info: dict[str, Any], action: str) -> None:
        """A forced turn does not advance the script: it plays its actions after the forced ones."""

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        if self._pos < len(self._script):
            self._pos += 1
            return self._script[self._pos - 1]
        return self.fallback
