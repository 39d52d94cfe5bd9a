"""The environment contract every agentgym family implements: `AgentEnv` and its step types.

A family supplies a task set, a grammar (`_parse`), an executor (`_execute`), a verifier
(`_verify`), its sandbox-side code (`sandbox_modules`, `sandbox_services`) and optionally a menu
(`_admissible`), a state-drift hook (`_drift`), fault hooks (`fault_failure`,
`corrupt_output`, `rate_limit_text`, `wrong_value`) and forced starts for interventions
(`interventions`, `forced_start`). The base class owns everything that must be the same across
families: the spaces, the episode bookkeeping, the info keys, garbage-action survival, fault application, the sandbox's
lifetime, and the actions every grammar shares: ``help``, ``finish``/``submit`` and a call whose
arguments do not fit its tool (`BadArguments`), which never reach a family's `_execute`.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from agentgym import events as ev
from agentgym.errors import ConfigError, InfrastructureError, SandboxOpError, SandboxStartFailed
from agentgym.sandbox import make_sandbox
from agentgym.sandbox.modules import SandboxModule
from agentgym.spaces import AnyText
from agentgym.tasks import Task, TaskSet

__all__ = [
    "AgentEnv",
    "ActionError",
    "ParsedAction",
    "BadArguments",
    "Outcome",
    "FAULT_KINDS",
    "DEFAULT_RETRY_AFTER",
    "MAX_MENU",
    "HELP_ACTION",
    "SUBMIT_ACTIONS",
    "RESET_OPTIONS",
    "WRAPPER_OPTIONS",
    "menu_of",
    "check_fault_kinds",
    "check_retry_after",
]

FAULT_KINDS = ev.FAULT_KINDS
DEFAULT_RETRY_AFTER = 2
"""Turns a ``rate_limit`` fault makes the agent wait when its schedule names none: the refused turn
and one more, so the call goes through again two turns later."""
MAX_MENU = 32
"""The most candidate actions a family's menu offers (``admissible_actions``): the Discrete space of
`NumericView` and the baseline's policy is this wide by default."""

HELP_ACTION = "help"
"""The action every grammar parses to ``ParsedAction("help")``: the base shows `AgentEnv.help_text`."""
RESET_OPTIONS = ("task_id", "split")
"""The ``reset(options=...)`` keys the env itself reads; any other key that reaches it is refused."""
WRAPPER_OPTIONS = {"budget": "TurnLimit / RandomBudget", "faults": "ToolFailureInjector"}
"""Reset option keys the agentgym wrappers read (and take out) before the env sees the options."""
SUBMIT_ACTIONS = ("finish", "submit")
"""Action names that end the episode for the verifier to judge; the base keeps their ``answer`` and
``value`` arguments (`AgentEnv.answer`, `AgentEnv.answer_value`) and emits ``submit``."""


def menu_of(*groups: Iterable[str]) -> list[str]:
    """A family's menu from groups of candidate actions, most important first: blanks and repeats
    dropped, the first `MAX_MENU` kept, then sorted."""
    menu = list(dict.fromkeys(a for group in groups for a in group if a))
    return sorted(menu[:MAX_MENU])


_TRUNCATION_MARKER = "\n[agentgym: observation truncated, {n} characters omitted]"


class ActionError(Exception):
    """Raised by a family's `_parse` for an action outside its grammar; becomes observation text."""


@dataclass(frozen=True)
class ParsedAction:
    """An action the grammar understood. ``tool`` names the tool it calls (faults hit only those)."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    tool: str | None = None


@dataclass(frozen=True)
class BadArguments(ParsedAction):
    """A call of a known tool whose arguments do not fit it (a missing, unknown or mistyped one).

    The one meaning of bad arguments in every family (`agentgym.events`, ``tool_call``): the step
    costs the turn, shows ``error: <error>`` and emits ``tool_call(name, ok=False,
    error_kind="bad_args")`` after ``action(parsed_ok=True, name)``; the agent named the tool, so
    only a later success of that tool makes up for it. Set ``tool`` as for a good call of it: a
    fault armed for the step hits it the same way.
    """

    error: object = None


@dataclass
class Outcome:
    """What one executed action produced: the observation text, its events, and whether it submitted."""

    text: str
    events: list[dict[str, Any]] = field(default_factory=list)
    submitted: bool = False


class AgentEnv(gym.Env[dict[str, Any], str]):
    """Base class of every agentgym environment family.

    Action: a ``str`` in the family's grammar (see ``help``), or one of `admissible_actions()`.
    Observation: ``{"text": str}``; wrappers add fields. Reward: 1.0 when the verifier passes at
    submission, else 0.0. ``terminated`` on submission; ``truncated`` only by budget wrappers.
    The sandbox starts lazily at the first ``reset``, so building an env is cheap.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}
    family: ClassVar[str] = ""
    # image, sandbox_modules and sandbox_services: class defaults an instance may override (Browser-v0's
    # chromium variant does), so they are not ClassVars
    image: str = "agentgym/base:latest"
    sandbox_modules: tuple[SandboxModule, ...] = ()
    """The family's sandbox-side files, loaded into the step server in this order once per sandbox."""
    sandbox_services: tuple[tuple[str, str], ...] = ()
    """``(module, function)`` pairs called once per sandbox after loading: each starts a long-lived
    process with ``start_service`` (a site server, a browser) that survives ``reset()``; what they
    return is in ``self.services``. ``_setup_task`` restores their state for each task."""
    submit_text: ClassVar[str] = "finished: {answer}"
    """What the agent sees after ``finish``/``submit``; ``{answer}`` is its final answer."""
    max_action_length: ClassVar[int] = 16_384
    max_observation_length: ClassVar[int] = 32_768
    fault_kinds: ClassVar[tuple[str, ...]] = tuple(k for k in FAULT_KINDS if k != "wrong_value")
    """The fault kinds this family applies (`inject_fault` refuses the others). ``wrong_value`` needs
    a family that knows what a plausible wrong answer of its tools looks like (`wrong_value`), so a
    family lists it only when it overrides that hook."""
    interventions: ClassVar[tuple[str, ...]] = ()
    """Names of the forced starts `forced_start` plays (``agentgym eval --intervention NAME``)."""
    page_observations: ClassVar[bool] = False
    """Each observation shows the whole current state (a web page), so a language-model view shows a
    step's result as what changed on the page (`agentgym.llm.view.result_text`)."""

    def __init__(
        self,
        *,
        split: str = "train",
        backend: str = "auto",
        render_mode: str | None = None,
        score_on_truncation: bool = False,
        sandbox_options: Mapping[str, Any] | None = None,
        help_in_observation: bool = True,
        tiers: Sequence[str] | str | None = None,
        **task_filters: Sequence[str] | None,
    ) -> None:
        """``tiers`` and the family's group filter (``domains=``, ``sites=``: its task set's
        ``group_filter``) restrict the tasks this env samples; other ids still load by task id."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode={render_mode!r}; supported: {self.metadata['render_modes']}")
        self.tasks: TaskSet = self._taskset()
        self.split = self.tasks.check_split(split)
        unknown = sorted(set(task_filters) - {self.tasks.group_filter})
        if unknown:
            known = ", ".join(f"{k}=" for k in ("tiers", self.tasks.group_filter) if k)
            raise ConfigError(f"{type(self).__name__} takes no {', '.join(unknown)}; its task filters: {known}")
        self.tasks = self.tasks.narrowed(
            self.split, tiers=(tiers,) if isinstance(tiers, str) else tiers, **task_filters
        )
        self.backend = backend
        self.render_mode = render_mode
        self.score_on_truncation = bool(score_on_truncation)
        self.sandbox_options = dict(sandbox_options or {})
        self.help_in_observation = bool(help_in_observation)
        self.action_space = AnyText(self.max_action_length)
        self.observation_space = spaces.Dict({"text": AnyText(self.max_observation_length)})
        self.sandbox: Any = None
        self.services: dict[str, Any] = {}  # what each of ``sandbox_services`` returned in this sandbox
        self.task: Task | None = None
        self.turn = 0
        self._done = False
        self._last_text = ""
        self._pending_fault: tuple[str, bool, bool, int] | None = None  # (kind, transient, on_mutation, retry_after)
        self._retry_at = 0  # the first turn a tool call goes through again after a rate_limit fault
        self._parsed: tuple[str, ParsedAction | BaseException] | None = None  # what tool_of parsed, for step
        self._output_seen = True
        self._faulting: str | None = None  # the fault kind applied to the action executing now
        self._ref_pos = self._ref_read = 0
        self._acted: list[tuple[str | None, bool]] = []  # (solution step or None, went through cleanly) per step
        self._env_calls = 0
        self._env_seconds = 0.0
        self.answer: str | None = None  # the final answer of ``finish`` (None until submitted, or none given)
        self.answer_value: str | None = None  # its structured ``value`` (`agentgym.answers`), when given

    # ------------------------------------------------------------------ family hooks
    @classmethod
    @abstractmethod
    def _taskset(cls) -> TaskSet:
        """The family's tasks (cache it: it is asked once per env)."""

    @abstractmethod
    def _setup_task(self, task: Task) -> str:
        """Put the sandbox in the task's initial state; return the initial observation text."""

    @abstractmethod
    def _parse(self, action: str) -> ParsedAction:
        """Parse an action in the family grammar; raise `ActionError` saying what it expects."""

    @abstractmethod
    def _execute(self, action: ParsedAction) -> Outcome:
        """Run a parsed tool action in the sandbox. Agent mistakes become text and events, never raise.
        ``help``, ``finish``/``submit`` and `BadArguments` never come here (see `_dispatch`)."""

    @abstractmethod
    def _verify(self) -> bool:
        """The task's verifier on the current sandbox state."""

    def _admissible(self) -> list[str]:
        """The menu for small policies; families override."""
        return []

    def _drift(self) -> str | None:
        """Change task state behind the agent's back; return what changed, or None if unsupported."""
        return None

    def _on_sandbox_start(self) -> None:
        """Called once per sandbox after its modules are loaded and its services started."""

    def help_text(self) -> str:
        """What ``help`` shows: the action grammar (and the task's tools, once reset)."""
        return ""

    def tools(self) -> list[dict[str, Any]]:
        """The current task's tools as an OpenAI-style ``tools`` list (empty for grammars that are not calls)."""
        return []

    def _reset_help(self) -> str:
        """What the first observation adds after the instruction so no turn goes on ``help``."""
        return self.help_text()

    def instruction_grammar(self) -> str:
        """The sentences of the task's instruction that say how to act (the call form, how to end), which
        ``help`` says in full: a language-model view that gives the tools once leaves them out of the task
        (`agentgym.llm.view.task_text`). Empty when the instruction holds none."""
        return ""

    # ------------------------------------------------------------------ fault hooks
    # `inject_fault` arms a fault (wrappers call it); the base applies it to the next tool action.
    # Families shape what a fault looks like in their world through these three, nothing else.
    def fault_failure(self, kind: str, tool: str) -> tuple[str, str]:
        """``(error_kind, observation text)`` for a ``tool_error`` or ``timeout`` fault: the tool did
        not run. Override to phrase it as the family's tools fail (an API's 429, a page's 503)."""
        if kind == "timeout":
            return "timeout", f"error: {tool} timed out and was stopped."
        return "tool_error", f"error: {tool} failed: the tool service returned an internal error. Try again."

    def corrupt_output(self, text: str) -> str:
        """A ``corrupted_output`` fault's version of a tool result: cut short and garbled, drawn
        from the seeded RNG. Override to corrupt structured results in kind (partial JSON)."""
        if not text:
            return "\ufffd"
        cut = int(self.np_random.integers(1, len(text) + 1)) if len(text) > 1 else 1
        chars = list(text[: max(1, cut // 2)])
        for _ in range(max(1, len(chars) // 20)):
            chars[int(self.np_random.integers(len(chars)))] = "\ufffd"
        return "".join(chars) + "\n[output truncated]"

    def rate_limit_text(self, tool: str, turns: int) -> str:
        """What a ``rate_limit`` refusal shows: the call was not run, and tool calls go through again
        in ``turns`` turns. Override to say it as the family's tools refuse (an API's 429, a page)."""
        unit = "turn" if turns == 1 else "turns"
        return f"error (rate_limit): {tool} refused: too many requests. Nothing was done; retry in {turns} {unit}."

    def wrong_value(self, action: ParsedAction, text: str) -> str | None:
        """A ``wrong_value`` fault's version of ``text``, the result ``action`` really produced: the
        same format with plausible wrong content (another record's value, a shifted amount or date,
        a stale copy of a file), drawn from the seeded RNG. None when the result holds no value to
        falsify; then no fault is recorded and the schedule waits for the next call. Families that
        override it list ``wrong_value`` in `fault_kinds`; the family's own bookkeeping of what the
        agent read is skipped for the step (`output_seen` is False, `faulting` says why), so its
        oracle reads again."""
        return None

    @property
    def output_seen(self) -> bool:
        """False while `_execute` runs under an ``empty_output``, ``corrupted_output`` or ``wrong_value``
        fault: the action ran, but the agent will not see its true result, so nothing it showed
        counts as read."""
        return self._output_seen

    @property
    def faulting(self) -> str | None:
        """The fault kind applied to the action `_execute` runs now (None: none). A family whose
        bookkeeping of what the agent read depends on `output_seen` checks it under ``wrong_value``:
        a result with no value to falsify is shown as it is, so it counts as read."""
        return self._faulting

    @property
    def rate_limited(self) -> int:
        """Turns until tool calls go through again after a ``rate_limit`` fault (0: not limited). The
        agent reads the same in the refusal's text; the oracle waits on it (`oracle_wait`)."""
        return max(0, self._retry_at - (self.turn + 1)) if self.task is not None else 0

    def oracle_wait(self) -> str | None:
        """The oracle's harmless action while a rate limit holds (``help``: no tool, so never refused),
        or None when tool calls go through. Every family's `reference_action` asks it first."""
        return HELP_ACTION if self.rate_limited else None

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        options = dict(options or {})
        _check_reset_options(options)
        super().reset(seed=seed)
        if "task_id" in options:
            task = self.tasks.get(str(options["task_id"]))
        else:
            split = self.tasks.check_split(options.get("split", self.split))
            task = self.tasks.sample(split, self.np_random)
        self._ensure_sandbox()
        self.task = task
        self.turn = 0
        self._done = False
        self._pending_fault = self._parsed = None
        self._retry_at = 0
        self._ref_pos = self._ref_read = 0
        self._acted = []
        self._env_calls = 0
        self._env_seconds = 0.0
        self.answer = self.answer_value = None
        text = self._timed(self._setup_task, task)
        extra = self._reset_help() if self.help_in_observation else ""
        info = self._info([])
        info["help"], info["tools"] = self.help_text(), self.tools()
        return self._observation(f"{text}\n\n{extra}" if extra else text), info

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.task is None or self._done:
            raise ResetNeeded("the episode is over or never started: call reset() before step()")
        self.turn += 1
        text = self._coerce(action)
        fault, self._pending_fault = self._pending_fault, None
        try:
            outcome = self._timed(self._act, text, fault)
        except InfrastructureError as exc:
            judge = getattr(self.sandbox, "agent_caused", None)  # test doubles may not have one
            if judge is None or not judge(exc):
                raise  # not the agent's doing: retried and kept out of scores by the harness
            outcome = self._sandbox_lost(text, exc)
        # the scripted oracle's cursor reads these when asked; only solution steps are kept by value,
        # so an endless episode of long actions costs a few bytes a step
        self._acted.append((text if text in self.task.solution else None, _clean(outcome.events)))
        reward, terminated = 0.0, False
        info_extra: dict[str, Any] = {}
        if self._done:  # the agent's own action wedged or killed its sandbox: a failure it caused
            terminated = True
            info_extra.update(success=False, is_success=False, sandbox_crashed=True)
        elif outcome.submitted:
            success = bool(self._timed(self._verify))
            reward, terminated, self._done = float(success), True, True
            info_extra["success"] = info_extra["is_success"] = success  # is_success: SB3's Monitor reads it
        obs = self._observation(outcome.text)
        info = self._info(outcome.events)
        info.update(info_extra)
        return obs, reward, terminated, False, info

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._last_text
        return None

    def close(self) -> None:
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None
        super().close()

    # ------------------------------------------------------------------ public helpers
    def admissible_actions(self) -> list[str]:
        """Actions a small policy may choose from now (also in ``info["admissible_actions"]``)."""
        return list(self._admissible()) if self.task is not None and not self._done else []

    def tool_of(self, action: Any) -> str | None:
        """The tool ``action`` would call now, per the family grammar (None: no tool, unparseable, or
        no episode). The parse is kept for the next `step` of the same action, so a wrapper that
        asks (`ToolFailureInjector`) costs no second parse."""
        if self.task is None or self._done:
            return None
        text = self._coerce(action)
        try:
            parsed: ParsedAction | BaseException = self._parse(text)
        except (Exception, RecursionError) as exc:  # reported by step, with its reason, not here
            parsed = exc
        self._parsed = (text, parsed)
        return parsed.tool if isinstance(parsed, ParsedAction) else None

    def inject_fault(
        self, kind: str, *, transient: bool = True, on_mutation: bool = False, retry_after: int | None = None
    ) -> None:
        """Arm a fault for this step's action if it calls a tool (used by `ToolFailureInjector`).

        ``on_mutation`` (``state_drift`` only): drift only if the action changed task state (a
        ``mutation`` event), right after it, so the agent's own edit is what silently goes back;
        otherwise the step runs clean and no fault is recorded. ``retry_after`` (``rate_limit``
        only, default `DEFAULT_RETRY_AFTER`): tool calls go through again that many turns after the
        refused one; every tool call before then is refused, whatever tool or form it takes."""
        if kind not in FAULT_KINDS:
            raise ConfigError(f"fault kind {kind!r}; choose from {FAULT_KINDS}")
        check_fault_kinds(type(self), (kind,))
        if on_mutation and kind != "state_drift":
            raise ConfigError(f"on_mutation applies to state_drift only, not {kind!r}")
        if retry_after is not None and kind != "rate_limit":
            raise ConfigError(f"retry_after={retry_after!r} applies to rate_limit only, not {kind!r}")
        wait = check_retry_after(DEFAULT_RETRY_AFTER if retry_after is None else retry_after)
        self._pending_fault = (kind, transient, on_mutation, wait)

    def forced_start(self, name: str) -> list[str] | None:
        """The actions intervention ``name`` forces at the start of this episode (after ``reset``,
        before any step), chosen by the family's fixed rule from the task alone: the same for every
        agent, seed and budget. The harness plays them through the wrapped env as the agent's own
        first turns (`agentgym.eval`, ``--intervention``). None when the rule has no candidate on
        this task. Families that define `interventions` override this."""
        raise ConfigError(
            f"{type(self).__name__} defines no intervention {name!r}; "
            f"its interventions: {list(self.interventions) or 'none'}"
        )

    def reference_action(self) -> str:
        """The oracle's next action: the reference solution, re-issuing a step a fault spoiled.

        Families whose state can drift override this with a state-aware policy. The cursor is
        advanced here, over the steps taken since the last call, so no step pays for the oracle.
        """
        if self.task is None or not self.task.solution:
            return ""
        solution = self.task.solution
        for text, clean in self._acted[self._ref_read :]:
            if clean and text == solution[min(self._ref_pos, len(solution) - 1)]:
                self._ref_pos += 1
        self._ref_read = len(self._acted)
        return solution[min(self._ref_pos, len(solution) - 1)]

    def end_by_budget(self) -> bool:
        """Close the episode because a budget ran out; returns its success.

        Unsubmitted work scores 0 unless the env was built with ``score_on_truncation=True``,
        in which case the verifier judges the state as it stands (SWE-bench style).
        """
        if self._done or self.task is None:
            return False
        self._done = True
        return bool(self._timed(self._verify)) if self.score_on_truncation else False

    @property
    def episode_over(self) -> bool:
        return self._done

    @property
    def env_seconds(self) -> float:
        """Seconds this episode spent in the env (sandbox and verifier), for `CostTracker`."""
        return self._env_seconds

    # ------------------------------------------------------------------ internals
    def _parse_once(self, text: str) -> ParsedAction:
        """``_parse(text)``, or the parse `tool_of` kept for this text (raising what it raised)."""
        kept, self._parsed = self._parsed, None
        if kept is None or kept[0] != text:
            return self._parse(text)
        if isinstance(kept[1], BaseException):
            raise kept[1]
        return kept[1]

    def _act(self, text: str, fault: tuple[str, bool, bool, int] | None) -> Outcome:
        try:
            parsed = self._parse_once(text)
        except ActionError as exc:
            return Outcome(f"error: {exc}", [ev.action(False, error=str(exc))])
        except (Exception, RecursionError) as exc:  # a parser bug on hostile input must not escape step()
            why = f"the action could not be parsed ({type(exc).__name__}); send `help` for the grammar"
            return Outcome(f"error: {why}", [ev.action(False, error=why)])
        head = [ev.action(True, parsed.name)]
        try:
            if parsed.tool is not None and self.turn < self._retry_at:  # a rate limit holds: every tool, every form
                tool = parsed.tool or parsed.name
                text = self.rate_limit_text(tool, self._retry_at - self.turn)
                outcome = Outcome(text, [ev.tool_call(tool, False, ev.RATE_LIMITED)])
            elif fault is not None and parsed.tool is not None:
                outcome = self._apply_fault(parsed, *fault)
            else:
                outcome = self._dispatch(parsed)
        except InfrastructureError:
            raise
        except Exception as exc:  # a family bug on odd input must not kill the episode
            outcome = Outcome(
                f"error: {parsed.name} failed: {type(exc).__name__}: {exc}",
                [ev.tool_call(parsed.tool or parsed.name, False, "internal")],
            )
        outcome.events[:0] = head
        for event in outcome.events:  # a family's contract bug fails loudly here, not in a label later
            ev.check(event)
        return outcome

    def _dispatch(self, action: ParsedAction) -> Outcome:
        """The actions every family shares, handled here once; the rest go to the family's `_execute`."""
        if isinstance(action, BadArguments):
            return Outcome(f"error: {action.error}", [ev.tool_call(action.tool or action.name, False, "bad_args")])
        if action.name == HELP_ACTION:
            return Outcome(self.help_text())
        if action.name in SUBMIT_ACTIONS:
            answer, value = action.args.get("answer"), action.args.get("value")
            self.answer = None if answer is None else str(answer)
            self.answer_value = None if value is None else str(value)
            return Outcome(self.submit_text.format(answer=self.answer), [ev.submit()], submitted=True)
        return self._execute(action)

    def _sandbox_lost(self, text: str, exc: InfrastructureError) -> Outcome:
        """End the episode as the agent's failure: its action killed or wedged the sandbox.

        The sandbox is closed here and replaced at the next `reset`. FailureLabeler files the
        episode under ``tool_call_error`` with the flag ``sandbox_crashed``.
        """
        self._done = True
        self.sandbox.close()
        try:
            name = self._parse(text).name
        except Exception:  # only a label
            name = "action"
        return Outcome(
            f"error: the sandbox stopped answering during this action ({type(exc).__name__}); the episode ends "
            "as a failure. A new sandbox starts at the next reset.",
            [ev.action(True, name), ev.tool_call(name, False, "sandbox_crashed")],
        )

    def _apply_fault(
        self,
        parsed: ParsedAction,
        kind: str,
        transient: bool,
        on_mutation: bool = False,
        retry_after: int = DEFAULT_RETRY_AFTER,
    ) -> Outcome:
        """The one place faults are applied; families shape them through the fault hooks above."""
        tool = parsed.tool or parsed.name
        mark = ev.fault_injected(kind, tool, transient)
        if kind in ("tool_error", "timeout"):  # the tool never ran
            error_kind, text = self.fault_failure(kind, tool)
            return Outcome(text, [ev.tool_call(tool, False, error_kind), mark])
        if kind == "rate_limit":  # the tool never ran, and no tool runs until the window has passed
            self._retry_at = self.turn + retry_after
            mark["detail"] = f"retry after {retry_after} turns"
            return Outcome(self.rate_limit_text(tool, retry_after), [ev.tool_call(tool, False, ev.RATE_LIMITED), mark])
        self._output_seen = kind not in ("empty_output", "corrupted_output", "wrong_value")
        self._faulting = kind
        try:
            outcome = self._dispatch(parsed)
        finally:
            self._output_seen, self._faulting = True, None
        if kind == "empty_output":
            outcome.text = ""
        elif kind == "corrupted_output":
            outcome.text = self.corrupt_output(outcome.text)
        elif kind == "wrong_value":
            if any(ev.is_error(e) for e in outcome.events):
                return outcome  # a failed call shows no value to falsify
            wrong = self.wrong_value(parsed, outcome.text)
            if wrong is None or wrong == outcome.text:
                return outcome
            outcome.text = wrong
            # a check whose true result the agent never saw is no check (labels: missing_verification)
            outcome.events = [e for e in outcome.events if e["kind"] != "verification"]
        elif kind == "state_drift":
            if on_mutation and not any(e["kind"] == "mutation" for e in outcome.events):
                return outcome  # armed for an edit, and this action changed nothing
            what = self._drift()
            if what is None:
                return outcome
            mark["detail"] = what
        outcome.events.append(mark)
        return outcome

    def _coerce(self, action: Any) -> str:
        if isinstance(action, bytes):
            action = action.decode("utf-8", "replace")
        elif isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if not isinstance(action, str):
            action = str(action)
        return action[: self.max_action_length]

    def _ensure_sandbox(self) -> None:
        if self.sandbox is not None and (self.sandbox.closed or getattr(self.sandbox, "broken", None)):
            self.sandbox.close()  # its channel broke (an interrupted call, a crash): start a fresh one
            self.sandbox = None
        if self.sandbox is None:
            self.sandbox = make_sandbox(self.backend, image=self.image, **self.sandbox_options)
            self._timed(self._start_sandbox_code)

    def _start_sandbox_code(self) -> None:
        for module in self.sandbox_modules:
            self.sandbox.load_module(module.name, module.source)
        self.services = {}
        for name, func in self.sandbox_services:
            try:
                self.services[f"{name}.{func}"] = self.sandbox.call(name, func, timeout=60)
            except SandboxOpError as exc:  # no agent action is involved: kept out of scores, retried
                self.sandbox.close()
                self.sandbox = None
                raise SandboxStartFailed(f"the {self.family} service {name}.{func} did not start: {exc}") from exc
        self._on_sandbox_start()

    def _timed(self, fn: Any, *args: Any) -> Any:
        start = time.perf_counter()
        before = getattr(self.sandbox, "calls", 0)
        try:
            return fn(*args)
        finally:
            self._env_seconds += time.perf_counter() - start
            self._env_calls += getattr(self.sandbox, "calls", 0) - before

    def _observation(self, text: str) -> dict[str, Any]:
        limit = self.max_observation_length
        if len(text) > limit:
            marker = _TRUNCATION_MARKER.format(n=len(text) - limit)
            text = text[: limit - len(marker)] + marker
        self._last_text = text
        return {"text": text}

    def _info(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        assert self.task is not None
        return {
            "task_id": self.task.task_id,
            "turn": self.turn,
            "min_turns": self.task.min_turns,
            "events": list(events),
            "admissible_actions": self.admissible_actions(),
            # timings stay out of info so same-seed episodes compare equal; CostTracker adds them
            "cost": {"env_calls": self._env_calls},
        }


def check_fault_kinds(family: type[AgentEnv], kinds: Iterable[str]) -> None:
    """Refuse fault kinds ``family`` does not apply (`AgentEnv.fault_kinds`), naming the ones it does."""
    bad = [k for k in kinds if k not in family.fault_kinds]
    if bad:
        raise ConfigError(
            f"fault kind {bad[0]!r} does not apply to {family.__name__}; its fault kinds: {family.fault_kinds}"
        )


def check_retry_after(value: Any) -> int:
    """A rate limit's retry-after: an int of turns >= 1 (1: the very next turn goes through)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"retry_after={value!r}; expected a number of turns >= 1, e.g. 2")
    return value


def _check_reset_options(options: Mapping[str, Any]) -> None:
    """Refuse reset option keys nobody read: a misspelt or unsupported key is never silently ignored."""
    for key in options:
        if key in RESET_OPTIONS:
            continue
        if key in WRAPPER_OPTIONS:
            raise ConfigError(
                f"reset option {key!r} is read by {WRAPPER_OPTIONS[key]}, and none is above this env; build it "
                "with agentgym.make(...) or gym.make('agentgym/...'), which stack it"
            )
        raise ConfigError(
            f"unknown reset option {str(key)[:60]!r}; an agentgym env reads {list(RESET_OPTIONS)}, and its "
            f"wrappers {list(WRAPPER_OPTIONS)}"
        )


def _clean(events: list[dict[str, Any]]) -> bool:
    """True when a step went through without a fault, a failed tool call or a mismatch."""
    return not any(e["kind"] in ("fault_injected", "state_mismatch") or ev.is_error(e) for e in events)
