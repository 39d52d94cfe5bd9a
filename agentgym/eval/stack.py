"""The one place the harness builds an env: `make_eval_env`.

It calls `agentgym.make` (turn limit, fault injector, failure labeler and cost tracker, in the
order the wrappers package defines). While that function is not installed it falls back to
`_MinimalStack`, a small wrapper with the same info keys, so the harness can run regardless.
"""

from __future__ import annotations

import re
import time
from typing import Any

import gymnasium as gym
import numpy as np

from agentgym.errors import ConfigError

__all__ = ["make_eval_env"]


def make_eval_env(env_id: str, *, budget: int, faults: str | None = None, **env_kwargs: Any) -> gym.Env:
    """``env_id`` with a turn limit of ``budget``, optional faults, failure labels and costs."""
    import agentgym

    make = getattr(agentgym, "make", None)
    if make is not None:
        return make(env_id, budget=int(budget), faults=faults, labels=True, cost=True, **env_kwargs)
    return _MinimalStack(gym.make(env_id, **env_kwargs), int(budget), faults)


_FAULT_RE = re.compile(r"^(?P<kinds>[a-z_+]+)@(?P<sched>turn=[\d,]+|first=\d+|p=[\d.]+)(?P<persist>:persistent)?$")


class _MinimalStack(gym.Wrapper):
    """Turn limit + faults + labels + costs in one wrapper; a stand-in for `agentgym.make`."""

    def __init__(self, env: gym.Env, budget: int, faults: str | None) -> None:
        super().__init__(env)
        if budget < 1:
            raise ConfigError(f"budget={budget}; need a turn limit of at least 1")
        self.budget = budget
        self.faults = [self._parse(s) for s in (faults or "").split(";") if s.strip()]
        self.observation_space = gym.spaces.Dict(
            {**env.observation_space.spaces, "turns_left": gym.spaces.Box(0, budget, (1,), np.int64)}
        )

    @staticmethod
    def _parse(spec: str) -> dict[str, Any]:
        m = _FAULT_RE.match(spec.strip())
        if not m:
            raise ConfigError(f"fault spec {spec!r}; expected KIND[+KIND]@turn=1,3|first=K|p=0.2[:persistent]")
        key, _, value = m["sched"].partition("=")
        return {"kinds": m["kinds"].split("+"), "key": key, "value": value, "transient": not m["persist"]}

    def reset(self, **kw: Any):
        obs, info = self.env.reset(**kw)
        self._turn, self._events, self._t0, self._agent_s, self._last = 0, [], time.perf_counter(), 0.0, time.perf_counter()
        return self._obs(obs), self._info(info)

    def step(self, action: str):
        self._agent_s += time.perf_counter() - self._last
        self._turn += 1
        for f in self.faults:
            hit = (
                (f["key"] == "turn" and str(self._turn) in f["value"].split(","))
                or (f["key"] == "first" and self._turn <= int(f["value"]))
                or (f["key"] == "p" and self.np_random.random() < float(f["value"]))
            )
            if hit:
                kind = f["kinds"][int(self.np_random.integers(len(f["kinds"])))]
                self.env.unwrapped.inject_fault(kind, transient=f["transient"])
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._events.extend(info["events"])
        if not terminated and self._turn >= self.budget:
            truncated = True
            info["success"] = self.env.unwrapped.end_by_budget()
            reward = float(info["success"])
        info = self._info(info)
        info["budget_exhausted"] = bool(truncated and not terminated)
        if terminated or truncated:
            info["failure_category"], info["failure_flags"] = _label(self._events, bool(info.get("success")), truncated)
        self._last = time.perf_counter()
        return self._obs(obs), reward, terminated, truncated, info

    def _obs(self, obs: dict[str, Any]) -> dict[str, Any]:
        return {**obs, "turns_left": np.array([self.budget - self._turn], dtype=np.int64)}

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        base = self.env.unwrapped
        info = dict(info)
        info["budget"], info["turns_left"] = self.budget, self.budget - self._turn
        info["cost"] = {
            "model_calls": self._turn,
            "env_calls": info.get("cost", {}).get("env_calls", 0),
            "env_seconds": base.env_seconds,
            "agent_seconds": self._agent_s,
            "episode_seconds": time.perf_counter() - self._t0,
        }
        return info


def _label(events: list[dict[str, Any]], success: bool, truncated: bool) -> tuple[str, list[str]]:
    flags = []
    if success:
        flags.append("success")
    if truncated and not success:
        flags.append("timeout")
    failed_tools = {e["name"] for e in events if e["kind"] == "tool_call" and not e["ok"]}
    ok_after: set[str] = set()
    for e in events:
        if e["kind"] == "tool_call" and e["ok"]:
            ok_after.add(e["name"])
        elif e["kind"] == "tool_call":
            ok_after.discard(e["name"])
    if any(e["kind"] == "action" and not e["parsed_ok"] for e in events) or (failed_tools - ok_after):
        flags.append("tool_call_error")
    if any(e["kind"] == "state_mismatch" for e in events):
        flags.append("state_misidentification")
    last_mut = max((i for i, e in enumerate(events) if e["kind"] == "mutation"), default=-1)
    if last_mut >= 0 and not any(e["kind"] == "verification" for e in events[last_mut:]):
        flags.append("missing_verification")
    flags.append("planning_mistake") if len(flags) == 0 else None
    order = ("success", "timeout", "tool_call_error", "state_misidentification", "missing_verification", "planning_mistake")
    category = next((c for c in order if c in flags), "planning_mistake")
    return category, flags
