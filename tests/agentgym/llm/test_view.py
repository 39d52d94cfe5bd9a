"""The view says each thing once: a page after a step on it as what changed, a record read again as its
changed fields, JSON results in fewer tokens, tool descriptions brief; and a window that leaves a result
out shows the ones it keeps whole. No env, no tokenizer: the functions on their own."""

from __future__ import annotations

import json

from agentgym.llm.tools import brief, tool_lines
from agentgym.llm.view import ChatView, Seen, page_change, record_change, result_text

PAGE = """URL: /form.html
Title: Form
[12] checkbox 'a' checked=false
[31] checkbox 'b' checked=false
[7] button 'Submit'"""


class _Pages:
    page_observations = True

    @property
    def unwrapped(self) -> _Pages:
        return self


def test_a_step_on_the_same_page_shows_the_changed_lines_and_the_ids_gone():
    after = PAGE.replace("'a' checked=false", "'a' checked=true").replace("\n[7] button 'Submit'", "")
    assert page_change(PAGE, after) == "[same page; changed:]\n[12] checkbox 'a' checked=true\n[gone: 7]"
    assert page_change(PAGE, PAGE) == "[same page, unchanged]"
    assert page_change(PAGE, PAGE.replace("/form.html", "/done.html")) is None  # another page: shown whole


def test_a_nested_element_is_named_by_its_id_when_it_changes_or_goes():
    page = PAGE + "\n  [40] textbox 'name' value=''\n  [41] link 'help'"  # nested elements are indented
    after = page.replace("value=''", "value='Ann'").replace("\n  [41] link 'help'", "")
    assert page_change(page, after) == "[same page; changed:]\n  [40] textbox 'name' value='Ann'\n[gone: 41]"


def test_the_task_page_is_the_first_one_seen_and_a_note_above_the_page_is_kept():
    seen = Seen(_Pages())  # type: ignore[arg-type]
    seen.task("Instruction: tick a.\n\n" + PAGE + "\n\n[budget: 5 turns]")
    shown = seen.change("error: not clickable\n" + PAGE)
    assert shown == "error: not clickable\n[same page, unchanged]"


def test_a_record_read_again_shows_its_changed_fields_and_other_json_reads_shorter():
    before = {"user_id": "U1", "orders": [{"id": "O1", "status": "pending"}, {"id": "O2", "status": "shipped"}]}
    after = {"user_id": "U1", "orders": [{"id": "O1", "status": "cancelled"}, {"id": "O2", "status": "shipped"}]}
    assert record_change(before, after) == "[as shown before, but:]\norders[0].status: cancelled"
    seen = Seen()
    first = result_text({"text": json.dumps(before)}, {"turns_left": 4}, seen=seen)
    assert first == "user_id: U1\norders:\nid|status\nO1|pending\nO2|shipped\n[4 turns left]"  # keys once, a table
    again = result_text({"text": json.dumps(after)}, {"turns_left": 3}, seen=seen)
    assert again == "[as shown before, but:]\norders[0].status: cancelled\n[3 turns left]"
    other = result_text({"text": json.dumps({"user_id": "U2", "n": "12"})}, {}, seen=seen)
    assert other == 'user_id: U2\nn: "12"'  # another record; a string that reads as a number stays quoted


def test_a_window_shows_the_results_it_keeps_whole():
    chat = ChatView("system")
    chat.observe(None, {"text": "the task"}, {})
    for n in range(3):
        chat.reply(f"get {n}")
        chat.observe(None, {"text": json.dumps({"id": "X", "n": n, "note": "long " * 10})}, {})
    assert chat.prompt()[-1]["content"] == "[as shown before, but:]\nn: 2"
    window = chat.prompt(1)
    assert [m["content"] for m in window[:2]] == ["system", "the task"]
    assert window[-1]["content"].startswith("id: X\nn: 2\n")  # what it changed is left out: whole


def test_tool_descriptions_are_brief_and_a_shared_first_sentence_is_said_once():
    assert brief("Evaluate arithmetic, e.g. 129.99*0.85 + 24.") == "Evaluate arithmetic."
    assert brief("customer id, e.g. U1234") == "customer id"  # no example id for a model to copy
    assert brief("One order in full: items, address, payment. Refunds too.") == "One order in full"
    assert brief("Give up: end the episode") == "Give up: end the episode"  # two words are too few to stand alone
    shared = "This tool belongs to the travel system, which books flights. Tool description: "
    tools = [
        {"name": "book", "description": shared + "Book a flight.", "parameters": {"properties": {}}},
        {"name": "cancel", "description": shared + "Cancel a booking.", "parameters": {"properties": {}}},
        {"name": "reply", "description": "Answer the user.", "parameters": {"properties": {}}},
    ]
    assert tool_lines(tools).splitlines() == [
        "This tool belongs to the travel system, which books flights.",
        "book(): Book a flight.",
        "cancel(): Cancel a booking.",
        "Other tools:",
        "reply(): Answer the user.",
    ]
