"""The ToolUse action grammar: every accepted form and every rejection, without a sandbox."""

from __future__ import annotations

import pytest

from agentgym.actions import Call, GrammarError, check_args, finish_answer, parse_action, render_call
from agentgym.envs.tooluse.domains import DOMAINS

RETAIL = {s.name: s for s in DOMAINS["retail"].tools}


@pytest.mark.parametrize(
    "text",
    [
        '{"tool": "get_order", "args": {"order_id": "O12345"}}',
        '{"name": "get_order", "arguments": "{\\"order_id\\": \\"O12345\\"}"}',
        '{"type": "function", "function": {"name": "get_order", "arguments": {"order_id": "O12345"}}}',
        'get_order(order_id="O12345")',
        "get_order(order_id='O12345')",
        'get_order("O12345")',
        '  get_order( order_id = "O12345" )  ',
        '```json\n{"tool": "get_order", "args": {"order_id": "O12345"}}\n```',
        '```\nget_order(order_id="O12345")\n```',
    ],
)
def test_json_and_call_forms_agree(text):
    call = parse_action(text)
    assert call.name == "get_order"
    assert check_args(RETAIL["get_order"], call) == {"order_id": "O12345"}


def test_literals_and_positional_mapping():
    call = parse_action('return_order("O1", "PM1", 12.5)')
    assert check_args(RETAIL["return_order"], call) == {"order_id": "O1", "payment_method_id": "PM1", "amount": 12.5}
    call = parse_action('search_products(query="lamp", page=2.0)')
    assert check_args(RETAIL["search_products"], call) == {"query": "lamp", "page": 2}
    assert parse_action("f(a=true, b=null, c=[1, 2])").args == {"a": True, "b": None, "c": [1, 2]}


def test_help_and_finish():
    assert parse_action("help") == Call("help") == parse_action("help()")
    assert finish_answer(parse_action('finish("Refund of $12.50 sent.")')) == "Refund of $12.50 sent."
    assert finish_answer(parse_action('finish(answer="ok")')) == "ok"
    assert finish_answer(parse_action('{"tool": "finish", "args": {"answer": "ok"}}')) == "ok"
    for bad in ["finish()", "finish(42)", 'finish("a", "b")', 'finish(text="a")']:
        with pytest.raises(GrammarError, match="finish takes one text answer"):
            finish_answer(parse_action(bad))


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty action"),
        ("   ", "empty action"),
        ("```\n```", "empty action"),
        ("{not json", "invalid JSON"),
        ("[1, 2]", "must be an object"),
        ('{"args": {}}', 'needs a "tool"'),
        ('{"tool": "get_order", "args": [1]}', '"args" must be a JSON object'),
        ('{"tool": "get_order", "arguments": "{bad"}', "not JSON"),
        ('{"tool": "get_order", "oops": 1}', "unexpected key"),
        ("get_order", "needs parentheses"),
        ("get_order(order_id=O12345)", "not a literal value"),
        ("get_order(order_id=1+2)", "not a literal value"),
        ("os.system('ls')", "not a call"),
        ("get_order(*ids)", "not supported"),
        ("get_order(**kw)", "not supported"),
        ("cancel the order please", "cannot parse"),
        ("1 + 1", "not a call"),
    ],
)
def test_malformed_actions_say_what_was_expected(text, message):
    with pytest.raises(GrammarError, match=message):
        parse_action(text)


@pytest.mark.parametrize(
    "text, message",
    [
        ("get_order()", "missing argument 'order_id'"),
        ("get_order(order_id=12345)", "'order_id' must be a string"),
        ('get_order(order_id="O1", extra=1)', "unknown argument 'extra'"),
        ('get_order("O1", order_id="O1")', "given twice"),
        ('get_order("O1", "O2")', "2 positional arguments for 1 parameters"),
        ('cancel_order(order_id="O1", reason="bored")', "must be one of"),
        ('return_order(order_id="O1", payment_method_id="PM1", amount="12")', "'amount' must be a number"),
        ('search_products(query="x", page=true)', "'page' must be a integer"),
        ('get_order(order_id="  ")', "'order_id' is empty"),
    ],
)
def test_bad_arguments_list_problems_and_usage(text, message):
    call = parse_action(text)
    with pytest.raises(ValueError, match=message) as info:
        check_args(RETAIL[call.name], call)
    assert "Usage: " in str(info.value)


def test_render_call_round_trips():
    args = {"order_id": "O1", "address": 'Apt "5", 1 Main St', "amount": 1.5}
    call = parse_action(render_call("x", args))
    assert call.name == "x" and call.args == args
