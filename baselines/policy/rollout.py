"""Trajectory collection for the trainer: many envs stepped at their own pace, whole episodes only.

`EpisodeCollector` runs a list of envs with one policy. Each env's step runs in a thread pool
(a step mostly waits on its sandbox, which runs in another process). In the default
``mode="async"`` the collector never waits for the slowest env: whenever any step finishes,
the envs that are ready are scored in one batched forward and sent their next action, so one
slow step (a test that runs into its timeout) holds up only its own env. ``collect`` returns
as soon as the finished episodes hold enough steps; episodes still open carry over to the next
call and keep stepping in the background meanwhile (during the PPO update). Each step stores
the log-probability of the policy that chose it, so PPO's ratio stays correct for those.
``mode="lockstep"`` is the previous collector (every env steps once per batched forward, the
batch waits for the slowest), kept so the benchmark can measure the difference in one run.

The trainer's signal is trajectory-level, so an episode is cut only by its own end
(submission or the budget). An episode whose env raised `InfrastructureError` (engine lost,
sandbox crashed) is dropped whole, never scored as a failure, and the env is rebuilt; the count
goes to the metrics.

`stats` times every step by action kind and counts straggler time: env-seconds spent idle
because another env's step was still running (lockstep: the rest of a round after an env's own
step; async: time a step waited in the pool queue), divided by the number of envs.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import (
    ALL_COMPLETED,
    FIRST_COMPLETED,
    Future,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass, field
from functools import partial
from typing import Any, cast

import gymnasium as gym
import numpy as np
import torch

from agentgym.core import AgentEnv
from agentgym.errors import ConfigError, InfrastructureError
from baselines.policy.family_features import episode_memory
from baselines.policy.features import EncodedStep, stack_steps
from baselines.policy.model import MenuPolicy

__all__ = ["Episode", "EpisodeCollector", "FALLBACK_ACTION", "COLLECT_MODES", "parse_start_patch"]

FALLBACK_ACTION = "help"
"""Sent when an env offers an empty menu (costs a turn, never raises)."""

COLLECT_MODES = ("async", "lockstep")

RESTART_BACKOFF_S = (1.0, 3.0, 10.0)
"""Waits before rebuilding an env whose sandbox failed to start again (a Docker engine restart takes seconds)."""


@dataclass
class Episode:
    """One finished episode: per-step features, choices, log-probs, values and rewards."""

    steps: list[EncodedStep] = field(default_factory=list)
    choices: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    events: list[list[dict[str, Any]]] = field(default_factory=list)
    task_id: str = ""
    budget: int | None = None
    success: bool = False
    truncated: bool = False
    failure_category: str | None = None

    def __len__(self) -> int:
        return len(self.rewards)


@dataclass
class _Pending:
    """A step in flight: what was chosen, and when it was handed to the pool."""

    action: str
    encoded: EncodedStep
    choice: int
    logprob: float
    value: float
    submitted: float
    future: Future


def action_kind(action: str) -> str:
    """The grammar verb of an action (``patch``, ``test``, ``submit``; ``get_user`` of a call), for timing tables."""
    return action.split(None, 1)[0].split("(", 1)[0] if action.strip() else "empty"


def parse_start_patch(spec: str) -> tuple[str, float]:
    """``recovery_start_patch`` -> (kind, share of starts on the right patch): ``wrong`` (0),
    ``any`` (a blind pick), or ``right:P`` (the fix in a share P of the starts, else a wrong patch)."""
    if spec in ("wrong", "any"):
        return spec, 0.0
    if spec.startswith("right:"):
        try:
            share = float(spec.split(":", 1)[1])
        except ValueError:
            share = -1.0
        if 0.0 <= share <= 1.0:
            return "right", share
    raise ValueError(f"recovery_start_patch={spec!r}; choose 'wrong', 'any' or 'right:P' with 0 <= P <= 1")


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
        task_pool: int = 0,
        mode: str = "async",
        gather_s: float = 0.005,
        recovery_starts: float = 0.0,
        recovery_start_patch: str = "wrong",
    ) -> None:
        if mode not in COLLECT_MODES:
            raise ValueError(f"mode={mode!r}; choose one of {COLLECT_MODES}")
        self.mode = mode
        self.gather_s = float(gather_s)
        self.env_fns = list(env_fns)
        self.envs: list[gym.Env] = [fn() for fn in self.env_fns]
        self.policy = policy
        self.max_actions = max_actions
        self.memories = [episode_memory(env, dim, max_actions) for env in self.envs]  # the family's encoder
        self.pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
        self.generator = torch.Generator().manual_seed(seed)
        self.seed = seed
        self.infra_failures = 0
        self.env_steps = 0
        self._obs: list[Any] = [None] * len(self.envs)
        self._info: list[dict[str, Any]] = [{}] * len(self.envs)
        self._open: list[Episode | None] = [None] * len(self.envs)
        self._pending: dict[int, _Pending] = {}
        self._seeded = False
        # group-relative training: episodes come in groups of `group_size` on the same task
        self.group_size = max(1, int(group_size))
        self._group_rng = np.random.default_rng(seed)
        self._group_task: str | None = None
        self._group_left = 0
        self._group_lock = threading.Lock()
        self.task_pool = max(0, int(task_pool))  # > 0: episodes draw from this many fixed tasks of the split
        self._pool: list[str] | None = None
        # start-state curriculum: this share of episodes, whatever their budget, begins after a
        # patch and its test, played through the env's grammar by `_forced_start`
        self.recovery_starts = float(recovery_starts)
        self.recovery_start_patch, self.recovery_start_right = parse_start_patch(recovery_start_patch)
        self._start_rng = np.random.default_rng(seed + 7)
        self.forced_steps = 0
        self.forced_episodes = 0
        self.stats: dict[str, Any] = {
            "step_seconds": defaultdict(list),
            "straggler_seconds": 0.0,
            "forward_seconds": 0.0,
            "timeouts": 0,
        }

    # a reset or step that may raise InfrastructureError, run in the pool
    def _next_task(self, i: int) -> dict[str, Any] | None:
        if self.group_size == 1 and not self.task_pool:
            return None
        with self._group_lock:
            if self._group_left == 0:
                base = cast(AgentEnv, self.envs[i].unwrapped)
                ids = base.tasks.ids(base.split)
                if self.task_pool:
                    if self._pool is None:  # the same pool for every seed: the first N of a fixed shuffle
                        order = np.random.default_rng(0).permutation(len(ids))
                        self._pool = [ids[j] for j in sorted(order[: self.task_pool])]
                    ids = self._pool
                self._group_task = ids[int(self._group_rng.integers(len(ids)))]
                self._group_left = self.group_size
            self._group_left -= 1
            return {"task_id": self._group_task}

    def _reset(self, i: int, seed: int | None) -> None:
        obs, info = self.envs[i].reset(seed=seed, options=self._next_task(i))
        self.memories[i].reset()
        budget = info.get("budget")
        if self.recovery_starts > 0 and self._start_rng.random() < self.recovery_starts:
            obs, info = self._forced_start(i, obs, info)
        self._obs[i], self._info[i] = obs, info
        self._open[i] = Episode(task_id=str(info.get("task_id", "")), budget=budget)

    def _forced_start(self, i: int, obs: Any, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Play the start of a try through the env (the start-state curriculum).

        A menu patch and its test, then (half the time, when the test failed) ``revert``: the
        episode begins with a verdict to react to, or an undone try to move on from. The patch is
        wrong, except in a share ``recovery_start_right`` of the starts (``right:P``), where it is
        the oracle's fix: then the test mostly passes, and the episode begins where the right move
        is to submit. Without those starts every forced test follows a wrong patch, the policy
        learns "after a test, revert" and undoes a right patch its test just confirmed, so testing
        its own patch loses value and is never learned (issue 24's probe: P(revert | passing
        test) 0.25-0.58 on the positive control).
        Where the budget leaves room, it never begins right after the patch alone (except with
        ``any``): that state looks like the policy's own untested patch, which is right far more
        often, so starting there would teach "revert untested" (a first version did; the traces
        showed ``P- R``). At T=2 the patch alone is the only start that leaves a turn, and
        submitting is then the only move that can pay. The patch is picked with the env's
        oracle (`reference_action`: the fix, or any menu patch that is not it), which only
        chooses where the episode starts; the policy's memory sees the steps exactly as if it had
        taken them (observations and events), and the turns count against the budget (they go
        through the turn limit).

        Equal exposure: every schedule gets the same share of forced starts, whatever the
        episode's budget; a start spends at most the turns the episode has less one, so the policy
        always takes the last turn (at T=2 the start is the patch alone, at T=3 the patch and its
        test). Not done without a budget of at least 2 or when the menu has no such patch.
        """
        budget = info.get("budget")
        room = None if budget is None else int(budget) - 1  # turns a start may spend
        if room is not None and room < 1:
            return obs, info
        actions = self._start_actions(i, info, room)
        if actions is None:
            return obs, info
        memory = self.memories[i]
        for k, action in enumerate(actions):
            if k == 2 and not any(
                e.get("kind") == "verification" and not e.get("ok") for e in info.get("events") or []
            ):
                break  # the wrong patch passed the visible tests: nothing says to undo it
            memory.encode(obs, info)
            memory.record(action)
            obs, _, terminated, truncated, info = self.envs[i].step(action)
            self.env_steps += 1
            self.forced_steps += 1
            if terminated or truncated:  # cannot happen (a start leaves a turn), but never hand on a finished episode
                raise ConfigError(
                    "a forced start (--recovery-starts) ended its episode; it must leave the policy a turn"
                )
        self.forced_episodes += 1
        return obs, info

    def _start_actions(self, i: int, info: dict[str, Any], room: int | None) -> tuple[str, ...] | None:
        """A forced start's actions, at most ``room`` of them: a menu patch (the oracle's fix in a share
        ``recovery_start_right`` of the starts, else a wrong one; with ``any`` a blind pick), its test,
        and a revert; None when the menu has no such patch or no test. The draws from the start RNG come
        in a fixed order (the fix or not, the length, the patch), so a run depends only on its seed."""
        base = self.envs[i].unwrapped
        oracle = getattr(base, "reference_action", None)
        fix = oracle() if callable(oracle) else None
        menu = list(info.get("admissible_actions") or [])
        patches = [a for a in menu if a.split(None, 1)[0] == "patch"]
        # "any": a blind pick (right as often as a blind pick is), so "patch alone" is an honest start
        if self.recovery_start_patch == "any":
            candidates = patches
        elif self.recovery_start_right > 0 and fix in patches and self._start_rng.random() < self.recovery_start_right:
            candidates = [fix]
        else:
            candidates = [a for a in patches if a != fix]
        tests = [a for a in menu if a in ("test", "run tests")]
        if not candidates or not tests:
            return None
        # 2: the patch and its test; 3: and a revert if it failed; with "any", also 1: the patch alone
        length = (
            (1 + int(self._start_rng.integers(3)))
            if self.recovery_start_patch == "any"
            else (2 + int(self._start_rng.integers(2)))
        )
        if room is not None:
            length = min(length, room)
        return (candidates[int(self._start_rng.integers(len(candidates)))], tests[0], "revert")[:length]

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
        errors = [self._safe(partial(self._reset, i, s)) for i, s in zip(indices, seeds)]
        for i, err in zip(indices, errors):
            # the engine may be restarting (seconds): rebuild with a short back-off, then surface
            for wait_s in (*RESTART_BACKOFF_S, None):
                if err is None:
                    break
                self._rebuild(i)
                if wait_s is None:
                    self._reset(i, None)  # failures past the back-off are not masked: they surface
                    break
                time.sleep(wait_s)
                err = self._safe(partial(self._reset, i, None))
        self._seeded = True

    def _choose(self, indices: Sequence[int]) -> list[tuple[str, EncodedStep, int, float, float]]:
        """One batched forward over the menus of envs ``indices``: (action, features, index, logp, value) each."""
        t0 = time.perf_counter()
        encoded = [self.memories[i].encode(self._obs[i], self._info[i]) for i in indices]
        batch = stack_steps(encoded, self.max_actions)
        choice, logprob, value = self.policy.act(batch, generator=self.generator)
        self.stats["forward_seconds"] += time.perf_counter() - t0
        return [
            (enc.actions[c] if enc.actions else FALLBACK_ACTION, enc, int(c), float(lp), float(v))
            for enc, c, lp, v in zip(encoded, choice, logprob, value)
        ]

    def _record(self, i: int, p: _Pending, result: Any, finished_into: list[Episode]) -> bool:
        """Fold one step's result into env ``i``'s episode; True when that episode ended (or was dropped)."""
        ep = self._open[i]
        if isinstance(result, InfrastructureError) or ep is None:
            self._rebuild(i)
            return True
        obs, reward, terminated, truncated, info = result
        self.memories[i].record(p.action)
        ep.steps.append(p.encoded)
        ep.choices.append(p.choice)
        ep.logprobs.append(p.logprob)
        ep.values.append(p.value)
        ep.rewards.append(float(reward))
        ep.actions.append(p.action)
        ep.events.append(list(info.get("events") or []))
        if any(e.get("kind") == "tool_call" and e.get("error_kind") == "timeout" for e in ep.events[-1]):
            self.stats["timeouts"] += 1  # reported, not hidden: a looping decoy ran into the test timeout
        if ep.budget is None and "budget" in info:
            ep.budget = int(info["budget"])
        self._obs[i], self._info[i] = obs, info
        self.env_steps += 1
        if terminated or truncated:
            ep.success = bool(info.get("success", False))
            ep.truncated = bool(truncated and not terminated)
            ep.failure_category = info.get("failure_category")
            finished_into.append(ep)
            self._open[i] = None
            return True
        return False

    def collect(self, min_steps: int, on_step: Callable[[int], None] | None = None) -> list[Episode]:
        """Whole episodes totalling at least ``min_steps`` steps."""
        self.policy.eval()
        if self.mode == "lockstep":
            return self._collect_lockstep(min_steps, on_step)
        return self._collect_async(min_steps, on_step)

    # ------------------------------------------------------------------ async: no env waits for another
    def _collect_async(self, min_steps: int, on_step: Callable[[int], None] | None) -> list[Episode]:
        done: list[Episode] = []
        steps_done = sum(len(ep) for ep in done)
        idle = [i for i in range(len(self.envs)) if i not in self._pending]
        self._start_all([i for i in idle if self._open[i] is None])
        while True:
            ready = [i for i in range(len(self.envs)) if i not in self._pending and self._open[i] is not None]
            if ready:
                for i, (action, enc, c, lp, v) in zip(ready, self._choose(ready)):
                    self._pending[i] = _Pending(action, enc, c, lp, v, time.perf_counter(), self._submit(i, action))
            if steps_done >= min_steps:
                return done  # open episodes keep stepping in the background and carry over
            futures = [p.future for p in self._pending.values()]
            finished, running = wait(futures, return_when=FIRST_COMPLETED)
            if running and self.gather_s > 0:
                # a short window for the steps finishing right after, so one forward scores several
                # menus (many one-row forwards cost the GIL that the env threads need)
                more, _ = wait(running, timeout=self.gather_s, return_when=ALL_COMPLETED)
                finished = finished | more
            restart: list[int] = []
            for i in [i for i, p in self._pending.items() if p.future in finished]:
                p = self._pending.pop(i)
                result, started, seconds = p.future.result()
                if not isinstance(result, InfrastructureError):
                    self.stats["step_seconds"][action_kind(p.action)].append(seconds)
                self.stats["straggler_seconds"] += (started - p.submitted) / len(self.envs)
                before = len(done)
                if self._record(i, p, result, done):
                    restart.append(i)
                if not isinstance(result, InfrastructureError) and on_step is not None:
                    on_step(1)
                steps_done += sum(len(ep) for ep in done[before:])
            if restart:
                self._start_all(restart)

    def _submit(self, i: int, action: str) -> Future:
        if self.pool is None:
            future: Future = Future()
            future.set_result(self._timed_step(i, action))
            return future
        return self.pool.submit(self._timed_step, i, action)

    def _timed_step(self, i: int, action: str) -> tuple[Any, float, float]:
        started = time.perf_counter()
        result = self._step_one(i, action)
        return result, started, time.perf_counter() - started

    # ------------------------------------------------------------------ lockstep: the batch waits for its slowest env
    def _collect_lockstep(self, min_steps: int, on_step: Callable[[int], None] | None) -> list[Episode]:
        done: list[Episode] = []
        count = 0
        active = list(range(len(self.envs)))
        self._start_all([i for i in active if self._open[i] is None])
        while active:
            chosen = self._choose(active)
            round_start = time.perf_counter()
            results = self._map(lambda a: self._timed_step(*a), [(i, c[0]) for i, c in zip(active, chosen)])
            round_end = time.perf_counter()
            finished: list[int] = []
            for i, (action, enc, c, lp, v), (result, started, seconds) in zip(active, chosen, results):
                if not isinstance(result, InfrastructureError):
                    self.stats["step_seconds"][action_kind(action)].append(seconds)
                self.stats["straggler_seconds"] += (round_end - (started + seconds)) / len(self.envs)
                p = _Pending(action, enc, c, lp, v, round_start, Future())
                if self._record(i, p, result, done):
                    finished.append(i)
                if not isinstance(result, InfrastructureError):
                    count += 1
                    if on_step is not None:
                        on_step(1)
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

    def timing(self) -> dict[str, Any]:
        """Step-time percentiles (ms) per action kind, straggler and forward seconds so far."""
        kinds = {
            kind: {
                "n": len(v),
                "p50_ms": 1e3 * float(np.percentile(v, 50)),
                "p90_ms": 1e3 * float(np.percentile(v, 90)),
                "p95_ms": 1e3 * float(np.percentile(v, 95)),
                "p99_ms": 1e3 * float(np.percentile(v, 99)),
                "max_ms": 1e3 * float(np.max(v)),
            }
            for kind, v in sorted(self.stats["step_seconds"].items())
            if v
        }
        return {
            "step_ms_by_kind": kinds,
            "straggler_seconds": float(self.stats["straggler_seconds"]),
            "forward_seconds": float(self.stats["forward_seconds"]),
            "timeouts": int(self.stats["timeouts"]),
        }

    def close(self) -> None:
        for p in self._pending.values():
            p.future.cancel()
        if self.pool is not None:
            self.pool.shutdown(wait=True)
        self._pending.clear()
        for env in self.envs:
            env.close()
