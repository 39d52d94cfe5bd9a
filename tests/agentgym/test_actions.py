"""The shared action kit (`agentgym.actions`): what the families rely on, tested once here."""

from __future__ import annotations

import pytest

from agentgym.actions import (
    ArgumentError,
    BadArguments,
    Call,
    GrammarError,
    Param,
    ToolSpec,
    calls_in_reply,
    check_args,
    parse_action,
    render_call,
    signature,
    strip_action_tag,
    strip_fence,
    tool_schema,
)

SPEC = ToolSpec(
    "get_order",
    "Look up an order.",
    (Param("order_id", "string", "the order's id"), Param("limit", "integer", "how many", required=False)),
)


@pytest.mark.parametrize(
    "text",
    [
        'get_order(order_id="O1")',
        '{"tool": "get_order", "args": {"order_id": "O1"}}',
        '{"name": "get_order", "arguments": "{\\"order_id\\": \\"O1\\"}"}',
        '{"type": "function", "function": {"name": "get_order", "arguments": {"order_id": "O1"}}}',
        '```json\n{"tool": "get_order", "args": {"order_id": "O1"}}\n```',
        '```\nget_order(order_id="O1")\n```',
    ],
)
def test_every_form_parses_to_the_same_call(text: str) -> None:
    assert check_args(SPEC, parse_action(text)) == {"order_id": "O1"}


def test_render_call_round_trips() -> None:
    assert parse_action(render_call("get_order", {"order_id": "O1", "limit": 2})) == Call(
        "get_order", {"order_id": "O1", "limit": 2}
    )


def test_strip_fence_leaves_unfenced_text_alone() -> None:
    assert strip_fence("help") == "help"
    assert strip_fence("```python\nhelp\n```") == "help\n"  # the inside as written


def test_one_fence_rule_for_every_family_and_the_llm_agent() -> None:
    """Coding bodies keep indentation and trailing newlines; a one-word first line is a language tag."""
    from agentgym.envs.coding.grammar import parse as coding_parse
    from agentgym.llm.view import extract_action

    assert strip_fence("```run ls```") == "run ls"  # one line: nothing to drop
    assert strip_fence("```test\n```") == "test\n"  # a lone word is the action, not a tag
    assert strip_fence("```python3\nrun ls\n```") == "run ls\n"
    assert strip_fence("```\nwrite a.py\n    x = 1\n```") == "write a.py\n    x = 1\n"
    assert strip_fence('```json\n{"tool": "x"}\n```') == '{"tool": "x"}\n'
    assert extract_action("Sure:\n```bash\nrun ls -la\n```\nthen") == "run ls -la"
    assert extract_action("```run ls```") == "run ls"
    fenced, plain = coding_parse("```\nrun ls\n```"), coding_parse("run ls")
    assert (fenced.name, dict(fenced.args)) == (plain.name, dict(plain.args))


def test_argument_errors_are_typed_and_list_every_problem() -> None:
    with pytest.raises(ArgumentError, match=r"missing argument 'order_id'.*unknown|unknown.*missing") as info:
        check_args(SPEC, Call("get_order", {"id": 1}))
    assert isinstance(info.value, ValueError)
    assert signature(SPEC) in str(info.value)
    bad = BadArguments("get_order", tool="get_order", error=info.value)
    assert bad.tool == "get_order" and bad.error is info.value


def test_grammar_errors_say_what_was_expected() -> None:
    with pytest.raises(GrammarError, match="expected a tool call"):
        parse_action("")


def test_tool_schema_comes_from_the_spec() -> None:
    fn = tool_schema(SPEC)["function"]
    assert fn["name"] == "get_order"
    assert fn["parameters"]["required"] == ["order_id"]
    assert set(fn["parameters"]["properties"]) == {"order_id", "limit"}


def test_an_action_tag_is_read_only_when_the_text_is_not_an_action() -> None:
    reply = 'I will look it up.\n<action>get_order(order_id="O1")</action>'
    assert parse_action(reply) == Call("get_order", {}, ()) or parse_action(reply).args == {"order_id": "O1"}
    assert parse_action('finish("<action>x</action>")').positional == ("<action>x</action>",)
    assert strip_action_tag("no tag") == "no tag"
    with pytest.raises(GrammarError, match="2 <action> tags"):
        parse_action("<action>a()</action><action>b()</action>")


def test_calls_in_reply_finds_each_call_once_and_stays_bounded() -> None:
    names = {"click", "fill"}
    assert calls_in_reply("I will click(12) now", names) == ["click(12)"]
    assert calls_in_reply('fill(3, "a (b) c") then click(4)', names) == ['fill(3, "a (b) c")', "click(4)"]
    assert calls_in_reply("doubleclick(3) x.click(4) unknown(5)", names) == []
    assert calls_in_reply("click(" * 10_000, names) == []  # longer than the scan limit: not searched
    assert calls_in_reply("click(" * 3_000 + "x", names) == []  # no ')' closes a call
    assert calls_in_reply("click(" * 2_500 + ")" * 2_500, names) == []  # past the parse budget: none found
