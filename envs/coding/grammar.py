"""The coding family's action grammar: one command per action, its body on the following lines.

Text agents write these commands; menu agents pick them from ``info["admissible_actions"]``
(the menu holds plain commands in the same grammar, so one executor serves both). `parse`
raises `ActionError` with the grammar in the message for anything else.
"""

from __future__ import annotations

import re

from agentgym.actions import strip_fence
from agentgym.core import ActionError, BadArguments, ParsedAction
from agentgym.repo.diffs import PatchError, parse_patch

__all__ = ["HELP", "parse", "TOOLS"]

HELP = """\
Actions (one per turn; a body goes on the lines after the command):
  view PATH                 show a file with line numbers
  view PATH START-END       show lines START..END (or `view PATH N` for one line)
  run COMMAND               run a shell command in the repository (10 s limit)
  replace PATH START-END    replace lines START..END with the lines that follow;
  NEW LINES...              END = START-1 inserts before START, no lines deletes the range
  patch                     apply the unified diff that follows
  --- a/FILE                (context and '-' lines must match the file; '+' lines are added)
  +++ b/FILE
  @@ -START,COUNT +START,COUNT @@
  ...
  test                      run the visible tests
  revert                    undo your last edit (replace, patch or revert)
  submit                    finish; the hidden tests decide success
  help                      show this text"""

TOOLS = {"view": "view", "run": "shell", "replace": "edit", "patch": "edit", "revert": "edit", "test": "tests"}

_RANGE = re.compile(r"^(\d+)(?:\s*-\s*(\d+))?$")
_NO_ARGS = ("test", "submit", "help", "revert")


def _expect(what: str) -> ActionError:
    return ActionError(f"{what}\n{HELP}")


def parse(action: str) -> ParsedAction:
    """Parse one action string; raise `ActionError` saying what the grammar expects. A command of a
    tool with arguments that do not fit it is `BadArguments` (the core's one meaning): it names the tool."""
    text = strip_fence(action).lstrip("\n")
    head, _, body = text.partition("\n")
    head = head.strip()
    verb, _, rest = head.partition(" ")
    rest = rest.strip()
    if not verb:
        raise _expect("empty action: expected a command.")
    if verb not in TOOLS:  # help, submit and unknown commands name no tool
        return _command(verb, rest, body)
    try:
        return _command(verb, rest, body)
    except ActionError as exc:
        return BadArguments(verb, tool=TOOLS[verb], error=str(exc))


def _command(verb: str, rest: str, body: str) -> ParsedAction:
    if verb in _NO_ARGS:
        if rest or body.strip():
            raise _expect(f"`{verb}` takes no arguments.")
        return ParsedAction(verb, {}, tool=TOOLS.get(verb))
    if verb == "view":
        if body.strip():
            raise _expect("`view` takes a path and an optional line range on one line.")
        path, _, span = rest.partition(" ")
        if not path:
            raise _expect("`view` needs a path, e.g. `view utils.py` or `view utils.py 10-20`.")
        args: dict[str, object] = {"path": path}
        if span.strip():
            start, end = _range(span.strip(), "view")
            args.update(start=start, end=end)
        return ParsedAction("view", args, tool="view")
    if verb == "run":
        command = (rest + ("\n" + body if body else "")).strip()
        if not command:
            raise _expect("`run` needs a shell command, e.g. `run ls -l`.")
        return ParsedAction("run", {"command": command}, tool="shell")
    if verb == "replace":
        path, _, span = rest.partition(" ")
        if not path or not span.strip():
            raise _expect("`replace` needs a path and a line range, e.g. `replace utils.py 12-14`, then the new lines.")
        start, end = _range(span.strip(), "replace", allow_empty=True)
        lines = body.split("\n") if body else []
        if lines and lines[-1] == "":
            lines.pop()
        return ParsedAction("replace", {"path": path, "start": start, "end": end, "lines": lines}, tool="edit")
    if verb == "patch":
        diff = (rest + "\n" + body) if rest else body
        if not diff.strip():
            raise _expect("`patch` needs a unified diff on the following lines.")
        try:
            patches = parse_patch(diff)
        except PatchError as exc:
            raise _expect(f"`patch`: {exc}.") from None
        return ParsedAction("patch", {"patches": patches}, tool="edit")
    raise _expect(f"unknown command {verb[:40]!r}.")


def _range(span: str, verb: str, allow_empty: bool = False) -> tuple[int, int]:
    m = _RANGE.match(span)
    if not m:
        raise _expect(f"`{verb}`: bad line range {span[:40]!r}; expected START-END with line numbers from 1.")
    start = int(m.group(1))
    end = int(m.group(2)) if m.group(2) is not None else start
    if start < 1 or end < start - (1 if allow_empty else 0):
        raise _expect(
            f"`{verb}`: bad line range {span[:40]!r}; lines count from 1 and END >= START"
            + (" (or START-1 to insert)" if allow_empty else "")
            + "."
        )
    return start, end
