"""PettingZoo interop: K agents attempt the same task, each in its own sandbox.

Pass@K asks whether any of K independent attempts succeeds; as a `pettingzoo.ParallelEnv` the K
attempts step in lockstep, so multi-agent code (and PettingZoo's tooling) can drive them. Every
attempt gets the same task (the first attempt draws it from the seed) and its own seed.

For SuperSuit and SB3 (docs/interop.md): ``numeric=True`` gives each attempt `NumericView`'s
Discrete actions, ``flatten=True`` turns its Dict observation into one `Box` (what
``black_death_v3`` needs), and the env pickles by its construction arguments, so
``concat_vec_envs_v1`` can copy it even after a reset (sandboxes never travel; copies start
their own at their first reset).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
from pettingzoo import ParallelEnv

from agentgym.core import RESET_OPTIONS, WRAPPER_OPTIONS
from agentgym.errors import ConfigError

__all__ = ["KAttemptsEnv"]


class KAttemptsEnv(ParallelEnv):
    """``k`` attempts at one agentgym task as a PettingZoo `ParallelEnv`.

    Args:
        env: an env id for `gym.make` (with ``make_kwargs``, e.g. ``budget=8, numeric=True``),
            or a callable returning a new env (picklable, e.g. by cloudpickle, to be copied).
        k: the number of attempts (agents ``attempt_0`` ... ``attempt_{k-1}``).
        flatten: wrap each attempt in `gymnasium.wrappers.FlattenObservation`, so a numeric
            Dict observation becomes one `Box` (the mask is its ``action_mask`` slice).

    An attempt leaves ``agents`` when its episode terminates or is truncated; the step after
    the last one leaves ``agents`` empty. ``close()`` closes every sandbox.
    """

    metadata = {"name": "agentgym_k_attempts_v0", "render_modes": []}

    def __init__(
        self, env: str | Callable[[], gym.Env], k: int = 2, *, flatten: bool = False, **make_kwargs: Any
    ) -> None:
        if not isinstance(k, int) or k < 1:
            raise ConfigError(f"k={k!r}: the number of attempts must be a positive int")
        self._args = (env, k, flatten, make_kwargs)
        self.possible_agents = [f"attempt_{i}" for i in range(k)]
        self.agents: list[str] = []
        self._envs = {agent: self._make_one() for agent in self.possible_agents}
        self.observation_spaces = {a: e.observation_space for a, e in self._envs.items()}
        self.action_spaces = {a: e.action_space for a, e in self._envs.items()}
        self.render_mode = None

    def _make_one(self) -> gym.Env:
        env, _, flatten, make_kwargs = self._args
        made = env() if callable(env) else gym.make(env, **make_kwargs)
        return gym.wrappers.FlattenObservation(made) if flatten else made

    def __getstate__(self) -> dict[str, Any]:
        """Only the construction arguments: live sandboxes (locks, sockets) do not pickle."""
        return {"args": self._args}

    def __setstate__(self, state: dict[str, Any]) -> None:
        env, k, flatten, make_kwargs = state["args"]
        KAttemptsEnv.__init__(self, env, k, flatten=flatten, **make_kwargs)

    def observation_space(self, agent: str) -> gym.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gym.Space:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        options = dict(options or {})
        unknown = sorted(str(k) for k in options if k not in RESET_OPTIONS and k not in WRAPPER_OPTIONS)
        if unknown:  # PettingZoo's own API test sends {"options": 1}; an agentgym env would refuse it
            warnings.warn(
                f"KAttemptsEnv.reset ignores the options {unknown}; the attempts read "
                f"{[*RESET_OPTIONS, *WRAPPER_OPTIONS]}",
                stacklevel=2,
            )
            options = {k: v for k, v in options.items() if str(k) not in unknown}
        first, *rest = self.possible_agents
        obs, infos = {}, {}
        obs[first], infos[first] = self._envs[first].reset(seed=seed, options=options)
        options["task_id"] = infos[first]["task_id"]
        for i, agent in enumerate(rest, start=1):
            agent_seed = None if seed is None else seed + i
            obs[agent], infos[agent] = self._envs[agent].reset(seed=agent_seed, options=options)
        self.agents = list(self.possible_agents)
        return obs, infos

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        obs, rewards, terms, truncs, infos = {}, {}, {}, {}, {}
        for agent in list(self.agents):
            if agent not in actions:
                raise ConfigError(f"no action for live agent {agent!r}; live agents: {self.agents}")
            o, r, te, tr, info = self._envs[agent].step(actions[agent])
            obs[agent], rewards[agent], terms[agent], truncs[agent], infos[agent] = o, float(r), te, tr, info
        self.agents = [a for a in self.agents if not (terms[a] or truncs[a])]
        return obs, rewards, terms, truncs, infos

    def render(self) -> None:
        return None

    def close(self) -> None:
        for env in self._envs.values():
            env.close()
