"""What a chat-model agent sends and reads, shared by every model agent (an endpoint's, one in process).

- `SYSTEM_PROMPT` and `env_grammar`: the family's command grammar as the model sees it;
- `Conversation`: one episode's messages, rendered turn by turn (observation, menu, turns left) and
  windowed to the last ``history`` exchanges (the system prompt and first observation always kept);
- `extract_action`: one action from a reply in the grammar (a fenced block or the bare text);
- `parse_tool_call`: a ``<tool_call>{"name", "arguments"}</tool_call>`` reply (templates that render
  tools, such as Qwen2.5's), read as the family's action by `agentgym.integrations.tools.call_action`.
"""

from __future__ import annotations

import json
import re
from typing import Any

import gymnasium as gym

from agentgym.actions import strip_fence

__all__ = [
    "SYSTEM_PROMPT",
    "TOOL_SYSTEM_PROMPT",
    "Conversation",
    "env_grammar",
    "turns_left",
    "extract_action",
    "parse_tool_call",
]

SYSTEM_PROMPT = """You are an agent solving a task in a sandboxed text environment, one action per turn.
Reply with exactly one action in the environment's command grammar and nothing else: no
explanation, no quotes. A malformed action costs a turn. The episode ends when you submit or
when your turns run out; work that is not submitted before the turns run out scores zero, so
leave yourself a turn to submit.

Command grammar:
{grammar}"""

_FENCE = re.compile(r"```.*?```", re.DOTALL)


def env_grammar(env: gym.Env, info: dict[str, Any] | None = None) -> str:
    """The family's command grammar as text: the reset info's ``help`` (it holds what wrappers add,
    such as BudgetExtension's ``extend``), else `AgentEnv.help_text` (the contract), else the Action
    Space section of the env's docstring (for gymnasium envs that are not agentgym's)."""
    value = info.get("help") if isinstance(info, dict) else None
    if isinstance(value, str) and value.strip():
        return value.strip()
    base = env.unwrapped
    help_text = getattr(base, "help_text", None)
    value = help_text() if callable(help_text) else None
    if isinstance(value, str) and value.strip():
        return value.strip()
    doc = type(base).__doc__ or ""
    match = re.search(r"Action Space\s*\n[-=~]*\n?(.*?)(?:\n\s*\n\S|\Z)", doc, re.DOTALL)
    if match:
        return match.group(1).strip()
    return "(see the first observation; send `help` to list commands)"


def turns_left(obs: dict[str, Any], info: dict[str, Any]) -> int | None:
    """Turns left in this episode, from the TurnLimit observation field or info."""
    value = obs.get("turns_left") if isinstance(obs, dict) else None
    if value is None:
        value = info.get("turns_left")
    if value is None:
        return None
    try:
        return int(getattr(value, "flat", [value])[0])
    except (TypeError, ValueError, IndexError):
        return None


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


TOOL_SYSTEM_PROMPT = """You are an agent solving a task in a sandboxed environment, one tool call per turn.
The episode ends when you submit or finish, or when your turns run out; work that is not submitted
before the turns run out scores zero, so leave yourself a turn to submit."""
"""The system prompt when the chat template renders the tools itself (the grammar is then the tools)."""

_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)


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


class Conversation:
    """One episode's chat: a system prompt, then a user message per turn and the model's replies.

    Args:
        system: the system message.
        history: past exchanges kept in the prompt after the first observation (0 keeps only the latest).
        show_menu: list ``admissible_actions`` when the env offers at most ``menu_limit``.
    """

    def __init__(self, system: str, *, history: int = 16, show_menu: bool = True, menu_limit: int = 40) -> None:
        self.messages: list[dict[str, str]] = [{"role": "system", "content": system}]
        self.history = int(history)
        self.show_menu = bool(show_menu)
        self.menu_limit = int(menu_limit)

    def observe(self, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Add this turn's observation (and menu and turns left) as a user message."""
        parts = [str(obs.get("text", ""))]
        menu = info.get("admissible_actions") or []
        if self.show_menu and 0 < len(menu) <= self.menu_limit:
            parts.append("Actions you may take now:\n" + "\n".join(f"- {a}" for a in menu))
        left = turns_left(obs, info)
        if left is not None:
            parts.append(f"[turns left: {left}]")
        self.messages.append({"role": "user", "content": "\n\n".join(parts)})

    def reply(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": text})

    def forced(self, obs: dict[str, Any], info: dict[str, Any], reply: str) -> None:
        """A turn the agent did not choose (an intervention's forced action), shown as its own: the
        observation as a user message, then ``reply`` as its assistant message."""
        self.observe(obs, info)
        self.reply(reply)

    def prompt(self, history: int | None = None) -> list[dict[str, str]]:
        """The messages to send: system, first observation, then the last ``history`` exchanges."""
        keep = 2 * (self.history if history is None else int(history))
        head, rest = self.messages[:2], self.messages[2:]
        return head + (rest[-keep:] if keep and len(rest) > keep else rest if keep else rest[-1:])
