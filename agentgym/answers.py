"""One answer rule and one refusal rule for every family that takes a final answer (DESIGN 13).

**Answers.** An answer states one value of the kind asked for. With a structured value
(``finish(answer="...", value="...")``, or ``value`` in the JSON call) only that value is
checked, exactly, and the free text may explain freely. Without one, every candidate of the
kind asked for (amounts, counts, quantities with a unit, dates, emails, ids) is extracted from
the text, and the answer passes only when the expected value is among them and no other
candidate of that kind is. Why: "the expected value appears in the answer" (WebArena's
``must_include``, tau-bench's output check) lets a policy win by listing every value it saw.

**Refusals.** One marker list and one function, with negations handled ("I can do that",
"nothing I cannot do" are not refusals). A refusal that also gives a value, or also claims the
work was done, fails both ways: it is neither a refusal nor an answer.

Stdlib only: the verdict runs inside the sandbox's step server, where this file is loaded under
its own name (`SANDBOX_NAME`), so family code imports it as here: ``from agentgym import answers``.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

__all__ = ["ANSWER_RULE", "KINDS", "MAX_ANSWER_CHARS", "REFUSAL_MARKERS", "DONE_MARKERS", "SANDBOX_NAME",
           "candidates", "check_answer", "check_final", "sandbox_module", "check_refusal", "claims_done", "is_refusal",
           "kind_of"]

SANDBOX_NAME = __name__  # "agentgym.answers": the sandbox loads it under its own name
MAX_ANSWER_CHARS = 16_384  # an answer is one value and a sentence, not a page: longer ones fail unread
KINDS = ("amount", "count", "quantity", "date", "email", "id", "text")
ANSWER_RULE = (
    "Answer with one value of the kind asked for: the verifier finds every value of that kind in your "
    "answer (amounts, counts, dates, emails, ids) and passes it only if the expected value is there and "
    "no other one is. Or give it apart: finish(answer=\"why, in words\", value=\"$45.00\"), and only "
    "`value` is checked, exactly. A refusal that also gives a value or says the work is done fails."
)
REFUSAL_MARKERS = (
    "cannot", "can't", "can not", "unable", "refuse", "not allowed", "not eligible", "not permitted",
    "not possible", "no longer possible", "against policy", "against our policy", "denied", "decline",
    "won't be able", "not able",
)
DONE_MARKERS = (
    "done", "completed", "successfully", "i have cancelled", "i've cancelled", "i have processed",
    "i've processed", "i have updated", "i've updated", "i have changed", "i've changed", "is now cancelled",
    "has been processed", "has been completed", "went through",
)
_NEGATORS = re.compile(r"\b(?:not|never|nothing|nobody|without|\w+n't)\b")
_CLAUSE = re.compile(r"[.;:!?,\n]|\bbut\b")

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b|\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_TIME = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b")
_ID = re.compile(r"(?<![\w@])#?([A-Za-z]{1,4}-?\d{2,})(?![\w@])")
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d_@]|\.\d)")  # "12GB" is a number and its unit
_CURRENCY_BEFORE = re.compile(r"(?:\$|us\$|usd)\s*$", re.I)
_CURRENCY_AFTER = re.compile(r"^\s*(?:dollars?|usd)\b", re.I)
_UNIT_AFTER = re.compile(r"^\s*([A-Za-z]+)")
UNITS = {"b": "b", "byte": "b", "bytes": "b", "kb": "kb", "kilobyte": "kb", "kilobytes": "kb",
         "mb": "mb", "megabyte": "mb", "megabytes": "mb", "gb": "gb", "gigabyte": "gb", "gigabytes": "gb",
         "tb": "tb", "terabyte": "tb", "terabytes": "tb"}


def sandbox_module():  # -> agentgym.sandbox.modules.SandboxModule (imported here: the sandbox never calls this)
    """This file as a module for a family's ``sandbox_modules``, loaded before the family's own."""
    from agentgym.sandbox.modules import SandboxModule

    return SandboxModule.from_file(SANDBOX_NAME, __file__)


# ---------------------------------------------------------------------------- refusals
def _asserted(text: str, marker: str) -> bool:
    """``marker`` occurs in ``text`` at least once without a negation earlier in its clause."""
    for m in re.finditer(r"(?<!\w)%s(?!\w)" % re.escape(marker), text):
        clause = _CLAUSE.split(text[:m.start()])[-1]
        if not _NEGATORS.search(" ".join(clause.split()[-3:])):
            return True
    return False


def _fold(text: str | None) -> str:
    return (text or "").lower().replace("\u2019", "'")


def is_refusal(text: str | None) -> bool:
    """The text declines the request ("I cannot do that"); "I can do that" or "there is nothing I
    cannot do" does not."""
    low = _fold(text)
    return any(_asserted(low, m) for m in REFUSAL_MARKERS)


def claims_done(text: str | None) -> bool:
    """The text says the work was done ("All done", "I have cancelled it"), negations handled."""
    low = _fold(text)
    return any(_asserted(low, m) for m in DONE_MARKERS)


def check_refusal(answer: str | None, value: str | None = None) -> bool:
    """A refusal and nothing else: no structured value, no claim that the work was done."""
    return value is None and is_refusal(answer) and not claims_done(answer)


# ---------------------------------------------------------------------------- answers
def kind_of(expected: str) -> str:
    """The kind of value an expected answer is, read off its canonical spelling."""
    s = str(expected).strip()
    if _EMAIL.fullmatch(s):
        return "email"
    if s.startswith("$"):
        return "amount"
    if _DATE.fullmatch(s):
        return "date"
    if re.fullmatch(r"\d+(?:\.\d+)?\s*[A-Za-z]+", s) and _UNIT_AFTER.match(s.lstrip("0123456789. ")).group(1).lower() in UNITS:
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
    a date, a time or an id."""
    text = _TIME.sub(" ", _DATE.sub(" ", _EMAIL.sub(" ", text)))
    out = []
    for m in _NUMBER.finditer(text):
        n = _decimal(m.group(1), m.group(2))
        if n is not None:
            out.append((n, text[max(0, m.start() - 5):m.start()], text[m.end():m.end() + 12]))
    return out


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
    if kind == "amount":
        nums = _numbers(text)
        marked = {n.quantize(Decimal("0.01")) for n, before, after in nums
                  if _CURRENCY_BEFORE.search(before) or _CURRENCY_AFTER.match(after)}
        return marked or {n.quantize(Decimal("0.01")) for n, _, _ in nums}
    if kind == "count":
        return {n.normalize() for n, _, _ in _numbers(text)}
    if kind == "quantity":
        out = set()
        for n, _, after in _numbers(text):
            unit = _UNIT_AFTER.match(after)
            out.add((n.normalize(), UNITS.get(unit.group(1).lower()) if unit else None))
        return out
    folded = " ".join(text.lower().split()).strip(" .!\"'")
    return {folded} if folded else set()


def _same(candidate: object, want: object, kind: str) -> bool:
    if kind == "quantity":  # a bare number takes the unit asked for; another unit is another value
        return candidate == want or (candidate[1] is None and candidate[0] == want[0])  # type: ignore[index]
    return candidate == want


def check_answer(expected: str, answer: str | None, value: str | None = None, kind: str | None = None) -> bool:
    """The answer states ``expected`` and no other value of its kind (see the module docstring)."""
    kind = kind or kind_of(expected)
    wants = candidates(expected, kind)
    if len(wants) != 1:
        raise ValueError(f"expected answer {expected!r} is not one {kind} value")
    want = next(iter(wants))
    if is_refusal(answer) or is_refusal(value) or len(str(answer or "")) > MAX_ANSWER_CHARS:
        return False
    got = candidates(answer if value is None else value, kind)
    return bool(got) and all(_same(c, want, kind) for c in got)


def check_final(answer: str | None, value: str | None = None, *, refusal: bool, expected: str | None = None,
                kind: str | None = None) -> bool:
    """A final answer as the task asks: a refusal and nothing else when ``refusal``; else ``expected``
    and no other value of its kind when a value is asked for; else anything that does not refuse
    (a request carried out needs no particular words, but "I cannot" says it was not)."""
    if refusal:
        return check_refusal(answer, value)
    if expected is not None:
        return check_answer(expected, answer, value, kind)
    return not is_refusal(answer) and not is_refusal(value)
