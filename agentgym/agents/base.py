"""The `Agent` protocol the evaluation harness drives, and the seeding and cost hooks it honours.

An agent is anything with ``reset(env, obs, info)`` and ``act(obs, info) -> str``. Two optional
methods let the harness keep runs reproducible and costs complete:

- ``seed(seed: int)``: called before every episode with a seed derived from the episode's
  identity, so a stochastic agent replays the same episode the same way in any worker.
- ``cost() -> dict``: this episode's model usage (``model_calls``, ``prompt_tokens``,
  ``completion_tokens``...), merged into the episode's cost record.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import gymnasium as gym

__all__ = ["Agent", "seed_agent", "agent_cost"]


@runtime_checkable
class Agent(Protocol):
    """A policy over text actions. ``env`` is the wrapped env the episode runs in."""

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Start an episode: ``obs``/``info`` are what ``env.reset`` returned."""

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        """The next action, in the family's grammar."""


def seed_agent(agent: Any, seed: int) -> None:
    """Seed an agent that supports it; deterministic agents need not."""
    fn = getattr(agent, "seed", None)
    if callable(fn):
        fn(int(seed))


def agent_cost(agent: Any) -> dict[str, float]:
    """The agent's own usage this episode (empty for agents that call no model)."""
    fn = getattr(agent, "cost", None)
    if not callable(fn):
        return {}
    return {str(k): v for k, v in dict(fn() or {}).items()}
