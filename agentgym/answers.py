"""One answer rule and one refusal rule for every family that takes a final answer (DESIGN 13).

**The state first.** A family's verdict decides from the world what the world can show (the write
happened or not; a refusal is grounded in what the agent saw). This module reads the final
message only for what the state cannot show: the value on a lookup; that a refusal task's message
declines rather than claims the work was done; that a write task's message does not say it failed.

**Answers.** An answer states one value of the kind asked for. With a structured value
(``finish(answer="...", value="...")``, or ``value`` in the JSON call) only that value is
checked, exactly, and the free text may explain freely. Without one, every candidate of the
kind asked for (amounts, counts, quantities with a unit, dates, emails, ids; numbers written in
words too) is extracted from the text, and the answer passes only when the expected value is
among them and no other candidate of that kind is. Why: "the expected value appears in the
answer" (WebArena's ``must_include``, tau-bench's output check) lets a policy win by listing
every value it saw. A hedged value ("maybe $45.00") is no answer.

**Claims, not phrases.** ``finish(answer="why", refused=true)`` declines exactly, as ``value`` is
exact for values (``refused=false`` says the message is no refusal); the text is then not read for
one. Without the flag the text is read for what it claims about the task's own action (`CLAIMS`,
`Reading.claim`): ``done`` ("I cancelled it", "your order has been cancelled", "cancelled it"),
``not_done`` (the agent declines or cannot: "I can't cancel it", "can't.", "I have to decline"; the
request said to be forbidden: "that goes against the policy", "it can no longer be cancelled"; or
not to have happened: "nothing was changed"), ``both`` (a contradiction) or ``neither``. Each clause
is read for its subject, polarity and tense, about the ``actions`` the family passes (the verbs of
the task's writes; none for a lookup, whose request is to tell), never for a phrase wherever it
stands: a clause about having checked something ("I checked it against the policy and then made
the update") is removed before reading, what it was checked against included, so it never
changes a verdict; a "cannot" about something else is a caveat ("note it can't be undone", "I
didn't change anything else"); a negated prohibition ("it is not against the policy") forbids
nothing. A write task passes on ``done`` or ``neither``, a refusal task only on ``not_done``, so
no message passes both. A refusal that also gives a value fails both ways.

Stdlib only: the verdict runs inside the sandbox's step server, where this file is loaded under
its own name (`SANDBOX_NAME`), so family code imports it as here: ``from agentgym import answers``.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

__all__ = [
    "ANSWER_RULE",
    "CLAIMS",
    "DONE",
    "NOT_DONE",
    "BOTH",
    "NEITHER",
    "KINDS",
    "MAX_ANSWER_CHARS",
    "SANDBOX_NAME",
    "DEFAULT_ACTIONS",
    "Reading",
    "candidates",
    "check_answer",
    "check_final",
    "sandbox_module",
    "check_refusal",
    "claims_done",
    "is_refusal",
    "kind_of",
    "read",
]

SANDBOX_NAME = __name__  # "agentgym.answers": the sandbox loads it under its own name
MAX_ANSWER_CHARS = 16_384  # an answer is one value and a sentence, not a page: longer ones fail unread
KINDS = ("amount", "count", "quantity", "date", "email", "id", "text")
ANSWER_RULE = (
    "What you changed is checked in the data, and your final words only have to agree with it: state the one "
    "value asked for and no other value of that kind, or, when the rules forbid the request, change nothing and "
    "say plainly that you will not do it (caveats, politeness and numbers in words are fine). To be exact, "
    'finish(answer="why", value="$45.00") checks only `value` and finish(answer="why", refused=true) '
    "declines; a refusal that also gives a value or says the work is done fails."
)
"""The rule in two sentences, as the task instruction, ``help`` and ``finish``'s description say it."""

# ---------------------------------------------------------------------------- reading free text
GENERIC_VERBS = (
    "do",
    "help",
    "assist",
    "proceed",
    "handle",
    "fulfil",
    "fulfill",
    "comply",
    "go",
    "accommodate",
    "honor",
    "honour",
    "grant",
    "approve",
    "allow",
    "accept",
)
"""Verbs that name any request ("I can't do that", "I can't help with this")."""
WRITE_VERBS = (
    "make",
    "process",
    "complete",
    "carry",
    "perform",
    "execute",
    "action",
    "change",
    "submit",
    "place",
    "apply",
    "finalize",
    "finalise",
    "effect",
)
"""Verbs that name any write ("I have not made the change", "I couldn't process it")."""
ANSWER_VERBS = (
    "tell",
    "give",
    "provide",
    "share",
    "find",
    "look",
    "determine",
    "answer",
    "say",
    "disclose",
    "retrieve",
    "access",
    "locate",
    "know",
    "report",
    "confirm",
)
"""Verbs that name a lookup's request ("I can't tell you", "I couldn't find it")."""
DEFAULT_ACTIONS = (
    "cancel",
    "refund",
    "return",
    "change",
    "update",
    "modify",
    "edit",
    "book",
    "rebook",
    "buy",
    "purchase",
    "order",
    "reply",
    "post",
    "lock",
    "pin",
    "hide",
    "suspend",
    "move",
    "raise",
    "set",
    "swap",
    "exchange",
    "delete",
    "remove",
    "add",
)
"""What a request asks when a family names no ``actions``: every write the built-in families know."""

_IRREGULAR = {
    "made": "make",
    "done": "do",
    "did": "do",
    "does": "do",
    "doing": "do",
    "gone": "go",
    "went": "go",
    "sent": "send",
    "paid": "pay",
    "hid": "hide",
    "hidden": "hide",
    "bought": "buy",
    "given": "give",
    "gave": "give",
    "told": "tell",
    "found": "find",
    "got": "get",
    "gotten": "get",
    "taken": "take",
    "took": "take",
    "left": "leave",
    "kept": "keep",
    "put": "put",
    "set": "set",
    "said": "say",
    "undone": "undo",
    "redone": "redo",
    "ran": "run",
    "written": "write",
    "wrote": "write",
}
_SUFFIXES = ("ing", "ed", "es", "e", "s")
_FIRST_PERSON = frozenset("i we i'm we're i've we've i'd we'd i'll we'll".split())
_NEGATIONS = frozenset(
    "cannot can't couldn't won't wouldn't didn't haven't hadn't hasn't don't doesn't not never "
    "unable wasn't weren't aren't mustn't shan't".split()
)
_DECLINES = frozenset("decline declined declining refuse refused refusing".split())
_FILLER = frozenset(
    "be been able to allowed permitted going ahead and actually really currently yet now just "
    "further anymore personally directly simply still even at all you your for from here there "
    "please unfortunately sadly with".split()
)
_SENTENCE = re.compile(r"[.;!?\n]+(?:\s|$)|:\s")
_VALUE_NOUN = re.compile(r"\b(?:amount|price|total|fare|fee|charge|sum|figure|value|number|rate|cost)\b")
_THIS, _GENERAL = "this", "general"
DONE, NOT_DONE, BOTH, NEITHER = "done", "not_done", "both", "neither"
CLAIMS = (DONE, NOT_DONE, BOTH, NEITHER)
"""What a final message can claim about the task's own action (`Reading.claim`)."""
_DETERMINERS = frozenset(
    "it this that these those the your my our his her their a an any anything everything them "
    "you so both all each every either neither".split()
)
_PREPOSITIONS = frozenset("with to on for in at from into about out up through off back".split())  # and particles
_NEGATED_SUBJECT = frozenset("nothing no not never nobody none".split())
_ELSEWHERE = re.compile(r"\b(?:else|other|others|another|more|extra|additional)\b")
_LATER = re.compile(r"\b(?:again|later|afterwards?|after|once|future|from now on|anymore after)\b")
_PARTIAL = re.compile(r"\b(?:other|others|rest|remaining|some|those|these|they|ones)\b")
_CLAUSE = re.compile(
    r"[.;:!?\n()\[\]]+|,|\s[-\u2013\u2014]+\s|\b(?:but|so|because|since|although|though|however|"
    r"whereas|while|which|otherwise)\b"
)
_NEGATORS = re.compile(r"\b(?:not|never|nothing|nobody|without|no|\w+n't|cannot|unable)\b")
_PROHIBITED = (
    re.compile(
        r"(?:\bnot|n't|\bnever)\s+(?:be\s+)?(?:allowed|permitted|possible|eligible|feasible|something we can)\b"
    ),
    re.compile(
        r"\b(?:against|violates?|violating|breaks?|breaking|outside(?: of)?|contrary to)\s+(?:the |our |your |"
        r"this |that |store |shop |site |forum |company |airline |console )*(?:polic(?:y|ies)|rules?|terms)\b"
    ),
    re.compile(
        r"\b(?:polic(?:y|ies)|rules?|site|shop|store|console|forum|system|airline|terms)\s+(?:does|do|will|"
        r"would|can|could)\s*(?:not|n't)\s+(?:allow|permit|let)\b"
    ),
    re.compile(r"\b(?:polic(?:y|ies)|rules?)\s+(?:forbids?|prohibits?|disallows?|prevents?|rules? out)\b"),
    re.compile(
        r"\b(?:is|are|was|were|been|be|got)\s+(?:denied|declined|refused|rejected|turned down|forbidden|prohibited|"
        r"blocked|disallowed)\b"
    ),
    re.compile(r"\b(?:impossible|ineligible|not eligible|disallowed|no can do|not an option)\b"),
    re.compile(
        r"\bfalls? outside\b|\boutside (?:of )?what (?:the |our )?(?:polic(?:y|ies)|rules?|terms) (?:permits?|allows?)"
    ),
    re.compile(r"^(?:[\w']+ ){0,2}?(?:declined|refused|denied|rejected|turned down)\s*$"),  # "Request declined"
    re.compile(
        r"\b(?:not (?:something|anything)|nothing) (?:that )?(?:i|we) (?:can|could|am able to|'m able to|"
        r"are able to)\b"
    ),  # "that's not something I can do", "there is nothing we can do"
    re.compile(
        r"\b(?:couldn't|could not|can't|cannot|wasn't able to|am unable to|was unable to) (?:be of (?:more |"
        r"any |further )?(?:help|assistance)|help (?:you )?(?:further|more|with this|here))\b"
    ),
)
_CANNOT_BE = re.compile(
    r"\b(?:cannot|can't|can not|could not|couldn't|can no longer|could no longer|may not|must not|"
    r"won't|will not|isn't able to|is unable to|no longer)\s+(?:be\s+)(\w+)|"
    r"\b(?:was|were|is|are|has|have|had)\s*(?:not|n't)\s+(?:been\s+|yet\s+|yet been\s+)?(\w+ed)\b"
)
_UNCHANGED = (
    re.compile(
        r"\b(?:left|leave|leaving|kept|keep|keeping|remains?|remained|stays?|stayed|is still|are still)\s+"
        r"(?:[\w']+\s+){0,4}?(?:unchanged|untouched|as (?:it|they) (?:is|are|was|were)|as is|the same|alone|"
        r"in place|as before)\b"
    ),
    re.compile(
        r"\bnothing (?!else\b)(?:[\w']+ ){0,2}?(?:was|has been|have been|got|is|were|'s been)\s+"
        r"(?:\w+ed|done|made|set|taken)\b"
    ),
    re.compile(r"\b(?:is|are|was|were)\s+(?:still\s+)?(?:unchanged|untouched|as (?:it|they) (?:was|were)|as before)\b"),
    re.compile(r"\bno (?:changes?|updates?|action)\s+(?:[\w']+ ){0,2}?(?:made|done|taken)\b"),
    re.compile(
        r"\b(?:did not|didn't|does not|doesn't|has not|hasn't|have not|haven't|was not|wasn't|were not|"
        r"weren't|could not|couldn't|will not|won't)\s+(?:\w+ )?(?:go through|work|succeed|happen|take effect)\b"
    ),
    re.compile(r"\b(?:failed|unsuccessful|not successful|was rejected|an error)\b"),
)
_DONE = re.compile(
    r"\ball done\b|^\s*done\b|\bdone\s*$|\ball set\b|\bsuccessfully\b|\bsucceeded\b|\bwent through\b|"
    r"\btaken care of\b|\btook care of\b|\bis complete\b|\bcompleted\b|\bis now (?:in place|confirmed)\b"
)
_PASSIVE = re.compile(
    r"\b(?:is|are|was|were|has been|have been|had been|'s been|has now been|have now been|is now|"
    r"are now|now|got|has already been|have already been|'s|'re)\s+(?:now\s+|successfully\s+|already\s+|"
    r"just\s+)?([a-z]+)"
)
_HEDGES = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|presumably|apparently|likely|unsure|uncertain|approximately|roughly|"
    r"guess|somewhere|either)\b|\b(?:might|may|could) be\b|\bnot (?:sure|certain|100%|positive|confident)\b|"
    r"\b(?:can't|cannot|can not|couldn't|unable to|not able to) (?:be )?"
    r"(?:sure|certain|confirm|verify|tell for sure)\b|"
    r"(?:\d|@[\w-]+(?:\.[\w-]+)+)\s*\?|"  # "$45.00?": the value asked back, not stated
    r"\bor (?:something|so)\b|\bi (?:think|believe|suppose)\b|\b(?:around|about|at least|at most|nearly|almost)\s+\$?\d"
)


# A clause about having checked something (the policy, the record, the user) claims nothing about the
# task's own action: "I checked it against the policy and then made the update" claims the update.
_CHECK_VERB = re.compile(
    r"\b(?:double[- ]?|cross[- ]|re-?)?(?:check(?:s|ed|ing)?(?!\s+out\b)|verif(?:y|ies|ied|ying)|"
    r"review(?:s|ed|ing)?|confirm(?:s|ed|ing)?|consult(?:s|ed|ing)?|compar(?:e|es|ed|ing)|validat(?:e|es|ed|ing)|"
    r"look(?:s|ed|ing)?\s+(?:up|at|into|over)|pull(?:s|ed|ing)?\s+up|(?:go|goes|went|going)\s+over)\b"
)
_CHECK_SUBJECT = re.compile(
    r"(?:^|(?<=[\s,;:(*\-]))(?:i|we)(?:'ve|'d)?(?:\s+(?:have|had|also|first|just|already|carefully|then|did|"
    r"quickly|now|personally|will|'ll|thoroughly))*\s+$"
)
_CHECK_LEAD = re.compile(r"\b(?:after|before|upon|on|when|while|by|once|having|first)\s+$")
_CLAUSE_START = re.compile(r"(?:^|[.;:!?,\n(*\-\u2022]|\band|\bthen|\bfirst|\balso)\s*$")
_CHECK_NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\bcannot|\bunable to|\bno)\s+(?:\w+\s+){0,1}$")
_CONTENT = frozenset(
    "is are was were has have had did does do went can could will would should must may might been be isn't "
    "aren't wasn't weren't hasn't haven't hadn't didn't doesn't don't can't cannot couldn't won't wouldn't "
    "not never no nothing unable it's that's there's they're we're i'm i've".split()
)
_COORDINATOR = re.compile(r"\s*,?\s*(?:(?:and|but|so)(?:\s+(?:then|also|so|finally))?|then)\b\s*,?\s*")
_SUBJECT_WORDS = frozenset(
    "i we it that this there they he she you nothing everything your our my its the his her their "
    "it's that's there's i'm we're i've we've i'd i'll".split()
)
_PREP_AFTER_THAT = re.compile(r"\s+(?:against|with|per|under|to|in|on)\b")
_CHECKED_THINGS = frozenset(
    "policy policies rules terms record records identity account details guidelines page system database".split()
)
_NOUN_GOES_ON = _CHECKED_THINGS | frozenset(
    "of for on about regarding with against to in and or page entry history file section settings status".split()
)
_NEW_CLAUSE = frozenset("i we you they he she that which who i've we've i'd we'd".split())
_CHECK_STOPS = frozenset("and but so then before after because since which while or as".split())
_MAX_CHECK_OBJECT = 9  # words: "your account against our cancellation policy for basic economy"


def _without_checks(text: str, writes: frozenset[str] = frozenset()) -> str:
    """``text`` (folded) without its clauses about having checked something, so that what the check was
    against ("I checked it against the policy") is never read as what the message claims. A check's
    own content stays ("I verified that nothing was changed" keeps "nothing was changed")."""
    for _ in range(12):  # a message holds a few checks at most; each pass removes one
        for m in _CHECK_VERB.finditer(text):
            before = text[: m.start()]
            if _CHECK_NEGATED.search(before):
                continue
            subject = _CHECK_SUBJECT.search(before)
            lead = None if subject else _CHECK_LEAD.search(before)
            if not (subject or lead or _CLAUSE_START.search(before)):
                continue
            start = subject.start() if subject else lead.start() if lead else m.start()
            cut = _check_end(text, m.end(), writes)
            if cut is None:  # the check's object is a claim ("I verified the change went through"): keep it
                text = text[:start] + text[m.end() :]
                break
            end, content = cut
            if content:  # "I confirmed that nothing was changed": the content is a clause of its own
                text = text[:start] + text[end:]
                break
            joint = _COORDINATOR.match(text, end)
            after = text[joint.end() if joint else end :]
            nxt = re.match(r"[\s,]*([a-z']+)", after)
            shares_subject = (
                subject is not None
                and nxt is not None
                and nxt.group(1) not in _SUBJECT_WORDS
                and not re.match(r"\s*[.;:!?\n]", text[end:])
            )
            if shares_subject:  # "I checked the policy and then made the update": "I made the update"
                text = text[: m.start()] + after.lstrip(" ,")
            else:
                text = text[:start] + (after if joint else text[end:])
            break
        else:
            return text
    return text


def _check_end(text: str, at: int, writes: frozenset[str] = frozenset()) -> tuple[int, bool] | None:
    """Where the object of a check verb ending at ``at`` ends (at punctuation, a conjunction or a
    complementiser), and whether a content clause follows there ("that nothing was changed"); None
    when the object itself states something (a finite verb or a negation in it)."""
    words = list(re.finditer(r"[^\s,.;:!?()\n]+", text[at:]))
    prev = 0  # where the object's last word ends, relative to ``at``
    for n, w in enumerate(words[:_MAX_CHECK_OBJECT]):
        word = w.group(0)
        if re.search(r"[,.;:!?()\n]", text[at + prev : at + w.start()]) or word in _CHECK_STOPS:
            return at + prev, False
        if n == 0 and word in ("that", "whether", "if") and not _PREP_AFTER_THAT.match(text, at + w.end()):
            if word == "that":  # what was checked is a claim of its own: keep it
                return at + w.end(), True
            stop = re.search(r"[,.;:!?\n]", text[at + w.start() :])  # a question claims nothing
            return (at + w.start() + stop.start() if stop else len(text)), False
        if n and word in _NEW_CLAUSE:  # "having checked the policy I cancelled it": a clause of its own
            return at + prev, True
        if word in _CONTENT or ((word.endswith("ed") or word in _IRREGULAR) and _stem(word) in writes):
            return None
        prev = w.end()
        nxt = words[n + 1] if n + 1 < len(words) else None
        if (  # a run-on: "having checked the policy the thread is locked" (punctuation and "and" end it above)
            word in _CHECKED_THINGS
            and nxt is not None
            and nxt.group(0) not in _NOUN_GOES_ON | _CHECK_STOPS
            and not text[at + w.end() : at + nxt.start()].strip()
        ):
            return at + prev, True
    if len(words) > _MAX_CHECK_OBJECT:
        return None
    return at + prev, False


def _stem(word: str) -> str:
    """A crude lemma, enough to compare a verb with the request's: cancelled/cancels -> cancel, made -> make."""
    w = _IRREGULAR.get(word, word)
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 2 and not (suffix == "s" and w.endswith("ss")):
            w = w[: -len(suffix)]
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "s":
        w = w[:-1]
    return w[:-1] + "y" if w.endswith("i") else w


def _stems(words) -> frozenset:
    return frozenset(_stem(w) for w in words)


def _fold(text: str | None) -> str:
    return " ".join((text or "").lower().replace("\u2019", "'").replace("can not", "cannot").split())


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in _CLAUSE.split(_fold(text)) if c.strip()]


def _asserted(clause: str, start: int) -> bool:
    """No negation in the six words before ``start`` ("has not been cancelled", "nothing on your
    account was modified")."""
    return not _NEGATORS.search(" ".join(clause[:start].split()[-6:]))


class Reading:
    """What a final message says, clause by clause, about the request named by ``actions``.

    ``declines``: the agent declines or cannot do what was asked, or says it is forbidden;
    ``failed``: it says the work did not happen (a decline, or "it did not go through", "nothing was changed");
    ``done``: it claims the work was done; ``hedged``: it hedges ("maybe", "I'm not sure").
    """

    def __init__(self, text: str | None, actions=None, *, lookup: bool = False) -> None:
        own = tuple(DEFAULT_ACTIONS if actions is None else actions)
        scope = GENERIC_VERBS + (ANSWER_VERBS if lookup else ()) + ((WRITE_VERBS + own) if own or not lookup else ())
        self.scope, self.writes = _stems(scope), _stems(own + WRITE_VERBS[:3] + ("do", "handle"))
        self.own = _stems(own + GENERIC_VERBS + WRITE_VERBS[:6] + (ANSWER_VERBS if lookup else ()))
        self.done = False
        folded = _without_checks(
            _TEAM.sub("we", _fold(text)), self.writes
        )  # what was checked, and against what, is no claim
        sentences = [s for s in _SENTENCE.split(folded) if s.strip()]
        cannot_be = any(self._cannot_be(s) for s in sentences)
        self.declines = self.failed = cannot_be
        for clause in _clauses(folded):
            declines = self._declines(clause)  # None, GENERAL or THIS
            self.declines |= declines is not None
            self.failed |= declines == _THIS or _unchanged(clause, _UNCHANGED)
            self.done |= self._done(clause)
        self.hedged = bool(_HEDGES.search(folded))

    @property
    def claim(self) -> str:
        """What the message claims about the task's own action, as one of `CLAIMS`: ``done`` (and
        says nothing that it was not), ``not_done`` (declined, forbidden or failed, and no claim it
        was done), ``both`` (it says both: a contradiction, which passes no task) or ``neither``
        (no claim: politeness, caveats, checks). A first-person limit on a kind of thing ("we can't
        refund shipping fees") is ``not_done`` alone and a caveat beside a claim of the work."""
        if self.done:
            return BOTH if self.failed else DONE
        return NOT_DONE if self.declines or self.failed else NEITHER

    def _in_scope(self, word: str, rest: str) -> bool:
        return _stem(word) in self.scope and not _ELSEWHERE.search(rest)

    def _declines(self, clause: str) -> str | None:
        """`_THIS` when the clause declines this request now; `_GENERAL` when it states a rule or a
        limit in the first person ("we can't refund shipping fees", "I can't change it afterwards"):
        a refusal on a refusal task, no claim of failure on a write task; else None."""
        if clause.strip(" -*#\u2022") in _BARE_NO:  # "No, the thread is locked."
            return _THIS
        words = _with_subject(re.findall(r"[a-z0-9]+(?:'[a-z]+)?", clause), _elided_decline)
        for i, w in enumerate(words):
            if w not in _FIRST_PERSON or _NEGATED_SUBJECT & set(words[max(0, i - 2) : i]):  # "nothing I cannot do"
                continue
            for j in range(i + 1, min(i + 5, len(words))):
                if words[j] in _DECLINES:
                    return _THIS
                if words[j] in _NEGATIONS:
                    k = j + 1
                    while k < len(words) and words[k] in _FILLER:
                        k += 1
                    if k == len(words):  # "I'm sorry, but I can't."
                        return _THIS if words[j] != "not" or "able" in words[j:] or "allowed" in words[j:] else None
                    rest = words[k + 1 :]
                    if self._in_scope(words[k], " ".join(rest)):
                        return _GENERAL if _general(rest) else _THIS
                    break
        if any(_forbids(p, clause) for p in _PROHIBITED):
            return _THIS
        return _THIS if _unchanged(clause, _UNCHANGED[:2]) else None

    def _cannot_be(self, sentence: str) -> bool:
        """An example: "It can no longer be cancelled": the request said to be impossible; "it can't be undone",
        "the amount cannot be changed online", "the others can't be cancelled" or "it can't be changed
        again" are about something else."""
        for m in _CANNOT_BE.finditer(sentence):
            subject = " ".join(sentence[: m.start()].split()[-6:])
            if (
                _stem(m.group(1) or m.group(2)) in self.own | {"do"}
                and not _LATER.search(sentence[m.start() :])
                and not _PARTIAL.search(subject)
                and not _VALUE_NOUN.search(subject)
            ):
                return True
        return False

    def _reports_write(self, words: list[str]) -> bool:
        """The words open with a past write of the request's and its object or nothing ("cancelled it",
        "moved the thread."), not an adjective ("cancelled orders can't be refunded")."""
        verb = words[0]
        return (
            (verb.endswith("ed") or verb in _IRREGULAR)
            and _stem(verb) in self.writes
            and (len(words) == 1 or words[1] in _DETERMINERS or words[1] in ("for", "as", "just", "now"))
        )

    def _done(self, clause: str) -> bool:
        for m in _DONE.finditer(clause):
            if _asserted(clause, m.start()):
                return True
        words = _with_subject(re.findall(r"[a-z]+(?:'[a-z]+)?", clause), self._reports_write)
        for i, w in enumerate(words):  # "I cancelled it", "we've gone ahead and booked it"
            if w in _FIRST_PERSON:
                j = i + 1
                while j < len(words) and words[j] in (
                    "have",
                    "had",
                    "now",
                    "just",
                    "already",
                    "successfully",
                    "gone",
                    "went",
                    "ahead",
                    "and",
                    "also",
                    "then",
                    "finally",
                    "managed",
                    "was",
                    "were",
                    "able",
                    "to",
                ):
                    j += 1
                infinitive = {"managed", "able"} & set(
                    words[i + 1 : j]
                )  # "I managed to cancel it", "we were able to book it"
                if j < len(words) and infinitive and _stem(words[j]) in self.writes:
                    return True
                if (
                    j == len(words)
                    or (
                        words[j] in ("did", "do", "does")  # "I did not", but "I did it"
                        and words[j + 1 : j + 2] not in (["it"], ["that"], ["this"], ["so"], ["everything"])
                    )
                ):
                    continue
                if (words[j].endswith("ed") or words[j] in _IRREGULAR) and _stem(words[j]) in self.writes:
                    return True
        for m in _PASSIVE.finditer(clause):  # "your order is now cancelled", "the reply has been posted"
            verb = m.group(1)
            if (
                (verb.endswith(("ed", "en")) or verb in _IRREGULAR)
                and _stem(verb) in self.writes
                and _asserted(clause, m.start())
                and not _PARTIAL.search(clause[: m.start()])
            ):
                return True
        return False


def _unchanged(clause: str, patterns: tuple[re.Pattern[str], ...]) -> bool:
    """The clause says the request's work did not happen ("nothing was changed", "your account is
    unchanged"); about the rest it is a caveat ("everything else remains unchanged", "your other
    orders are untouched")."""
    return any(
        not _ELSEWHERE.search(clause[: m.end()]) and not _REST.search(clause[: m.end()])
        for p in patterns
        for m in p.finditer(clause)
    )


_REST = re.compile(r"\b(?:rest|remaining)\b")
_TEAM = re.compile(r"\b(?:our|my) (?:support |customer service |service )?(?:team|staff|agents|department)\b")
_NOT_BEFORE = re.compile(r"(?:\bnot|n't|\bnever)\s+(?:be\s+|really\s+|actually\s+)?$")


def _forbids(pattern: re.Pattern[str], clause: str) -> bool:
    """``pattern`` (one of `_PROHIBITED`) says the request is forbidden, not negated: "that is not
    against the policy" and "it doesn't violate the rules" forbid nothing."""
    return any(not _NOT_BEFORE.search(clause[: m.start()]) for m in pattern.finditer(clause))


_INTERJECTIONS = frozenset(
    "no nope sorry unfortunately sadly so ok okay hmm and then also but just yeah yep well ah oh alas afraid".split()
)
_BARE_NO = frozenset(("no", "nope", "nah", "no can do"))  # a clause that is only "no": the request declined


def _with_subject(words: list[str], verb_ok) -> list[str]:
    """``words`` with the first-person subject a terse message leaves out put back ("can't.",
    "didn't cancel it", "cancelled it", "declined it"): when, after interjections, the clause opens
    with a word ``verb_ok`` accepts."""
    i = 0
    while i < len(words) and words[i] in _INTERJECTIONS:
        i += 1
    return ["i", *words[i:]] if i < len(words) and verb_ok(words[i:]) else words


def _elided_decline(words: list[str]) -> bool:
    """A clause that opens with a negation or a decline, its subject left out ("can't.", "won't do it",
    "declined it"); a passive ("cannot be changed online") has a subject of its own, said before."""
    return (words[0] in _NEGATIONS or words[0] in _DECLINES) and words[1:2] not in (["be"], ["been"])


def _general(rest: list[str]) -> bool:
    """The object of a first-person "can't" is a kind of thing, not this request ("refund shipping
    fees", "reply to locked threads"), or the limit is later ("change it afterwards")."""
    if _LATER.search(" ".join(rest)):
        return True
    while rest and rest[0] in _PREPOSITIONS:
        rest = rest[1:]
    head = rest[:3]
    if (
        not head
        or head[0] in _DETERMINERS
        or any(re.search(r"\d|'", w) for w in head)
        or {"you", "your", "yours"} & set(rest)
    ):
        return False
    return any(w.endswith("s") and not w.endswith("ss") and w not in _DETERMINERS for w in head)


def read(text: str | None, actions=None, *, lookup: bool = False) -> Reading:
    """How the final message reads about the request (`Reading`); ``actions``: its verbs (None: `DEFAULT_ACTIONS`)."""
    return Reading(text, actions, lookup=lookup)


def sandbox_module():  # -> agentgym.sandbox.modules.SandboxModule (imported here: the sandbox never calls this)
    """This file as a module for a family's ``sandbox_modules``, loaded before the family's own."""
    from agentgym.sandbox.modules import SandboxModule

    return SandboxModule.from_file(SANDBOX_NAME, __file__)


# ---------------------------------------------------------------------------- refusals
def is_refusal(text: str | None, actions=None) -> bool:
    """The text declines the request ("I cannot do that", "that goes against the policy"); "I can do
    that", "there is nothing I cannot do" or a caveat ("note it can't be undone") does not."""
    return read(text, actions).declines


def claims_done(text: str | None, actions=None) -> bool:
    """The text says the work was done ("All done", "I have cancelled it"), negations handled."""
    return read(text, actions).done


def check_refusal(answer: str | None, value: str | None = None, refused: bool | None = None, actions=None) -> bool:
    """A refusal and nothing else: no structured value; ``refused=True``, or a text whose claim is
    ``not_done`` (it declines, or says the request is forbidden or was not carried out, and claims
    nowhere that the work was done)."""
    if value is not None:
        return False
    if refused is not None:
        return refused is True
    return read(answer, actions).claim == NOT_DONE


# ---------------------------------------------------------------------------- answers
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b|\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_TIME = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b")
_ID = re.compile(r"(?<![\w@])#?([A-Za-z]{1,4}-?\d{2,})(?![\w@])")
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d_@]|\.\d)")  # "12GB" is a number and its unit
_CURRENCY_BEFORE = re.compile(r"(?:\$|us\$|usd)\s*$", re.I)
_CURRENCY_AFTER = re.compile(r"^\s*(?:dollars?|usd|bucks)\b", re.I)
_UNIT_AFTER = re.compile(r"^\s*([A-Za-z]+|%)")
_RANGE_END = re.compile(r"^\s*(?:-|\u2013|to)\s*\d+(?:\.\d+)?(?=\s*[A-Za-z%])")  # "5-7 business days"
_DOLLARS_AND_CENTS = re.compile(r"\b(\d+) dollars? and (\d{1,2}) cents?\b", re.I)
UNITS = {
    "b": "b",
    "byte": "b",
    "bytes": "b",
    "kb": "kb",
    "kilobyte": "kb",
    "kilobytes": "kb",
    "mb": "mb",
    "megabyte": "mb",
    "megabytes": "mb",
    "gb": "gb",
    "gigabyte": "gb",
    "gigabytes": "gb",
    "tb": "tb",
    "terabyte": "tb",
    "terabytes": "tb",
}
# words after a number that do not make it a count of something ("45.00 or 46.00", "45.00 in total")
_NOT_A_UNIT = frozenset(
    "or and to is was are were in for of with plus minus but nor vs versus instead each then as at "
    "on by from per if maybe not exactly even only total which that so before after now today "
    "flat altogether please thanks thank it this the a an you your i we".split()
)
_SMALL = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i > 1}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_NUMBER_WORD = "|".join(sorted(list(_SMALL) + list(_TENS) + list(_SCALES), key=len, reverse=True))
_WORDS = re.compile(r"\b(?:%s)(?:(?:[\s-]+|\s+and\s+)(?:%s))*\b" % (_NUMBER_WORD, _NUMBER_WORD), re.I)
_ONE_AS_PRONOUN = re.compile(r"(?:\b(?:this|that|the|which|each|every|any|some|no|another|a|only|one)\s+$)", re.I)
_ONE_AS_PRONOUN_AFTER = re.compile(r"^\s*(?:of|another|more|moment|sec|second|minute|thing|time|way|by|or two)\b", re.I)


def _words_value(words: str) -> int:
    total = current = 0
    for w in re.split(r"[\s-]+", words.lower()):
        if w in _SMALL:
            current += _SMALL[w]
        elif w in _TENS:
            current += _TENS[w]
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w in _SCALES:
            total += max(current, 1) * _SCALES[w]
            current = 0
    return total + current


def _digits(text: str) -> str:
    """Numbers written in words as digits ("seven replies" -> "7 replies", "forty-five dollars and
    ten cents" -> "$45.10"); "one" as a pronoun ("this one", "one of them") is left alone."""

    def sub(m: re.Match) -> str:
        words = m.group(0)
        if words.lower() == "one" and (
            _ONE_AS_PRONOUN.search(text[: m.start()]) or _ONE_AS_PRONOUN_AFTER.match(text[m.end() :])
        ):
            return words
        return str(_words_value(words))

    text = _WORDS.sub(sub, text)
    return _DOLLARS_AND_CENTS.sub(lambda m: "$%s.%02d" % (m.group(1), int(m.group(2))), text)


def kind_of(expected: str) -> str:
    """The kind of value an expected answer is, read off its canonical spelling."""
    s = str(expected).strip()
    if _EMAIL.fullmatch(s):
        return "email"
    if s.startswith("$"):
        return "amount"
    if _DATE.fullmatch(s):
        return "date"
    if re.fullmatch(r"\d+(?:\.\d+)?\s*[A-Za-z]+", s):
        unit = _UNIT_AFTER.match(s.lstrip("0123456789. "))  # the letters after the number
        if unit and unit.group(1).lower() in UNITS:
            return "quantity"
    if re.fullmatch(r"\d+", s):
        return "count"
    if _ID.fullmatch(s):
        return "id"
    return "text"


def _decimal(whole: str, frac: str | None) -> Decimal | None:
    try:
        return Decimal(whole.replace(",", "") + (frac or ""))
    except InvalidOperation:
        return None


def _numbers(text: str) -> list[tuple[Decimal, str, str]]:
    """(number, text before it, text after it) for every number that is not part of an email,
    a date, a time or an id; numbers in words count."""
    text = _digits(_TIME.sub(" ", _DATE.sub(" ", _EMAIL.sub(" ", text))))
    out = []
    for m in _NUMBER.finditer(text):
        n = _decimal(m.group(1), m.group(2))
        if n is not None:
            out.append((n, text[max(0, m.start() - 5) : m.start()], text[m.end() : m.end() + 16]))
    return out


def _counts_something(after: str) -> bool:
    """The number is followed by what it counts ("3 passengers", "4500 cents", "15%", "5-7 days"),
    so it is no amount."""
    unit = _UNIT_AFTER.match(_RANGE_END.sub("", after, count=1))
    return unit is not None and unit.group(1).lower() not in _NOT_A_UNIT


def candidates(text: str | None, kind: str) -> set:
    """Every value of ``kind`` stated in ``text``, normalised so that equal values compare equal."""
    text = str(text or "")
    if kind == "email":
        return {e.lower().rstrip(".") for e in _EMAIL.findall(text)}
    if kind == "date":
        out = set()
        for y, mo, d, mo2, d2, y2 in _DATE.findall(text):
            out.add((int(y or y2), int(mo or mo2), int(d or d2)))
        return out
    if kind == "id":
        return {i.upper().replace("-", "") for i in _ID.findall(text)}
    if (
        kind == "amount"
    ):  # marked ones ($45, 45 dollars) and bare ones that count nothing: "12.00, 46.00, $45.00" is three
        return {
            n.quantize(Decimal("0.01"))
            for n, before, after in _numbers(text)
            if _CURRENCY_BEFORE.search(before) or _CURRENCY_AFTER.match(after) or not _counts_something(after)
        }
    if kind == "count":
        return {n.normalize() for n, _, _ in _numbers(text)}
    if kind == "quantity":
        quantities: set[tuple[Decimal, str | None]] = set()
        for n, _, after in _numbers(text):
            unit = _UNIT_AFTER.match(after)
            quantities.add((n.normalize(), UNITS.get(unit.group(1).lower()) if unit else None))
        return quantities
    folded = " ".join(text.lower().split()).strip(" .!\"'")
    return {folded} if folded else set()


def _same(candidate: object, want: object, kind: str) -> bool:
    if kind == "quantity":  # a bare number takes the unit asked for; another unit is another value
        return candidate == want or (candidate[1] is None and candidate[0] == want[0])  # type: ignore[index]
    return candidate == want


def check_answer(
    expected: str,
    answer: str | None,
    value: str | None = None,
    kind: str | None = None,
    *,
    refused: bool | None = None,
    actions=(),
) -> bool:
    """The answer states ``expected`` and no other value of its kind, unhedged and refusing nothing
    (see the module docstring); ``actions``: the verbs of the task's writes, if it has any."""
    kind = kind or kind_of(expected)
    wants = candidates(expected, kind)
    if len(wants) != 1:
        raise ValueError(f"expected answer {expected!r} is not one {kind} value")
    want = next(iter(wants))
    if refused is True or len(str(answer or "")) > MAX_ANSWER_CHARS or len(str(value or "")) > MAX_ANSWER_CHARS:
        return False
    texts: list[str | None] = [value] if value is not None else []
    if refused is None:
        texts.append(answer)
    for text in texts:
        reading = read(text, actions, lookup=True)
        if reading.failed or (reading.hedged and (text is value or value is None)):
            return False
    got = candidates(answer if value is None else value, kind)
    return bool(got) and all(_same(c, want, kind) for c in got)


def check_final(
    answer: str | None,
    value: str | None = None,
    *,
    refusal: bool,
    expected: str | None = None,
    kind: str | None = None,
    refused: bool | None = None,
    actions=None,
) -> bool:
    """A final answer as the task asks, read only for what the world's state cannot show.

    ``refusal``: a refusal and nothing else (`check_refusal`). ``expected``: that value and no other
    of its kind (`check_answer`). Otherwise (a request carried out, which the state shows) the
    message's claim must be ``done`` or ``neither``: it must not say it failed or refuse ("I cannot
    do that", "it did not go through"); no particular words are needed. ``refused``: the agent's
    structured flag, which replaces reading the text for a refusal. ``actions``: the verbs of the
    task's writes (None: `DEFAULT_ACTIONS`).
    """
    if len(str(answer or "")) > MAX_ANSWER_CHARS or len(str(value or "")) > MAX_ANSWER_CHARS:
        return False  # fails unread, whatever the task
    if refusal:
        return check_refusal(answer, value, refused, actions)
    if refused is True:
        return False
    if expected is not None:
        return check_answer(
            expected, answer, value, kind, refused=refused, actions=DEFAULT_ACTIONS if actions is None else actions
        )
    if refused is False:
        return True
    return read(answer, actions).claim in (DONE, NEITHER) and not read(value, actions).failed
