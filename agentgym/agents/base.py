"""The `Agent` protocol the evaluation harness drives, and the seeding and cost hooks it honours.

An agent is anything with ``reset(env, obs, info)`` and ``act(obs, info) -> str``. Two optional
methods let the harness keep runs reproducible and costs complete:

- ``seed(seed: int)``: called before every episode with a seed derived from the episode's
  identity, so a stochastic agent replays the same episode the same way in any worker.
- ``cost() -> dict``: this episode's model usage (``model_calls``, ``prompt_tokens``,
  ``completion_tokens``...), merged into the episode's cost record.

One more is needed for interventions (``agentgym eval --intervention``), which force the first
actions of an episode on every agent alike:

- ``forced(obs, info, action)``: called in place of ``act(obs, info)`` for a forced turn, with the
  same ``(obs, info)`` ``act`` would get; the agent keeps ``action`` in its history as if it had
  chosen it (a chat agent as its own assistant turn, a menu policy in its memory), and the env
  then plays it. An agent without history implements it as a no-op. A batching agent
  (``act_batch``) also has ``forced_batch(obs, infos, active, actions)``, one action per episode
  in ``active``.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import gymnasium as gym

from agentgym.errors import ConfigError

__all__ = ["Agent", "seed_agent", "agent_cost", "check_forced"]


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


def check_forced(agent: Any, intervention: str) -> None:
    """Raise `ConfigError` unless ``agent`` can be shown forced turns (``forced``, and ``forced_batch``
    when it plays batches): an agent that cannot would play an intervened episode blind to its start."""
    missing = [
        m
        for m in ("forced", "forced_batch" if hasattr(agent, "act_batch") else "")
        if m and not callable(getattr(agent, m, None))
    ]
    if missing:
        name = f"{type(agent).__module__}.{type(agent).__qualname__}"
        raise ConfigError(
            f"intervention {intervention!r} forces the first actions on the agent, but {name} has no "
            f"{' or '.join(missing)}(...): add `forced(obs, info, action)` to record a forced action "
            "as its own (see agentgym.agents.base)"
        )
