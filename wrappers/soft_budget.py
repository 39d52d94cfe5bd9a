"""Soft interaction budgets: a warning before the last turns, and more turns on request.

- `BudgetWarning(env, at)`: when ``at`` turns are left, says so in the observation's words
  (and in ``info`` and a ``budget_warning`` event), for agents that read text, not numbers.
- `BudgetExtension(env, extra, max_requests=1, cost=0.0)`: an ``extend`` action that adds
  ``extra`` turns to the `TurnLimit` / `RandomBudget` right below, at most ``max_requests``
  times; it uses its turn and, with ``cost > 0``, costs that much reward per grant.
- `EXTEND`: the action's `ToolSpec`, the one source of its help line and JSON schema.
- `parse_soft_budget(spec)` and `apply_budget(env, budget)`: a budget spec, hard (an int T or
  a distribution) or soft (``{"soft": T, "extra": E, "max_requests": 1, "cost": 0.0,
  "warn_at": k}``), as wrappers; `agentgym.make` and the eval harness build budgets through it.

The two are independent: a warning alone, an extension alone, or both (the warning then also
says that ``extend`` is still available). Why soft budgets: a limit an agent sees only on its
last turn cannot be paced against, and a fixed limit cuts off the few episodes that need a
little longer; see docs/wrappers.md for what each buys, measured.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.utils import RecordConstructorArgs

from agentgym import events as ev
from agentgym.actions import ArgumentError, GrammarError, ToolSpec, check_args, parse_action, strip_fence, tool_schema
from agentgym.errors import ConfigError
from agentgym.wrappers.budget import BudgetSpec, RandomBudget, TurnLimit, draw_turns, parse_budget, take_option

__all__ = ["BudgetWarning", "BudgetExtension", "EXTEND", "parse_soft_budget", "apply_budget", "SOFT_KEYS"]

EXTEND = ToolSpec(
    "extend",
    "Ask for more turns when this episode's turn budget will not be enough. Granted a limited number of "
    "times per episode (see the budget note); it uses a turn either way. Takes no arguments.",
)
"""The ``extend`` action: accepted as ``extend``, ``extend()`` or a JSON/OpenAI-style call with no arguments."""

SOFT_KEYS = ("soft", "extra", "max_requests", "cost", "warn_at")
"""The keys of a soft budget spec; ``soft`` is T (an int or a `RandomBudget` distribution)."""

_MAX_EXTEND_CHARS = 1000  # a well-formed request is a few characters: never parse a megabyte for one
_EXTEND_WORD = re.compile(r"extend\b")


def _as_extend(action: Any) -> tuple[bool, str | None]:
    """``(is an extend request, why it is malformed or None)``; False for every other action."""
    if not isinstance(action, str) or "extend" not in action:
        return False, None
    text = strip_fence(action).strip()
    if text == "extend":
        return True, None
    if not (text.startswith("{") or _EXTEND_WORD.match(text)):
        return False, None
    if len(text) > _MAX_EXTEND_CHARS:
        return (True, "extend takes no arguments; send `extend`") if text[0] != "{" else (False, None)
    try:
        call = parse_action(text)
    except GrammarError as exc:
        if text[0] == "{":
            return False, None  # JSON that names no call: the family's grammar answers it
        return True, f"extend takes no arguments; send `extend` ({exc})"
    if call.name != "extend":
        return False, None
    try:
        check_args(EXTEND, call)
    except ArgumentError as exc:
        return True, f"{exc}; send `extend`"
    return True, None


def _turn_limit(env: gym.Env) -> TurnLimit | None:
    while isinstance(env, gym.Wrapper):
        if isinstance(env, TurnLimit):
            return env
        env = env.env
    return None


class BudgetExtension(gym.Wrapper, RecordConstructorArgs):
    """An ``extend`` action over a turn limit: ``extra`` more turns, at most ``max_requests`` times.

    It wraps a `TurnLimit` or `RandomBudget` directly (its ``extend`` turns never reach the
    wrappers between, so none may be). ``extend`` (also ``extend()`` and the JSON tool-call
    forms) is answered here and never reaches the env: it uses its turn like any action, so it
    can end the episode by budget when refused on the last turn. Granted, it adds ``extra``
    turns and, with ``cost > 0``, gives reward ``-cost`` on that step. Refused (a request past
    ``max_requests``, or one with arguments) it is an ``error:`` observation. Sending it after
    the episode ended raises gymnasium's ``ResetNeeded``, as every action does.

    ``extra`` is an int or a `RandomBudget` spec, drawn at every reset from the seeded generator
    (right after a `RandomBudget` below draws T). ``extend`` is listed in the first observation
    (``announce``), in ``info["help"]`` and after a ``help`` action, in ``info["tools"]`` when the
    family lists tools, and in ``info["admissible_actions"]`` (last) while a request is left, so
    `NumericView` above offers it as an index (also named in ``info["wrapper_actions"]``, so a
    menu cut to ``max_actions`` keeps it). The observation's ``turns_left`` space grows by
    ``max_requests`` times the largest ``extra``.

    ``reset(options={"budget": {"soft": T, "extra": E}})`` chooses this episode's E (an int, at
    most the largest ``extra``; the env's own is drawn and set aside) and passes ``T`` on to the
    budget below; either key may be left out.

    info: ``extensions`` = ``{"requested", "granted", "refused", "left", "extra", "max_requests",
    "cost"}`` (``cost``: the reward paid so far) at reset and every step; ``turn`` counts agent
    turns, ``extend`` included. Events: ``action`` and ``budget_extension(granted, extra, reason)``.

    >>> from agentgym.wrappers import BudgetExtension, TurnLimit
    >>> from agentgym.testing.kv_env import ScriptedAgentEnv
    >>> env = BudgetExtension(TurnLimit(ScriptedAgentEnv(), max_turns=2), extra=3)
    >>> obs, info = env.reset(seed=0)
    >>> info["admissible_actions"][-1], info["extensions"]["left"]
    ('extend', 1)
    >>> obs, reward, terminated, truncated, info = env.step("extend")
    >>> obs["text"], int(obs["turns_left"][0]), info["extensions"]["granted"]
    ('extension granted: 3 more turns; 4 turns left.', 4, 1)
    >>> obs, reward, terminated, truncated, info = env.step("extend")
    >>> obs["text"].startswith("error:"), int(obs["turns_left"][0]), info["extensions"]["refused"]
    (True, 3, 1)
    >>> env.close()
    """

    def __init__(
        self, env: gym.Env, extra: BudgetSpec, max_requests: int = 1, cost: float = 0.0, announce: bool = True
    ) -> None:
        RecordConstructorArgs.__init__(self, extra=extra, max_requests=max_requests, cost=cost, announce=announce)
        gym.Wrapper.__init__(self, env)
        if not isinstance(env, TurnLimit) or env.max_budget is None:
            raise ConfigError(
                f"BudgetExtension wraps a TurnLimit or RandomBudget with a T directly, not {env!r}: "
                "BudgetExtension(TurnLimit(env, T), extra=E), or agentgym.make(..., budget={'soft': T, 'extra': E})"
            )
        try:
            self._sample, self._top = parse_budget(extra)
        except ConfigError as exc:
            raise ConfigError(f"extra={extra!r}: {exc}") from None
        if isinstance(max_requests, bool) or not isinstance(max_requests, (int, np.integer)) or max_requests < 1:
            raise ConfigError(f"max_requests={max_requests!r}; expected an int >= 1 (extensions granted per episode)")
        if isinstance(cost, bool) or not isinstance(cost, (int, float)) or not math.isfinite(cost) or cost < 0:
            raise ConfigError(f"cost={cost!r}; expected a finite number >= 0 (reward paid per granted extension)")
        self.limit: TurnLimit = env
        self.extra, self.max_requests, self.cost, self.announce = extra, int(max_requests), float(cost), bool(announce)
        inner = env.observation_space
        if isinstance(inner, spaces.Dict) and "turns_left" in inner.spaces:
            top = int(cast(spaces.Box, inner["turns_left"]).high.max()) + self._top * self.max_requests
            self.observation_space = spaces.Dict(
                {**inner.spaces, "turns_left": spaces.Box(0, top, shape=(1,), dtype=np.int64)}
            )
        self.extra_turns = 0
        self.requested = self.granted = self.refused = 0
        self._obs: dict[str, Any] | None = None  # the env's last observation, before this wrapper's words
        self._info: dict[str, Any] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        extra, options = self._chosen_extra(options)
        obs, info = self.env.reset(seed=seed, options=options)
        self.extra_turns = draw_turns(self._sample, self.np_random, self._top, f"extra {self.extra!r}", "extra")
        if extra is not None:  # drawn all the same: the seed's later draws stay where they were
            self.extra_turns = extra
        self.requested = self.granted = self.refused = 0
        self._remember(obs, info)
        if self.announce and isinstance(obs, dict) and isinstance(obs.get("text"), str):
            obs["text"] = f"{obs['text'].rstrip()}\n{self._note()}"
        if isinstance(info.get("help"), str):
            info["help"] = f"{info['help'].rstrip()}\n{self._help_line()}"
        if isinstance(info.get("tools"), list) and info["tools"]:
            info["tools"] = [*info["tools"], tool_schema(EXTEND)]
        return obs, self._with_record(info)

    def _chosen_extra(self, options: dict[str, Any] | None) -> tuple[int | None, dict[str, Any] | None]:
        """This episode's ``extra`` from ``options["budget"]["extra"]``, checked, and the options
        the budget below reads (the rest of the soft spec: ``{"soft": T}``, or no budget key)."""
        value, rest = take_option(options, "budget")
        if not isinstance(value, Mapping) or "extra" not in value:
            return None, options
        extra = value["extra"]
        if isinstance(extra, bool) or not isinstance(extra, (int, np.integer)) or not 1 <= extra <= self._top:
            raise ConfigError(
                f"reset options budget extra={extra!r}; expected an int in [1, {self._top}], the "
                "largest extra this env's turns_left space holds (build it with a soft budget whose "
                "extra reaches further to choose more)"
            )
        soft = {k: v for k, v in value.items() if k != "extra"}
        return int(extra), {**(rest or {}), "budget": soft} if soft else rest

    def step(self, action: Any):
        is_extend, malformed = _as_extend(action)
        if is_extend:
            return self._extend(malformed)
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._remember(obs, info)
        if isinstance(obs, dict) and isinstance(obs.get("text"), str) and _asked_help(info):
            obs["text"] = f"{obs['text'].rstrip()}\n{self._help_line()}"
        return obs, reward, terminated, truncated, self._with_record(info)

    def _extend(self, malformed: str | None):
        if self._obs is None or self.limit.episode_over:
            raise ResetNeeded("the episode is over or never started: call reset() before step(), `extend` included")
        self.requested += 1
        granted = malformed is None and self.granted < self.max_requests
        if granted:
            self.granted += 1
            self.limit.add_turns(self.extra_turns)
        else:
            self.refused += 1
        left = self.limit.turns_left
        assert left is not None  # an extension lengthens an episode that has a limit
        left -= 1  # after this turn
        turns_left = f"{left} turn{'s' * (left != 1)} left."
        if granted:
            text = f"extension granted: {self.extra_turns} more turns; {turns_left}"
            events = [ev.action(True, "extend"), ev.budget_extension(True, self.extra_turns)]
        else:
            why = malformed or f"no extension left: {self.granted} of {self.max_requests} granted this episode"
            text = f"error: {why}. {turns_left}"
            events = [
                ev.action(malformed is None, "extend", error=malformed),
                ev.budget_extension(False, 0, "bad_args" if malformed else "limit"),
            ]
        reward = -self.cost if granted else 0.0
        info = {**self._info, "events": events, "admissible_actions": list(self._info.get("admissible_actions", []))}
        obs = {**self._obs, "text": text} if isinstance(self._obs, dict) else self._obs
        obs, inner_reward, terminated, truncated, info = self.limit.spend_turn(obs, info)
        return obs, reward + float(inner_reward), terminated, truncated, self._with_record(info)

    def _remember(self, obs: Any, info: dict[str, Any]) -> None:
        """What an ``extend`` step repeats: the observation's fields and the state's info (menu, task)."""
        self._obs = dict(obs) if isinstance(obs, dict) else obs
        keep = ("task_id", "turn", "min_turns", "admissible_actions", "cost")
        self._info = {k: (dict(info[k]) if isinstance(info[k], dict) else info[k]) for k in keep if k in info}

    def _with_record(self, info: dict[str, Any]) -> dict[str, Any]:
        menu = list(info.get("admissible_actions") or [])
        if menu and self.granted < self.max_requests and not self.limit.episode_over and "extend" not in menu:
            menu.append("extend")
            info["wrapper_actions"] = [*info.get("wrapper_actions", ()), "extend"]  # NumericView keeps it
        info["admissible_actions"] = menu
        if "turn" in info:  # agent turns, `extend` included (the env below never saw those)
            info["turn"] = self.limit.turns
        info["extensions"] = {
            "requested": self.requested,
            "granted": self.granted,
            "refused": self.refused,
            "left": self.max_requests - self.granted,
            "extra": self.extra_turns,
            "max_requests": self.max_requests,
            "cost": self.granted * self.cost,
        }
        return info

    def _help_line(self) -> str:
        times = "once" if self.max_requests == 1 else f"up to {self.max_requests} times"
        price = f", and costs {self.cost:g} reward" if self.cost else ""
        return f"  extend - ask for {self.extra_turns} more turns ({times} per episode; it uses a turn{price})"

    def _note(self) -> str:
        times = "once" if self.max_requests == 1 else f"at most {self.max_requests} times"
        price = f" and {self.cost:g} of the reward" if self.cost else ""
        return f"[extension: send `extend` for {self.extra_turns} more turns, {times}; it costs a turn{price}]"


def _asked_help(info: Mapping[str, Any]) -> bool:
    return any(
        e.get("kind") == "action" and e.get("parsed_ok") and e.get("name") == "help" for e in info.get("events") or ()
    )


class BudgetWarning(gym.Wrapper, RecordConstructorArgs):
    """Warns in words when ``at`` turns are left, this one included: in the text, ``info``, an event.

    For agents that read text rather than ``obs["turns_left"]``: the observation whose
    ``info["turns_left"]`` first falls to ``at`` or below gains a line saying how many turns are
    left (and that ``extend`` is available, when a `BudgetExtension` below still grants one),
    ``info["budget_warning"]`` holds that number and ``info["events"]`` a ``budget_warning``
    event. It warns once per crossing: again only after an extension lifted ``turns_left``
    above ``at``. No warning on the step that ends the episode. Put it above the budget (and
    above `BudgetExtension`); `agentgym.make` does.

    >>> from agentgym.wrappers import BudgetWarning, TurnLimit
    >>> from agentgym.testing.kv_env import ScriptedAgentEnv
    >>> env = BudgetWarning(TurnLimit(ScriptedAgentEnv(), max_turns=3), at=1)
    >>> obs, info = env.reset(seed=0)
    >>> _ = env.step("help")
    >>> obs, reward, terminated, truncated, info = env.step("help")
    >>> obs["text"].splitlines()[-1], info["budget_warning"]
    ('[budget: 1 turn left, this one included; work not submitted when it ends scores 0]', 1)
    >>> env.close()
    """

    def __init__(self, env: gym.Env, at: int) -> None:
        RecordConstructorArgs.__init__(self, at=at)
        gym.Wrapper.__init__(self, env)
        if isinstance(at, bool) or not isinstance(at, (int, np.integer)) or at < 1:
            raise ConfigError(f"BudgetWarning at={at!r}; expected an int >= 1 (turns left when it warns)")
        if _turn_limit(env) is None:
            raise ConfigError(
                "BudgetWarning needs a TurnLimit or RandomBudget below it to count turns: "
                "BudgetWarning(TurnLimit(env, T), at=2), or agentgym.make(..., budget={'soft': T, 'warn_at': 2})"
            )
        self.at = int(at)
        self._armed = True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self._armed = True
        return self._warn(obs, info, over=False)

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        obs, info = self._warn(obs, info, over=bool(terminated or truncated))
        return obs, reward, terminated, truncated, info

    def _warn(self, obs: Any, info: dict[str, Any], over: bool) -> tuple[Any, dict[str, Any]]:
        left = info.get("turns_left")
        if not isinstance(left, (int, np.integer)):
            return obs, info
        if left > self.at:
            self._armed = True
            return obs, info
        if over or not self._armed or left < 1:
            return obs, info
        self._armed = False
        info["budget_warning"] = int(left)
        info["events"] = [*info.get("events", ()), ev.budget_warning(int(left))]
        if isinstance(obs, dict) and isinstance(obs.get("text"), str):
            obs = {**obs, "text": f"{obs['text'].rstrip()}\n\n{_warning_note(int(left), info.get('extensions'))}"}
        return obs, info


def _warning_note(left: int, extensions: Any) -> str:
    turns = f"{left} turn{'s' * (left != 1)} left, this one included"
    also = ""
    if isinstance(extensions, Mapping) and extensions.get("left", 0) > 0:
        also = f"; or send `extend` for {extensions.get('extra')} more"
    it = "they run out" if left != 1 else "it ends"
    return f"[budget: {turns}; work not submitted when {it} scores 0{also}]"


def parse_soft_budget(spec: Mapping[str, Any]) -> tuple[BudgetSpec, dict[str, Any] | None, int | None]:
    """``{"soft": T, "extra": E, "max_requests": m, "cost": c, "warn_at": k}`` as ``(T spec,
    BudgetExtension kwargs or None, warn_at or None)``; ``extra`` or ``warn_at`` must be given.
    Raises `ConfigError` echoing a bad spec."""
    unknown = sorted(set(spec) - set(SOFT_KEYS))
    if "soft" not in spec or unknown:
        raise ConfigError(
            f"budget={dict(spec)!r}; a soft budget takes the keys {SOFT_KEYS} "
            "(e.g. {'soft': 8, 'extra': 4, 'warn_at': 2})" + (f", not {unknown}" if unknown else "")
        )
    if spec.get("extra") is None and spec.get("warn_at") is None:
        raise ConfigError(
            f"budget={dict(spec)!r}: a soft budget needs 'extra' (turns per extension), 'warn_at', or both"
        )
    if spec.get("extra") is None and any(k in spec for k in ("max_requests", "cost")):
        raise ConfigError(f"budget={dict(spec)!r}: 'max_requests' and 'cost' apply to an extension: give 'extra' too")
    extension = None
    if spec.get("extra") is not None:
        extension = {"extra": spec["extra"], "max_requests": spec.get("max_requests", 1), "cost": spec.get("cost", 0.0)}
    return spec["soft"], extension, spec.get("warn_at")


def apply_budget(env: gym.Env, budget: BudgetSpec | None, max_budget: int | None = None) -> gym.Env:
    """The budget wrappers ``budget`` asks for, around ``env``: an int T is a `TurnLimit`, a
    distribution a `RandomBudget`, and a soft spec adds `BudgetExtension` then `BudgetWarning`.
    None is a `TurnLimit` that limits nothing until a reset chooses T. ``max_budget`` raises the
    largest T (what a reset may choose, and ``turns_left``'s space) above the spec's own."""
    if budget is None:
        if max_budget is not None:
            raise ConfigError(
                f"max_budget={max_budget!r} without a budget; give budget= (the T when a reset chooses none) as well"
            )
        return TurnLimit(env, None)
    soft = isinstance(budget, Mapping) and "soft" in budget
    try:
        base, extension, warn_at = parse_soft_budget(budget) if soft else (budget, None, None)  # type: ignore[arg-type]
        is_int = isinstance(base, (int, np.integer)) and not isinstance(base, bool)
        env = TurnLimit(env, cast(int, base), max_budget=max_budget) if is_int else RandomBudget(env, base, max_budget)
        if extension is not None:
            env = BudgetExtension(env, **extension)
        if warn_at is not None:
            env = BudgetWarning(env, at=warn_at)
    except ConfigError as exc:
        raise ConfigError(f"budget={budget!r}: {exc}") from None
    return env
