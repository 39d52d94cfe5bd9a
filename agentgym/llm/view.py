"""The language-model view: what a model reads each turn, the same for every model path.

A prompt is paid for on every turn, so the view says each thing once: the rules and the tools (or the
command grammar) once in the system message, as short as they can be (`agentgym.llm.tools.tool_lines`:
one line per tool); the task once, in the first user message, without the help text the env appends
for agents that read everything (`task_text`); then only each step's result and the turns left
(`result_text`), never the whole observation or a menu again. The full rules (the final-answer rules
of `agentgym.answers`, the JSON schemas, the policy) stay one ``help`` action away, and the system
message says so.

- `ChatView`: one episode's messages in this view (system, task, then a reply and a result per turn),
  windowed only when a prompt must be cut to fit; `agentgym.agents.HFAgent` and
  `agentgym.agents.OpenAIChatAgent` build their prompts with it;
- `task_text`, `result_text`, `PROMPT`: what the TRL adapter's reset and tool calls answer
  (`agentgym.integrations.episode.Episode`), the same text the agents' view shows;
- `extract_action`, `parse_tool_call`: a reply read back as an action (a fenced block or the bare
  text; a ``<tool_call>`` JSON for templates that render tools).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from agentgym.actions import strip_fence
from agentgym.answers import ANSWER_RULE
from agentgym.llm.tools import tool_lines

__all__ = [
    "PROMPT",
    "SYSTEM_PROMPT",
    "TOOL_SYSTEM_PROMPT",
    "ChatView",
    "system_prompt",
    "env_grammar",
    "task_text",
    "result_text",
    "Seen",
    "page_change",
    "record_change",
    "turns_left",
    "extract_action",
    "parse_tool_call",
]

PROMPT = "Solve the task below with the tools. Call one tool per turn."
"""The TRL adapter's user message, before the task (the template renders the tools)."""

SYSTEM_PROMPT = """One action a turn, nothing else; `help` (a turn) gives the full rules.
{grammar}"""
"""The system message when the model writes actions as text; ``{grammar}`` is `env_grammar`'s."""

TOOL_SYSTEM_PROMPT = """One tool call a turn; `help` (a turn) gives the full rules."""
"""The system message when the chat template renders the tools itself (the grammar is then the tools)."""

_FENCE = re.compile(r"```.*?```", re.DOTALL)
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
_CALL_FORM = 'Tools, called as NAME(arg="value"):'


def env_grammar(env: gym.Env, info: Mapping[str, Any] | None = None) -> str:
    """The family's actions as short as they can be said: one line per tool for a family whose actions
    are tool calls (the reset info's ``tools``, which hold what wrappers add, else ``tools()``); else the
    command grammar (the info's ``help``, else `AgentEnv.help_text`, else the Action Space section of
    the env's docstring, for gymnasium envs that are not agentgym's)."""
    info = info if isinstance(info, Mapping) else {}
    base = env.unwrapped
    tools = info.get("tools")
    if not isinstance(tools, list) or not tools:
        probe = getattr(base, "tools", None)
        tools = probe() if callable(probe) else []
    if tools:
        return _CALL_FORM + "\n" + tool_lines(tools)
    value = info.get("help")
    if isinstance(value, str) and value.strip():
        return value.strip()
    help_text = getattr(base, "help_text", None)
    value = help_text() if callable(help_text) else None
    if isinstance(value, str) and value.strip():
        return value.strip()
    doc = type(base).__doc__ or ""
    match = re.search(r"Action Space\s*\n[-=~]*\n?(.*?)(?:\n\s*\n\S|\Z)", doc, re.DOTALL)
    if match:
        return match.group(1).strip()
    return "(send `help` to list the actions)"


def task_text(env: gym.Env | None, obs: Any) -> str:
    """The first observation's text without what ``help`` says again: the help the env appended for
    agents that read only the observation (``help_in_observation``: the view gives the tools or grammar
    once, in the system message), the instruction's own sentences on how to act
    (`agentgym.core.AgentEnv.instruction_grammar`) and the final-answer rule
    (`agentgym.answers.ANSWER_RULE`; ``finish``'s arguments say how to answer, and ``help`` gives the
    rule in full)."""
    text = str(obs.get("text", "")) if isinstance(obs, Mapping) else str(obs)
    base: Any = getattr(env, "unwrapped", None)  # `AgentEnv._reset_help` appended what is cut here
    extra = base._reset_help() if getattr(base, "help_in_observation", False) else ""
    probe = getattr(base, "instruction_grammar", None)
    grammar = probe() if callable(probe) else ""
    for repeated in (extra, grammar, ANSWER_RULE):
        if repeated and repeated in text:
            text = text.replace(repeated, "", 1)
    return re.sub(r"\n{3,}", "\n\n", re.sub(r"[ \t]+\n", "\n", text)).strip()


def turns_left(obs: Any, info: Mapping[str, Any]) -> int | None:
    """Turns left in this episode, from the TurnLimit observation field or info."""
    value = obs.get("turns_left") if isinstance(obs, Mapping) else None
    if value is None:
        value = info.get("turns_left")
    if value is None:
        return None
    try:
        return int(getattr(value, "flat", [value])[0])
    except (TypeError, ValueError, IndexError):
        return None


def result_text(
    obs: Any,
    info: Mapping[str, Any],
    *,
    terminated: bool = False,
    truncated: bool = False,
    turns: int = 0,
    seen: Seen | None = None,
) -> str:
    """One step's result as the model reads it: the observation's text (with ``seen``, what the model was
    shown before this episode, only what changed when saying so is shorter: `Seen.change`), then the turns
    left (``[N turns left]``) or, when the budget ended the episode, that it is over."""
    text = str(obs.get("text", "")) if isinstance(obs, Mapping) else str(obs)
    change = seen.change(text) if seen is not None else None
    text = _compact(text) if change is None else change
    if truncated and not terminated:
        return text + f"\n[the budget of {info.get('budget', turns)} turns is spent: the episode is over]"
    left = turns_left(obs, info)
    if not (terminated or truncated) and left is not None:
        text += f"\n[{left} turns left]"
    return text


class Seen:
    """What the model was shown this episode, so that a result says only what changed (the view shows
    each thing once; every path appends results, so nothing shown is ever rewritten):

    - a family whose observations are whole pages (`agentgym.core.AgentEnv.page_observations`): a page
      after one with the same ``URL:`` is shown as its changed lines (`page_change`);
    - a JSON object that shows a record again (the same keys and the same first value: a re-read after an
      action) is shown as its changed fields (`record_change`).
    """

    def __init__(self, env: gym.Env | None = None) -> None:
        self.pages = bool(getattr(getattr(env, "unwrapped", None), "page_observations", False))
        self.page: str | None = None
        self.records: dict[str, Any] = {}

    def task(self, text: str) -> str:
        """The task as shown (`task_text`): the page it holds is the first one seen."""
        self.page, self.records = (text if self.pages else None), {}
        return text

    def change(self, text: str) -> str | None:
        """``text`` as what changed since it was last shown (None: show it all), and remember it."""
        if self.pages:
            before, self.page = self.page, text
            return page_change(before, text) if before is not None else None
        value = _json(text)
        if not isinstance(value, dict) or not value:
            return None
        first = next(iter(value.items()))
        key = json.dumps([sorted(value), first], sort_keys=True, default=str)
        before, self.records[key] = self.records.get(key), value
        return record_change(before, value) if before is not None else None


_URL = "URL: "


def page_change(before: str, after: str) -> str | None:
    """``after`` as what changed since ``before``, when both show the same page (the same ``URL:``
    line) and saying so is shorter: what ``after`` says above the page (an error, a note) as it is,
    then the page's new or changed lines, then the ids of elements no longer shown; None otherwise
    (the whole page is shown). Elements keep their ``[id]`` across an episode's steps, so a changed
    line names the element it is about."""
    old, new = before.splitlines(), after.splitlines()
    url = next((line for line in new if line.startswith(_URL)), None)
    if url is None or url not in old:
        return None
    at = new.index(url)
    head, page, was = new[:at], new[at:], old[old.index(url) :]
    seen, now = set(was), set(page)
    ids = {m.group(1) for m in map(_ELEMENT.match, page) if m}
    changed = [line for line in page if line not in seen]
    gone = [m.group(1) for m in map(_ELEMENT.match, was) if m and m.group(1) not in ids]
    prose = [line for line in was if line.strip() and not line.lstrip().startswith(("[", "Title: "))]  # no element
    gone += [line for line in prose if line not in now]
    lines = head + (["[same page; changed:]"] + changed if changed else ["[same page, unchanged]"])
    if gone:
        lines.append("[gone: " + ", ".join(gone) + "]")
    text = "\n".join(lines)
    return text if len(text) < len(after) else None


_ELEMENT = re.compile(r"^\s*\[(\d+)\]")  # an element's line, indented as deep as it is nested


def record_change(before: Mapping[str, Any], after: Mapping[str, Any]) -> str | None:
    """``after`` as the fields that differ from ``before`` (``path: value``, ``path: -`` for a field gone),
    when that is shorter than ``after`` in compact JSON; None otherwise."""
    old, new = _leaves(before), _leaves(after)
    lines = [f"{k}: {_cell(v)}" for k, v in new.items() if k not in old or old[k] != v]
    lines += [f"{k}: -" for k in old if k not in new]
    text = "[as shown before, but:]\n" + "\n".join(lines) if lines else "[as shown before, unchanged]"
    whole = json.dumps(after, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) < len(whole) else None


def _leaves(value: Any, path: str = "") -> dict[str, Any]:
    """``{path: value}`` of a JSON value's scalars and empty containers (``orders[1].status``)."""
    if isinstance(value, Mapping) and value:
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_leaves(v, f"{path}.{k}" if path else str(k)))
        return out
    if isinstance(value, list) and value:
        out = {}
        for i, v in enumerate(value):
            out.update(_leaves(v, f"{path}[{i}]"))
        return out
    return {path: value}


def _json(text: str) -> Any:
    """The JSON value ``text`` is, or None."""
    stripped = text.strip()
    if stripped[:1] not in ("{", "["):
        return None
    try:
        return json.loads(stripped)
    except ValueError:
        return None


def _compact(text: str) -> str:
    """A result that is one JSON value in fewer tokens, the same value: an object as ``key: value`` lines,
    a list of records with the same keys as a table (the keys once, then one ``|``-separated row per
    record), anything else as JSON without the spaces after separators; any other text as it is."""
    value = _json(text)
    if value is None:
        return text
    if isinstance(value, dict) and value:
        return "\n".join(f"{k}:\n{_table(v)}" if _records(v) else f"{k}: {_cell(v)}" for k, v in value.items())
    return _table(value) if _records(value) else _cell(value)


def _records(value: Any) -> bool:
    """Whether ``value`` is two or more JSON objects with the same keys (a table's rows)."""
    return (
        isinstance(value, list)
        and len(value) >= 2
        and all(isinstance(row, dict) and row and list(row) == list(value[0]) for row in value)
    )


def _table(rows: list[dict[str, Any]]) -> str:
    return "\n".join(["|".join(rows[0])] + ["|".join(_cell(v) for v in row.values()) for row in rows])


def _cell(value: Any) -> str:
    """A value as a line or table cell: a string bare when that cannot be misread, else JSON."""
    if isinstance(value, str) and value.strip() == value and value and not _AMBIGUOUS.search(value):
        try:
            json.loads(value)
        except ValueError:
            return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_AMBIGUOUS = re.compile(r'[|\n"]')


def extract_action(reply: str) -> str:
    """The action in a model reply: the first code fence's inside (by the families' one fence rule,
    `agentgym.actions.strip_fence`) if there is one, else the reply stripped of surrounding
    whitespace and quotes."""
    match = _FENCE.search(reply)
    text = strip_fence(match.group(0)) if match else reply
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "`'\"":
        text = text[1:-1].strip()
    return text


def parse_tool_call(reply: str) -> tuple[str, dict[str, Any]] | None:
    """``(name, arguments)`` of the first ``<tool_call>`` JSON in ``reply`` (a missing closing tag is
    tolerated: generation may stop at the token limit), or None when there is none or it is not a call."""
    match = _TOOL_CALL.search(reply)
    if not match:
        return None
    try:
        call = json.loads(match.group(1))
    except json.JSONDecodeError:
        return None
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        return None
    args = call.get("arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return None
    return (call["name"], args) if isinstance(args, dict) else None


class ChatView:
    """One episode's chat in the view: the system message, the task, then per turn the model's reply
    and the step's result (a user message; ``tool`` messages are the TRL transcript's rendering).

    Args:
        system: the system message (`SYSTEM_PROMPT` formatted with `env_grammar`, or `TOOL_SYSTEM_PROMPT`).
        history: past exchanges kept after the task when a prompt is asked for without a count (None:
            all of them; a model agent passes fewer only when the prompt would not fit its context).
    """

    def __init__(self, system: str, *, history: int | None = None) -> None:
        self.messages: list[dict[str, str]] = [{"role": "system", "content": system}]
        self.history = history
        self.seen = Seen()
        """What the model was shown this episode (`Seen`): a result says only what changed."""
        self.whole: dict[int, str] = {}
        """A result shown as what changed, in full, by message index: what a window that leaves out what it
        changed shows instead (`prompt`)."""

    def observe(self, env: gym.Env | None, obs: Any, info: Mapping[str, Any]) -> None:
        """The task (first call of an episode) or the last step's result, as a user message."""
        if len(self.messages) == 1:
            self.seen = Seen(env)
            text = self.seen.task(task_text(env, obs))
            left = turns_left(obs, info)
            if left is not None and "[budget:" not in text:
                text += f"\n[{left} turns left]"
        else:
            text = result_text(obs, info, seen=self.seen)
            whole = result_text(obs, info)
            if whole != text:
                self.whole[len(self.messages)] = whole
        self.messages.append({"role": "user", "content": text})

    def reply(self, text: str) -> None:
        """The model's reply (or the reply that stands for a forced action)."""
        self.messages.append({"role": "assistant", "content": text})

    def prompt(self, history: int | None = None) -> list[dict[str, str]]:
        """The messages to send: system, task, then the last ``history`` exchanges (all when None). A window
        that leaves exchanges out shows the results it keeps in full, not as what changed since one left out."""
        keep = self.history if history is None else int(history)
        if keep is None:
            return list(self.messages)
        head, rest = self.messages[:2], self.messages[2:]
        kept = rest[-(2 * keep) :] if keep and len(rest) > 2 * keep else rest if keep else rest[-1:]
        if len(kept) == len(rest):
            return head + kept
        first = len(self.messages) - len(kept)  # a window: what changed since a message it leaves out is shown whole
        return head + [
            {**m, "content": self.whole[i]} if i in self.whole else m for i, m in enumerate(kept, start=first)
        ]

    @property
    def exchanges(self) -> int:
        """Past exchanges (a reply and its result) after the task."""
        return max(0, (len(self.messages) - 1) // 2)  # a reply not yet answered counts


def system_prompt(
    env: gym.Env, info: Mapping[str, Any], *, template_tools: bool = False, template: str | None = None
) -> str:
    """The system message for ``env``: ``template`` (default `SYSTEM_PROMPT`, or `TOOL_SYSTEM_PROMPT`
    when the chat template renders the tools) with ``{grammar}`` filled by `env_grammar`."""
    chosen = template or (TOOL_SYSTEM_PROMPT if template_tools else SYSTEM_PROMPT)
    return chosen.format(grammar=env_grammar(env, info)) if "{grammar}" in chosen else chosen
