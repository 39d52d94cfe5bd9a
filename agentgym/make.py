"""`agentgym.make`: an env with the agentgym wrappers stacked in a working order.

- `make(env_id, budget=..., faults=..., labels=..., process_reward=..., cost=..., numeric=...)`
- `wrap(env, ...)`: the same stack around an env you built (the one place the order lives).
- `make_registered(family_entry_point=..., ...)`: the entry point every ``agentgym/*`` id is
  registered with, so the same options work as ``gym.make`` kwargs and ``env.spec`` records
  them.

The order, innermost first, and why:

1. the family env;
2. `ToolFailureInjector` (``faults``): arms faults on the base env, before anything counts turns;
   without ``faults`` it injects none unless a reset chooses some (``options={"faults": SPEC}``);
3. `TurnLimit` / `RandomBudget` (``budget``): truncates, closes the episode by budget, adds
   ``turns_left`` to the observation; a soft budget (``{"soft": T, "extra": E, "warn_at": k}``)
   adds `BudgetExtension` (its ``extend`` turns bypass every wrapper below it) then `BudgetWarning`;
   without ``budget`` a `TurnLimit` that limits nothing unless a reset chooses T
   (``options={"budget": T}``), so every env these build takes both reset options;
4. `FailureLabeler` (``labels``): needs every step's events and the final ``truncated``;
5. `ProcessReward` (``process_reward``): shapes the reward, seeing the truncation;
6. `CostTracker` (``cost``): outermost but for the view, so agent time excludes wrapper time;
7. `NumericView` (``numeric``): changes the action and observation spaces, so it goes last.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, cast

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

from agentgym.core import AgentEnv
from agentgym.errors import ConfigError
from agentgym.registration import ENTRY_POINT, register_envs, unknown_env_id
from agentgym.remote import make_remote
from agentgym.wrappers import (
    CostTracker,
    FailureLabeler,
    NumericView,
    ProcessReward,
    ToolFailureInjector,
    apply_budget,
    parse_faults,
)
from agentgym.wrappers.budget import TimeLimitGuard

__all__ = ["make", "wrap", "make_registered", "ENTRY_POINT"]


def _options(value: Any, name: str, scalar: str | None = None) -> dict[str, Any] | None:
    """None (off), True (defaults), a dict of kwargs, or a number for the ``scalar`` kwarg."""
    if value is None or value is False:
        return None
    if value is True:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    if scalar is not None and isinstance(value, (int, float)):
        return {scalar: value}
    raise ConfigError(f"{name}={value!r}; expected None, True or a dict of {name} kwargs")


def wrap(
    env: gym.Env,
    *,
    budget: Any = None,
    faults: str | Mapping[str, Any] | None = None,
    labels: bool = False,
    process_reward: bool | float | Mapping[str, Any] | None = None,
    cost: bool = False,
    numeric: bool | Mapping[str, Any] | None = None,
    max_budget: int | None = None,
) -> gym.Env:
    """Stack the agentgym wrappers around ``env`` in the module's order; options default off.

    Budget and faults are always stacked (on an `AgentEnv`, for faults), so a reset may choose
    them per episode; without ``budget``/``faults`` they do nothing until one does."""
    if faults is not None and faults != "":
        kwargs = parse_faults(faults) if isinstance(faults, str) else _options(faults, "faults")
        env = ToolFailureInjector(env, **(kwargs or {}))
    elif isinstance(env.unwrapped, AgentEnv):
        env = ToolFailureInjector(env, rules=[])
    env = apply_budget(env, budget, max_budget)
    if labels:
        env = FailureLabeler(env)
    if (pr := _options(process_reward, "process_reward", scalar="weight")) is not None:
        env = ProcessReward(env, **pr)
    if cost:
        env = CostTracker(env)
    if (nv := _options(numeric, "numeric")) is not None:
        env = NumericView(env, **nv)
    return env


def make_registered(
    *,
    family_entry_point: str,
    budget: Any = None,
    faults: str | Mapping[str, Any] | None = None,
    labels: bool = False,
    process_reward: bool | float | Mapping[str, Any] | None = None,
    cost: bool = False,
    numeric: bool | Mapping[str, Any] | None = None,
    max_budget: int | None = None,
    remote: str | None = None,
    **env_kwargs: Any,
) -> gym.Env:
    """Build a registered family and wrap it; what ``gym.make("agentgym/...", **options)`` calls.

    Through ``gym.make`` every option is off unless passed, so a plain ``gym.make(id)`` is the
    family env under only `TimeLimitGuard` (its info stays free of timings); `make` turns labels
    and costs on. The guard refuses ``max_episode_steps=``, which gymnasium applies after this
    function returns, with a message naming ``budget=``. ``remote=URL`` returns an
    `agentgym.remote.RemoteEnv` for the env an ``agentgym serve`` process built.
    """
    if remote is not None:  # served by `agentgym serve`: the server built the env and its wrappers
        options = dict(
            budget=budget,
            faults=faults,
            labels=labels,
            process_reward=process_reward,
            cost=cost,
            numeric=numeric,
            max_budget=max_budget,
        )
        return make_remote(remote, family_entry_point, options, env_kwargs)
    env = cast(gym.Env, load_env_creator(family_entry_point)(**env_kwargs))  # a family builds an Env, not a vector
    env = wrap(
        env,
        budget=budget,
        faults=faults,
        labels=labels,
        process_reward=process_reward,
        cost=cost,
        numeric=numeric,
        max_budget=max_budget,
    )
    return TimeLimitGuard(env)


def make(
    env_id: str,
    *,
    budget: Any = None,
    faults: str | Mapping[str, Any] | None = None,
    labels: bool = True,
    process_reward: bool | float | Mapping[str, Any] | None = None,
    cost: bool = True,
    numeric: bool | Mapping[str, Any] | None = None,
    max_budget: int | None = None,
    **env_kwargs: Any,
) -> gym.Env:
    """``gym.make(env_id)`` with the agentgym wrappers, stacked in the module's order.

    ``budget``: an int T (`TurnLimit`), a `RandomBudget` spec, e.g. ``{"uniform": [2, 16]}``, or a
    soft budget, e.g. ``{"soft": 8, "extra": 4, "warn_at": 2}`` (`agentgym.wrappers.apply_budget`).
    ``max_budget``: the largest T a reset may choose (``options={"budget": T}``) and the high of
    ``turns_left``'s space; by default the budget's own largest T (any T when no budget is given,
    which then adds no ``turns_left`` to the observation).
    ``faults``: a fault spec string (``"tool_error@turn=1"``) or `ToolFailureInjector` kwargs; a
    reset may choose one episode's instead (``options={"faults": SPEC}``).
    ``process_reward``: True, a weight, or `ProcessReward` kwargs. ``numeric``: True or
    `NumericView` kwargs. Other kwargs go to the env (``split``, ``backend``, ...). For agentgym
    ids the options travel through ``gym.make``, so ``env.spec`` rebuilds the same stack.
    """
    register_envs()
    if ":" in env_id:  # gymnasium's "module:id" form: import the module, which registers the id
        module, _, env_id = env_id.partition(":")
        importlib.import_module(module)
    if env_kwargs.get("remote") is not None:  # a served env carries the server's stack, labels and costs included
        labels = cost = False
    options = dict(
        budget=budget,
        faults=faults,
        labels=labels,
        process_reward=process_reward,
        cost=cost,
        numeric=numeric,
        max_budget=max_budget,
    )
    try:
        spec = gym.spec(env_id)
    except gym.error.Error as exc:
        raise unknown_env_id(env_id, str(exc)) from exc
    if spec.entry_point == ENTRY_POINT:
        return gym.make(env_id, **options, **env_kwargs)
    return wrap(gym.make(env_id, **env_kwargs), **options)
