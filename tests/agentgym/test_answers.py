"""The one answer rule and the one refusal rule (agentgym.answers), without a sandbox."""

from __future__ import annotations

import pytest

from agentgym.actions import GrammarError, finish_args, parse_action
from agentgym.answers import (
    MAX_ANSWER_CHARS,
    candidates,
    check_answer,
    check_final,
    check_refusal,
    claims_done,
    is_refusal,
    kind_of,
    read,
)


@pytest.mark.parametrize(
    "expected,kind",
    [
        ("$45.00", "amount"),
        ("7", "count"),
        ("12 GB", "quantity"),
        ("ann.lee@example.org", "email"),
        ("2024-05-01", "date"),
        ("#W1234567", "id"),
        ("Bob Lee", "text"),
    ],
)
def test_the_kind_is_read_off_the_expected_value(expected, kind):
    assert kind_of(expected) == kind


@pytest.mark.parametrize(
    "expected,answer",
    [
        ("$45.00", "All done. The amount is $45.00."),
        ("$45.00", "It costs 45 dollars."),
        ("$45.00", "USD 45.00"),
        ("$45.00", "The 3 items cost $45.00 in total."),  # a count beside a marked amount is not an amount
        ("$1,234.50", "$1234.5"),
        ("7", "There are 7 replies."),
        ("7", "Thread t12 has 7 replies."),  # an id is not a count
        ("12 GB", "The quota is 12GB."),
        ("12 GB", "12 gigabytes"),
        ("ann.lee@example.org", "Their address is <ANN.LEE@EXAMPLE.ORG>."),
        ("2024-05-01", "It left on 5/1/2024."),
        ("#W1234567", "Order W1234567."),
    ],
)
def test_one_value_of_the_kind_asked_passes_in_any_spelling(expected, answer):
    assert check_answer(expected, answer)


@pytest.mark.parametrize(
    "expected,answer",
    [
        ("$45.00", "It is one of: $12.00, $45.00, $46.00"),
        ("$45.00", "45.00 or 46.00"),
        ("$45.00", "4500 cents"),
        ("$45.00", "I cannot be sure, maybe $45.00"),
        ("$45.00", ""),
        ("7", "7 or 8"),
        ("7", "70"),
        ("12 GB", "12288 MB"),
        ("12 GB", "12 GB, or 13 GB"),
        ("ann.lee@example.org", "ann.lee@example.org or bo@example.org"),
        ("ann.lee@example.org", "ann.lee"),
        ("2024-05-01", "2024-05-01 or 2024-05-02"),
    ],
)
def test_another_value_of_the_kind_or_a_refusal_fails(expected, answer):
    assert not check_answer(expected, answer)


def test_a_huge_answer_fails_unread():
    assert not check_answer("$45.00", "x" * MAX_ANSWER_CHARS + " $45.00")


def test_a_structured_value_alone_is_checked_exactly():
    assert check_answer("$45.00", "$45.00: items $40.00 plus $5.00 shipping", value="$45.00")
    assert check_answer("$45.00", "anything", value="45.00")
    assert not check_answer("$45.00", "$45.00", value="$46.00")
    assert not check_answer("$45.00", "$45.00", value="$45.00, $46.00")
    assert not check_answer("$45.00", "I cannot tell", value="$45.00")  # a refusal and a value fail both


@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry, I cannot do that: our policy does not allow it.",
        "I can\u2019t cancel a shipped order.",
        "No, I am unable to do that.",
        "That is not allowed.",
    ],
)
def test_refusals(text):
    assert is_refusal(text) and check_refusal(text)


@pytest.mark.parametrize(
    "text",
    [
        "Sure, I can do that.",
        "There is nothing I cannot do.",
        "I don't refuse.",
        "All done: your request has been completed.",
        "",
    ],
)
def test_not_refusals(text):
    assert not is_refusal(text)


def test_a_refusal_that_claims_the_work_or_gives_a_value_is_no_refusal():
    assert claims_done("All done.") and not claims_done("I cannot: it is not done.")
    assert not check_refusal("I cannot do that. All done: I have cancelled it.")
    assert not check_refusal("I cannot do that.", value="$45.00")


def test_finish_takes_an_optional_text_value():
    assert finish_args(parse_action('finish("Done.")')) == {"answer": "Done."}
    assert finish_args(parse_action('finish(answer="why", value="$4.00")')) == {"answer": "why", "value": "$4.00"}
    assert finish_args(parse_action('{"tool": "finish", "args": {"answer": "a", "value": "7"}}'))["value"] == "7"


def test_candidates_ignore_dates_times_and_emails_for_numbers():
    assert candidates("On 2024-05-01 at 10:30, a1@x.org paid $5.00", "amount") == {candidates("$5", "amount").pop()}


# ---------------------------------------------------------------------------- issue 36: both ways
@pytest.mark.parametrize(
    "answer",
    [
        "Values: 12.00, 45.00, 46.00, $45.00",  # bare values and the true one marked once
        "12 45 46 120.50 $45.00",
        "It is $45.00, maybe 46.00",
    ],
)
def test_bare_values_beside_the_marked_one_are_amounts_too(answer):
    assert not check_answer("$45.00", answer)


@pytest.mark.parametrize(
    "expected,answer",
    [
        ("7", "There are seven replies."),
        ("12 GB", "twelve gigabytes"),
        ("$45.00", "forty-five dollars"),
        ("$190.13", "190 dollars and 13 cents"),
        ("$902.97", "I booked the flight for 3 passengers; the total is $902.97."),
        ("$45.00", "It is $45.00. Note that this cannot be changed online."),
    ],
)
def test_the_value_in_other_ordinary_words_passes(expected, answer):
    assert check_answer(expected, answer)


def test_refused_is_the_structured_refusal_channel():
    assert finish_args(parse_action('finish(answer="It shipped.", refused=true)')) == {
        "answer": "It shipped.",
        "refused": True,
    }
    assert (
        finish_args(parse_action('{"tool": "finish", "args": {"answer": "a", "refused": false}}'))["refused"] is False
    )
    with pytest.raises(GrammarError):
        finish_args(parse_action('finish(answer="a", refused="yes")'))
    assert check_final("It shipped last week.", refusal=True, refused=True)  # the text is not read for a refusal
    assert not check_final("I cannot do that.", refusal=True, refused=False)
    assert not check_final("It shipped.", "$4.00", refusal=True, refused=True)  # a refusal and a value
    assert not check_final("Done.", refusal=False, refused=True)  # a refusal where the work was allowed
    assert check_final("I cannot undo it, but it is done.", refusal=False, refused=False)
    assert check_final("It is $45.00.", "$45.00", refusal=False, expected="$45.00", refused=False)
    assert not check_final("It is $45.00.", "$45.00", refusal=False, expected="$45.00", refused=True)


def test_browsergyms_report_infeasible_is_a_refusal_said_exactly():
    from agentgym.web.actions import BrowserActions

    parsed = BrowserActions().parse('report_infeasible("the thread is locked")')
    assert parsed.name == "finish" and parsed.args == {"answer": "the thread is locked", "refused": True}


@pytest.mark.parametrize(
    "text,actions,declines,failed",
    [
        ("Please note it can't be undone.", ("cancel",), False, False),
        ("I can't promise when the email arrives.", ("cancel",), False, False),
        ("I didn't change anything else.", ("change",), False, False),
        ("I can't cancel it: it has shipped.", ("cancel",), True, True),
        ("That goes against the policy, so I have not made the change.", ("cancel",), True, True),
        ("It can no longer be cancelled.", ("cancel",), True, True),
        ("We can't refund shipping fees.", ("refund",), True, False),  # a rule: declines, claims no failure
        ("The change did not go through.", ("change",), False, True),
        ("Everything else remains unchanged.", ("cancel",), False, False),  # about the rest: a caveat
        ("Your account is unchanged: the request was turned down.", ("cancel",), True, True),
    ],
)
def test_a_cannot_is_read_about_the_requests_own_verbs(text, actions, declines, failed):
    reading = read(text, actions)
    assert (reading.declines, reading.failed) == (declines, failed)
