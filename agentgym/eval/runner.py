"""Running episodes: one episode on a warm env, a worker that keeps envs warm, and the local pool.

The split is by lifetime. `run_episode` is one episode, nothing else. `EpisodeWorker` lives in
a worker process (or a Ray actor) for the whole evaluation: it builds the agent and the envs
there, because Docker clients do not pickle, and keeps each env (and so its sandbox) warm
across episodes; it retries infrastructure failures a bounded number of times and reports the
ones that persist as such, never as agent failures. `iter_local` fans specs out to a pool of
such workers, or runs them in-process for one worker.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from agentgym import events as ev
from agentgym.agents.base import agent_cost, check_forced, seed_agent
from agentgym.agents.loading import load_agent
from agentgym.core import AgentEnv
from agentgym.errors import ConfigError, InfrastructureError
from agentgym.eval.episodes import EpisodeSpec
from agentgym.eval.stack import make_base_env, wrap_for_eval
from agentgym.registration import unknown_env_id

__all__ = [
    "AgentSpec",
    "WorkerConfig",
    "EpisodeWorker",
    "run_episode",
    "run_group",
    "forced_start",
    "cells",
    "iter_local",
    "env_entry",
    "resolve_env_id",
]


@dataclass(frozen=True)
class AgentSpec:
    """An agent by name (``load_agent``), built inside each worker with ``kwargs``."""

    name: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def build(self) -> Any:
        return load_agent(self.name, **dict(self.kwargs))


@dataclass(frozen=True)
class WorkerConfig:
    """Everything a worker needs, picklable: env entry points, the agent, sandbox settings.

    ``agent`` is an `AgentSpec`, a picklable agent instance (each worker gets its own copy), or
    a picklable zero-argument factory. ``sys_path`` carries the driver's import path to workers
    that do not inherit it (Ray), so user modules named in ``module:factory`` import there too.
    """

    envs: Mapping[str, tuple[Any, Mapping[str, Any]]]
    agent: Any
    split: str = "test"
    sandbox: str = "auto"
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    retries: int = 2
    sys_path: tuple[str, ...] = ()
    soft_budget: Mapping[str, Any] | None = None
    """The soft budget of ``budget_mode="soft"`` episodes (`agentgym.eval.stack.wrap_for_eval`'s ``soft``)."""
    batch: bool = False
    """Hand a cell's samples to the agent as one batch (agents with ``act_batch``, such as ``hf``)."""
    turn_log: int = 0
    """Keep each turn's observation (its first ``turn_log`` characters), events, turns left, tokens and
    time in the record (``turn_log``, `turn_entry`), for ``agentgym view``; 0 keeps only the actions."""
    base_env: Callable[..., gym.Env] | None = None
    """Builds a worker's bare envs (``make_base_env``'s arguments; default `make_base_env`): a pool
    that lends warm envs (``baselines.policy.env_pool.borrow``) saves a sandbox start per evaluation.
    Picklable (a module-level function) for Ray."""


def resolve_env_id(env_id: str) -> str:
    """The registered id of ``env_id``; the ``"module:Id"`` form imports ``module`` first (it
    registers ``Id`` on import), as ``gym.make`` does."""
    import importlib

    module, sep, name = env_id.rpartition(":")
    if not sep:
        return env_id
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"env {env_id!r}: cannot import {module!r} ({exc}); is it on PYTHONPATH?") from exc
    return name


def env_entry(env_id: str) -> tuple[Any, dict[str, Any]]:
    """The registered entry point and kwargs of ``env_id``, to re-register it in a worker."""
    try:
        spec = gym.spec(resolve_env_id(env_id))
    except gym.error.Error as exc:
        raise unknown_env_id(env_id, str(exc)) from exc
    return spec.entry_point, dict(spec.kwargs)


def forced_start(env: gym.Env, agent: Any, spec: EpisodeSpec) -> list[str] | None:
    """The actions ``spec``'s intervention forces on this episode (``[]`` without one; None when the
    family's rule has no candidate on the task), asked of the env right after its reset."""
    if not spec.intervention:
        return []
    check_forced(agent, spec.intervention)
    base = env.unwrapped
    if not isinstance(base, AgentEnv):
        raise ConfigError(f"intervention {spec.intervention!r} needs an agentgym AgentEnv (got {type(base).__name__})")
    forced = base.forced_start(spec.intervention)
    return None if forced is None else [str(a) for a in forced]


def run_episode(env: gym.Env, agent: Any, spec: EpisodeSpec, turn_log: int = 0) -> dict[str, Any]:
    """Play one episode of ``spec`` and return its record (without worker bookkeeping).

    An intervention's forced actions come first, each shown to the agent (``agent.forced``) and
    played through the whole stack, so they count against T and emit their events. The turn limit
    in the env's stack ends the episode; ``spec.T`` turns (and every extension a soft budget may
    grant) plus a margin is a backstop against a stack that lacks one. ``turn_log`` > 0 keeps every
    turn (`turn_entry`) with observations cut to that many characters.
    """
    seed_agent(agent, spec.agent_seed)
    start = time.perf_counter()
    obs, info = env.reset(seed=spec.env_seed, options={"task_id": spec.task})
    agent.reset(env, obs, info)
    trace = _Trace(spec, info, start, turn_log, obs, _subtask_names(env))
    forced = trace.planned = forced_start(env, agent, spec)
    if forced is None:
        return trace.no_candidate()
    for action in forced:
        agent.forced(obs, info, action)
        obs, _, terminated, truncated, info = env.step(action)
        if trace.step(action, info, terminated, truncated, forced=True, obs=obs, usage=_usage(agent, turn_log)):
            return trace.record(info, agent_cost(agent))
    while True:
        action = agent.act(obs, info)
        obs, _, terminated, truncated, info = env.step(action)
        if trace.step(action, info, terminated, truncated, obs=obs, usage=_usage(agent, turn_log)):
            return trace.record(info, agent_cost(agent))


def _usage(agent: Any, turn_log: int) -> Mapping[str, Any] | None:
    """The agent's usage so far, read only when turns are logged (its tokens per turn)."""
    return agent_cost(agent) if turn_log else None


def run_group(
    envs: Sequence[gym.Env], agent: Any, specs: Sequence[EpisodeSpec], turn_log: int = 0
) -> list[dict[str, Any]]:
    """Play the episodes of ``specs`` (the K samples of one cell, one env each) in lock-step, the agent
    choosing every live episode's action in one call (``reset_batch`` / ``act_batch`` / ``cost_batch``).

    Records are those `run_episode` writes; an episode's latency runs from the batch's start to its end.
    """
    start = time.perf_counter()
    obs, infos = [], []
    for env, spec in zip(envs, specs, strict=True):
        o, info = env.reset(seed=spec.env_seed, options={"task_id": spec.task})
        obs.append(o)
        infos.append(info)
    agent.reset_batch(envs, obs, infos, [spec.agent_seed for spec in specs])
    traces = [
        _Trace(spec, info, start, turn_log, o, _subtask_names(env))
        for spec, info, o, env in zip(specs, infos, obs, envs)
    ]
    forced = [forced_start(env, agent, spec) for env, spec in zip(envs, specs, strict=True)]
    if any(f is None for f in forced):  # one task per cell: no candidate for one is none for all
        return [trace.no_candidate() for trace in traces]
    for trace, f in zip(traces, forced, strict=True):
        trace.planned = f
    live = list(range(len(specs)))
    for j in range(max(len(f or ()) for f in forced)):
        now = [i for i in live if j < len(forced[i] or ())]
        actions = [(forced[i] or [])[j] for i in now]
        agent.forced_batch([obs[i] for i in now], [infos[i] for i in now], now, actions)
        for i, action in zip(now, actions, strict=True):
            obs[i], _, terminated, truncated, infos[i] = envs[i].step(action)
            if traces[i].step(action, infos[i], terminated, truncated, forced=True, obs=obs[i]):
                live.remove(i)
    while live:
        actions = agent.act_batch([obs[i] for i in live], [infos[i] for i in live], live)
        still = []
        for i, action in zip(live, actions, strict=True):
            obs[i], _, terminated, truncated, infos[i] = envs[i].step(action)
            if not traces[i].step(action, infos[i], terminated, truncated, obs=obs[i]):
                still.append(i)
        live = still
    costs = agent.cost_batch()
    return [trace.record(info, cost) for trace, info, cost in zip(traces, infos, costs, strict=True)]


def _subtask_names(env: gym.Env) -> tuple[str, ...]:
    """The episode's task's subtasks (what `ProcessReward` rewards), empty when its env names none."""
    task = getattr(env.unwrapped, "task", None)
    return tuple(str(n) for n in (getattr(task, "subtasks", ()) or ()))


class _Trace:
    """One episode's bookkeeping while it runs (turns, errors, faults, warnings, subtasks, the turn log),
    then its record."""

    def __init__(
        self,
        spec: EpisodeSpec,
        info: Mapping[str, Any],
        start: float,
        turn_log: int = 0,
        obs: Any = None,
        subtasks: tuple[str, ...] = (),
    ) -> None:
        self.spec, self.start = spec, start
        self.log_chars = int(turn_log)
        # turn 0 is the reset: what the agent was shown first
        self.turn_log = [turn_entry(0, None, obs, info, None, turn_log)] if turn_log else []
        self.turn_seconds: list[float] = []
        self.tokens_seen = 0.0
        self.subtasks = subtasks
        self.subtask_done: dict[str, bool] = {}
        soft = dict(info.get("extensions") or {})
        self.cap = spec.T + int(soft.get("extra", 0)) * int(soft.get("max_requests", 0)) + 8
        self.warnings = sum(e["kind"] == "budget_warning" for e in info.get("events", ()))
        self.actions: list[str] = []
        self.planned: list[str] | None = []  # the intervention's forced start (None: no candidate on the task)
        self.forced: list[str] = []  # the forced actions played so far (the first of ``actions``)
        self.n_errors = 0
        self.fired: list[str] = []
        self.fault_turn: int | None = None
        self.recover_turns: int | None = None
        self.terminated = self.truncated = False
        self.latency = 0.0

    def step(
        self,
        action: Any,
        info: Mapping[str, Any],
        terminated: bool,
        truncated: bool,
        forced: bool = False,
        obs: Any = None,
        usage: Mapping[str, Any] | None = None,
    ) -> bool:
        """Account for one step (``forced``: an intervention's); True when the episode is over."""
        self.actions.append(str(action)[:500])
        if self.log_chars:
            tokens = None
            if usage is not None and ("prompt_tokens" in usage or "completion_tokens" in usage):
                total = float(usage.get("prompt_tokens", 0) or 0) + float(usage.get("completion_tokens", 0) or 0)
                tokens, self.tokens_seen = total - self.tokens_seen, total
            now = time.perf_counter() - self.start
            self.turn_seconds.append(round(now - sum(self.turn_seconds), 6))
            self.turn_log.append(turn_entry(len(self.actions), action, obs, info, tokens, self.log_chars, forced))
        if forced:
            self.forced.append(str(action)[:500])
        turn = len(self.actions)
        for e in info.get("events", ()):
            if e["kind"] == "tool_call" and e["ok"] and self.fault_turn is not None and turn > self.fault_turn:
                self.recover_turns = turn - self.fault_turn if self.recover_turns is None else self.recover_turns
            if e["kind"] == "fault_injected":
                self.fired.append(e["fault"])
                self.fault_turn = turn if self.fault_turn is None else self.fault_turn
            elif ev.is_error(e):
                self.n_errors += 1
            if e["kind"] == "subtask":
                self.subtask_done[str(e.get("name"))] = bool(e.get("done"))
            self.warnings += e["kind"] == "budget_warning"
        self.terminated, self.truncated = bool(terminated), bool(truncated)
        if terminated or truncated:
            self.latency = time.perf_counter() - self.start
            return True
        if turn >= self.cap:
            raise ConfigError(
                f"episode of {self.spec.env} ran {self.cap} turns at T={self.spec.T}: the env stack has no turn limit"
            )
        return False

    def no_candidate(self) -> dict[str, Any]:
        """The record of an intervened episode whose task has no candidate for the intervention: not
        played, not scored (`metrics.scored`), counted in the summary's ``intervention`` section."""
        spec = self.spec
        return {
            **spec.to_dict(),
            "env_seed": spec.env_seed,
            "agent_seed": spec.agent_seed,
            "success": None,
            "category": None,
            "no_candidate": True,
            "forced_actions": [],
            "forced_turns": 0,
            "turns": 0,
            "actions": [],
            "cost": {},
            "latency_s": time.perf_counter() - self.start,
            "infra_error": None,
            "attempts": 1,
        }

    def _subtask_fields(self) -> dict[str, Any]:
        """``subtasks``: how many of the task's subtasks the latest events say are done at the episode's
        end (its submission, or where the turn limit cut it off), of how many; absent without subtasks.
        Subtask correctness beside success: a policy that farms subtasks without finishing shows."""
        names = self.subtasks or tuple(self.subtask_done)
        if not names:
            return {}
        return {"subtasks": {"done": sum(self.subtask_done.get(n, False) for n in names), "total": len(names)}}

    def record(self, info: Mapping[str, Any], agent_usage: Mapping[str, Any]) -> dict[str, Any]:
        spec = self.spec
        cost = {k: v for k, v in dict(info.get("cost") or {}).items()}
        cost.update(agent_usage)
        success = bool(info.get("success", False))
        category = info.get("failure_category") or ("success" if success else None)
        return {
            "env": spec.env,
            "task": spec.task,
            "T": spec.T,
            "sample": spec.sample,
            "faults": spec.faults,
            "seed": spec.seed,
            "env_seed": spec.env_seed,
            "agent_seed": spec.agent_seed,
            "success": success,
            "category": category,
            "flags": list(info.get("failure_flags") or []),
            "turns": int(info.get("turn", len(self.actions))),
            "min_turns": int(info.get("min_turns", 0)),
            "submitted": self.terminated,
            "budget_exhausted": bool(info.get("budget_exhausted", self.truncated and not self.terminated)),
            "n_errors": self.n_errors,
            "n_faults": len(self.fired),
            "faults_fired": self.fired,
            "recover_turns": self.recover_turns,
            "cost": cost,
            "latency_s": self.latency,
            "actions": self.actions,
            "infra_error": None,
            "attempts": 1,
            "budget_mode": spec.budget_mode,
            **self._subtask_fields(),
            **_soft_fields(info, self.warnings),
            **({"turn_log": self.turn_log, "turn_seconds": self.turn_seconds} if self.log_chars else {}),
            # intervened episodes only (clean records stay as they were): the whole forced start, and
            # how many of its turns were played (fewer when T ended the episode first)
            **(
                {
                    "intervention": spec.intervention,
                    "forced_actions": [str(a)[:500] for a in self.planned or ()],
                    "forced_turns": len(self.forced),
                }
                if spec.intervention
                else {}
            ),
        }


def turn_entry(
    turn: int,
    action: Any,
    obs: Any,
    info: Mapping[str, Any],
    tokens: float | None,
    chars: int,
    forced: bool = False,
) -> dict[str, Any]:
    """One turn as ``agentgym view`` shows it: the action, what the agent saw next (cut to ``chars``),
    that step's events (long values cut), the turns left and the model tokens the turn took. Its time
    is kept apart, in the record's ``turn_seconds`` (a timing field, like ``latency_s``)."""
    text = obs.get("text") if isinstance(obs, Mapping) else obs
    text = "" if text is None else str(text)
    left = obs.get("turns_left") if isinstance(obs, Mapping) else None
    entry: dict[str, Any] = {
        "turn": turn,
        "obs": text[:chars],
        "events": [_short_event(e, chars) for e in info.get("events", ())],
    }
    if len(text) > chars:
        entry["obs_cut"] = len(text)
    if action is not None:
        entry["action"] = str(action)[:chars]
    if left is not None:
        entry["turns_left"] = int(left if not hasattr(left, "item") else left.reshape(-1)[0].item())
    if tokens is not None:
        entry["tokens"] = tokens
    if forced:
        entry["forced"] = True
    return entry


def _short_event(event: Mapping[str, Any], chars: int) -> dict[str, Any]:
    """An event with JSON-safe values, long strings cut to ``chars``."""
    out: dict[str, Any] = {}
    for k, v in event.items():
        if isinstance(v, str):
            out[k] = v[:chars]
        elif isinstance(v, bool | int | float) or v is None:
            out[k] = v
        else:
            out[k] = str(v)[:chars]
    return out


def _soft_fields(info: Mapping[str, Any], warnings: int) -> dict[str, Any]:
    """What a soft budget did in an episode: requests, grants, refusals, turns and reward they
    cost (``extensions``), and how many budget warnings the agent was shown."""
    ext = info.get("extensions")
    if not isinstance(ext, Mapping):
        return {"warnings": warnings} if warnings else {}
    return {
        "extensions": {
            "requested": int(ext["requested"]),
            "granted": int(ext["granted"]),
            "refused": int(ext["refused"]),
            "extra_turns": int(ext["granted"]) * int(ext["extra"]),
            "cost": float(ext["cost"]),
        },
        "warnings": warnings,
    }


class EpisodeWorker:
    """Runs episodes with warm envs; one per worker process or Ray actor."""

    def __init__(self, config: WorkerConfig) -> None:
        for p in config.sys_path:
            if p not in sys.path:
                sys.path.append(p)

        for env_id, (entry_point, kwargs) in config.envs.items():
            if env_id not in gym.registry:
                gym.register(id=env_id, entry_point=entry_point, kwargs=dict(kwargs))
        self.config = config
        agent = config.agent
        if isinstance(agent, AgentSpec):
            agent = agent.build()
        elif callable(agent) and not hasattr(agent, "act"):
            agent = agent()
        self.agent = agent
        self._bases: dict[tuple[str, int], gym.Env] = {}
        self._startup = 0.0
        self._stacks: dict[tuple[str, int, str, str, int], gym.Env] = {}

    def env_for(self, spec: EpisodeSpec, slot: int = 0) -> gym.Env:
        """The wrapper stack for (env id, T, faults, budget mode) around this worker's warm base env
        number ``slot`` (a batch of K samples plays on K base envs)."""
        key = (spec.env, spec.T, spec.faults, spec.budget_mode, slot)
        stack = self._stacks.get(key)
        if stack is None:
            base = self._bases.get((spec.env, slot))
            if base is None:
                base = self._bases[(spec.env, slot)] = self._start(spec)
            soft = self.config.soft_budget if spec.budget_mode == "soft" else None
            if spec.budget_mode == "soft" and not soft:
                raise ConfigError("a soft-budget episode needs the run's soft_budget (WorkerConfig.soft_budget)")
            stack = self._stacks[key] = wrap_for_eval(base, budget=spec.T, faults=spec.faults or None, soft=soft)
        return stack

    def _start(self, spec: EpisodeSpec) -> gym.Env:
        """A base env with its sandbox started (by one untimed reset), so that start-up, a
        once-per-worker cost, stays out of the first episode's latency; it is kept in
        ``startup_s`` of the next record instead."""
        kwargs = {"split": self.config.split, "backend": self.config.sandbox, **dict(self.config.env_kwargs)}
        start = time.perf_counter()
        base = (self.config.base_env or make_base_env)(spec.env, **kwargs)
        try:
            base.reset(seed=spec.env_seed, options={"task_id": spec.task})
        except BaseException:
            _close_quietly(base)
            raise
        self._startup += time.perf_counter() - start
        return base

    def drop(self, spec: EpisodeSpec) -> None:
        """Close and forget the base envs of ``spec``'s env id and their stacks (a sandbox failed), so
        the retry starts fresh sandboxes."""
        for stack in [k for k in self._stacks if k[0] == spec.env]:
            del self._stacks[stack]
        for base in [k for k in self._bases if k[0] == spec.env]:
            _close_quietly(self._bases.pop(base))

    def run_many(self, specs: Sequence[EpisodeSpec]) -> list[dict[str, Any]]:
        """Records of ``specs``, the samples of one cell: in one batch when the agent plays batches
        (`run_group`), else one by one. A batch hit by an infrastructure failure is replayed one
        episode at a time, each with its own retries."""
        if len(specs) < 2 or not hasattr(self.agent, "act_batch"):
            return [self.run(spec) for spec in specs]
        try:
            records = run_group(
                [self.env_for(spec, slot) for slot, spec in enumerate(specs)], self.agent, specs, self.config.turn_log
            )
        except InfrastructureError:
            self.drop(specs[0])
            return [self.run(spec) for spec in specs]
        for record in records:
            self._stamp(record, 1, [])
        return records

    def _stamp(self, record: dict[str, Any], attempts: int, errors: list[str]) -> dict[str, Any]:
        """The worker's bookkeeping on a record; the start-up time kept since the last record goes to this one."""
        record["attempts"] = attempts
        record["infra_retries"] = errors
        record["worker"] = os.getpid()
        record["startup_s"], self._startup = self._startup, 0.0
        return record

    def run(self, spec: EpisodeSpec) -> dict[str, Any]:
        """The record of ``spec``, retrying infrastructure failures up to ``retries`` times."""
        errors: list[str] = []
        for attempt in range(1, self.config.retries + 2):
            try:
                record = run_episode(self.env_for(spec), self.agent, spec, self.config.turn_log)
            except InfrastructureError as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
                self.drop(spec)
                continue
            return self._stamp(record, attempt, errors)
        return {
            **spec.to_dict(),
            "env_seed": spec.env_seed,
            "agent_seed": spec.agent_seed,
            "success": None,
            "category": None,
            "infra_error": errors[-1],
            "infra_retries": errors,
            "attempts": len(errors),
            "worker": os.getpid(),
        }

    def close(self) -> None:
        self._stacks.clear()
        while self._bases:
            _, env = self._bases.popitem()
            _close_quietly(env)
        close = getattr(self.agent, "close", None)
        if callable(close):
            close()


def _close_quietly(env: gym.Env) -> None:
    try:
        env.close()
    except Exception:  # a crashed sandbox may fail to close; it is gone either way
        pass


# ---------------------------------------------------------------------- local process pool
_WORKER: EpisodeWorker | None = None
_INIT_ERROR: BaseException | None = None


def _init_worker(config: WorkerConfig) -> None:
    # An initializer that raises makes multiprocessing restart the worker forever: keep the
    # error and raise it from the first task instead, so it reaches the parent once.
    global _WORKER, _INIT_ERROR
    try:
        _WORKER = EpisodeWorker(config)
    except Exception as exc:
        _INIT_ERROR = exc
        return
    import atexit

    atexit.register(_WORKER.close)


def _run_in_worker(specs: Sequence[EpisodeSpec]) -> list[dict[str, Any]]:
    if _INIT_ERROR is not None:
        raise _INIT_ERROR
    assert _WORKER is not None, "pool worker not initialised"
    return _WORKER.run_many(specs)


def _start_method() -> str:
    """fork where it is safe, else spawn.

    fork starts a worker in milliseconds where spawn re-imports agentgym, gymnasium and numpy
    (seconds on a busy machine). It is safe when the parent runs a single thread (the progress
    bar runs without a monitor thread) and holds no sandbox, which the harness never opens in
    the parent. A parent with other threads (a Ray driver, a user's app), or macOS and Windows,
    get spawn.
    """
    import threading

    return "fork" if sys.platform.startswith("linux") and threading.active_count() == 1 else "spawn"


def iter_local(config: WorkerConfig, specs: Iterable[EpisodeSpec], workers: int = 1) -> Iterator[dict[str, Any]]:
    """Records of ``specs`` as they finish. One worker runs in-process; more run in a pool of
    worker processes, each with its own agent and warm envs."""
    units = cells(specs) if config.batch else [[spec] for spec in specs]
    if not units:
        return
    if workers <= 1:
        worker = EpisodeWorker(config)
        try:
            for unit in units:
                yield from worker.run_many(unit)
        finally:
            worker.close()
        return
    ctx = mp.get_context(_start_method())
    with ctx.Pool(processes=min(workers, len(units)), initializer=_init_worker, initargs=(config,)) as pool:
        for records in pool.imap_unordered(_run_in_worker, units, chunksize=1):
            yield from records
        pool.close()
        pool.join()


def cells(specs: Iterable[EpisodeSpec]) -> list[list[EpisodeSpec]]:
    """``specs`` grouped by cell (env, task, T, faults, budget mode, intervention), in first-seen order:
    the samples a batching agent plays together."""
    groups: dict[tuple[str, str, int, str, str, str], list[EpisodeSpec]] = {}
    for spec in specs:
        groups.setdefault((spec.env, spec.task, spec.T, spec.faults, spec.budget_mode, spec.intervention), []).append(
            spec
        )
    return list(groups.values())
