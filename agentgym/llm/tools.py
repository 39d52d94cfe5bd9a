"""The one tool surface: the tools every model path offers for an env, and a call as an action, and back.

The TRL adapter's tool methods (`agentgym.integrations.trl`), the server's MCP tools
(`agentgym.serve.sessions.mcp_tools`) and the model agents' prompts (`agentgym.llm.view`) all derive
from `tool_schemas`, and all turn a call into the env's action with `call_action`, so a model sees the
same tools, and a call means the same action, whichever way it reaches an env.

- `tool_schemas(env)`: the env's tools (``tools()``: ToolUse, Browser, MiniWoB) or, for a grammar
  family, its verbs as tools (Coding: ``view``, ``run``, ``replace``, ``patch``, ``test``,
  ``revert``, ``submit``; SWE-v0 adds ``search`` and ``find``; TRL advises against one generic
  ``step(action)`` tool), or else one ``act`` tool taking an action in the grammar;
- `call_action(family, name, args)`: a tool call as the action text the env parses (a bad call
  then costs its turn with the env's own error, exactly as the same text would);
- `action_call(family, action, schemas)`: an action text as a tool call, e.g. to turn the oracle's
  trajectories (``env.unwrapped.reference_action()``) into supervised tool-calling data;
- `tool_lines(schemas)`: the tools as a model reads them in a text prompt, one line each
  (``name(arg: type, [optional: type]): description``), a fraction of the schemas' tokens;
- `brief(description)`: a description as every path shows it (its first sentence): the text prompt's
  lines and the TRL adapter's tool methods, which the chat template renders as schemas.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from agentgym.actions import GrammarError, parse_action

__all__ = [
    "GRAMMAR_TOOLS",
    "ACT_TOOL",
    "tool_schemas",
    "family_tools",
    "call_action",
    "action_call",
    "function",
    "tool_lines",
    "brief",
]


def _fn(name: str, description: str, params: Mapping[str, tuple[str, str]] = {}, optional: Sequence[str] = ()) -> dict:
    props = {k: {"type": t, "description": d} for k, (t, d) in params.items()}
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": props,
                "required": [k for k in params if k not in optional],
                "additionalProperties": False,
            },
        },
    }


GRAMMAR_TOOLS: dict[str, list[dict[str, Any]]] = {
    # Coding-v0's grammar (envs/coding/grammar.py, HELP), one tool per verb; `call_action` renders them back
    "coding": [
        _fn(
            "view",
            "Show a file with line numbers, or only lines start..end of it.",
            {
                "path": ("string", "file path in the repository"),
                "start": ("integer", "first line (from 1)"),
                "end": ("integer", "last line"),
            },
            optional=("start", "end"),
        ),
        _fn(
            "run",
            "Run a shell command in the repository (10 s limit) and show its output.",
            {"command": ("string", "the shell command")},
        ),
        _fn(
            "replace",
            "Replace lines start..end of a file with new lines; end = start - 1 inserts before start, "
            "empty lines deletes the range.",
            {
                "path": ("string", "file path"),
                "start": ("integer", "first line to replace (from 1)"),
                "end": ("integer", "last line to replace"),
                "lines": ("string", "the new lines, newline-separated"),
            },
        ),
        _fn(
            "patch",
            "Apply a unified diff: '--- a/FILE', '+++ b/FILE', then '@@ -START,COUNT +START,COUNT @@' hunks "
            "whose context and '-' lines match the file.",
            {"diff": ("string", "the unified diff")},
        ),
        _fn("test", "Run the visible tests."),
        _fn("revert", "Undo your last edit (replace, patch or revert)."),
        _fn("submit", "Finish: the hidden tests decide success."),
    ],
}
# SWE-v0's grammar (envs/swe/grammar.py, HELP): Coding's editing verbs, search and find, and test by node id
GRAMMAR_TOOLS["swe"] = [
    *(t for t in GRAMMAR_TOOLS["coding"] if t["function"]["name"] not in ("test", "submit")),
    _fn(
        "search",
        "Grep the repository's .py files for an extended regular expression.",
        {"pattern": ("string", "the pattern"), "path": ("string", "a folder or file to search (default: all)")},
        optional=("path",),
    ),
    _fn("find", "Files named NAME, and where def NAME / class NAME are.", {"name": ("string", "a name")}),
    _fn(
        "test",
        "Run these tests (pytest node ids, space-separated); none: the failing tests the report names.",
        {"ids": ("string", "pytest node ids, e.g. tests/test_x.py::test_y")},
        optional=("ids",),
    ),
    _fn("submit", "Finish: the library's tests decide success."),
]
CODE_FAMILIES = ("coding", "swe")
"""The families whose grammar is commands with a body on the following lines (`agentgym.repo.grammar`)."""

ACT_TOOL = _fn(
    "act",
    "Take one action in the env's command grammar (the task text describes it).",
    {"action": ("string", "one action")},
)


def function(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``function`` part of an OpenAI-style tool (or the schema itself when it is bare)."""
    return schema.get("function", schema)


def tool_schemas(
    env: Any, *, probed: Sequence[Mapping[str, Any]] | None = None, family: str | None = None
) -> list[dict[str, Any]]:
    """The tools a tool-calling trainer shows for ``env`` (any wrapper stack, or a `RemoteEnv`).

    ``probed``: the env's ``tools()`` after a reset, for families whose tools are the task's;
    ``family``: the env's family when ``env`` cannot say (a `RemoteEnv`).
    """
    base = env.unwrapped
    family = family or str(getattr(base, "family", ""))
    tools = list(probed) if probed is not None else list(base.tools())
    return family_tools(family, tools)


def family_tools(family: str, tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The surface from what an env reports: its own ``tools`` (ToolUse, BFCL, Browser, MiniWoB), else
    its grammar's verbs (`GRAMMAR_TOOLS`: Coding), else one ``act`` tool taking an action in the grammar."""
    if tools:
        return [dict(t) for t in tools]
    if family in GRAMMAR_TOOLS:
        return [dict(t) for t in GRAMMAR_TOOLS[family]]
    return [dict(ACT_TOOL)]


def tool_lines(schemas: Sequence[Mapping[str, Any]]) -> str:
    """One line per tool, ``name(arg, [optional], count: integer): description`` (BFCL-v0's own help form
    and the kit's `agentgym.actions.signature`, ``string`` left unsaid): what a model needs to call it,
    at a fraction of the JSON schemas' tokens. A description is cut to `brief`'s; sentences every tool's
    description starts with are said once, first; the rest, the arguments' descriptions and the schemas
    are a ``help`` away."""
    texts = [" ".join(str(function(s).get("description") or "").split()) for s in schemas]
    lines, said = [], ""
    for schema, (head, text) in zip(schemas, _shared_heads(texts), strict=True):
        if head != said:
            lines.append(head or "Other tools:")
            said = head
        fn = function(schema)
        params = fn.get("parameters") or {}
        required = set(params.get("required") or ())
        args = []
        for name, prop in (params.get("properties") or {}).items():
            kind = prop.get("type", "string") if isinstance(prop, Mapping) else "string"
            if isinstance(prop, Mapping) and prop.get("enum"):
                values = [json.dumps(v) for v in prop["enum"]]  # plain words need no quotes to be read
                kind = "|".join(v[1:-1] if _WORDS.match(v) else v for v in values)
            arg = name if kind == "string" else f"{name}: {kind}"
            args.append(arg if name in required else f"[{arg}]")
        description = brief(text)
        lines.append(f"{fn.get('name')}({', '.join(args)})" + (f": {description}" if description else ""))
    return "\n".join(lines)


_FIRST_SENTENCE = re.compile(r"(?<=[a-z)][.!?])\s+(?=[A-Z])")


_WORDS = re.compile(r'^"[A-Za-z][A-Za-z ]*"$')
_CLAUSE = re.compile(r"[;:]\s")
_EXAMPLE = re.compile(r",? e\.g\.,? [^;:]*?(?=\.\s+[A-Z]|[.;]?$|; )")


def brief(description: Any) -> str:
    """A tool's or argument's description as every model path shows it: its first sentence, on one line,
    without an example (``, e.g. ...``), up to its first ``;`` or ``:`` when that leaves three words or more
    (``One order in full: items with ...`` says ``One order in full``); the rest is a ``help`` away."""
    text = _EXAMPLE.sub("", " ".join(str(description or "").split()))  # before: "e.g. U1" is no sentence's end
    text = _FIRST_SENTENCE.split(text, maxsplit=1)[0]
    head = _CLAUSE.split(text, maxsplit=1)[0]
    return head if head != text and len(head.split()) >= 3 else text


def _shared_heads(descriptions: Sequence[str]) -> list[tuple[str, str]]:
    """``(head, rest)`` per description: ``head`` the first sentence (and a label ending in ``: ``) that the
    description shares with its neighbours (BFCL-v0's ``This tool belongs to the travel system, ...
    Tool description:``), to be said once above them, not once per tool; else ``""``."""
    split = [(_FIRST_SENTENCE.split(d, maxsplit=1) + [""])[:2] for d in descriptions]
    out = []
    for i, (first, rest) in enumerate(split):
        run = [r for f, r in split if f == first]
        if len(run) < 2 or not rest:
            out.append(("", descriptions[i]))
            continue
        label = _LABEL.match(rest)
        if label and all(r.startswith(label.group(0)) for r in run):
            rest = rest[label.end() :]  # the label says nothing once the sentence above says whose tools they are
        out.append((first, rest))
    return out


_LABEL = re.compile(r"^[A-Z][a-z]+(?: [a-z]+)?: ")


def call_action(family: str, name: str, args: Mapping[str, Any]) -> str:
    """The action text a tool call stands for in ``family``'s grammar."""
    args = {k: v for k, v in args.items() if v is not None}
    if name == "act":
        return str(args.get("action", ""))
    if family in CODE_FAMILIES:
        return _coding_action(name, args)
    return json.dumps({"tool": name, "args": args}, ensure_ascii=False)


def _coding_action(name: str, args: Mapping[str, Any]) -> str:
    if name == "view":
        span = ""
        if "start" in args:
            span = f" {args['start']}-{args.get('end', args['start'])}"
        return f"view {args.get('path', '')}{span}"
    if name == "run":
        return f"run {args.get('command', '')}"
    if name == "replace":
        lines = str(args.get("lines", ""))
        return f"replace {args.get('path', '')} {args.get('start', '')}-{args.get('end', '')}" + (
            f"\n{lines}" if lines else ""
        )
    if name == "patch":
        return f"patch\n{args.get('diff', '')}"
    if name == "search":
        return f"search {shlex.quote(str(args.get('pattern', '')))}" + (f" {args['path']}" if args.get("path") else "")
    if name == "find":
        return f"find {args.get('name', '')}"
    if name == "test" and set(args) <= {"ids"}:
        return f"test {args['ids']}".rstrip() if args.get("ids") else "test"
    if name in ("test", "revert", "submit", "help") and not args:
        return name
    return f"{name} {json.dumps(dict(args))}" if args else name  # the grammar explains what is wrong


_SPAN = re.compile(r"^(\d+)(?:\s*-\s*(\d+))?$")


def action_call(family: str, action: str, schemas: Sequence[Mapping[str, Any]]) -> tuple[str, dict[str, Any]]:
    """``(tool name, arguments)`` for an action text; `call_action` of it gives the same action back
    (up to the grammar's spelling). Raises `ValueError` for text that names no tool."""
    names = [function(s)["name"] for s in schemas]
    if family in CODE_FAMILIES and "view" in names:
        head, _, body = action.lstrip("\n").partition("\n")
        verb, _, rest = head.strip().partition(" ")
        rest = rest.strip()
        if verb == "view":
            path, _, span = rest.partition(" ")
            m = _SPAN.match(span.strip())
            return "view", (
                {"path": path, "start": int(m.group(1)), "end": int(m.group(2) or m.group(1))} if m else {"path": path}
            )
        if verb == "run":
            return "run", {"command": (rest + ("\n" + body if body else "")).strip()}
        if verb == "replace":
            path, _, span = rest.partition(" ")
            m = _SPAN.match(span.strip())
            if m is None:
                raise ValueError(f"not a replace command: {action[:80]!r}")
            return "replace", {
                "path": path,
                "start": int(m.group(1)),
                "end": int(m.group(2) or m.group(1)),
                "lines": body,
            }
        if verb == "patch":
            return "patch", {"diff": (rest + "\n" + body) if rest else body}
        if verb == "search" and verb in names:
            words = shlex.split(rest)
            return "search", {"pattern": words[0], **({"path": words[1]} if len(words) > 1 else {})}
        if verb == "find" and verb in names:
            return "find", {"name": rest}
        if verb == "test" and rest and verb in names:
            return "test", {"ids": rest}
        if verb in names:
            return verb, {}
        raise ValueError(f"not a {family} command: {action[:80]!r}")
    if names == ["act"]:
        return "act", {"action": action}
    try:
        call = parse_action(action)
    except GrammarError as exc:
        raise ValueError(str(exc)) from None
    args = dict(call.args)
    if call.positional:
        schema = next((function(s) for s in schemas if function(s)["name"] == call.name), None)
        order = list((schema or {}).get("parameters", {}).get("properties", {}))
        args.update({k: v for k, v in zip(order, call.positional)})
    return call.name, args
