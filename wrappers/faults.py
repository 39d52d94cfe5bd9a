"""Fault injection: make an env's tools fail on a schedule, to measure recovery.

- `ToolFailureInjector(env, kinds, at_turns | first_k | p, transient)`: arms faults through
  ``env.unwrapped.inject_fault`` before the steps its schedule picks.
- `parse_faults(spec)`: the fault spec-string grammar, as `ToolFailureInjector` kwargs.

Spec strings: ``KIND[+KIND...]@SCHEDULE[:persistent][:retry_after=N]``, SCHEDULE one of
``turn=2``, ``turn=1,3``, ``first=K``, ``p=0.2``, ``mutation=1`` (``mutation=1,2``); several specs
joined with ``;``. Examples: ``tool_error@turn=1``, ``timeout+empty_output@p=0.1:persistent``,
``state_drift@mutation=1`` (the agent's first edit silently undone right after it is made: the
edit's output reads as usual, and the file is back to its initial content),
``rate_limit@turn=1:retry_after=3`` (the first tool call refused, and every tool call for the next
two turns: tool calls go through again on turn 4), ``wrong_value@turn=2`` (the first tool call from
turn 2 that shows a value shows a plausible wrong one, in the tool's normal format).

The caller of ``reset`` may choose one episode's faults: ``reset(options={"faults": SPEC})``
(a spec string or `ToolFailureInjector` kwargs; ``""`` for none), in place of the wrapper's own
plan for that episode only. ``ToolFailureInjector(env, rules=[])`` injects nothing until a reset
chooses faults (what `agentgym.make` stacks when no ``faults`` is given).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

from agentgym.core import DEFAULT_RETRY_AFTER, FAULT_KINDS, AgentEnv, check_fault_kinds, check_retry_after
from agentgym.errors import ConfigError
from agentgym.wrappers.budget import take_option

__all__ = ["ToolFailureInjector", "parse_faults", "FaultRule", "fault_rules", "chosen_faults"]

_SCHEDULE_KEYS = ("at_turns", "first_k", "p", "at_mutations")
MUTATION_KINDS = ("state_drift",)
"""Fault kinds a ``mutation=N`` schedule takes: they act after the action ran, so they can wait for
the step to show it changed task state (the others stop the tool before it runs)."""


class FaultRule:
    """One validated schedule: which kinds, when, and whether the failure persists."""

    def __init__(
        self,
        kinds: Sequence[str] | str = ("tool_error",),
        at_turns: Iterable[int] | int | None = None,
        first_k: int | None = None,
        p: float | None = None,
        transient: bool = True,
        at_mutations: Iterable[int] | int | None = None,
        retry_after: int | None = None,
    ) -> None:
        kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
        bad = [k for k in kinds if k not in FAULT_KINDS]
        if not kinds or bad:
            raise ConfigError(f"fault kinds={kinds!r}; choose from {FAULT_KINDS}")
        schedule = dict(at_turns=at_turns, first_k=first_k, p=p, at_mutations=at_mutations)
        given = [k for k, v in schedule.items() if v is not None]
        if len(given) != 1:
            raise ConfigError(
                f"fault schedule {schedule!r}: give exactly one of "
                "at_turns (e.g. [1]), first_k (e.g. 2), p (e.g. 0.1) or at_mutations (e.g. [1])"
            )
        if at_turns is not None:
            at_turns = _counts("at_turns", at_turns, "turn numbers")
        if at_mutations is not None:
            at_mutations = _counts("at_mutations", at_mutations, "edit numbers")
            if any(k not in MUTATION_KINDS for k in kinds) or not transient:
                raise ConfigError(
                    f"at_mutations={at_mutations!r} with kinds={kinds!r}, transient={transient}: a "
                    f"mutation=N schedule takes transient {MUTATION_KINDS} faults only, e.g. "
                    "'state_drift@mutation=1' (a tool error cannot wait to see whether the action edits)"
                )
        if first_k is not None and (isinstance(first_k, bool) or not isinstance(first_k, int) or first_k < 1):
            raise ConfigError(f"first_k={first_k!r}; expected an int >= 1")
        if p is not None and (isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0):
            raise ConfigError(f"p={p!r}; expected a probability in [0, 1]")
        if retry_after is not None:
            check_retry_after(retry_after)
            if "rate_limit" not in kinds:
                raise ConfigError(
                    f"retry_after={retry_after!r} with kinds={kinds!r}: it is a rate_limit's wait, e.g. "
                    "'rate_limit@turn=1:retry_after=3'"
                )
        self.kinds, self.at_turns, self.first_k, self.p = kinds, at_turns, first_k, p
        self.at_mutations = at_mutations
        self.transient = bool(transient)
        self.retry_after = retry_after

    def __repr__(self) -> str:
        when = {"at_turns": self.at_turns, "first_k": self.first_k, "p": self.p, "at_mutations": self.at_mutations}
        sched = ", ".join(f"{k}={v!r}" for k, v in when.items() if v is not None)
        wait = "" if self.retry_after is None else f", retry_after={self.retry_after}"
        return f"FaultRule(kinds={self.kinds!r}, {sched}, transient={self.transient}{wait})"

    def arm_kwargs(self, kind: str) -> dict[str, Any]:
        """`AgentEnv.inject_fault`'s keyword arguments for a fault of ``kind`` drawn from this rule."""
        if kind == "rate_limit":
            return {"retry_after": DEFAULT_RETRY_AFTER if self.retry_after is None else self.retry_after}
        return {}


def _counts(name: str, value: Iterable[int] | int, what: str) -> tuple[int, ...]:
    """A schedule's list of 1-based counts (turns, edits), validated, sorted and deduplicated."""
    values = (value,) if isinstance(value, int) else tuple(value)
    if not values or any(isinstance(t, bool) or not isinstance(t, int) or t < 1 for t in values):
        raise ConfigError(f"{name}={value!r}; expected {what} >= 1, e.g. [1, 3]")
    return tuple(sorted(set(values)))


class ToolFailureInjector(gym.Wrapper, RecordConstructorArgs):
    """Injects tool faults (`agentgym.core.FAULT_KINDS`) on a schedule, seeded by ``reset``.

    Schedules (one per rule): ``at_turns`` fails the first tool call on or after each listed
    turn; ``first_k`` fails the episode's first k tool calls; ``p`` fails each tool call with
    probability p; ``at_mutations`` (``state_drift`` only) drifts right after each listed step
    that changed task state, counting the episode's mutating steps (1: the agent's first edit,
    undone silently: its output reads as usual). A transient fault hits one call; a persistent
    one (``transient=False``) also fails every later call of the same tool in the episode, with
    the same kind. ``rate_limit`` refuses the call and every tool call for ``retry_after`` turns
    (`agentgym.core.DEFAULT_RETRY_AFTER` when not given); ``wrong_value`` lets the call run and shows
    a plausible wrong value in its place, for the families that list it in ``fault_kinds``.
    Several kinds: each fault draws one. Several rules: ``rules=[{...}, {...}]``
    (what `parse_faults` gives for specs joined with ``;``). Draws come from the env's seeded
    generator; the env records each fault as a ``fault_injected`` event. Faults hit only
    actions that call a tool, so the wrapper parses the action with the family grammar first:
    it needs an `AgentEnv` below it.

    ``reset(options={"faults": "timeout@turn=2"})`` (a spec string or these kwargs as a dict;
    ``""`` for no faults) replaces the plan for that episode; the next reset without it is back to
    the wrapper's own. ``rules=[]`` is a plan with no faults.

    >>> from agentgym.wrappers import ToolFailureInjector
    >>> from agentgym.testing.kv_env import ScriptedAgentEnv
    >>> env = ToolFailureInjector(ScriptedAgentEnv(), kinds=["timeout"], at_turns=[1])
    >>> _ = env.reset(seed=0)
    >>> obs, *_, info = env.step(env.unwrapped.reference_action())
    >>> obs["text"], [e["fault"] for e in info["events"] if e["kind"] == "fault_injected"]
    ('error: set timed out and was stopped.', ['timeout'])
    """

    def __init__(
        self,
        env: gym.Env,
        kinds: Sequence[str] | str = ("tool_error",),
        at_turns: Iterable[int] | int | None = None,
        first_k: int | None = None,
        p: float | None = None,
        transient: bool = True,
        rules: Sequence[Mapping[str, Any]] | None = None,
        at_mutations: Iterable[int] | int | None = None,
        retry_after: int | None = None,
    ) -> None:
        RecordConstructorArgs.__init__(
            self,
            kinds=kinds,
            at_turns=at_turns,
            first_k=first_k,
            p=p,
            transient=transient,
            rules=rules,
            at_mutations=at_mutations,
            retry_after=retry_after,
        )
        gym.Wrapper.__init__(self, env)
        base = env.unwrapped
        if not isinstance(base, AgentEnv):
            raise ConfigError(
                f"ToolFailureInjector needs an agentgym AgentEnv below it (got {type(env.unwrapped).__name__}): "
                "faults are applied by AgentEnv.inject_fault and hit only actions the family grammar "
                "parses as tool calls"
            )
        self.base: AgentEnv = base  # what a fault needs of the env: tool_of, inject_fault, turn (its public API)
        self.rules = fault_rules(kinds, at_turns, first_k, p, transient, rules, at_mutations, retry_after)
        self._check_kinds(self.rules)
        self._reset_episode(self.rules)

    def _check_kinds(self, rules: list[FaultRule]) -> None:
        """Refuse a kind the family below does not apply (MiniWoB-v0 has no ``wrong_value``)."""
        check_fault_kinds(type(self.base), [k for rule in rules for k in rule.kinds])

    def _reset_episode(self, rules: list[FaultRule]) -> None:
        self.episode_rules = rules  # this episode's plan: the wrapper's own, or the one a reset chose
        self._hits = [0] * len(rules)  # faults each rule injected this episode
        self._broken: dict[str, tuple[str, dict[str, Any]]] = {}  # tool -> (kind, its arming kwargs), persistent
        self._mutations = 0  # steps this episode that changed task state (for at_mutations)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        spec, options = take_option(options, "faults")
        rules = self.rules if spec is None else chosen_faults(spec)  # refused before the env resets
        if spec is not None:
            try:
                self._check_kinds(rules)
            except ConfigError as exc:
                raise ConfigError(f"reset options faults={spec!r}: {exc}") from None
        obs, info = self.env.reset(seed=seed, options=options)
        self._reset_episode(rules)
        return obs, info

    def step(self, action: Any):
        if not self.episode_rules and not self._broken:  # no faults this episode: nothing to parse
            return self.env.step(action)
        tool = self._tool_of(action)
        armed = self._arm(tool) if tool is not None else None
        obs, reward, terminated, truncated, info = self.env.step(action)
        if armed is not None:
            rule, kind = armed
            hit = any(e.get("kind") == "fault_injected" for e in info.get("events", ()))
            if hit and rule is not None:
                self._hits[rule] += 1
                if not self.episode_rules[rule].transient and tool is not None:  # armed only on a tool call
                    self._broken[tool] = (kind, self.episode_rules[rule].arm_kwargs(kind))
        self._mutations += any(e.get("kind") == "mutation" for e in info.get("events", ()))
        return obs, reward, terminated, truncated, info

    def _arm(self, tool: str) -> tuple[int | None, str] | None:
        """Decide whether this tool call fails; arm the env if so. Returns (rule index, kind)."""
        if tool in self._broken:  # a persistent fault keeps this tool down
            kind, kwargs = self._broken[tool]
            self.base.inject_fault(kind, transient=False, **kwargs)
            return None, kind
        for i, rule in enumerate(self.episode_rules):
            if rule.at_turns is not None:
                turn = self.base.turn + 1  # the turn this step will be (info["turn"])
                due = sum(1 for t in rule.at_turns if t <= turn)
                fire = due > self._hits[i]  # a due fault waits for the next tool call
            elif rule.first_k is not None:
                fire = self._hits[i] < rule.first_k
            elif rule.at_mutations is not None:  # armed on every tool call; the env drifts only after an edit
                if self._mutations + 1 in rule.at_mutations:
                    self.base.inject_fault(rule.kinds[0], on_mutation=True)  # one kind: FaultRule checks it
                    return i, rule.kinds[0]
                continue
            else:
                assert rule.p is not None  # a rule has exactly one schedule (FaultRule checks it)
                fire = bool(self.np_random.random() < rule.p)
            if fire:
                kind = (
                    rule.kinds[0] if len(rule.kinds) == 1 else rule.kinds[int(self.np_random.integers(len(rule.kinds)))]
                )
                self.base.inject_fault(kind, transient=rule.transient, **rule.arm_kwargs(kind))
                return i, kind
        return None

    def _tool_of(self, action: Any) -> str | None:
        """The tool this action calls (the env keeps the parse for its step: one parse per action)."""
        return self.base.tool_of(action)


def fault_rules(
    kinds: Sequence[str] | str = ("tool_error",),
    at_turns: Iterable[int] | int | None = None,
    first_k: int | None = None,
    p: float | None = None,
    transient: bool = True,
    rules: Sequence[Mapping[str, Any]] | None = None,
    at_mutations: Iterable[int] | int | None = None,
    retry_after: int | None = None,
) -> list[FaultRule]:
    """The validated plan `ToolFailureInjector`'s kwargs describe: one rule, or ``rules`` (``[]``: none)."""
    if rules is None:
        return [FaultRule(kinds, at_turns, first_k, p, transient, at_mutations, retry_after)]
    if any(v is not None for v in (at_turns, first_k, p, at_mutations, retry_after)):
        raise ConfigError(f"rules={rules!r} given together with a schedule; put every schedule in rules")
    if isinstance(rules, (str, Mapping)) or not isinstance(rules, Sequence):
        raise ConfigError(f"rules={rules!r}; expected a list of dicts of FaultRule kwargs")
    if any(not isinstance(r, Mapping) for r in rules):
        raise ConfigError(f"rules={rules!r}; expected a list of dicts of FaultRule kwargs")
    return [FaultRule(**dict(r)) for r in rules]


def chosen_faults(spec: str | Mapping[str, Any]) -> list[FaultRule]:
    """The plan of ``reset(options={"faults": spec})``: a spec string (``""``: none) or kwargs."""
    try:
        if isinstance(spec, str):
            return fault_rules(**parse_faults(spec)) if spec.strip() else []
        if isinstance(spec, Mapping):
            return fault_rules(**dict(spec))
    except (ConfigError, TypeError) as exc:
        raise ConfigError(f"reset options faults={spec!r}: {exc}") from None
    raise ConfigError(
        f"reset options faults={spec!r}; expected a fault spec string such as 'tool_error@turn=1', "
        "ToolFailureInjector kwargs as a dict, or '' for none"
    )


def _parse_one(spec: str) -> dict[str, Any]:
    body, *flags = spec.split(":")
    transient, retry_after = True, None
    for flag in flags:
        name, eq, value = flag.strip().partition("=")
        if not eq and name in ("persistent", "transient"):
            transient = name != "persistent"
        elif eq and name == "retry_after":
            try:
                retry_after = int(value)
            except ValueError:
                raise ConfigError(
                    f"fault spec {spec!r}: retry_after={value!r}; expected a number of turns >= 1, "
                    "e.g. ':retry_after=2'"
                ) from None
        else:
            raise ConfigError(
                f"fault spec {spec!r}: unknown flag {flag!r}; use ':persistent', ':retry_after=N' or nothing"
            )
    kinds_text, at, schedule = body.partition("@")
    if not at:
        raise ConfigError(f"fault spec {spec!r}: expected KIND[+KIND]@SCHEDULE, e.g. 'tool_error@turn=1'")
    kinds = tuple(k.strip() for k in kinds_text.split("+"))
    key, eq, value = schedule.strip().partition("=")
    out: dict[str, Any] = {"kinds": kinds, "transient": transient}
    if retry_after is not None:
        out["retry_after"] = retry_after
    try:
        if key == "turn" and eq:
            out["at_turns"] = tuple(int(t) for t in value.split(","))
        elif key == "first" and eq:
            out["first_k"] = int(value)
        elif key == "p" and eq:
            out["p"] = float(value)
        elif key == "mutation" and eq:
            out["at_mutations"] = tuple(int(t) for t in value.split(","))
        else:
            raise ValueError(schedule)
    except ValueError:
        raise ConfigError(
            f"fault spec {spec!r}: bad schedule {schedule!r}; use turn=2, turn=1,3, first=K, p=0.2 or mutation=1"
        ) from None
    try:
        FaultRule(**out)  # validate kinds and ranges now, with the spec in hand
    except ConfigError as exc:
        raise ConfigError(f"fault spec {spec!r}: {exc}") from None
    return out


def parse_faults(spec: str) -> dict[str, Any]:
    """`ToolFailureInjector` kwargs from a fault spec string (see the module docstring).

    >>> parse_faults("tool_error@turn=1")
    {'kinds': ('tool_error',), 'transient': True, 'at_turns': (1,)}
    >>> parse_faults("timeout+empty_output@p=0.1:persistent")
    {'kinds': ('timeout', 'empty_output'), 'transient': False, 'p': 0.1}
    >>> parse_faults("state_drift@mutation=1")
    {'kinds': ('state_drift',), 'transient': True, 'at_mutations': (1,)}
    >>> parse_faults("rate_limit@turn=1:retry_after=3")
    {'kinds': ('rate_limit',), 'transient': True, 'retry_after': 3, 'at_turns': (1,)}
    >>> len(parse_faults("tool_error@turn=1;timeout@first=2")["rules"])
    2
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"fault spec {spec!r}; expected e.g. 'tool_error@turn=1'")
    parts = [_parse_one(s.strip()) for s in spec.split(";") if s.strip()]
    return parts[0] if len(parts) == 1 else {"rules": parts}
