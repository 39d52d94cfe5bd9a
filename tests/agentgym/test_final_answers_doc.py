"""docs/concepts/final-answers.md's example tables hold: each message gets the verdict the page says.

The rows are read from the page itself, so a page that drifts from the rule fails here. A row
whose verdict needs the world (a refusal "not grounded": the record never read) is the env's
part and is shown by tests/agentgym/test_answer_category.py instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentgym.actions import finish_args, parse_action
from agentgym.answers import check_final

PAGE = Path(__file__).resolve().parents[2] / "docs" / "concepts" / "final-answers.md"
SECTIONS = {
    "write task": dict(refusal=False),
    "refusal task": dict(refusal=True),
    "lookup": dict(refusal=False, expected="$45.00"),
}


def _rows() -> list[tuple[str, str, str, bool]]:
    rows, section = [], None
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("On a **"):
            section = next(s for s in SECTIONS if line.startswith(f"On a **{s}"))
        elif section and line.startswith("| ") and not line.startswith(("| final message", "|---")):
            message, verdict = (cell.strip() for cell in line.strip("|").rsplit("|", 1))
            if "not grounded" not in verdict:
                rows.append((section, message, verdict, verdict.startswith("pass")))
        elif section and not line.strip() and rows and rows[-1][0] == section:
            section = None
    return rows


ROWS = _rows()


def test_the_page_has_its_three_tables():
    assert {r[0] for r in ROWS} == set(SECTIONS) and len(ROWS) >= 18


@pytest.mark.parametrize("section,message,verdict,passes", ROWS, ids=[f"{r[0]}: {r[1][:50]}" for r in ROWS])
def test_each_example_gets_the_verdict_the_page_gives(section, message, verdict, passes):
    m = re.fullmatch(r"`(finish\(.*\))`", message)
    args = finish_args(parse_action(m.group(1))) if m else {"answer": message}
    got = check_final(args["answer"], args.get("value"), refused=args.get("refused"), **SECTIONS[section])
    assert got == passes, (message, verdict)
