"""Trajectory collection for the trainer: many envs stepped together, whole episodes only.

`EpisodeCollector` runs a list of envs, scores all their menus in one batched forward, and
steps the envs in a thread pool (a step mostly waits on its sandbox, which runs in another
process, so threads keep both cores busy). It returns complete episodes: the trainer's signal
is trajectory-level, so an episode is cut only by its own end (submission or the budget).

An episode whose env raised `InfrastructureError` (engine lost, sandbox crashed) is dropped
whole, never scored as a failure, and the env is rebuilt; the count goes to the metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from agentgym.errors import InfrastructureError
from baselines.features import EncodedStep, EpisodeMemory, stack_steps
from baselines.policy import MenuPolicy

__all__ = ["Episode", "EpisodeCollector", "FALLBACK_ACTION"]

FALLBACK_ACTION = "help"
"""Sent when an env offers an empty menu (costs a turn, never raises)."""


@dataclass
class Episode:
    """One finished episode: per-step features, choices, log-probs, values and rewards."""

    steps: list[EncodedStep] = field(default_factory=list)
    choices: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    task_id: str = ""
    budget: int | None = None
    success: bool = False
    truncated: bool = False
    failure_category: str | None = None

    def __len__(self) -> int:
        return len(self.rewards)


class EpisodeCollector:
    """Steps ``len(env_fns)`` envs with one policy until enough whole episodes are in hand."""

    def __init__(
        self,
        env_fns: Sequence[Callable[[], gym.Env]],
        policy: MenuPolicy,
        *,
        dim: int,
        max_actions: int,
        seed: int,
        threads: int = 2,
        group_size: int = 1,
    ) -> None:
        self.env_fns = list(env_fns)
        self.envs: list[gym.Env] = [fn() for fn in self.env_fns]
        self.policy = policy
        self.max_actions = max_actions
        self.memories = [EpisodeMemory(dim, max_actions) for _ in self.envs]
        self.pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
        self.generator = torch.Generator().manual_seed(seed)
        self.seed = seed
        self.infra_failures = 0
        self.env_steps = 0
        self._obs: list[Any] = [None] * len(self.envs)
        self._info: list[dict[str, Any]] = [{}] * len(self.envs)
        self._open: list[Episode | None] = [None] * len(self.envs)
        self._seeded = False
        # group-relative training: episodes come in groups of `group_size` on the same task
        self.group_size = max(1, int(group_size))
        self._group_rng = np.random.default_rng(seed)
        self._group_task: str | None = None
        self._group_left = 0
        self._group_lock = threading.Lock()

    # a reset or step that may raise InfrastructureError, run in the pool
    def _next_task(self, i: int) -> dict[str, Any] | None:
        if self.group_size == 1:
            return None
        with self._group_lock:
            if self._group_left == 0:
                base = self.envs[i].unwrapped
                ids = base.tasks.ids(base.split)
                self._group_task = ids[int(self._group_rng.integers(len(ids)))]
                self._group_left = self.group_size
            self._group_left -= 1
            return {"task_id": self._group_task}

    def _reset(self, i: int, seed: int | None) -> None:
        obs, info = self.envs[i].reset(seed=seed, options=self._next_task(i))
        self.memories[i].reset()
        self._obs[i], self._info[i] = obs, info
        self._open[i] = Episode(task_id=str(info.get("task_id", "")), budget=info.get("budget"))

    def _safe(self, fn: Callable[[], Any]) -> BaseException | None:
        try:
            fn()
        except InfrastructureError as exc:
            return exc
        return None

    def _rebuild(self, i: int) -> None:
        """Drop env ``i``'s episode and sandbox after an infrastructure failure; start afresh."""
        self.infra_failures += 1
        try:
            self.envs[i].close()
        except Exception:  # the sandbox is already broken; closing is best effort
            pass
        self.envs[i] = self.env_fns[i]()
        self._open[i] = None

    def _start_all(self, indices: Sequence[int]) -> None:
        seeds = [self.seed + i if not self._seeded else None for i in indices]
        # resets run in order on this thread, so the episode seeds map to envs deterministically
        errors = [self._safe(lambda: self._reset(i, s)) for i, s in zip(indices, seeds)]
        for i, err in zip(indices, errors):
            if err is not None:
                self._rebuild(i)
                self._reset(i, None)  # a second failure in a row is not masked: it surfaces
        self._seeded = True

    def collect(self, min_steps: int, on_step: Callable[[int], None] | None = None) -> list[Episode]:
        """Whole episodes totalling at least ``min_steps`` steps (envs finish what they started)."""
        self.policy.eval()
        done: list[Episode] = []
        count = 0
        active = list(range(len(self.envs)))
        self._start_all([i for i in active if self._open[i] is None])
        while active:
            encoded = [self.memories[i].encode(self._obs[i], self._info[i]) for i in active]
            batch = stack_steps(encoded, self.max_actions)
            choice, logprob, value = self.policy.act(batch, generator=self.generator)
            actions = [enc.actions[c] if enc.actions else FALLBACK_ACTION for enc, c in zip(encoded, choice)]
            results = list(self._map(lambda a: self._step_one(*a), list(zip(active, actions))))
            finished: list[int] = []
            for j, i in enumerate(active):
                ep = self._open[i]
                result = results[j]
                if isinstance(result, InfrastructureError) or ep is None:
                    self._rebuild(i)
                    finished.append(i)
                    continue
                obs, reward, terminated, truncated, info = result
                self.memories[i].record(actions[j])
                ep.steps.append(encoded[j])
                ep.choices.append(int(choice[j]))
                ep.logprobs.append(float(logprob[j]))
                ep.values.append(float(value[j]))
                ep.rewards.append(float(reward))
                ep.actions.append(actions[j])
                if ep.budget is None and "budget" in info:
                    ep.budget = int(info["budget"])
                self._obs[i], self._info[i] = obs, info
                count += 1
                self.env_steps += 1
                if on_step is not None:
                    on_step(1)
                if terminated or truncated:
                    ep.success = bool(info.get("success", False))
                    ep.truncated = bool(truncated and not terminated)
                    ep.failure_category = info.get("failure_category")
                    done.append(ep)
                    self._open[i] = None
                    finished.append(i)
            restart = [i for i in finished if count < min_steps]
            active = [i for i in active if i not in finished] + restart
            if restart:
                self._start_all(restart)
        return done

    def _map(self, fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        # fast envs lose more to thread hand-offs than they gain: threads only when asked for
        return list(self.pool.map(fn, items)) if self.pool is not None and len(items) > 1 else [fn(a) for a in items]

    def _step_one(self, i: int, action: str) -> Any:
        try:
            return self.envs[i].step(action)
        except InfrastructureError as exc:
            return exc

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True)
        for env in self.envs:
            env.close()

