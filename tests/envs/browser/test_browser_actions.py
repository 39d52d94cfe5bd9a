"""The browser action set: call, JSON, BrowserGym and WebArena forms; help and schemas from one table."""

from __future__ import annotations

import pytest

from agentgym.core import ActionError, BadArguments
from agentgym.envs.browser.actions import ACTIONS, BrowserActions

A = BrowserActions()


@pytest.mark.parametrize(
    "text, name, args",
    [
        ("click(12)", "click", {"id": 12}),
        ("click [12]", "click", {"id": 12}),
        ("click('a12')", "click", {"id": 12}),
        ('{"tool": "click", "args": {"id": 12}}', "click", {"id": 12}),
        ('{"name": "fill", "arguments": "{\\"id\\": 3, \\"text\\": \\"lamp\\"}"}', "fill", {"id": 3, "text": "lamp"}),
        ('fill(3, "lamp")', "fill", {"id": 3, "text": "lamp"}),
        ("type [3] [desk lamp] [1]", "fill", {"id": 3, "text": "desk lamp", "enter": True}),
        ("type [3] [desk lamp] [0]", "fill", {"id": 3, "text": "desk lamp"}),
        ("clear('3')", "fill", {"id": 3, "text": ""}),
        ("select_option('4', 'Sales')", "select", {"id": 4, "option": "Sales"}),
        ('press(4, "Enter")', "press", {"id": 4, "key": "Enter"}),
        ("press [Enter]", "press", {"id": None, "key": "Enter"}),
        ('goto("/cart")', "goto", {"path": "/cart"}),
        ("go_back()", "back", {}),
        ("go_back", "back", {}),
        ("reload()", "reload", {}),
        ("scroll(0, 300)", "scroll", {"direction": "down"}),
        ("scroll [up]", "scroll", {"direction": "up"}),
        ("noop()", "noop", {}),
        ("stop [$12.00]", "finish", {"answer": "$12.00"}),
        ("send_msg_to_user('done')", "finish", {"answer": "done"}),
        ("```\nclick(5)\n```", "click", {"id": 5}),
    ],
)
def test_forms_agree(text, name, args):
    parsed = A.parse(text)
    assert (parsed.name, dict(parsed.args)) == (name, args)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty action"),
        ("fly(3)", "unknown action"),
        ("new_tab", "not supported"),
        ("x = 1", "cannot parse"),
        ("finish()", "missing argument 'answer'"),
    ],
)
def test_malformed_actions_say_why(text, message):
    with pytest.raises(ActionError, match=message.replace("(", r"\(")):
        A.parse(text)


@pytest.mark.parametrize(
    "text, name, tool, message",
    [
        ("click()", "click", "click", "missing argument 'id'"),
        ("click(1, 2)", "click", "click", "button=2"),
        ("click(1, 'left', [], 4)", "click", "click", "positional"),
        ('scroll("left")', "scroll", None, "must be one of"),
        ("click('abc')", "click", "click", "must be a integer"),
        ("type [1]", "fill", None, "type takes"),
        ("fill(1)", "fill", None, "missing argument 'text'"),
    ],
)
def test_bad_arguments_are_calls_of_their_action(text, name, tool, message):
    """The core's one meaning: a known action with arguments that do not fit is `BadArguments`,
    a failed call of that action (its fault target as for a good call), not an unparsed action."""
    parsed = A.parse(text)
    assert isinstance(parsed, BadArguments) and (parsed.name, parsed.tool) == (name, tool)
    assert message in str(parsed.error)


def test_faults_hit_only_page_loads():
    assert A.parse("click(1)").tool == "click" and A.parse('fill(1, "x")').tool is None
    assert A.parse("type [1] [x] [1]").tool == "fill" and A.parse('finish("x")').tool is None


def test_help_and_schemas_come_from_one_table():
    text, tools = A.help_text(), A.tools()
    assert [t["function"]["name"] for t in tools] == [s.name for s in ACTIONS]
    for spec in ACTIONS:
        assert f"{spec.name}(" in text and spec.description in text
    click = tools[0]["function"]
    assert click["parameters"]["required"] == ["id"] and click["parameters"]["properties"]["id"]["type"] == "integer"


# BrowserGym's documented action examples (browsergym-core's action docstrings, ids as written):
# each is read with BrowserGym's meaning, or refused with a reason when the sites have no such thing
@pytest.mark.parametrize(
    "text, name, args",
    [
        ("click('a51')", "click", {"id": 51}),
        ("click('12', button='left')", "click", {"id": 12}),
        ("click('12', 'left', [])", "click", {"id": 12}),
        ("click(bid='12', button='left', modifiers=[])", "click", {"id": 12}),
        ("fill('237', 'example value')", "fill", {"id": 237, "text": "example value"}),
        ("fill('237', 'example value', True)", "fill", {"id": 237, "text": "example value"}),
        ("fill('237', 'example value', enable_autocomplete_menu=False)", "fill", {"id": 237, "text": "example value"}),
        ("fill('45', \"multi-line\\nexample\")", "fill", {"id": 45, "text": "multi-line\nexample"}),
        ("select_option('a48', \"blue\")", "select", {"id": 48, "option": "blue"}),
        ("noop(500)", "noop", {}),
        ("hover('b8')", "noop", {}),
        ("clear('996')", "fill", {"id": 996, "text": ""}),
        ("go_back()", "back", {}),
        ("go_forward()", "forward", {}),
        ("forward()", "forward", {}),
        ("go_forward", "forward", {}),
        ("scroll(-50.2, -100.5)", "scroll", {"direction": "up"}),
        (
            "report_infeasible('there is no email field')",
            "finish",
            {"answer": "there is no email field", "refused": True},
        ),
    ],
)
def test_browsergym_examples_keep_their_meaning(text, name, args):
    parsed = A.parse(text)
    assert (parsed.name, dict(parsed.args)) == (name, args)


@pytest.mark.parametrize(
    "text, message",
    [
        ("click('b22', button=\"right\")", "only the left button"),
        ('click(\'48\', button="middle", modifiers=["Shift"])', "only the left button"),
        ("click('48', modifiers=['Shift'])", "modifier keys do nothing"),
        ("fill('3', 'x', 'maybe')", "True or False"),
        ('select_option(\'c48\', ["red", "green", "blue"])', "option"),
        ("goto('http://www.example.com')", "other sites"),
    ],
)
def test_browsergym_examples_without_a_meaning_here_are_refused_with_a_reason(text, message):
    parsed = A.parse(text)  # arguments this site has no meaning for are bad arguments of that action
    if isinstance(parsed, BadArguments):
        assert message in str(parsed.error)
        return
    # goto's host is checked where the page loads (the site says why); parsing keeps the path
    assert parsed.name == "goto" and message == "other sites"


@pytest.mark.parametrize(
    "reply, name, args",
    [
        ("<action>click('12')</action>", "click", {"id": 12}),
        ("The cart link is [12].\n<action>\nclick('12')\n</action>", "click", {"id": 12}),
        ("<action>go_back</action>", "back", {}),
        ("<action>type [3] [desk lamp] [1]</action>", "fill", {"id": 3, "text": "desk lamp", "enter": True}),
        ("I should open the cart: click(12).", "click", {"id": 12}),
        ("Next I will fill('3', \"a (small) lamp\") and see.", "fill", {"id": 3, "text": "a (small) lamp"}),
        # a valid action is never reinterpreted: the tag is text to type here
        ('fill(3, "<action>click(1)</action>")', "fill", {"id": 3, "text": "<action>click(1)</action>"}),
    ],
)
def test_one_action_is_taken_from_a_reply(reply, name, args):
    parsed = A.parse(reply)
    assert (parsed.name, dict(parsed.args)) == (name, args)


@pytest.mark.parametrize(
    "reply, message",
    [
        ("<action>click(1)</action> or maybe <action>click(2)</action>", "2 <action> tags"),
        ("First click(1), then click(2).", "holds 2 actions"),
        ("I am not sure what to do.", "cannot parse"),
        ("click(" * 5000, "cannot parse"),
    ],
)
def test_a_reply_with_no_single_action_is_refused(reply, message):
    with pytest.raises(ActionError, match=message):
        A.parse(reply)
