"""The browser action set: call, JSON, BrowserGym and WebArena forms; help and schemas from one table."""

from __future__ import annotations

import pytest

from agentgym.core import ActionError
from agentgym.envs.browser.actions import ACTIONS, BrowserActions

A = BrowserActions()


@pytest.mark.parametrize("text, name, args", [
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
    ("go_back()", "back", {}), ("go_back", "back", {}), ("reload()", "reload", {}),
    ("scroll(0, 300)", "scroll", {"direction": "down"}), ("scroll [up]", "scroll", {"direction": "up"}),
    ("noop()", "noop", {}), ("stop [$12.00]", "finish", {"answer": "$12.00"}),
    ("send_msg_to_user('done')", "finish", {"answer": "done"}), ("```\nclick(5)\n```", "click", {"id": 5}),
])
def test_forms_agree(text, name, args):
    parsed = A.parse(text)
    assert (parsed.name, dict(parsed.args)) == (name, args)


@pytest.mark.parametrize("text, message", [
    ("", "empty action"), ("click()", "missing argument 'id'"), ("click(1, 2)", "positional"),
    ("fly(3)", "unknown action"), ("new_tab", "not supported"), ('scroll("left")', "must be one of"),
    ("click('abc')", "must be a integer"), ("type [1]", "type takes"), ("x = 1", "cannot parse"),
])
def test_bad_actions_say_why(text, message):
    with pytest.raises(ActionError, match=message.replace("(", r"\(")):
        A.parse(text)


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
