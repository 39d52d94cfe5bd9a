"""The coding grammar and unified diffs: every command, every error path (no sandbox needed)."""

from __future__ import annotations

import pytest

from agentgym.core import ActionError, BadArguments
from agentgym.envs.coding import HELP
from agentgym.envs.coding.grammar import parse
from agentgym.repo.diffs import PatchMismatch, apply_patch, make_patch, parse_patch

DIFF = """--- a/m.py
+++ b/m.py
@@ -1,3 +1,3 @@
 a
-b
+B
 c"""


@pytest.mark.parametrize(
    "action, name, args, tool",
    [
        ("view m.py", "view", {"path": "m.py"}, "view"),
        ("view m.py 3-7", "view", {"path": "m.py", "start": 3, "end": 7}, "view"),
        ("view m.py 4", "view", {"path": "m.py", "start": 4, "end": 4}, "view"),
        ("  view m.py 2 - 5  ", "view", {"path": "m.py", "start": 2, "end": 5}, "view"),
        ("run ls -l | wc -l", "run", {"command": "ls -l | wc -l"}, "shell"),
        ("run python3 - <<'EOF'\nprint(1)\nEOF", "run", {"command": "python3 - <<'EOF'\nprint(1)\nEOF"}, "shell"),
        (
            "replace m.py 2-3\nx = 1\ny = 2",
            "replace",
            {"path": "m.py", "start": 2, "end": 3, "lines": ["x = 1", "y = 2"]},
            "edit",
        ),
        ("replace m.py 2-3\n", "replace", {"path": "m.py", "start": 2, "end": 3, "lines": []}, "edit"),
        ("replace m.py 4-3\nnew", "replace", {"path": "m.py", "start": 4, "end": 3, "lines": ["new"]}, "edit"),
        ("test", "test", {}, "tests"),
        ("revert", "revert", {}, "edit"),
        ("submit", "submit", {}, None),
        ("help", "help", {}, None),
        ("```\ntest\n```", "test", {}, "tests"),
    ],
)
def test_commands_parse(action, name, args, tool):
    parsed = parse(action)
    assert (parsed.name, dict(parsed.args), parsed.tool) == (name, args, tool)


def test_patch_parses_to_file_patches():
    parsed = parse("patch\n" + DIFF)
    (fp,) = parsed.args["patches"]
    assert parsed.tool == "edit" and fp.path == "m.py"
    assert fp.hunks[0].old == ("a", "b", "c") and fp.hunks[0].new == ("a", "B", "c")


@pytest.mark.parametrize(
    "action, expected",
    [
        ("", "empty action"),
        ("   \n  ", "empty action"),
        ("frobnicate", "unknown command"),
        ("submit please", "takes no arguments"),
        ("help me", "takes no arguments"),
    ],
)
def test_malformed_actions_say_what_the_grammar_expects(action, expected):
    with pytest.raises(ActionError) as info:
        parse(action)
    message = str(info.value)
    assert expected in message and "Actions (one per turn" in message


@pytest.mark.parametrize(
    "action, tool, expected",
    [
        ("view", "view", "needs a path"),
        ("view m.py x-y", "view", "bad line range"),
        ("view m.py 0-3", "view", "bad line range"),
        ("view m.py 5-2", "view", "bad line range"),
        ("view m.py\nextra", "view", "one line"),
        ("run", "shell", "needs a shell command"),
        ("replace m.py", "edit", "needs a path and a line range"),
        ("replace m.py 5-3", "edit", "bad line range"),
        ("test now", "tests", "takes no arguments"),
        ("revert 2", "edit", "takes no arguments"),
        ("patch", "edit", "needs a unified diff"),
        ("patch\nnot a diff", "edit", "no '--- a/FILE'"),
        ("patch\n--- a/m.py\nno plus line", "edit", "'+++ b/FILE'"),
        ("patch\n--- a/m.py\n+++ b/m.py\n", "edit", "no hunks"),
        ("patch\n--- a/m.py\n+++ b/m.py\n@@ bogus @@\n-a", "edit", "bad hunk header"),
        ("patch\n--- a/m.py\n+++ b/m.py\n@@ -1,1 +1,1 @@\n a", "edit", "changes nothing"),
        ("patch\n--- a/m.py\n+++ b/m.py\n@@ -1,1 +1,1 @@\n*a", "edit", "must start with"),
        ("patch\n--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a", "edit", "not supported"),
        ("patch\n@@ -1 +1 @@\n-a\n+b", "edit", "must follow"),
    ],
)
def test_bad_arguments_name_their_tool_and_say_what_it_expects(action, tool, expected):
    """A known command with arguments that do not fit is the core's `BadArguments` (one meaning in
    every family): a failed call of its tool, not an unparsed action."""
    parsed = parse(action)
    assert isinstance(parsed, BadArguments) and parsed.tool == tool
    assert expected in str(parsed.error) and "Actions (one per turn" in str(parsed.error)


def test_help_lists_every_command():
    for verb in ("view", "run", "replace", "patch", "test", "revert", "submit", "help"):
        assert f"  {verb}" in HELP


def test_make_patch_round_trips_and_tolerates_offsets():
    text = "".join(f"line {i}\n" for i in range(1, 21))
    diff = make_patch("m.py", text, 9, ["line 10"], ["LINE TEN"])
    assert "@@ -7,7 +7,7 @@" in diff and "-line 10" in diff and "+LINE TEN" in diff
    new = apply_patch({"m.py": text}, parse_patch(diff))["m.py"]
    assert new == text.replace("line 10\n", "LINE TEN\n")
    shifted = "extra\nextra\n" + text  # the context now sits two lines lower: still applies
    assert apply_patch({"m.py": shifted}, parse_patch(diff))["m.py"] == shifted.replace("line 10\n", "LINE TEN\n")


def test_make_patch_keeps_unchanged_lines_as_context():
    text = "a\nb\nc\nd\n"
    diff = make_patch("m.py", text, 0, ["a", "b", "c"], ["a", "X", "c"])
    assert "-a" not in diff and " a" in diff and "-b" in diff and "+X" in diff


def test_apply_patch_mismatch_and_missing_file():
    with pytest.raises(PatchMismatch, match="does not match"):
        apply_patch({"m.py": "x\ny\nz\n"}, parse_patch(DIFF))
    with pytest.raises(PatchMismatch, match="does not exist"):
        apply_patch({"m.py": None}, parse_patch(DIFF))


def test_lenient_hunk_counts_and_blank_context():
    diff = "--- a/m.py\n+++ b/m.py\n@@ -1,99 +1,99 @@\n a\n\n-b\n+B\n"
    assert apply_patch({"m.py": "a\n\nb\n"}, parse_patch(diff))["m.py"] == "a\n\nB\n"
