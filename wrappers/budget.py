"""Interaction-budget wrappers: cut an episode off after T agent turns.

- `TurnLimit(env, max_turns)`: a fixed budget T; adds ``turns_left`` to the observation.
- `RandomBudget(env, budget)`: a `TurnLimit` whose T is drawn per episode (BudgetMix).
- `parse_budget(budget)`: a budget spec as a sampler and the largest T it can draw;
  `draw_turns` draws from it, checked.
- `TimeLimitGuard(env)`: refuses Gymnasium's `TimeLimit` (``gym.make(id, max_episode_steps=T)``)
  above an agentgym env, which would cut episodes off unscored, unlabelled and silent.

A budget spec is an int T, ``{"uniform": [lo, hi]}``, ``{"choice": [...], "weights": [...]}``,
``{"loguniform": [lo, hi]}`` (all bounds inclusive) or a callable ``(np_random) -> int``.

The caller of ``reset`` may choose one episode's T: ``reset(options={"budget": T})`` (an int in
``[1, max_budget]``; `BudgetExtension` above also reads ``{"soft": T, "extra": E}``). The env's
own T is still drawn and set aside, so the seed's other draws do not move; the next reset
without the option is the env's own draw again. A `TurnLimit` built with ``max_turns=None``
limits nothing until a reset chooses T (what `agentgym.make` stacks when no ``budget`` is given).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from types import FrameType
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.utils import RecordConstructorArgs

from agentgym.errors import ConfigError

__all__ = [
    "TurnLimit",
    "RandomBudget",
    "TimeLimitGuard",
    "parse_budget",
    "draw_turns",
    "budget_note",
    "chosen_budget",
    "take_option",
    "BudgetSpec",
    "CALLABLE_MAX_BUDGET",
]

BudgetSpec = int | Mapping[str, Any] | Callable[[np.random.Generator], int]
Sampler = Callable[[np.random.Generator], int]

CALLABLE_MAX_BUDGET = 1024
"""Upper bound of ``turns_left``'s space for a callable budget unless ``max_budget`` is given."""


def _turns(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ConfigError(f"{what}={value!r}; expected an int >= 1 (a number of agent turns)")
    return int(value)


def _bounds(spec: Mapping[str, Any], key: str) -> tuple[int, int]:
    pair = spec[key]
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise ConfigError(f"budget {{{key!r}: {pair!r}}}; expected [lo, hi], e.g. {{{key!r}: [2, 16]}}")
    lo, hi = _turns(pair[0], f"{key} lo"), _turns(pair[1], f"{key} hi")
    if lo > hi:
        raise ConfigError(f"budget {{{key!r}: {list(pair)!r}}}: lo > hi")
    return lo, hi


class _Draw:
    """A picklable sampler for one distribution (lambdas would stop envs from pickling)."""

    def __init__(self, kind: str, *params: Any) -> None:
        self.kind, self.params = kind, params

    def __call__(self, rng: np.random.Generator) -> int:
        if self.kind == "fixed":
            return self.params[0]
        if self.kind == "uniform":
            lo, hi = self.params
            return int(rng.integers(lo, hi + 1))
        if self.kind == "loguniform":
            # floor(exp(U[log lo, log(hi+1)))) gives each T in [lo, hi] mass log((T+1)/T)
            lo, hi = self.params
            return min(hi, int(math.exp(rng.uniform(math.log(lo), math.log(hi + 1)))))
        choices, p = self.params
        return choices[int(rng.choice(len(choices), p=p))]


def parse_budget(budget: BudgetSpec, max_budget: int | None = None) -> tuple[Sampler, int]:
    """Turn a budget spec into ``(sampler, largest T)``; raises `ConfigError` echoing a bad spec.

    ``max_budget`` raises the largest T (the ``turns_left`` space's high, and the most a reset may
    choose) above the spec's own; for a callable it is the bound its draws are checked against."""
    if callable(budget):
        top = _turns(max_budget, "max_budget") if max_budget is not None else CALLABLE_MAX_BUDGET
        return budget, top
    sample, top = _parse_spec(budget)
    if max_budget is not None:
        cap = _turns(max_budget, "max_budget")
        if cap < top:
            raise ConfigError(f"max_budget={cap} is below the budget's largest T {top}; give max_budget >= {top}")
        top = cap
    return sample, top


def _parse_spec(budget: BudgetSpec) -> tuple[Sampler, int]:
    if isinstance(budget, Mapping):
        if len(budget) != 1 and set(budget) != {"choice", "weights"}:
            raise ConfigError(
                f"budget={dict(budget)!r}; expected one of {{'uniform': [lo, hi]}}, "
                "{'choice': [...], 'weights': [...]}, {'loguniform': [lo, hi]}"
            )
        for kind in ("uniform", "loguniform"):
            if kind in budget:
                lo, hi = _bounds(budget, kind)
                return _Draw(kind, lo, hi), hi
        if "choice" in budget:
            values = budget["choice"]
            if not isinstance(values, (list, tuple)) or not values:
                raise ConfigError(f"budget choice={values!r}; expected a non-empty list of ints")
            choices = [_turns(v, "budget choice") for v in values]
            weights = budget.get("weights")
            p = None
            if weights is not None:
                w = np.asarray(weights, dtype=float)
                if w.shape != (len(choices),) or (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
                    raise ConfigError(
                        f"budget weights={weights!r}; expected {len(choices)} non-negative numbers, not all 0"
                    )
                p = w / w.sum()
            return _Draw("choice", choices, p), max(choices)
        raise ConfigError(f"budget={dict(budget)!r}; unknown distribution, use uniform, choice or loguniform")
    t = _turns(budget, "budget")
    return _Draw("fixed", t), t


def draw_turns(sample: Sampler, rng: np.random.Generator, top: int, what: str, name: str) -> int:
    """One draw of a parsed budget spec, checked: an int in ``[1, top]`` (a callable may return anything)."""
    t = sample(rng)
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 1 <= t <= top:
        raise ConfigError(
            f"{what} drew {name}={t!r}; expected an int in [1, {top}] (for a callable pass max_budget=...)"
        )
    return int(t)


def budget_note(max_turns: int) -> str:
    """The line `TurnLimit` adds to the first observation's text."""
    return (
        f"[budget: {max_turns} turns in this episode; every action, help included, uses one; "
        "work not submitted when they run out scores 0]"
    )


def take_option(options: Mapping[str, Any] | None, key: str) -> tuple[Any, dict[str, Any] | None]:
    """``(options[key] or None, the options without key)`` for a wrapper that reads ``key`` at reset.

    The caller's dict is never changed (one dict may reset several envs); the key goes no
    further down, so the env below can refuse the keys nobody read (`AgentEnv.reset`)."""
    if not options or key not in options:
        return None, options  # type: ignore[return-value]
    rest = {k: v for k, v in options.items() if k != key}
    return options[key], rest


def chosen_budget(value: Any, cap: int | None) -> int:
    """The T a reset chose (``options["budget"]``: an int, or ``{"soft": T}`` once `BudgetExtension`
    has read its ``extra``), checked against ``cap``, the largest T the env holds (None: any)."""
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - {"soft"})
        if "extra" in unknown:
            raise ConfigError(
                f"reset options budget={dict(value)!r}: 'extra' needs a BudgetExtension in the stack; build the env "
                "with a soft budget, e.g. agentgym.make(..., budget={'soft': 8, 'extra': 4})"
            )
        if unknown or "soft" not in value:
            raise ConfigError(
                f"reset options budget={dict(value)!r}; expected an int T or {{'soft': T, 'extra': E}}"
                + (f", not the keys {unknown}" if unknown else "")
            )
        value = value["soft"]
    t = _turns(value, "reset options budget")
    if cap is not None and t > cap:
        raise ConfigError(
            f"reset options budget={t} is over this env's max_budget={cap}, the largest T its turns_left space "
            f"holds; build it with max_budget={t} or more (agentgym.make(..., max_budget={t}), "
            f"agentgym serve --client-budget LO-{t})"
        )
    return t


class TurnLimit(gym.Wrapper, RecordConstructorArgs):
    """Truncates an episode when its T-th agent turn ends without termination.

    On truncation it calls ``env.unwrapped.end_by_budget()`` when the env has it (unsubmitted
    work scores 0 unless the env scores the state at truncation) and puts its verdict in
    ``info["success"]``. ``terminated`` and ``truncated`` keep Gymnasium's meaning: a submission
    on the last turn is a termination, and a truncation set further in is passed through, so
    both can be true. It never emits ``"TimeLimit.truncated"``.

    info: ``budget`` (T), ``turns_left``, and ``budget_exhausted`` at the end of an episode.
    A `Dict` observation gains ``turns_left`` (int64, shape (1,), at most ``max_budget``) and
    ``turns_left_frac``; with ``announce`` (the default) the first observation's text states T
    (`budget_note`), so an agent that reads only text knows its budget before it spends a turn
    on ``help``.

    ``reset(options={"budget": T})`` runs that episode with T instead (an int in ``[1,
    max_budget]``; ``max_budget`` defaults to ``max_turns``). ``max_turns=None`` limits nothing
    until a reset chooses T, and adds no ``turns_left`` to the observation space (there is no T to
    count down from by default): a chosen T then shows in ``info`` and the text only.

    >>> from agentgym.wrappers import TurnLimit
    >>> from agentgym.testing.kv_env import ScriptedAgentEnv  # a container-free env shipped for tests
    >>> env = TurnLimit(ScriptedAgentEnv(), max_turns=2)
    >>> obs, info = env.reset(seed=0)
    >>> int(obs["turns_left"][0]), info["budget"]
    (2, 2)
    >>> _ = env.step("help")
    >>> obs, reward, terminated, truncated, info = env.step("help")
    >>> truncated, info["budget_exhausted"], info["success"], reward
    (True, True, False, 0.0)
    >>> env.close()
    """

    max_turns: int | None
    """This episode's T (None: no limit this episode); may grow within one (add_turns)."""
    _fixed_turns: int | None

    def __init__(
        self, env: gym.Env, max_turns: int | None, announce: bool = True, max_budget: int | None = None
    ) -> None:
        RecordConstructorArgs.__init__(self, max_turns=max_turns, announce=announce, max_budget=max_budget)
        if max_turns is None:
            if max_budget is not None:
                raise ConfigError(f"max_budget={max_budget!r} with max_turns=None; give the default T as well")
            self._init_budget(env, None, announce)
            return
        t = _turns(max_turns, "max_turns")
        top = t if max_budget is None else _turns(max_budget, "max_budget")
        if top < t:
            raise ConfigError(f"max_budget={top} is below max_turns={t}; give max_budget >= {t}")
        self._init_budget(env, top, announce)
        self.max_turns = self._fixed_turns = t

    def _init_budget(self, env: gym.Env, top: int | None, announce: bool) -> None:
        gym.Wrapper.__init__(self, env)
        self.announce = bool(announce)
        self.max_turns = top
        self._fixed_turns = top
        self.max_budget = top
        """The largest T: the ``turns_left`` space's high and the most a reset may choose (None: any, no space)."""
        self.turns = 0
        self._over = False
        inner = env.observation_space
        if isinstance(inner, spaces.Dict) and top is not None:
            self.observation_space = spaces.Dict(
                {
                    **inner.spaces,
                    "turns_left": spaces.Box(0, top, shape=(1,), dtype=np.int64),
                    "turns_left_frac": spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32),
                }
            )

    def _next_budget(self) -> int | None:
        """T for the episode that is starting (RandomBudget draws it)."""
        return self._fixed_turns

    @property
    def turns_left(self) -> int | None:
        return None if self.max_turns is None else self.max_turns - self.turns

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        value, options = take_option(options, "budget")
        chosen = None if value is None else chosen_budget(value, self.max_budget)  # refused before the env resets
        obs, info = self.env.reset(seed=seed, options=options)
        own = self._next_budget()  # drawn even when T is chosen, so the seed's later draws stay where they were
        self.max_turns, self.turns, self._over = own if chosen is None else chosen, 0, False
        if self.max_turns is None:
            return obs, info
        obs = self._with_turns(obs)
        if self.announce and isinstance(obs, dict) and isinstance(obs.get("text"), str):
            obs["text"] = f"{obs['text'].rstrip()}\n\n{budget_note(self.max_turns)}"
        return obs, self._with_budget(info)

    @property
    def episode_over(self) -> bool:
        """The episode ended (submission, truncation, or the env's own end) and awaits ``reset``."""
        return self._over

    def step(self, action: Any):
        if self.max_turns is None:  # no T this episode: nothing to count
            return self.env.step(action)
        if self._over:
            raise ResetNeeded("the turn budget of this episode is spent: call reset() before step()")
        return self._count_turn(*self.env.step(action))

    def spend_turn(self, obs: Any, info: dict[str, Any]):
        """Count a turn the env below never saw (a wrapper's own action, e.g. `BudgetExtension`'s
        ``extend``) and return its step tuple; on the last turn it ends the episode by budget."""
        if self._over:
            raise ResetNeeded("the turn budget of this episode is spent: call reset() before step()")
        return self._count_turn(obs, 0.0, False, False, info)

    def add_turns(self, extra: int) -> None:
        """Lengthen this episode's budget by ``extra`` turns (an extension granted on request)."""
        if self.max_turns is None:
            raise ConfigError("add_turns: this episode has no turn limit to lengthen")
        self.max_turns += _turns(extra, "extra")

    def _count_turn(self, obs: Any, reward: Any, terminated: bool, truncated: bool, info: dict[str, Any]):
        assert self.max_turns is not None  # counted only in episodes with a limit (step, spend_turn)
        self.turns += 1
        if self.turns >= self.max_turns and not (terminated or truncated):  # a wrapper inside may have ended it
            truncated = True
            end_by_budget = getattr(self.env.unwrapped, "end_by_budget", None)
            info["success"] = info["is_success"] = bool(end_by_budget()) if end_by_budget is not None else False
            reward = float(reward) + float(info["success"])
        self._over = bool(terminated or truncated)
        info = self._with_budget(info)
        if self._over:
            info["budget_exhausted"] = bool(truncated and not terminated and self.turns >= self.max_turns)
        return self._with_turns(obs), reward, terminated, truncated, info

    def _with_turns(self, obs: Any) -> Any:
        if self.max_budget is not None and isinstance(self.observation_space, spaces.Dict) and isinstance(obs, dict):
            assert self.max_turns is not None  # an episode's T is set whenever the wrapper has a largest T
            left = self.max_turns - self.turns  # turns_left
            obs = dict(obs)
            obs["turns_left"] = np.array([left], dtype=np.int64)
            obs["turns_left_frac"] = np.array([left / self.max_turns], dtype=np.float32)
        return obs

    def _with_budget(self, info: dict[str, Any]) -> dict[str, Any]:
        info["budget"], info["turns_left"] = self.max_turns, self.turns_left
        return info


class RandomBudget(TurnLimit):
    """A `TurnLimit` whose T is drawn at every reset from ``budget`` (BudgetMix training).

    The draw uses the env's seeded generator, so ``reset(seed=s)`` reproduces it; the drawn T
    is ``info["budget"]``. ``max_budget`` is the largest T (``turns_left``'s space high, and the
    most ``reset(options={"budget": T})`` may choose): the spec's largest T by default, 1024 for
    a callable, whose draws it bounds.

    >>> from agentgym.wrappers import RandomBudget
    >>> from agentgym.testing.kv_env import ScriptedAgentEnv
    >>> env = RandomBudget(ScriptedAgentEnv(), {"choice": [4, 8, 16]})
    >>> budgets = [env.reset(seed=s)[1]["budget"] for s in range(5)]
    >>> budgets == [env.reset(seed=s)[1]["budget"] for s in range(5)], set(budgets) <= {4, 8, 16}
    (True, True)
    >>> env.reset(seed=0, options={"budget": 3})[1]["budget"], env.reset(seed=0)[1]["budget"] == budgets[0]
    (3, True)
    >>> env.close()
    """

    def __init__(self, env: gym.Env, budget: BudgetSpec, max_budget: int | None = None, announce: bool = True) -> None:
        RecordConstructorArgs.__init__(self, budget=budget, max_budget=max_budget, announce=announce)
        self._sample, top = parse_budget(budget, max_budget)
        self._init_budget(env, top, announce)
        self._top = top
        self.budget = budget

    def _next_budget(self) -> int:
        return draw_turns(self._sample, self.np_random, self._top, f"budget {self.budget!r}", "T")


class TimeLimitGuard(gym.Wrapper, RecordConstructorArgs):
    """Refuses Gymnasium's `TimeLimit` above an agentgym env, at the first reset.

    ``gym.make(id, max_episode_steps=T)`` wraps the env in `TimeLimit` after the entry point
    returns, so nothing at construction can see it; its truncation sets only ``truncated``:
    no verdict, no ``turns_left``, no failure label. The agentgym entry point puts this guard
    outermost, and its first reset looks up the call stack for a `TimeLimit` wrapping it.

    A first reset refused (a `ConfigError`: a reset option out of range or unknown) would leave
    Gymnasium's `PassiveEnvChecker` above marked as checked with no reset data, so the first
    step would fail inside it; the guard re-arms the checker's first-reset check instead.
    """

    def __init__(self, env: gym.Env) -> None:
        RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        self._checked = False
        self._reset_once = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if not self._checked:
            self._refuse_time_limit()
            self._checked = True
        try:
            out = self.env.reset(seed=seed, options=options)
        except ConfigError:
            if not self._reset_once:
                self._rearm_env_checker()
            raise
        self._reset_once = True
        return out

    def _rearm_env_checker(self) -> None:
        frame: FrameType | None = sys._getframe(2)
        for _ in range(64):
            if frame is None:
                return
            outer = frame.f_locals.get("self")
            if isinstance(outer, gym.wrappers.PassiveEnvChecker) and _wraps(outer, self):
                outer.checked_reset = False  # its first reset is checked again, data kept for the first step
                return
            frame = frame.f_back

    def _refuse_time_limit(self) -> None:
        frame: FrameType | None = sys._getframe(2)
        for _ in range(64):  # the wrappers between a TimeLimit and here are a handful of frames
            if frame is None:
                return
            outer = frame.f_locals.get("self")
            if isinstance(outer, gym.wrappers.TimeLimit) and _wraps(outer, self):
                t = outer._max_episode_steps
                raise ConfigError(
                    f"max_episode_steps={t} adds Gymnasium's TimeLimit, which cuts an agentgym episode "
                    f"off with no score, no turns_left and no failure label; pass the budget instead: "
                    f"gym.make({self.unwrapped.spec.id if self.unwrapped.spec else 'ENV_ID'!r}, budget={t}) "
                    f"or agentgym.make(..., budget={t})"
                )
            frame = frame.f_back


def _wraps(outer: gym.Env, inner: gym.Env) -> bool:
    env = outer
    while isinstance(env, gym.Wrapper):
        env = env.env
        if env is inner:
            return True
    return False
