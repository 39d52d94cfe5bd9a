"""The command grammar of the code families: one command per action, its body on the following lines.

Coding-v0 and SWE-v0 share the editing commands (``view``, ``run``, ``replace``, ``patch``, and the
commands that take no arguments); a family adds its own (SWE-v0's ``search``, ``find`` and ``test
IDS``) as extra handlers. A command of a known tool whose arguments do not fit it is the core's
`BadArguments`, naming the tool; anything else is an `ActionError` that shows the family's help.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from agentgym.actions import strip_fence
from agentgym.core import ActionError, BadArguments, ParsedAction
from agentgym.repo.diffs import PatchError, parse_patch

__all__ = ["CommandGrammar", "Handler"]

_RANGE = re.compile(r"^(\d+)(?:\s*-\s*(\d+))?$")

Handler = Callable[[str, str, Callable[[str], ActionError]], ParsedAction]
"""A family's own command: ``(rest of the command line, body, expect) -> ParsedAction``, raising
``expect(message)`` (an `ActionError` with the help appended) for bad arguments."""


class CommandGrammar:
    """A family's grammar: its help text, the tool each verb calls, its argument-less verbs and its own
    commands besides the shared editing ones."""

    def __init__(
        self,
        help_text: str,
        tools: Mapping[str, str],
        no_args: tuple[str, ...],
        extra: Mapping[str, Handler] | None = None,
    ) -> None:
        self.help = help_text
        self.tools = dict(tools)
        self.no_args = no_args
        self.extra = dict(extra or {})

    def expect(self, what: str) -> ActionError:
        return ActionError(f"{what}\n{self.help}")

    def parse(self, action: str) -> ParsedAction:
        """Parse one action string; raise `ActionError` saying what the grammar expects. A command of a
        tool with arguments that do not fit it is `BadArguments` (the core's one meaning): it names the tool."""
        text = strip_fence(action).lstrip("\n")
        head, _, body = text.partition("\n")
        head = head.strip()
        verb, _, rest = head.partition(" ")
        rest = rest.strip()
        if not verb:
            raise self.expect("empty action: expected a command.")
        if verb not in self.tools:  # help, submit and unknown commands name no tool
            return self._command(verb, rest, body)
        try:
            return self._command(verb, rest, body)
        except ActionError as exc:
            return BadArguments(verb, tool=self.tools[verb], error=str(exc))

    def _command(self, verb: str, rest: str, body: str) -> ParsedAction:
        if verb in self.extra:
            return self.extra[verb](rest, body, self.expect)
        if verb in self.no_args:
            if rest or body.strip():
                raise self.expect(f"`{verb}` takes no arguments.")
            return ParsedAction(verb, {}, tool=self.tools.get(verb))
        if verb == "view":
            if body.strip():
                raise self.expect("`view` takes a path and an optional line range on one line.")
            path, _, span = rest.partition(" ")
            if not path:
                raise self.expect("`view` needs a path, e.g. `view utils.py` or `view utils.py 10-20`.")
            args: dict[str, object] = {"path": path}
            if span.strip():
                start, end = self.range(span.strip(), "view")
                args.update(start=start, end=end)
            return ParsedAction("view", args, tool="view")
        if verb == "run":
            command = (rest + ("\n" + body if body else "")).strip()
            if not command:
                raise self.expect("`run` needs a shell command, e.g. `run ls -l`.")
            return ParsedAction("run", {"command": command}, tool="shell")
        if verb == "replace":
            path, _, span = rest.partition(" ")
            if not path or not span.strip():
                raise self.expect(
                    "`replace` needs a path and a line range, e.g. `replace utils.py 12-14`, then the new lines."
                )
            start, end = self.range(span.strip(), "replace", allow_empty=True)
            lines = body.split("\n") if body else []
            if lines and lines[-1] == "":
                lines.pop()
            return ParsedAction("replace", {"path": path, "start": start, "end": end, "lines": lines}, tool="edit")
        if verb == "patch":
            diff = (rest + "\n" + body) if rest else body
            if not diff.strip():
                raise self.expect("`patch` needs a unified diff on the following lines.")
            try:
                patches = parse_patch(diff)
            except PatchError as exc:
                raise self.expect(f"`patch`: {exc}.") from None
            return ParsedAction("patch", {"patches": patches}, tool="edit")
        raise self.expect(f"unknown command {verb[:40]!r}.")

    def range(self, span: str, verb: str, allow_empty: bool = False) -> tuple[int, int]:
        """``START-END`` (or one line ``N``) as 1-based line numbers; ``allow_empty``: END may be START-1."""
        m = _RANGE.match(span)
        if not m:
            raise self.expect(f"`{verb}`: bad line range {span[:40]!r}; expected START-END with line numbers from 1.")
        start = int(m.group(1))
        end = int(m.group(2)) if m.group(2) is not None else start
        if start < 1 or end < start - (1 if allow_empty else 0):
            raise self.expect(
                f"`{verb}`: bad line range {span[:40]!r}; lines count from 1 and END >= START"
                + (" (or START-1 to insert)" if allow_empty else "")
                + "."
            )
        return start, end
