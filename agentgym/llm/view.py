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
    "turns_left",
    "extract_action",
    "parse_tool_call",
]

PROMPT = "Solve the task below with the tools. Call one tool per turn."
"""The TRL adapter's user message, before the task (the template renders the tools)."""

SYSTEM_PROMPT = """One action per turn; reply with the action only. `help` (one turn) shows the full rules.
{grammar}"""
"""The system message when the model writes actions as text; ``{grammar}`` is `env_grammar`'s."""

TOOL_SYSTEM_PROMPT = """One tool call per turn. `help` (one turn) shows the full rules."""
"""The system message when the chat template renders the tools itself (the grammar is then the tools)."""

_FENCE = re.compile(r"```.*?```", re.DOTALL)
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
_CALL_FORM = 'Call a tool as NAME(arg="value", ...):'


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
    once, in the system message) and the final-answer rule (`agentgym.answers.ANSWER_RULE`; ``finish``'s
    arguments say how to answer, and ``help`` gives the rule in full)."""
    text = str(obs.get("text", "")) if isinstance(obs, Mapping) else str(obs)
    base: Any = getattr(env, "unwrapped", None)  # `AgentEnv._reset_help` appended what is cut here
    extra = base._reset_help() if getattr(base, "help_in_observation", False) else ""
    for repeated in (extra, ANSWER_RULE):
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
    obs: Any, info: Mapping[str, Any], *, terminated: bool = False, truncated: bool = False, turns: int = 0
) -> str:
    """One step's result as the model reads it: the observation's text, then the turns left
    (``[turns left: N]``) or, when the budget ended the episode, that it is over."""
    text = _compact(str(obs.get("text", "")) if isinstance(obs, Mapping) else str(obs))
    if truncated and not terminated:
        return text + f"\n[the budget of {info.get('budget', turns)} turns is spent: the episode is over]"
    left = turns_left(obs, info)
    if not (terminated or truncated) and left is not None:
        text += f"\n[turns left: {left}]"
    return text


def _compact(text: str) -> str:
    """A result that is one JSON value, written without the spaces after separators (the same value in
    about a fifth fewer tokens); any other text as it is."""
    stripped = text.strip()
    if stripped[:1] not in ("{", "["):
        return text
    try:
        value = json.loads(stripped)
    except ValueError:
        return text
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


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

    def observe(self, env: gym.Env | None, obs: Any, info: Mapping[str, Any]) -> None:
        """The task (first call of an episode) or the last step's result, as a user message."""
        if len(self.messages) == 1:
            text = task_text(env, obs)
            left = turns_left(obs, info)
            if left is not None and "[budget:" not in text:
                text += f"\n[turns left: {left}]"
        else:
            text = result_text(obs, info)
        self.messages.append({"role": "user", "content": text})

    def reply(self, text: str) -> None:
        """The model's reply (or the reply that stands for a forced action)."""
        self.messages.append({"role": "assistant", "content": text})

    def prompt(self, history: int | None = None) -> list[dict[str, str]]:
        """The messages to send: system, task, then the last ``history`` exchanges (all when None)."""
        keep = self.history if history is None else int(history)
        if keep is None:
            return list(self.messages)
        head, rest = self.messages[:2], self.messages[2:]
        return head + (rest[-(2 * keep) :] if keep and len(rest) > 2 * keep else rest if keep else rest[-1:])

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
