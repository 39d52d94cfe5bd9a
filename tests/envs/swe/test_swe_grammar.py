"""SWE-v0's grammar: Coding-v0's editing commands plus search, find and test by node id."""

from __future__ import annotations

import pytest

from agentgym.core import ActionError, BadArguments
from agentgym.envs.swe.grammar import HELP, parse


@pytest.mark.parametrize(
    ("action", "name", "args"),
    [
        ("search parse_date", "search", {"pattern": "parse_date", "path": "."}),
        ("search 'def parse' boltons", "search", {"pattern": "def parse", "path": "boltons"}),
        ("find strutils.py", "find", {"name": "strutils.py"}),
        ("test", "test", {"ids": ()}),
        (
            "test tests/test_a.py::test_b tests/test_c.py",
            "test",
            {"ids": ("tests/test_a.py::test_b", "tests/test_c.py")},
        ),
        ("view boltons/strutils.py 10-20", "view", {"path": "boltons/strutils.py", "start": 10, "end": 20}),
        ("submit", "submit", {}),
        ("revert", "revert", {}),
    ],
)
def test_commands_parse(action, name, args):
    parsed = parse(action)
    assert parsed.name == name and dict(parsed.args) == args


@pytest.mark.parametrize(
    "action",
    ["search", "search a b c", "search 'unclosed", "find", "find two names", "test -x", "test --co tests"],
)
def test_bad_arguments_name_the_tool(action):
    parsed = parse(action)
    assert isinstance(parsed, BadArguments) and str(parsed.error)


def test_unknown_commands_show_the_grammar():
    with pytest.raises(ActionError) as exc:
        parse("frobnicate now")
    assert HELP in str(exc.value)


def test_the_help_states_the_rule_on_what_a_fix_may_add():
    assert "import" in HELP and "getattr" in HELP and "search PATTERN" in HELP and "test [TEST_ID" in HELP
