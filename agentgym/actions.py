"""The shared action kit: typed tool specs and the one parser of tool-call actions.

Families whose actions are tool calls (ToolUse, Browser) declare them as `ToolSpec` tuples; one
spec gives the argument checks (`check_args`), the usage line in errors (`signature`) and the
OpenAI-style JSON schema (`tool_schema`). Accepted forms (one action per turn)::

    {"tool": "get_order", "args": {"order_id": "O12345"}}
    {"name": "get_order", "arguments": "{\\"order_id\\": \\"O12345\\"}"}      # OpenAI tool-call shape
    get_order(order_id="O12345")
    finish("Your order is cancelled.")           # or finish(answer="...")
    help

each optionally inside a Markdown code fence (`strip_fence`) or an ``<action>...</action>`` tag
(AgentLab's reply format, `strip_action_tag`). `parse_action` turns text into a `Call` or raises
`GrammarError` saying what it expected; `check_args` raises `ArgumentError`. `calls_in_reply`
finds the calls of known actions in free text, for families that take the one call of a reply.
"""

from __future__ import annotations

import ast
import json
import re
import threading
import warnings
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentgym.core import ActionError, BadArguments, ParsedAction  # BadArguments: the core's one meaning

__all__ = [
    "Param",
    "ToolSpec",
    "tool_schema",
    "signature",
    "render_call",
    "Call",
    "GrammarError",
    "ArgumentError",
    "BadArguments",
    "parse_action",
    "check_args",
    "strip_fence",
    "strip_action_tag",
    "calls_in_reply",
    "finish_answer",
    "finish_args",
    "builtin_or_call",
    "parse_tool_action",
]


@dataclass(frozen=True)
class Param:
    """One tool argument: JSON type ``string``, ``integer``, ``number`` or ``boolean``; ``enum`` limits strings."""

    name: str
    type: str
    description: str
    required: bool = True
    enum: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolSpec:
    """A typed tool. ``writes`` marks tools that change the database (they emit ``mutation``)."""

    name: str
    description: str
    params: tuple[Param, ...] = ()
    writes: bool = False

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


def tool_schema(spec: ToolSpec) -> dict[str, Any]:
    """The tool as an OpenAI-style function tool (``{"type": "function", "function": {...}}``)."""
    props: dict[str, Any] = {}
    for p in spec.params:
        prop: dict[str, Any] = {"type": p.type, "description": p.description}
        if p.enum:
            prop["enum"] = list(p.enum)
        props[p.name] = prop
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": {
                "type": "object",
                "properties": props,
                "required": [p.name for p in spec.params if p.required],
                "additionalProperties": False,
            },
        },
    }


def render_call(tool: str, args: Mapping[str, Any] | None = None) -> str:
    """The function-call form of an action, e.g. ``get_order(order_id="O1234")``."""
    inner = ", ".join(f"{k}={json.dumps(v)}" for k, v in (args or {}).items())
    return f"{tool}({inner})"


_EXPECTED = (
    'expected a tool call: {"tool": NAME, "args": {...}} or NAME(arg="value", ...), or finish("answer"), or help'
)
_LITERAL_NAMES = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}


class GrammarError(ValueError):
    """The text is not an action of this grammar; the message says what was expected."""


class ArgumentError(ValueError):
    """A well-formed call whose arguments do not fit the tool's spec; the message lists every
    problem and the tool's usage line. The call is still a tool call (it costs the turn)."""


@dataclass(frozen=True)
class Call:
    """A parsed action: a tool name (or ``help``/``finish``), keyword args, and positional args."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    positional: tuple[Any, ...] = ()


def parse_action(text: str) -> Call:
    """Parse one action; raises `GrammarError` for anything outside the grammar.

    A reply that is not an action as a whole is read through its ``<action>`` tag when it has
    one, so a valid action whose text mentions the tag is never reinterpreted.
    """
    try:
        return _parse_one(text)
    except GrammarError:
        inner = strip_action_tag(text)
        if inner is text:
            raise
    return _parse_one(inner)


def _parse_one(text: str) -> Call:
    text = strip_fence(text).strip()
    if not text:
        raise GrammarError("empty action; " + _EXPECTED)
    if text in ("help", "help()"):
        return Call("help")
    if text[0] in "{[":
        return _parse_json(text)
    return _parse_call(text)


_PARSE_LOCK = threading.Lock()
_INFO_STRING = re.compile(r"[\w+.#-]*")  # a fence's language tag: ```json, ```python3, ```c++


def strip_fence(text: str) -> str:
    """The action inside a Markdown code fence around the whole text (chat models add one).

    The one fence rule of every family and agent: a first line that is a single word (a language
    tag) is dropped when something follows it; the inside is otherwise kept as written (a file
    body's indentation and trailing newline matter); unfenced text comes back unchanged.
    """
    stripped = text.strip()
    if len(stripped) > 6 and stripped.startswith("```") and stripped.endswith("```"):
        inner = stripped[3:-3]
        first, newline, rest = inner.partition("\n")
        return rest if newline and rest.strip() and _INFO_STRING.fullmatch(first.strip()) else inner
    return text


_ACTION_TAG = re.compile(r"<action>(.*?)</action>", re.S | re.I)


def strip_action_tag(text: str) -> str:
    """The inside of the reply's one ``<action>...</action>`` tag (AgentLab's format), else the text.

    Two tags are two actions: a `GrammarError`, since a turn takes one action and choosing one of
    them for the agent would be a guess.
    """
    if "<" not in text:
        return text
    found = _ACTION_TAG.findall(text)
    if len(found) > 1:
        raise GrammarError(f"the reply holds {len(found)} <action> tags; send one action per turn")
    return found[0] if found else text


_MAX_REPLY_SCAN = 20_000  # a reply longer than this is not searched for calls (bounded host time)
_MAX_CALL, _MAX_CLOSES = 2_000, 40  # one call's length, and the ')' tried as its end
_MAX_ATTEMPTS = 200  # spans parsed per reply, whatever the reply holds


def calls_in_reply(text: str, names: Collection[str]) -> list[str]:
    """The calls of ``names`` that stand in free text ("I will click(12) now."), in order.

    Each is the shortest span from ``name(`` to a ``)`` that parses as one call with literal
    arguments; spans inside an earlier call are not counted again. Callers take the reply's
    action only when exactly one call is found, so prose that names two actions is refused.
    """
    if len(text) > _MAX_REPLY_SCAN or not names:
        return []
    alternatives = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w.])({alternatives})\s*\(")
    found: list[str] = []
    end, attempts = 0, 0
    for match in pattern.finditer(text):
        if match.start() < end:
            continue
        window = text[match.end() : match.end() + _MAX_CALL]
        for close in [m.end() for m in re.finditer(r"\)", window)][:_MAX_CLOSES]:
            attempts += 1
            if attempts > _MAX_ATTEMPTS:
                return found
            span = text[match.start() : match.end() + close]
            try:
                _parse_call(span)
            except GrammarError:
                continue
            found.append(span)
            end = match.end() + close
            break
    return found


def _loads(text: str, what: str, decode_error: Callable[[json.JSONDecodeError], str]) -> Any:
    """``json.loads`` whose every failure is a `GrammarError`: bad syntax, nesting past the
    recursion limit, integers past Python's 4300-digit conversion limit."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise GrammarError(decode_error(exc)) from None
    except RecursionError:
        raise GrammarError(f"{what} is nested too deeply; {_EXPECTED}") from None
    except ValueError as exc:  # int('9' * 5000): "Exceeds the limit (4300 digits)"
        raise GrammarError(f"{what} holds a number that cannot be read ({str(exc)[:80]}); {_EXPECTED}") from None


def _show(value: Any) -> str:
    """A short printable form of an argument value, for error messages (never raises)."""
    try:
        return json.dumps(value)[:40]
    except (ValueError, TypeError, RecursionError):
        return type(value).__name__


def _parse_json(text: str) -> Call:
    obj = _loads(text, "the action", lambda exc: f"invalid JSON ({exc.msg} at character {exc.pos}); {_EXPECTED}")
    if isinstance(obj, dict) and isinstance(obj.get("function"), dict):  # {"type": "function", "function": {...}}
        obj = obj["function"]
    if not isinstance(obj, dict):
        raise GrammarError(f"a JSON action must be an object; {_EXPECTED}")
    name = obj.get("tool", obj.get("name"))
    if not isinstance(name, str) or not name:
        raise GrammarError(f'the JSON object needs a "tool" (or "name") string; {_EXPECTED}')
    args = obj.get("args", obj.get("arguments", obj.get("parameters", {})))
    if isinstance(args, str):
        args = (
            _loads(args, '"arguments"', lambda exc: f'"arguments" is a string but not JSON ({exc.msg}); pass an object')
            if args.strip()
            else {}
        )
    if args is None:
        args = {}
    extra = sorted(set(obj) - {"tool", "name", "args", "arguments", "parameters", "type", "id"})
    if extra:
        raise GrammarError(f"unexpected key(s) {extra} in the JSON action; {_EXPECTED}")
    if not isinstance(args, dict):
        raise GrammarError(f'"args" must be a JSON object of argument names to values, got {type(args).__name__}')
    return Call(name.strip(), dict(args))


def _literal(node: ast.AST) -> Any:
    if isinstance(node, ast.Name) and node.id in _LITERAL_NAMES:
        return _LITERAL_NAMES[node.id]
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise GrammarError(
            f'argument {_source(node)!r} is not a literal value: quote strings, e.g. order_id="O12345"'
        ) from None


def _source(node: ast.AST) -> str:
    try:
        return ast.unparse(node)[:60]
    except (RecursionError, ValueError):  # a chain of 900 unary minus signs
        return type(node).__name__


def _parse_call(text: str) -> Call:
    try:
        # catch_warnings swaps process-wide state: one thread at a time (threaded trainers parse too)
        with _PARSE_LOCK, warnings.catch_warnings():  # "invalid decimal literal": the agent's text, not our code
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        msg = getattr(exc, "msg", str(exc))
        raise GrammarError(f"cannot parse {text[:80]!r} ({msg}); {_EXPECTED}") from None
    body = tree.body
    if isinstance(body, ast.Name):
        raise GrammarError(f"{body.id!r} needs parentheses: {body.id}(...); {_EXPECTED}")
    if not isinstance(body, ast.Call) or not isinstance(body.func, ast.Name):
        raise GrammarError(f"{text[:80]!r} is not a call; {_EXPECTED}")
    if any(isinstance(a, ast.Starred) for a in body.args) or any(k.arg is None for k in body.keywords):
        raise GrammarError("*args and **kwargs are not supported; name each argument")
    positional = tuple(_literal(a) for a in body.args)
    args: dict[str, Any] = {}
    for kw in body.keywords:
        assert kw.arg is not None
        args[kw.arg] = _literal(kw.value)
    return Call(body.func.id, args, positional)


def signature(spec: ToolSpec) -> str:
    """``name(arg: type, [optional: type])``, for error messages."""
    parts = [f"{p.name}: {p.type}" if p.required else f"[{p.name}: {p.type}]" for p in spec.params]
    return f"{spec.name}({', '.join(parts)})"


_TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,)}


def check_args(spec: ToolSpec, call: Call) -> dict[str, Any]:
    """The call's arguments checked against the schema (positional ones mapped in order).

    Raises `ArgumentError` listing every problem and the tool's signature.
    """
    args: dict[str, Any] = {}
    problems = []
    if len(call.positional) > len(spec.params):
        problems.append(f"{len(call.positional)} positional arguments for {len(spec.params)} parameters")
    for p, value in zip(spec.params, call.positional):
        args[p.name] = value
    for name, value in call.args.items():
        if name in args:
            problems.append(f"argument {name!r} given twice")
        args[name] = value
    for name in args:
        if spec.param(name) is None:
            problems.append(f"unknown argument {name!r}")
    for p in spec.params:
        if p.name not in args:
            if p.required:
                problems.append(f"missing argument {p.name!r}")
            continue
        value = args[p.name]
        if p.type == "integer" and isinstance(value, float) and value.is_integer():
            value = args[p.name] = int(value)
        if (isinstance(value, bool) and p.type != "boolean") or not isinstance(value, _TYPES[p.type]):
            problems.append(f"{p.name!r} must be a {p.type}, got {_show(value)}")
        elif p.enum and value not in p.enum:
            problems.append(f"{p.name!r} must be one of {list(p.enum)}, got {_show(value)}")
        elif p.type == "string" and isinstance(value, str) and not value.strip():
            problems.append(f"{p.name!r} is empty")
    if problems:
        raise ArgumentError(f"bad arguments for {spec.name}: {'; '.join(problems)}. Usage: {signature(spec)}")
    return args


def finish_answer(call: Call) -> str:
    """The answer of a ``finish`` call; raises `GrammarError` when it is missing or not text."""
    return finish_args(call)["answer"]


def finish_args(call: Call) -> dict[str, Any]:
    """A ``finish`` call's ``answer`` and, when given, its structured ``value`` (`agentgym.answers`:
    only the value is then checked) and ``refused`` flag (true: the answer declines the request);
    raises `GrammarError` when they are missing or of the wrong type."""
    values = list(call.positional) + [v for k, v in call.args.items() if k == "answer"]
    value = [v for k, v in call.args.items() if k == "value"]
    refused = call.args.get("refused")
    extra = sorted(set(call.args) - {"answer", "value", "refused"})
    if (
        extra
        or len(values) != 1
        or not isinstance(values[0], str)
        or len(value) > 1
        or not all(isinstance(v, str) for v in value)
        or not isinstance(refused, (bool, type(None)))
    ):
        raise GrammarError(
            "finish takes one text answer, optionally one text value and a true/false refused: "
            'finish("Your refund of $12.50 is on its way."), finish(answer="...", value="$12.50") or '
            'finish(answer="why not", refused=true)'
        )
    return {
        "answer": values[0],
        **({"value": value[0]} if value else {}),
        **({"refused": refused} if refused is not None else {}),
    }


def builtin_or_call(text: str) -> ParsedAction | Call:
    """The head every call-style family's `_parse` shares: ``help`` and ``finish(...)`` as parsed
    actions, any other call as the `Call` for the family to check; a grammar error is an `ActionError`."""
    try:
        call = parse_action(text)
        if call.name == "help":
            return ParsedAction("help")
        if call.name == "finish":
            return ParsedAction("finish", finish_args(call))
    except GrammarError as exc:
        raise ActionError(str(exc)) from None
    return call


def parse_tool_action(text: str, specs: Mapping[str, ToolSpec]) -> ParsedAction:
    """A family's whole `_parse` when its actions are tool calls: ``help``, ``finish("answer")``, or
    a call of one of ``specs`` with checked arguments (`BadArguments` when they do not fit: still a
    call of that tool). Anything else raises `ActionError` saying what was expected."""
    call = builtin_or_call(text)
    if isinstance(call, ParsedAction):
        return call
    spec = specs.get(call.name)
    if spec is None:
        raise ActionError(f"unknown tool {call.name!r}; tools: {', '.join(sorted(specs))}, plus finish and help")
    try:
        args = check_args(spec, call)
    except ArgumentError as exc:
        return BadArguments(call.name, tool=call.name, error=exc)
    return ParsedAction(call.name, args, tool=call.name)
