"""Test-only envs for the harness: the container-free key-value family, and flaky variants of it.

Ids are registered by `register_test_envs` (called from this folder's conftest); the entry
points are strings, so spawned pool workers and Ray actors re-register them from the spec.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium as gym

from agentgym.errors import SandboxCrashed
from agentgym.tasks import stable_hash
from agentgym.testing.kv_env import WORDS, ScriptedAgentEnv

KV_ID = "test/EvalKV-v0"
TOY_ID = "test/EvalToy-v0"
FLAKY_ID = "test/EvalFlakyKV-v0"
INTERVENE_ID = "test/EvalInterveneKV-v0"


class FlakyKVEnv(ScriptedAgentEnv):
    """Raises `SandboxCrashed` mid-episode: once overall (``crash_once`` names a flag file that
    the first crash creates), and on every attempt for the tasks in ``always_crash``."""

    def __init__(self, *, crash_once: str | None = None, always_crash: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.crash_once = crash_once
        self.always_crash = tuple(always_crash)

    def _execute(self, action):
        if self.task.task_id in self.always_crash:
            raise SandboxCrashed(f"step server died (test crash on {self.task.task_id})")
        if self.crash_once and not os.path.exists(self.crash_once):
            open(self.crash_once, "w").close()
            raise SandboxCrashed("step server died (test crash, once)")
        return super()._execute(action)


class InterveneKVEnv(ScriptedAgentEnv):
    """The key-value env with two forced starts: ``wrong-set`` sets the task's first key to a wrong
    word, ``wrong-set-checked`` also reads it back; tasks in `no_candidate` have no wrong word."""

    interventions = ("wrong-set", "wrong-set-checked")

    @staticmethod
    def no_candidate(task_id: str) -> bool:
        return stable_hash(task_id) % 4 == 0

    def forced_start(self, name: str) -> list[str] | None:
        if name not in self.interventions:
            return super().forced_start(name)
        task = self.task
        assert task is not None
        if self.no_candidate(task.task_id):
            return None
        key, value = next(iter(task.meta["targets"].items()))
        wrong = min((w for w in WORDS if w != value), key=lambda w: stable_hash(f"{task.task_id}|{w}"))
        return [f"set {key} {wrong}"] + ([f"get {key}"] if name == "wrong-set-checked" else [])


def register_test_envs() -> None:
    for env_id, entry in (
        (KV_ID, "agentgym.testing.kv_env:ScriptedAgentEnv"),
        (TOY_ID, "support.toy_env:ToyEnv"),
        (FLAKY_ID, "eval_envs:FlakyKVEnv"),
        (INTERVENE_ID, "eval_envs:InterveneKVEnv"),
    ):
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry)


class SlowOracle:
    """The oracle with a pause per action, so a test can kill a run mid-way."""

    def __init__(self, delay: float = 0.05) -> None:
        from agentgym.agents import OracleAgent

        self.delay = float(delay)
        self.oracle = OracleAgent()

    def reset(self, env, obs, info):
        self.oracle.reset(env, obs, info)

    def act(self, obs, info):
        import time

        time.sleep(self.delay)
        return self.oracle.act(obs, info)


register_test_envs()


def not_an_agent(**kwargs):
    """A broken user factory: what it builds has no act()."""
    return object()


class ExtendingOracle:
    """The oracle, but it sends ``extend`` when one turn is left, its next action is not the
    submission and the menu offers it: an extension-aware agent for hard-vs-soft pairing."""

    def __init__(self) -> None:
        from agentgym.agents import OracleAgent

        self.oracle = OracleAgent()

    def reset(self, env, obs, info):
        self.oracle.reset(env, obs, info)

    def act(self, obs, info):
        action = self.oracle.act(obs, info)
        if info.get("turns_left") == 1 and action != "submit" and "extend" in (info.get("admissible_actions") or []):
            return "extend"
        return action


class BatchOracle:
    """The oracle with the batch protocol of `agentgym.agents.hf.HFAgent` (``reset_batch`` /
    ``act_batch`` / ``cost_batch``); ``batches`` records the size of every ``act_batch`` call."""

    def __init__(self) -> None:
        self.batches: list[int] = []
        self._envs: list[Any] = []

    def reset(self, env, obs, info) -> None:
        self._envs = [env]

    def act(self, obs, info) -> str:
        return self._envs[0].unwrapped.reference_action()

    def reset_batch(self, envs, obs, infos, seeds) -> None:
        self._envs = list(envs)

    def act_batch(self, obs, infos, active) -> list[str]:
        self.batches.append(len(active))
        return [self._envs[i].unwrapped.reference_action() for i in active]

    def cost_batch(self) -> list[dict[str, float]]:
        return [{"model_calls": 0.0} for _ in self._envs]


class HistoryOracle:
    """The oracle, keeping the history it is shown: ``seen`` holds ``("forced" | "act", action)`` per turn;
    with ``batch=True`` it plays the batch protocol too (``forced_batch`` included)."""

    def __init__(self) -> None:
        from agentgym.agents import OracleAgent

        self.oracle = OracleAgent()
        self.seen: list[tuple[str, str]] = []

    def reset(self, env, obs, info) -> None:
        self.oracle.reset(env, obs, info)
        self.seen = []

    def forced(self, obs, info, action) -> None:
        self.seen.append(("forced", action))

    def act(self, obs, info) -> str:
        action = self.oracle.act(obs, info)
        self.seen.append(("act", action))
        return action


class BatchHistoryOracle(BatchOracle):
    """`BatchOracle` with ``forced_batch``; ``forced`` lists every forced call as (active, actions)."""

    def __init__(self) -> None:
        super().__init__()
        self.forced_calls: list[tuple[list[int], list[str]]] = []

    def forced(self, obs, info, action) -> None:
        self.forced_calls.append(([0], [action]))

    def forced_batch(self, obs, infos, active, actions) -> None:
        self.forced_calls.append((list(active), list(actions)))
