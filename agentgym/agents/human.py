"""`HumanAgent`: a person at a terminal is the policy; actions are read from a text stream.

It keeps the `agentgym.agents.base.Agent` protocol, so anything that drives agents can drive a
person (``agentgym play`` does). A line is an action in the family's grammar, sent as typed and
charged a turn like any agent's; a few player commands cost nothing and never reach the env:

- ``:help``: the action grammar (the env's ``help`` action shows the same, for a turn);
- ``:menu``: the admissible actions, numbered; then a number plays that entry;
- ``:multi``: the lines that follow, up to a line ``:end``, are one action (a command with a body,
  such as Coding-v0's ``replace`` and ``patch``);
- ``:quit`` (or end of input): stop playing; the episode ends with no verdict.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

import gymnasium as gym

__all__ = ["HumanAgent", "StopPlaying", "PLAYER_COMMANDS"]

PLAYER_COMMANDS = {
    ":help": "show the action grammar (the action `help` shows it too, for a turn)",
    ":menu": "number the admissible actions; then type a number to play one",
    ":multi": "the lines up to a line :end are one action (a command with a body)",
    ":quit": "stop the episode here, with no verdict",
}


class StopPlaying(Exception):
    """The person asked to stop (``:quit`` or the end of input): the episode ends unjudged."""


class HumanAgent:
    """Reads each action from ``input`` (standard input by default) and writes prompts to ``output``.

    When ``input`` is not a terminal (a file, a pipe, a test's script) each action read is echoed after
    the prompt, so a transcript reads as a session did.
    """

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None) -> None:
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout
        self._env: gym.Env | None = None
        self._menu: list[str] = []

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        self._env = env
        self._menu = []
        commands = "\n".join(f"  {c:<7} {what}" for c, what in PLAYER_COMMANDS.items())
        self._say(f"Type one action per turn. Player commands (free, never sent to the env):\n{commands}")

    def forced(self, obs: dict[str, Any], info: dict[str, Any], action: str) -> None:
        """A forced turn is shown as the play loop shows every action; a person needs no record of it."""

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        menu = [str(a) for a in info.get("admissible_actions") or []]
        self._menu = []  # a number picks from this turn's menu, once shown: last turn's may be stale
        while True:
            left = info.get("turns_left")
            prompt = f"[turn {int(info.get('turn', 0)) + 1}{f', {left} left' if left is not None else ''}] > "
            self.output.write(prompt)
            self.output.flush()
            text = self._line()
            command = text.strip()
            if not command:
                continue
            if command == ":quit":
                raise StopPlaying(":quit")
            if command == ":multi":
                lines = []
                while (more := self._line()).strip() != ":end":
                    lines.append(more)
                return "\n".join(lines)
            if command == ":help":
                self._say(self._grammar())
                continue
            if command == ":menu":
                self._menu = menu
                self._say("\n".join(f"  {i}. {a}" for i, a in enumerate(menu, 1)) or "  (this env offers no menu now)")
                continue
            if command.isdigit() and self._menu:
                pick = int(command)
                if 1 <= pick <= len(self._menu):
                    return self._menu[pick - 1]
                self._say(f"no entry {pick}: the menu has 1-{len(self._menu)} (`:menu` shows it again)")
                continue
            return text

    def _line(self) -> str:
        """The next line typed (echoed when the input is not a terminal); `StopPlaying` at its end."""
        line = self.input.readline()
        if not line:
            self._say("")
            raise StopPlaying("end of input")
        text = line.rstrip("\n")
        if not self.input.isatty():
            self._say(text)
        return text

    def _grammar(self) -> str:
        env = self._env.unwrapped if self._env is not None else None
        text = env.help_text() if env is not None and hasattr(env, "help_text") else ""
        return text or "this env documents no grammar: send `help` (it costs a turn)"

    def _say(self, text: str) -> None:
        self.output.write(text + "\n")
        self.output.flush()
