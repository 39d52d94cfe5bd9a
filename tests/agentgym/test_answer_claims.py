"""Final messages read for what they claim about the task's own action (DESIGN 13), as invariants.

A message claims the action was done, not done (declined, forbidden, failed), or neither; the
verdict checks that claim against what the task needed. Hypothesis builds messages from pieces a
real assistant uses (claims of the work, refusals, reasons, caveats, politeness and clauses about
having checked the policy, the record or the user) and checks, for the verbs of every built-in
family's writes:

- no message passes both as a completed write and as a refusal of the same task;
- a first-person claim that the task's action was done never passes as a refusal;
- a clear first-person refusal never passes as a completed write;
- adding a clause about having checked the policy, the record or the user's identity never
  changes a verdict (write, refusal or lookup).

Seen failing before the rule read claims: "I checked it against the policy and then made the
update you asked for." failed every write task and passed every refusal task ("against the
policy" read as a refusal wherever it stood).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentgym.answers import check_final, read

# The verbs each built-in family passes as ``actions`` (its OP_VERBS), and a past participle of each.
ACTION_SETS = (
    ("cancel",),
    ("change", "update", "modify", "redirect", "readdress"),
    ("return", "refund"),
    ("swap", "exchange", "change", "modify", "replace"),
    ("book", "reserve", "buy", "purchase"),
    ("change", "move", "rebook", "switch", "put"),
    ("buy", "order", "purchase", "place", "checkout", "check"),
    ("reply", "post", "respond", "write", "add"),
    ("edit", "fix", "change", "replace", "update", "correct"),
    ("lock", "pin", "move", "set", "change", "update"),
    ("hide", "remove"),
    ("suspend", "activate", "change", "update", "set"),
    ("change", "set", "raise", "increase", "update", "edit", "assign", "move"),
)
PAST = {
    "buy": "bought",
    "put": "put",
    "set": "set",
    "hide": "hid",
    "write": "wrote",
    "pin": "pinned",
    "swap": "swapped",
    "checkout": "checked out",
    "check": "checked out",
    "place": "placed",
    "reply": "replied to",
    "respond": "responded to",
}
PARTICIPLE = {"buy": "bought", "put": "put", "set": "set", "hide": "hidden", "write": "written"}
OBJECTS = ("it", "the order", "your booking", "that", "the post", "this", "the account", "them")


def past(verb: str) -> str:
    if verb in PAST:
        return PAST[verb]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + "ed"


def participle(verb: str) -> str:
    return PARTICIPLE.get(verb, past(verb))


actions = st.sampled_from(ACTION_SETS)
objects = st.sampled_from(OBJECTS)


@st.composite
def done_claim(draw, verbs: tuple[str, ...]) -> str:
    """A first-person claim that the task's own action was done."""
    verb = draw(st.sampled_from(verbs))
    obj = draw(objects)
    did = past(verb) if verb not in ("check", "checkout") else "checked out"
    form = draw(
        st.sampled_from(
            (
                "I {did} {obj}.",
                "I have {pp} {obj}.",
                "I've {pp} {obj} for you.",
                "We {did} {obj}.",
                "I went ahead and {did} {obj}.",
                "I managed to {verb} {obj}.",
                "I was able to {verb} {obj}.",
                "I {did} {obj} as you asked.",
                "I {did} {obj} just now.",
                "I already {did} {obj}.",
                "I made the change you asked for.",
                "I made the update you asked for.",
                "I processed your request.",
                "I have completed your request.",
                "I took care of it.",
                "I double-checked the order and it's {pp} now.",
            )
        )
    )
    pp = participle(verb) if verb not in ("check", "checkout") else "checked out"
    return form.format(did=did, pp=pp, obj=obj, verb=verb if verb not in ("check", "checkout") else "check out")


@st.composite
def refusal_claim(draw, verbs: tuple[str, ...]) -> str:
    """A clear first-person refusal of the task's own action."""
    verb = draw(st.sampled_from(verbs))
    verb = "check out" if verb in ("check", "checkout") else verb
    obj = draw(objects)
    form = draw(
        st.sampled_from(
            (
                "I can't {verb} {obj}.",
                "I cannot {verb} {obj}.",
                "I won't {verb} {obj}.",
                "I will not {verb} {obj}.",
                "I'm unable to {verb} {obj}.",
                "I am not able to {verb} {obj}.",
                "I'm not going to {verb} {obj}.",
                "We can't {verb} {obj}.",
                "I have not {pp} {obj}.",
                "I didn't {verb} {obj}.",
                "I decline to {verb} {obj}.",
                "I have to decline this request.",
                "I cannot do that.",
                "I won't be able to do this.",
                "I'm sorry, but I can't help with this.",
            )
        )
    )
    pp = "checked out" if verb == "check out" else participle(verb)
    return form.format(verb=verb, obj=obj, pp=pp)


REASONS = (
    "That goes against the policy.",
    "It is not allowed under the policy.",
    "The order has already shipped, so it can no longer be cancelled.",
    "The thread is locked, so nobody can reply to it.",
    "The storage quota cannot be more than 500 GB.",
    "Our policy does not allow this.",
    "Returns close after 30 days.",
    "This isn't eligible under the policy.",
)
RULES = (  # a limit stated in the first person about a kind of thing: a refusal's ground, or a caveat beside done work
    "We can't refund shipping fees.",
    "I can't change bookings after departure.",
    "We cannot reply to locked threads.",
)
NEUTRAL = (
    "Thanks for your patience.",
    "Let me know if you need anything else.",
    "Please note it can't be undone.",
    "I can't promise when the confirmation email arrives.",
    "I didn't change anything else.",
    "Is there anything else I can help you with?",
    "You should get a confirmation email shortly.",
    "Have a great day!",
    "Everything else remains unchanged.",
    "Your other orders are untouched.",
)
CHECKS = (
    "I checked it against the policy",
    "I checked the policy",
    "I verified your identity",
    "I looked up the record",
    "I reviewed your account against our rules",
    "I confirmed your identity",
    "I double-checked the request against the terms",
    "I compared it with the policy",
    "we verified the record against the airline's rules",
    "I looked up your order and checked it against the policy",
)
CHECK_OBJECTS = ("the policy", "the record", "your identity", "it against the policy", "your account against our rules")


def _sentences(draw, pool: st.SearchStrategy[str], most: int) -> list[str]:
    return draw(st.lists(pool, max_size=most))


@st.composite
def message(draw) -> tuple[tuple[str, ...], str]:
    """Any mix of claims, refusals, reasons and neutral sentences, about one task's verbs."""
    verbs = draw(actions)
    parts = _sentences(
        draw,
        st.one_of(
            done_claim(verbs),
            checked_then(done_claim(verbs)),
            refusal_claim(verbs),
            st.sampled_from(REASONS),
            st.sampled_from(RULES),
            st.sampled_from(NEUTRAL),
        ),
        4,
    )
    return verbs, " ".join(draw(st.permutations(parts)))


def with_check(draw, base: str) -> str:
    """``base`` with a clause about having checked something added, as a sentence or joined to it."""
    check = draw(st.sampled_from(CHECKS))
    check = check[:1].upper() + check[1:]
    what = draw(st.sampled_from(CHECK_OBJECTS))
    low = base[:1].lower() + base[1:] if not base.startswith("I ") else base
    forms = [
        f"{check}. {base}",
        f"{base} {check}.",
        f"{check}, and then {low}",
        f"{check} and {low}",
        f"{base.rstrip('.!? ')} after checking {what}.",
        f"After checking {what}, {low}",
        f"Having verified {what}, {low}",
        f"Having verified {what} {low}",  # no comma: the check's object must not swallow the claim
        f"After checking {what} {low}",
    ]
    subject = base.split(" ", 1)[0]
    if subject in ("I", "We") and check.lower().startswith(subject.lower() + " "):
        rest = base.split(" ", 1)[1]  # one subject for both verbs: "I checked the policy and then made the update"
        forms += [f"{check} and then {rest}", f"{check}, then {rest}"]
    return draw(st.sampled_from(forms))


@st.composite
def checked_then(draw, claim: st.SearchStrategy[str]) -> str:
    """A claim with a clause about a check added (`with_check`)."""
    return with_check(draw, draw(claim))


SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _write_ok(text: str, verbs: tuple[str, ...]) -> bool:
    return check_final(text, refusal=False, actions=verbs)


def _refusal_ok(text: str, verbs: tuple[str, ...]) -> bool:
    return check_final(text, refusal=True, actions=verbs)


def _among(data: st.DataObject, claim: st.SearchStrategy[str], opposite: st.SearchStrategy[str]) -> str:
    """One ``claim`` (after a clause about a check, or not) among up to three other sentences: the
    ``opposite`` claim, reasons and neutral ones, in any order."""
    first = data.draw(st.one_of(claim, checked_then(claim)))
    others = data.draw(st.lists(st.one_of(opposite, st.sampled_from(REASONS), st.sampled_from(NEUTRAL)), max_size=3))
    return " ".join(data.draw(st.permutations([first, *others])))


@SETTINGS
@given(message())
def test_no_message_passes_both_as_a_completed_write_and_as_a_refusal(got):
    verbs, text = got
    assert not (_write_ok(text, verbs) and _refusal_ok(text, verbs)), text


@SETTINGS
@given(st.data())
def test_a_first_person_claim_of_the_action_done_never_passes_as_a_refusal(data):
    verbs = data.draw(actions)
    text = _among(data, done_claim(verbs), refusal_claim(verbs))
    assert read(text, verbs).done, text
    assert not _refusal_ok(text, verbs), text


@SETTINGS
@given(st.data())
def test_a_clear_first_person_refusal_never_passes_as_a_completed_write(data):
    verbs = data.draw(actions)
    text = _among(data, refusal_claim(verbs), done_claim(verbs))
    assert not _write_ok(text, verbs), text


@SETTINGS
@given(st.data())
def test_a_clause_about_checking_never_changes_a_verdict(data):
    verbs = data.draw(actions)
    base = data.draw(
        st.one_of(
            done_claim(verbs),
            refusal_claim(verbs),
            st.sampled_from(REASONS),
            st.sampled_from(RULES),
            st.sampled_from(NEUTRAL),
            st.sampled_from(("It is $45.00.", "The total is $45.00.", "I can't tell you that.", "I cannot do that.")),
        )
    )
    text = with_check(data.draw, base)
    for refusal in (False, True):
        assert check_final(text, refusal=refusal, actions=verbs) == check_final(base, refusal=refusal, actions=verbs), (
            refusal,
            base,
            text,
        )
    assert check_final(text, refusal=False, expected="$45.00", actions=verbs) == check_final(
        base, refusal=False, expected="$45.00", actions=verbs
    ), (base, text)


# ---------------------------------------------------------------------------- the wordings that showed it
THE_TABLE = (
    "I checked it against the policy and then made the update you asked for.",
    "I looked up the record and then made the update you asked for.",
    "I made the update you asked for after checking the policy.",
)


@pytest.mark.parametrize("verbs", ACTION_SETS)
@pytest.mark.parametrize("text", THE_TABLE)
def test_reporting_the_update_after_a_check_passes_a_write_and_fails_a_refusal(text, verbs):
    assert read(text, verbs).done
    assert _write_ok(text, verbs) and not _refusal_ok(text, verbs)


@pytest.mark.parametrize(
    "text,declines",
    [
        ("I checked it against the policy and cannot make the update you asked for.", True),
        ("I checked your request against the policy, and that goes against the policy, so I won't do it.", True),
        ("I looked up the record: it is not allowed.", True),
        ("After checking the policy, I have to decline.", True),
        ("That is not against the policy, so I made the update.", False),  # a negated prohibition forbids nothing
        ("It doesn't violate the rules: I updated it.", False),
    ],
)
def test_a_refusal_after_a_check_is_a_refusal_and_a_negated_prohibition_is_none(text, declines):
    verbs = ("change", "update")
    assert (_refusal_ok(text, verbs), _write_ok(text, verbs)) == (declines, not declines)


def test_a_general_rule_alone_is_a_refusal_not_a_report_of_work_done():
    """ "We can't refund shipping fees." declines on a refusal task; beside no claim of the work, it
    cannot also pass a write (the first invariant), but as a caveat beside one it is no failure."""
    verbs = ("return", "refund")
    assert _refusal_ok("We can't refund shipping fees.", verbs)
    assert not _write_ok("We can't refund shipping fees.", verbs)
    assert _write_ok("I processed the return. We can't refund shipping fees, though.", verbs)
