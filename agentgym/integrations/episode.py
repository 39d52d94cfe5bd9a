"""`Episode`: one agentgym env driven by a trainer's rollout, ended by agentgym, not by the trainer.

Trainers cap turns globally (TRL's ``max_tool_calling_iterations``, SkyRL's ``max_turns``) and
never ask the env whether to stop, so the episode's own end is enforced here: once the env has
terminated (submit, finish) or truncated (the budget T), every further action answers
`EPISODE_OVER` and changes nothing; `Episode.calls_after_end` counts them. The env is built at
the first reset (TRL builds its instances before any reset), in process or against a server
(``remote=URL``).

Infrastructure failures (`agentgym.errors.InfrastructureError`: a sandbox or server that died, no
agent action's doing; an agent that crashes its own sandbox gets an ordinary failed step from the
env instead) are recorded here for every adapter: a reset that fails is tried again on a fresh env
(``reset_attempts``, with a backoff) and then raises `agentgym.errors.ResetFailed`; a step that fails
ends the episode, closes its env (the next reset builds a fresh one) and re-raises, each adapter
then speaking its trainer's contract. `Episode.infra_failures` lists this episode's, and
`summary()` counts them.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from agentgym.errors import ConfigError, InfrastructureError, ResetFailed
from agentgym.llm.view import Seen, result_text, task_text
from agentgym.make import make

__all__ = ["Episode", "EPISODE_OVER", "INFRA_FAILURE", "reset_options"]

EPISODE_OVER = "The episode is over; nothing was done. Reply with your final message, without a tool call."
"""What every action after the episode's end answers."""

INFRA_FAILURE = (
    "The environment failed on its side (nothing you did caused it); the episode is over. "
    "Reply with your final message, without a tool call."
)
"""What a tool-calling adapter answers for the call that met an infrastructure failure."""


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
    budget, tool calls, infrastructure failures and reset retries). ``reset_attempts`` and
    ``reset_backoff`` (seconds, doubled after each failed attempt) bound the retries of a reset
    that meets an infrastructure failure.
    """

    def __init__(
        self,
        env_id: str,
        *,
        remote: str | None = None,
        reset_attempts: int = 3,
        reset_backoff: float = 1.0,
        **make_kwargs: Any,
    ) -> None:
        if isinstance(reset_attempts, bool) or not isinstance(reset_attempts, int) or reset_attempts < 1:
            raise ConfigError(f"reset_attempts={reset_attempts!r}; expected an int >= 1")
        if not reset_backoff >= 0:
            raise ConfigError(f"reset_backoff={reset_backoff!r}; expected seconds >= 0")
        self.env_id, self.remote, self.make_kwargs = env_id, remote, dict(make_kwargs)
        self.reset_attempts, self.reset_backoff = reset_attempts, float(reset_backoff)
        self.env: gym.Env | None = None
        self._finalizer: Any = None
        self.info: dict[str, Any] = {}
        self.reward = 0.0
        self.done = False
        self.terminated = self.truncated = False
        self.turns = 0
        self.calls_after_end = 0
        self.last_text = ""
        self.infra_failures: list[str] = []
        """This episode's infrastructure failures (``"Type: message"``); any makes it unscorable."""
        self.reset_retries = 0
        """Resets of this episode that failed and were tried again on a fresh env."""
        self.seen = Seen()
        """What the model was shown this episode (`agentgym.llm.view.Seen`): a result says what changed."""

    def _build(self) -> gym.Env:
        if self.env is None:
            if self.remote is not None:
                self.env = make(self.env_id, remote=self.remote, **self.make_kwargs)
            else:
                self.env = make(self.env_id, **self.make_kwargs)
            self._finalizer = weakref.finalize(self, self.env.close)  # trainers never close their env instances
        return self.env

    def _discard(self) -> None:
        """Close the env (its sandbox or server session is dead or dying); the next reset builds a fresh one."""
        try:
            self.close()
        except Exception:  # closing what already failed: the sandbox's own reaper is the backstop
            pass

    def reset(
        self,
        *,
        seed: Any = None,
        task_id: Any = None,
        budget: Any = None,
        faults: Any = None,
        options: Mapping[str, Any] | None = None,
    ) -> str:
        """Start an episode; returns the first observation's text (the task, the budget).

        A reset that raises `InfrastructureError` is tried again on a fresh env, up to
        ``reset_attempts`` times in all, waiting ``reset_backoff`` seconds, then twice that, and so
        on; then `ResetFailed` is raised from the last attempt's error, and the episode stays over
        with its failures listed (unscorable)."""
        if seed is not None and (isinstance(seed, bool) or not float(seed).is_integer()):
            raise ConfigError(f"seed={seed!r}; expected an int")
        chosen = reset_options(task_id=task_id, budget=budget, faults=faults, options=options)
        self.info, self.reward, self.done = {}, 0.0, False
        self.terminated = self.truncated = False
        self.turns = self.calls_after_end = self.reset_retries = 0
        self.infra_failures = []
        failures: list[str] = []
        last: InfrastructureError | None = None
        for attempt in range(self.reset_attempts):
            if attempt:
                time.sleep(self.reset_backoff * 2 ** (attempt - 1))
            try:
                obs, info = self._build().reset(seed=None if seed is None else int(seed), options=chosen)
            except InfrastructureError as exc:
                failures.append(f"{type(exc).__name__}: {exc}")
                self._discard()
                last = exc
                continue
            self.info, self.reset_retries = info, len(failures)
            self.seen = Seen(self.env)
            self.last_text = self.seen.task(task_text(self.env, obs))
            return self.last_text
        self.infra_failures, self.done, self.last_text = failures, True, INFRA_FAILURE
        raise ResetFailed(self.env_id, failures) from last

    def step(self, action: str) -> str:
        """One action; its result in the language-model view (`agentgym.llm.view.result_text`: the
        observation's text and the turns left), or `EPISODE_OVER` after the end.

        An `InfrastructureError` (in the action or the verdict) ends the episode, is listed in
        `infra_failures`, and is raised again for the adapter to speak its trainer's contract."""
        if self.done:
            self.calls_after_end += 1
            self.last_text = EPISODE_OVER
            return EPISODE_OVER
        if self.env is None:
            raise ConfigError("Episode.step before reset: the trainer must reset the env first")
        try:
            obs, reward, terminated, truncated, info = self.env.step(action)
        except InfrastructureError as exc:
            self.infra_failures.append(f"{type(exc).__name__}: {exc}")
            self.done, self.last_text = True, INFRA_FAILURE
            self._discard()
            raise
        self.turns += 1
        self.info, self.reward = info, self.reward + float(reward)
        self.terminated, self.truncated = bool(terminated), bool(truncated)
        self.done = self.terminated or self.truncated
        self.last_text = result_text(
            obs, info, terminated=self.terminated, truncated=self.truncated, turns=self.turns, seen=self.seen
        )
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
            "infra_failures": len(self.infra_failures),
            "infra_error": self.infra_failures[-1] if self.infra_failures else None,
            "reset_retries": self.reset_retries,
        }

    def close(self) -> None:
        env, self.env = self.env, None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if env is not None:
            env.close()
