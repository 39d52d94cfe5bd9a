"""Hostile-action fuzzing for any agentgym env: a garbage-action generator and a runner.

The contract (DESIGN section 2) says an action that cannot be parsed or executed costs its turn
and comes back as an ``error:`` observation, never as an exception. This module checks it the
way an adversarial agent would break it, and ships in the package (like `agentgym.testing`) so
users fuzz their own families with the same code that CI runs on ours.

- `HOSTILE_FRAGMENTS`: the payloads that broke envs before: 5000-digit numbers, ``-``/``not``
  chains and JSON nested about 900 deep, ``$inf``, NUL bytes, lone surrogates, huge strings.
- `mutate(action, rng)`: a grammar-aware mutation of a valid action (numbers made huge, string
  arguments swapped for payloads, lines cut, duplicated or spliced).
- `schema_call(rng, tool)`: a call of one of the family's tools (``info["tools"]``) with hostile
  argument values; `grammar_verbs(help)`: a command grammar's verbs, which get real paths from
  the menu and 5000-digit line numbers.
- `hostile_action(rng, menu, tools=..., verbs=...)`: one action: a mutated menu action, a tool
  call, a verb with hostile arguments, a payload, random unicode, or a menu action as is (so
  episodes get deep enough to reach every state).
- `fuzz_env(env, actions=..., seed=...)`: play that many actions, resetting when an episode
  ends, and return a `FuzzReport`: every exception that escaped ``reset``/``step`` (with the
  action and the traceback's last frame), the slowest step and the largest observation.

    >>> from agentgym.fuzz import fuzz_env
    >>> report = fuzz_env(gym.make("agentgym/ToolUse-v0", backend="local"), actions=500, seed=0)  # doctest: +SKIP
    >>> report.failures
    []
"""

from __future__ import annotations

import re
import shlex
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "HOSTILE_FRAGMENTS",
    "Failure",
    "FuzzReport",
    "mutate",
    "schema_call",
    "grammar_verbs",
    "hostile_action",
    "fuzz_env",
    "observation_size",
]

_DEEP = 900
HOSTILE_FRAGMENTS: tuple[str, ...] = (
    "9" * 5000,
    "-" * _DEEP + "1",
    "not " * _DEEP + "x",
    "~" * _DEEP + "1",
    "(" * _DEEP + "1" + ")" * _DEEP,
    "[" * _DEEP + "]" * _DEEP,
    '{"a":' * _DEEP + "1" + "}" * _DEEP,
    "$inf",
    "-$inf",
    "inf",
    "nan",
    "1e309",
    "-1e309",
    "Infinity",
    "NaN",
    "1e-400",
    "\x00",
    "a\x00b",
    "\ud800",
    "\udfff\ud800",
    "\ufeff",
    "\u202e",
    "\U0001f4a9" * 50,
    "x" * 20_000,
    "\n" * 2000,
    "%s%n%x%%",
    "{0}{1}",
    "'; DROP TABLE orders; --",
    "%_%_%_%_%_%_%_%_%_%_%_%",
    "((2**64)**64)**64",
    "9**9**9**9",
    "10**4000",
    "(10**64)**64",
    "1/0",
    "0**-1",
    "2.0**2000",
    "round(1, -10**18)",
    "max()",
    "__import__('os')",
    "99999999999999999999999999999999999999999999-1",
    "0-" + "9" * 5000,
)
"""Payloads that broke parsers and tools before; `mutate` splices them into valid actions."""

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_SAFE_SHELL = "echo"  # what a `run`-style action becomes where agent commands reach the host


@dataclass(frozen=True)
class Failure:
    """One exception that escaped ``reset()`` or ``step()``."""

    where: str  # "reset" or "step"
    action: str
    error: str  # "Type: message"
    frame: str  # the traceback's last frame, "file:line in function"

    def line(self) -> str:
        """One line for a report: the action's repr (cut), the error, the frame."""
        return f"{self.action[:200]!r} -> {self.error[:300]} at {self.frame}"


@dataclass
class FuzzReport:
    """What a fuzz run found. ``failures`` must be empty; the maxima say what bounds held."""

    env_id: str
    actions: int = 0
    episodes: int = 0
    failures: list[Failure] = field(default_factory=list)
    max_step_s: float = 0.0
    max_step_action: str = ""
    max_observation_chars: int = 0
    slow_steps: int = 0  # steps over the time limit
    oversized: int = 0  # observations over the size limit
    seconds: float = 0.0

    def distinct_failures(self) -> list[Failure]:
        """One failure per (error type, frame): the same bug hit by many actions counts once."""
        seen: dict[tuple[str, str], Failure] = {}
        for f in self.failures:
            seen.setdefault((f.error.split(":", 1)[0], f.frame), f)
        return list(seen.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "env": self.env_id,
            "actions": self.actions,
            "episodes": self.episodes,
            "exceptions": len(self.failures),
            "distinct_exceptions": [f.line() for f in self.distinct_failures()],
            "max_step_s": round(self.max_step_s, 4),
            "max_step_action": self.max_step_action[:120],
            "max_observation_chars": self.max_observation_chars,
            "slow_steps": self.slow_steps,
            "oversized_observations": self.oversized,
            "seconds": round(self.seconds, 2),
        }


def _pick(rng: np.random.Generator, items: Sequence[Any]) -> Any:
    return items[int(rng.integers(len(items)))]


def _random_text(rng: np.random.Generator, n: int) -> str:
    """Random code points from every plane, surrogates and controls included."""
    ranges = ((0, 0x20), (0x20, 0x7F), (0x80, 0x800), (0xD800, 0xE000), (0xE000, 0x10000), (0x10000, 0x110000))
    out = []
    for _ in range(n):
        lo, hi = _pick(rng, ranges)
        out.append(chr(int(rng.integers(lo, hi))))
    return "".join(out)


def mutate(action: str, rng: np.random.Generator, *, shell_safe: bool = False) -> str:
    """A grammar-aware mutation of ``action``: mostly still shaped like the grammar, with a payload.

    ``shell_safe``: a ``run`` command (Coding-v0's shell) keeps a harmless verb and gets the payload
    only as a quoted argument, for backends where agent commands run on the host.
    """
    payload = _pick(rng, HOSTILE_FRAGMENTS) if rng.random() < 0.8 else _random_text(rng, int(rng.integers(1, 64)))
    how = int(rng.integers(9))
    if how == 0 and _NUMBER.search(action):  # a number made huge, negative or odd
        spans = list(_NUMBER.finditer(action))
        m = _pick(rng, spans)
        new = _pick(rng, ("9" * 5000, "-1", "0", "1e309", "4294967297", payload, "1-" + "9" * 5000))
        out = action[: m.start()] + new + action[m.end() :]
    elif how == 1 and _STRING.search(action):  # a string argument swapped for a payload
        m = _pick(rng, list(_STRING.finditer(action)))
        out = action[: m.start()] + _json_string(payload, rng) + action[m.end() :]
    elif how == 2:  # spliced in anywhere
        at = int(rng.integers(len(action) + 1))
        out = action[:at] + payload + action[at:]
    elif how == 3 and action:  # cut short
        out = action[: int(rng.integers(len(action)))]
    elif how == 4:  # a second line, or the action twice
        out = action + _pick(rng, ("\n", " ", "")) + _pick(rng, (action, payload))
    elif how == 5:  # wrapped in JSON nesting or a code fence
        out = _pick(
            rng,
            (
                '{"tool": ' + _json_string(action, rng) + "}",
                "```\n" + action + "\n```",
                "[" * _DEEP + _json_string(action, rng) + "]" * _DEEP,
                action + "}" * 50,
            ),
        )
    elif how == 6:  # the verb kept, arguments replaced
        verb = re.split(r"[\s(]", action, maxsplit=1)[0]
        out = _pick(
            rng,
            (
                f"{verb} {payload}",
                f"{verb}({payload})",
                f"{verb}(x={payload})",
                f'{{"tool": "{verb}", "args": {payload}}}',
                f"{verb} a.py {payload}-{payload}",
            ),
        )
    elif how == 7:  # characters flipped
        chars = list(action or " ")
        for _ in range(int(rng.integers(1, 6))):
            chars[int(rng.integers(len(chars)))] = _random_text(rng, 1)
        out = "".join(chars)
    else:
        out = payload
    return _shell_safe(out) if shell_safe else out


def _json_string(text: str, rng: np.random.Generator) -> str:
    """``text`` as a quoted string: usually well-formed JSON, sometimes raw (an unterminated quote)."""
    import json

    return json.dumps(text) if rng.random() < 0.85 else '"' + text


_RUN_LINE = re.compile(r"^[\s`]*run\b", re.MULTILINE)


def _shell_safe(action: str) -> str:
    """An action with a line that could start a ``run`` becomes ``run echo 'payload'``: the parser
    still sees garbage arguments, but the host only ever runs echo."""
    if not _RUN_LINE.search(action):
        return action
    return f"run {_SAFE_SHELL} " + shlex.quote(action.replace("\x00", "")[:2000])


_VALUES: tuple[Any, ...] = (
    10**300,
    -(10**300),
    4294967297,
    -1,
    0,
    1e308,
    -1e308,
    5e-324,
    float("inf"),
    float("nan"),
    True,
    None,
    "",
    " ",
    "x" * 10_000,
    [],
    {},
    [[[[]]]],
    {"a": {"b": {}}},
    "O1",
    "2024-02-30",
    "../../etc/passwd",
)


def schema_call(rng: np.random.Generator, tool: dict[str, Any]) -> str:
    """A call of an OpenAI-style ``tools`` entry with hostile argument values, in JSON or call form."""
    import json

    fn = tool.get("function", tool)
    name = str(fn.get("name", "tool"))
    props = list((fn.get("parameters") or {}).get("properties") or {}) or ["x"]
    args: dict[str, Any] = {}
    for p in props:
        if rng.random() < 0.85:
            args[p] = _pick(rng, _VALUES) if rng.random() < 0.5 else _pick(rng, HOSTILE_FRAGMENTS)
    if rng.random() < 0.2:
        args[_pick(rng, ("extra", "__class__", "args", "\x00"))] = 1
    if rng.random() < 0.5:
        return json.dumps({"tool": name, "args": args})  # NaN/Infinity go in as JSON's extensions
    inner = ", ".join(
        f"{k}={v!r}" if not isinstance(v, str) or rng.random() < 0.9 else f"{k}={v}" for k, v in args.items()
    )
    return f"{name}({inner})"


_HUGE_NUMBERS = ("9" * 5000, "1" + "0" * 4400, "0", "-1", "4294967297", "99999999999999999999", "1e309", "\u0661")


def _verb_action(rng: np.random.Generator, verbs: Sequence[str], menu: Sequence[str]) -> str:
    """A command-grammar action: a verb, an argument the menu uses (a real path), hostile line
    numbers, and sometimes a body of payload lines."""
    words = [a.split()[1] for a in menu if len(a.split()) > 1 and "\n" not in a.split()[1]] or ["x"]
    verb, arg = _pick(rng, verbs), _pick(rng, words)
    lo, hi = _pick(rng, _HUGE_NUMBERS), _pick(rng, _HUGE_NUMBERS + ("1", "2"))
    out = _pick(rng, (f"{verb} {arg} {lo}-{hi}", f"{verb} {arg} {lo}", f"{verb} {arg} 1-{hi}", f"{verb} {arg}"))
    if rng.random() < 0.4:
        out += "\n" + "\n".join(_pick(rng, HOSTILE_FRAGMENTS)[:3000] for _ in range(int(rng.integers(1, 4))))
    return out if rng.random() < 0.7 else mutate(out, rng)


def grammar_verbs(help_text: str) -> list[str]:
    """The command words a help text lists (two-space indented ``verb ...`` lines)."""
    return sorted(set(re.findall(r"^ {2}([a-z][a-z_]*)\b", help_text or "", re.MULTILINE)))


def hostile_action(
    rng: np.random.Generator,
    menu: Sequence[str],
    *,
    tools: Sequence[dict[str, Any]] = (),
    verbs: Sequence[str] = (),
    shell_safe: bool = False,
) -> str:
    """One fuzz action: a mutated menu action (most), a menu action as is, a tool called with
    hostile arguments, a verb with a payload, a payload, or random text."""
    r = rng.random()
    if menu and r < 0.2:
        return _pick(rng, menu)  # the env's own menu actions are safe to run as they are
    if menu and r < 0.6:
        return mutate(_pick(rng, menu), rng, shell_safe=shell_safe)
    if tools and r < 0.8:
        return schema_call(rng, _pick(rng, tools))
    if verbs and r < 0.8:
        out = _verb_action(rng, verbs, menu)
        return _shell_safe(out) if shell_safe else out
    out = _pick(rng, HOSTILE_FRAGMENTS) if r < 0.93 else _random_text(rng, int(rng.integers(1, 400)))
    return _shell_safe(out) if shell_safe else out


def observation_size(obs: Any) -> int:
    """Characters in an observation: the text plus every other field's printed size."""
    if isinstance(obs, dict):
        return sum(len(v) if isinstance(v, str) else len(repr(v)) for v in obs.values())
    return len(repr(obs))


def _frame(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    if not tb:
        return "?"
    last = tb[-1]
    return f"{last.filename}:{last.lineno} in {last.name}"


def fuzz_env(
    env: Any,
    *,
    actions: int = 2000,
    seed: int = 0,
    env_id: str | None = None,
    step_limit_s: float = 5.0,
    max_observation_chars: int | None = None,
    shell_safe: bool | None = None,
    max_turns: int = 40,
) -> FuzzReport:
    """Play ``actions`` hostile actions on ``env``; every escaped exception is recorded, not raised.

    An episode ends when the env says so or after ``max_turns`` (so resets are fuzzed too);
    after an exception the env is reset. ``shell_safe`` defaults to True on the local backend,
    where shell actions would run on the host. The env is not closed.
    """
    base = getattr(env, "unwrapped", env)
    env_id = env_id or getattr(getattr(env, "spec", None), "id", None) or type(base).__name__
    if shell_safe is None:
        shell_safe = getattr(base, "backend", "local") != "docker"
    limit = max_observation_chars or int(getattr(base, "max_observation_length", 32_768)) + 4096
    rng = np.random.default_rng(seed)
    report = FuzzReport(env_id=env_id)
    started = time.perf_counter()
    menu: list[str] = []
    tools: list[dict[str, Any]] = []
    verbs: list[str] = []
    need_reset, turns = True, 0
    while report.actions < actions:
        if need_reset:
            try:
                _obs, info = env.reset(seed=int(rng.integers(1 << 31)))
                menu = list(info.get("admissible_actions") or [])
                tools = [t for t in info.get("tools") or [] if isinstance(t, dict)]
                verbs = grammar_verbs(str(info.get("help") or ""))
            except Exception as exc:  # recording what escaped is the point
                report.failures.append(Failure("reset", "", f"{type(exc).__name__}: {exc}", _frame(exc)))
                report.actions += 1  # a reset that keeps failing must still end the run
                continue
            report.episodes += 1
            need_reset, turns = False, 0
        action = hostile_action(rng, menu, tools=tools, verbs=verbs, shell_safe=shell_safe)
        t0 = time.perf_counter()
        try:
            obs, _r, terminated, truncated, info = env.step(action)
        except Exception as exc:
            report.failures.append(Failure("step", action, f"{type(exc).__name__}: {exc}", _frame(exc)))
            report.actions += 1
            need_reset = True
            continue
        dt = time.perf_counter() - t0
        report.actions += 1
        turns += 1
        if dt > report.max_step_s:
            report.max_step_s, report.max_step_action = dt, action
        report.slow_steps += dt > step_limit_s
        size = observation_size(obs)
        report.max_observation_chars = max(report.max_observation_chars, size)
        report.oversized += size > limit
        menu = list(info.get("admissible_actions") or [])
        need_reset = bool(terminated or truncated or turns >= max_turns)
    report.seconds = time.perf_counter() - started
    return report
