"""Cost accounting: what an episode spent, in calls and seconds.

- `CostTracker(env)`: cumulative ``info["cost"]`` on every reset and step.
"""

from __future__ import annotations

import time
from typing import Any

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

__all__ = ["CostTracker", "COST_KEYS"]

COST_KEYS = ("model_calls", "env_calls", "env_seconds", "agent_seconds", "episode_seconds")


class CostTracker(gym.Wrapper, RecordConstructorArgs):
    """Puts this episode's cumulative cost into ``info["cost"]`` at reset and every step.

    - ``model_calls``: agent turns (one model call per action).
    - ``env_calls``: sandbox round trips, from the base env's ``info["cost"]["env_calls"]``
      (0 for envs that do not report it).
    - ``env_seconds``: time spent in the env: ``env.unwrapped.env_seconds`` when the env keeps
      it (sandbox and verifier time), else the wall time of the wrapped ``reset`` and ``step``.
    - ``agent_seconds``: time between the end of one step (or reset) and the next step call,
      i.e. the agent thinking; put this wrapper outermost so that is all it measures.
    - ``episode_seconds``: wall time since ``reset`` was called.

    Seconds differ between runs, so compare same-seed trajectories without this dict.

    >>> from agentgym.wrappers import CostTracker
    >>> from agentgym.testing.kv_env import ScriptedAgentEnv
    >>> env = CostTracker(ScriptedAgentEnv())
    >>> _ = env.reset(seed=0)
    >>> *_, info = env.step("set alpha fjord")
    >>> sorted(info["cost"]), info["cost"]["model_calls"], info["cost"]["env_calls"]
    (['agent_seconds', 'env_calls', 'env_seconds', 'episode_seconds', 'model_calls'], 1, 1)
    """

    def __init__(self, env: gym.Env) -> None:
        RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        self._start = self._last_end = time.perf_counter()
        self.model_calls = 0
        self.agent_seconds = 0.0
        self._measured_env_seconds = 0.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._start = time.perf_counter()
        self.model_calls, self.agent_seconds, self._measured_env_seconds = 0, 0.0, 0.0
        obs, info = self._timed(self.env.reset, seed=seed, options=options)
        return obs, self._with_cost(info)

    def step(self, action: Any):
        self.agent_seconds += time.perf_counter() - self._last_end
        self.model_calls += 1
        obs, reward, terminated, truncated, info = self._timed(self.env.step, action)
        return obs, reward, terminated, truncated, self._with_cost(info)

    def _timed(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        begin = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self._last_end = time.perf_counter()
            self._measured_env_seconds += self._last_end - begin

    def _with_cost(self, info: dict[str, Any]) -> dict[str, Any]:
        env_seconds = getattr(self.env.unwrapped, "env_seconds", None)
        info["cost"] = {
            **dict(info.get("cost") or {}),
            "model_calls": self.model_calls,
            "env_calls": int((info.get("cost") or {}).get("env_calls", 0)),
            "env_seconds": float(env_seconds if isinstance(env_seconds, (int, float)) else self._measured_env_seconds),
            "agent_seconds": self.agent_seconds,
            "episode_seconds": time.perf_counter() - self._start,
        }
        return info
