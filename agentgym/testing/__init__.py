"""Checks for your own pytest suites, the way PettingZoo ships ``pettingzoo.test``.

- `run_episode(env, agent, seed=...)`: play one episode, get an `Episode` record back.
- `assert_recovers(env_or_id, agent, fault=..., budget=..., seeds=...)`: inject a fault and
  assert the agent still succeeds within the budget, on every seed.
- `agentgym.testing.contract.check_contract(env_id, backend=...)`: the registry contract every
  agentgym id passes (check_env, determinism, oracle, faults, spec round trip, no leftovers, ...),
  for any registered id, your own families included.
- `agentgym.testing.verdicts`: final-answer verdicts measured both ways: honest and adversarial
  final messages generated from real ToolUse-v0 / Browser-v0 tasks, judged by the env (`agreement`).
- `agentgym.testing.kv_env`: a container-free key-value family (`ScriptedAgentEnv`, an
  `AgentEnv` whose "sandbox" is a dict) and a plain pluggable env (`ScriptedEnv`), for testing
  wrappers and agents in microseconds; the wrapper docstring examples use them.

An agent is anything with ``act(obs, info) -> str`` (and optionally ``reset(env, obs, info)``),
i.e. the `agentgym.agents.Agent` protocol, or a plain callable ``(obs, info) -> str``::

    from agentgym.agents import OracleAgent
    from agentgym.testing import assert_recovers

    def test_oracle_recovers_from_a_tool_error():
        assert_recovers("agentgym/Coding-v0", OracleAgent(), fault="tool_error@turn=1",
                        budget=12, seeds=range(3), backend="local")
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from agentgym.make import make, wrap

__all__ = ["Episode", "run_episode", "assert_recovers"]


@dataclass
class Episode:
    """What one episode did: enough to assert on and to print when an assertion fails."""

    task_id: str | None
    seed: int | None
    actions: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    terminated: bool = False
    truncated: bool = False
    success: bool = False
    failure_category: str | None = None
    failure_flags: list[str] = field(default_factory=list)
    final_info: dict[str, Any] = field(default_factory=dict)

    @property
    def turns(self) -> int:
        return len(self.actions)

    @property
    def faults(self) -> list[str]:
        """The kinds of the faults injected this episode, in order."""
        return [e["fault"] for e in self.events if e.get("kind") == "fault_injected"]

    def trace(self, width: int = 100) -> str:
        """One line per turn: the action and the head of what came back."""
        lines = [
            f"task {self.task_id} seed {self.seed}: {self.turns} turns, success={self.success}, "
            f"category={self.failure_category}, faults={self.faults}"
        ]
        for i, (action, text) in enumerate(zip(self.actions, self.texts), 1):
            lines.append(f"  {i:>3} {action[:40]!r} -> {text[:width]!r}")
        return "\n".join(lines)


def _act(agent: Any, obs: Any, info: dict[str, Any]) -> Any:
    return agent.act(obs, info) if hasattr(agent, "act") else agent(obs, info)


def run_episode(
    env: gym.Env,
    agent: Any,
    *,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    max_steps: int = 1000,
) -> Episode:
    """Reset ``env`` with ``seed``, let ``agent`` act until the episode ends, return the record.

    ``max_steps`` is a backstop for envs without a turn limit; running past it fails the test.
    """
    obs, info = env.reset(seed=seed, options=dict(options) if options else None)
    if hasattr(agent, "reset"):
        agent.reset(env, obs, info)
    episode = Episode(task_id=info.get("task_id"), seed=seed, events=list(info.get("events", ())))
    for _ in range(max_steps):
        action = _act(agent, obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        episode.actions.append(str(action))
        episode.texts.append(str(obs.get("text", "")) if isinstance(obs, Mapping) else "")
        episode.rewards.append(float(reward))
        episode.events.extend(info.get("events", ()))
        if terminated or truncated:
            episode.terminated, episode.truncated = bool(terminated), bool(truncated)
            episode.success = bool(info.get("success", False))
            episode.failure_category = info.get("failure_category")
            episode.failure_flags = list(info.get("failure_flags", ()))
            episode.final_info = info
            return episode
    raise AssertionError(
        f"the episode did not end within max_steps={max_steps}; give the env a budget\n{episode.trace()}"
    )


def assert_recovers(
    env: str | gym.Env,
    agent: Any,
    *,
    fault: str | Mapping[str, Any] = "tool_error@turn=1",
    budget: Any = None,
    seeds: Iterable[int] = (0, 1, 2),
    options: Mapping[str, Any] | None = None,
    **env_kwargs: Any,
) -> list[Episode]:
    """Assert that ``agent`` succeeds on every seed although ``fault`` is injected.

    ``env`` is an env id (built with `agentgym.make` and ``env_kwargs``, closed afterwards) or an
    env you built (wrapped here, left open). ``fault`` is a fault spec string or
    `ToolFailureInjector` kwargs; ``budget`` a turn limit (int or `RandomBudget` spec). Fails
    when the fault never fired (the check would prove nothing) or the agent did not succeed,
    printing the episode. Returns the episodes.
    """

    if isinstance(env, str):
        built = make(env, budget=budget, faults=fault, labels=True, cost=False, **env_kwargs)
    else:
        if env_kwargs:
            raise TypeError(f"env kwargs {sorted(env_kwargs)} apply only to an env id, not to a built env")
        built = wrap(env, budget=budget, faults=fault, labels=True)
    episodes = []
    try:
        for seed in seeds:
            episode = run_episode(built, agent, seed=seed, options=options)
            if not episode.faults:
                raise AssertionError(
                    f"fault {fault!r} never fired: the agent made no tool call it applies to\n{episode.trace()}"
                )
            if not episode.success:
                raise AssertionError(
                    f"the agent did not recover from fault {fault!r} within budget {budget!r}\n{episode.trace()}"
                )
            episodes.append(episode)
    finally:
        if isinstance(env, str):
            built.close()
    return episodes
