"""`Episode`: one agentgym env driven by a trainer's rollout, ended by agentgym, not by the trainer.

Trainers cap turns globally (TRL's ``max_tool_calling_iterations``, SkyRL's ``max_turns``) and
never ask the env whether to stop, so the episode's own end is enforced here: once the env has
terminated (submit, finish) or truncated (the budget T), every further action answers
`EPISODE_OVER` and changes nothing; `Episode.calls_after_end` counts them. The env is built at
the first reset (TRL builds its instances before any reset), in process or against a server
(``remote=URL``).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from agentgym.errors import ConfigError
from agentgym.make import make

__all__ = ["Episode", "EPISODE_OVER", "reset_options", "step_text"]

EPISODE_OVER = "The episode is over; nothing was done. Reply with your final message, without a tool call."
"""What every action after the episode's end answers."""


def reset_options(
    *, task_id: Any = None, budget: Any = None, faults: Any = None, options: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``reset``'s options from a dataset row's fields; None (and an empty fault spec) leave a key out."""
    out = dict(options or {})
    if task_id is not None:
        out["task_id"] = str(task_id)
    if budget is not None:
        if isinstance(budget, float) and budget.is_integer():
            budget = int(budget)  # dataset columns of ints with a missing value come back as floats
        out["budget"] = budget
    if faults is not None and faults != "":
        out["faults"] = faults
    return out


class Episode:
    """An env's episodes for a trainer: `reset` from a row, `step` text until the end, then refuse.

    ``env_id`` and ``make_kwargs`` go to `agentgym.make` (or ``remote=URL`` for a server's env).
    After each step, `info` is the env's info, `reward` the episode's summed reward, `done`
    whether it ended, and `summary()` what a trainer logs (success, failure category, turns,
    budget, tool calls).
    """

    def __init__(self, env_id: str, *, remote: str | None = None, **make_kwargs: Any) -> None:
        self.env_id, self.remote, self.make_kwargs = env_id, remote, dict(make_kwargs)
        self.env: gym.Env | None = None
        self.info: dict[str, Any] = {}
        self.reward = 0.0
        self.done = False
        self.terminated = self.truncated = False
        self.turns = 0
        self.calls_after_end = 0
        self.last_text = ""

    def _build(self) -> gym.Env:
        if self.env is None:
            if self.remote is not None:
                self.env = make(self.env_id, remote=self.remote, **self.make_kwargs)
            else:
                self.env = make(self.env_id, **self.make_kwargs)
            weakref.finalize(self, self.env.close)  # trainers never close their env instances
        return self.env

    def reset(
        self,
        *,
        seed: Any = None,
        task_id: Any = None,
        budget: Any = None,
        faults: Any = None,
        options: Mapping[str, Any] | None = None,
    ) -> str:
        """Start an episode; returns the first observation's text (the task, the budget)."""
        env = self._build()
        if seed is not None and (isinstance(seed, bool) or not float(seed).is_integer()):
            raise ConfigError(f"seed={seed!r}; expected an int")
        obs, info = env.reset(
            seed=None if seed is None else int(seed),
            options=reset_options(task_id=task_id, budget=budget, faults=faults, options=options),
        )
        self.info, self.reward, self.done = info, 0.0, False
        self.terminated = self.truncated = False
        self.turns = self.calls_after_end = 0
        self.last_text = _text(obs)
        return self.last_text

    def step(self, action: str) -> str:
        """One action; the observation's text (with the turns left), or `EPISODE_OVER` after the end."""
        if self.env is None:
            raise ConfigError("Episode.step before reset: the trainer must reset the env first")
        if self.done:
            self.calls_after_end += 1
            self.last_text = EPISODE_OVER
            return EPISODE_OVER
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.turns += 1
        self.info, self.reward = info, self.reward + float(reward)
        self.terminated, self.truncated = bool(terminated), bool(truncated)
        self.done = self.terminated or self.truncated
        self.last_text = step_text(obs, info, terminated=self.terminated, truncated=self.truncated, turns=self.turns)
        return self.last_text

    def summary(self) -> dict[str, Any]:
        """The episode so far, for a trainer's reward functions and logs."""
        info = self.info
        return {
            "task_id": info.get("task_id"),
            "budget": info.get("budget"),
            "turns": self.turns,
            "done": self.done,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "success": bool(info.get("success", False)),
            "reward": self.reward,
            "failure_category": info.get("failure_category"),
            "calls_after_end": self.calls_after_end,
        }

    def close(self) -> None:
        env, self.env = self.env, None
        if env is not None:
            env.close()


def step_text(
    obs: Any, info: Mapping[str, Any], *, terminated: bool = False, truncated: bool = False, turns: int = 0
) -> str:
    """What a step answers a trainer: the observation's text, then the turns left (``[turns left: N]``)
    or, when the budget ended the episode, that it is over. `agentgym.agents.hf.HFAgent` renders a
    step's result with it in the adapter's transcript format."""
    text = _text(obs)
    if truncated and not terminated:
        text += f"\n[the budget of {info.get('budget', turns)} turns is spent: the episode is over]"
    elif not (terminated or truncated) and "turns_left" in info:
        text += f"\n[turns left: {info['turns_left']}]"
    return text


def _text(obs: Any) -> str:
    if isinstance(obs, Mapping):
        return str(obs.get("text", ""))
    return str(obs)
