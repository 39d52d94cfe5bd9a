"""SWE-v0's action grammar: Coding-v0's editing commands plus what a real library needs.

``search`` and ``find`` look through the repository, ``view`` takes line ranges, ``test`` runs
chosen tests by pytest node id. One `agentgym.repo.grammar.CommandGrammar` parses them all.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from agentgym.core import ActionError, ParsedAction
from agentgym.envs.swe.fix_rules import RULE
from agentgym.repo.grammar import CommandGrammar

__all__ = ["HELP", "GRAMMAR", "parse", "TOOLS"]

HELP = f"""\
Actions (one per turn; a body goes on the lines after the command):
  view PATH [START-END]     show a file (or lines START..END) with line numbers
  search PATTERN [PATH]     grep the repository's .py files (extended regex; quote spaces)
  find NAME                 files named NAME, and where `def NAME` / `class NAME` are
  run COMMAND               run a shell command in the repository (10 s limit)
  replace PATH START-END    replace lines START..END with the lines that follow;
  NEW LINES...              END = START-1 inserts before START, no lines deletes the range
  patch                     apply the unified diff that follows
  --- a/FILE                (context and '-' lines must match the file; '+' lines are added)
  +++ b/FILE
  @@ -START,COUNT +START,COUNT @@
  ...
  test [TEST_ID ...]        run these tests (pytest node ids, e.g. tests/test_x.py::test_y);
                            alone: the failing tests the report names
  revert                    undo your last edit (replace, patch or revert)
  submit                    finish; the library's tests decide success
  help                      show this text
{RULE}"""

TOOLS = {
    "view": "view",
    "search": "search",
    "find": "search",
    "run": "shell",
    "replace": "edit",
    "patch": "edit",
    "revert": "edit",
    "test": "tests",
}


def _search(rest: str, body: str, expect: Callable[[str], ActionError]) -> ParsedAction:
    try:
        words = shlex.split(rest)
    except ValueError as exc:
        raise expect(f"`search`: {exc}; quote a pattern with spaces, e.g. `search 'def parse'`.") from None
    if body.strip() or not 1 <= len(words) <= 2:
        raise expect("`search` needs a PATTERN and an optional PATH on one line, e.g. `search 'def parse' src`.")
    return ParsedAction("search", {"pattern": words[0], "path": words[1] if len(words) > 1 else "."}, tool="search")


def _find(rest: str, body: str, expect: Callable[[str], ActionError]) -> ParsedAction:
    if body.strip() or not rest or len(rest.split()) != 1:
        raise expect("`find` needs one NAME, e.g. `find parse_date` or `find test_util.py`.")
    return ParsedAction("find", {"name": rest}, tool="search")


def _test(rest: str, body: str, expect: Callable[[str], ActionError]) -> ParsedAction:
    ids = tuple((rest + " " + body).split())
    if any(i.startswith("-") for i in ids):
        raise expect("`test` takes pytest node ids only (no options), e.g. `test tests/test_x.py::test_y`.")
    return ParsedAction("test", {"ids": ids}, tool="tests")


GRAMMAR = CommandGrammar(
    HELP, TOOLS, no_args=("submit", "help", "revert"), extra={"search": _search, "find": _find, "test": _test}
)
parse = GRAMMAR.parse
"""Parse one action string; raise `ActionError` saying what the grammar expects (`CommandGrammar.parse`)."""
