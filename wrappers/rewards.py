"""Reward shaping from the env's own progress events.

- `ProcessReward(env, weight, gamma, potential, truncation_is_terminal)`: a dense reward from ``subtask`` events added
  to the env's reward, which is kept as it is (1.0 when the task's verifier passes).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

from agentgym.errors import ConfigError

__all__ = ["ProcessReward"]


class ProcessReward(gym.Wrapper, RecordConstructorArgs):
    """Adds ``weight`` times the change in subtask progress to each step's reward.

    Progress ``phi`` is the fraction of the episode's subtasks whose latest ``subtask`` event
    says done (the subtask names come from the task when the env has one, else from the events
    seen so far). With ``potential=True`` (the default) the bonus is potential-based,
    ``weight * (gamma * phi' - phi)`` with ``phi' = 0`` once the episode terminates, so the
    optimal policy is unchanged (Ng et al., 1999) and the bonuses of a submitted episode sum to
    ``-weight * phi(start)`` with ``gamma=1``. On truncation ``phi'`` is kept, as for any state
    the episode was cut off in, which is right for a learner that bootstraps there. A learner that
    treats running out of turns as the end (it sees the turns left, and unsubmitted work scores
    0) should pass ``truncation_is_terminal=True``: else the kept potential pays for progress that
    was never submitted, and the shaped optimum becomes "make progress, never submit". With
    ``potential=False`` the bonus is ``weight`` times the fraction of subtasks done for the first
    time this step (never negative; it can change the optimal policy). Each step's bonus lies in
    ``[-weight, weight]``. info: ``process_reward`` (the bonus) and ``progress`` (phi').

    >>> from agentgym.wrappers import ProcessReward
    >>> from agentgym.testing.kv_env import ScriptedAgentEnv
    >>> env = ProcessReward(ScriptedAgentEnv(), weight=0.1)
    >>> _, info = env.reset(seed=0)
    >>> [round(env.step(env.unwrapped.reference_action())[1], 3) for _ in range(info["min_turns"])]
    [0.033, 0.033, 0.033, 0.0, 0.9]
    """

    def __init__(
        self,
        env: gym.Env,
        weight: float = 0.1,
        gamma: float = 1.0,
        potential: bool = True,
        truncation_is_terminal: bool = False,
    ) -> None:
        RecordConstructorArgs.__init__(
            self, weight=weight, gamma=gamma, potential=potential, truncation_is_terminal=truncation_is_terminal
        )
        gym.Wrapper.__init__(self, env)
        for name, value in (("weight", weight), ("gamma", gamma)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ConfigError(f"ProcessReward {name}={value!r}; expected a number in [0, 1]")
        self.weight, self.gamma, self.potential = float(weight), float(gamma), bool(potential)
        self.truncation_is_terminal = bool(truncation_is_terminal)
        self._done: dict[str, bool] = {}
        self._ever: set[str] = set()
        self._names: tuple[str, ...] = ()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        task = getattr(self.env.unwrapped, "task", None)
        self._names = tuple(getattr(task, "subtasks", ()) or ())
        self._done, self._ever = {}, set()
        self._observe(info)
        return obs, info

    def progress(self) -> float:
        """phi: the fraction of subtasks done, as the latest events say."""
        names = self._names or tuple(self._done)
        return sum(self._done.get(n, False) for n in names) / len(names) if names else 0.0

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        phi, before = self.progress(), set(self._ever)
        self._observe(info)
        phi_next = self.progress()
        if self.potential:
            final = terminated or (truncated and self.truncation_is_terminal)
            bonus = self.weight * (self.gamma * (0.0 if final else phi_next) - phi)
        else:
            names = self._names or tuple(self._done)
            bonus = self.weight * len(self._ever - before) / len(names) if names else 0.0
        info["process_reward"], info["progress"] = bonus, phi_next
        return obs, float(reward) + bonus, terminated, truncated, info

    def _observe(self, info: dict[str, Any]) -> None:
        for e in info.get("events", ()):
            if e.get("kind") == "subtask":
                name = str(e.get("name"))
                self._done[name] = bool(e.get("done"))
                if self._done[name]:
                    self._ever.add(name)
