"""Warm bare envs lent to the training runs of one process and kept between them.

The experiment trains its runs (schedules x seeds, 800 env steps each in the quick preset) one
after another in one process, and each run used to build its envs, and so start their
sandboxes, from scratch: on Docker about 5 s of an 800-step run's 11.7 s. A run now borrows
bare envs (sandbox running, family code loaded) and puts its own wrapper stack around them
(budget, faults, labels, costs); closing that stack gives the bare env back. Wrappers hold only
per-episode state, and every ``reset`` restores the sandbox as between two episodes (the
guarantee `tests/agentgym/sandbox` attacks), so a borrowed env starts a run as a new one would.

A forked child (an evaluation worker) keeps the parent's idle envs referenced and never uses or
closes them: their channels belong to the parent.
"""

from __future__ import annotations

import atexit
import os
import threading
from typing import Any

import gymnasium as gym

from agentgym.eval.stack import make_base_env

__all__ = ["borrow", "close_idle", "idle_count"]

_Key = tuple[str, tuple[tuple[str, Any], ...]]
_IDLE: dict[_Key, list[gym.Env]] = {}
_INHERITED: list[gym.Env] = []  # a forked child's copy of the parent's idle envs: kept, never used
_LOCK = threading.Lock()


def borrow(env_id: str, **env_kwargs: Any) -> gym.Env:
    """A bare ``env_id`` env built with ``env_kwargs`` (an idle one when there is one); ``close()``
    on it, or on any stack around it, lends it back instead of closing it."""

    key: _Key = (env_id, tuple(sorted(env_kwargs.items())))
    with _LOCK:
        idle = _IDLE.get(key)
        base = idle.pop() if idle else None
    return _Lent(base if base is not None else make_base_env(env_id, **env_kwargs), key)


class _Lent(gym.Wrapper):
    """A borrowed bare env; closing it returns it to the pool, or closes it when its sandbox broke or
    a reset or step raised (Gymnasium's env checker, inside the bare env, is left half-done by a reset
    that raised: lent again, that env's first step raised TypeError in the checker)."""

    def __init__(self, env: gym.Env, key: _Key) -> None:
        super().__init__(env)
        self._key, self._returned, self._raised = key, False, False

    def reset(self, **kwargs: Any) -> Any:
        try:
            return super().reset(**kwargs)
        except BaseException:
            self._raised = True
            raise

    def step(self, action: Any) -> Any:
        try:
            return super().step(action)
        except BaseException:
            self._raised = True
            raise

    def close(self) -> None:
        if self._returned:
            return
        self._returned = True
        sandbox = getattr(self.env.unwrapped, "sandbox", None)
        if self._raised or sandbox is not None and (sandbox.closed or getattr(sandbox, "broken", False)):
            self.env.close()  # not lent again: the next borrower starts a fresh one
            return
        with _LOCK:
            _IDLE.setdefault(self._key, []).append(self.env)


def idle_count() -> int:
    """Envs waiting in the pool."""
    with _LOCK:
        return sum(map(len, _IDLE.values()))


def close_idle() -> None:
    """Close every idle env (the experiment calls it when training ends; also at exit)."""
    with _LOCK:
        envs = [env for idle in _IDLE.values() for env in idle]
        _IDLE.clear()
    for env in envs:
        try:
            env.close()
        except Exception:  # a crashed sandbox may fail to close; it is gone either way
            pass


def _forget_in_child() -> None:
    global _LOCK
    _LOCK = threading.Lock()  # another thread may have held it at the fork
    _INHERITED.extend(env for idle in _IDLE.values() for env in idle)
    _IDLE.clear()


atexit.register(close_idle)
os.register_at_fork(after_in_child=_forget_in_child)
