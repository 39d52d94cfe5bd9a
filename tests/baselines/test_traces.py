"""Per-episode traces (issue 24): labels, what follows a failing test, how a right first patch ends."""

from __future__ import annotations

from agentgym import events as ev
from baselines.report.decisions import (
    after_failing_test,
    decision_rates,
    right_first_failures,
    trace_label,
)

FIX = "patch\n--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 3\n+b = 2\n"
DECOY = "patch\n--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n-a = 1\n+a = 0\n b = 3\n"


def test_labels_patch_right_wrong_repeat_and_failed_apply() -> None:
    keys: set = set()
    sol = frozenset({FIX})
    assert trace_label(DECOY, [ev.mutation("m.py")], sol, keys) == "P-"
    assert trace_label(DECOY, [ev.mutation("m.py")], sol, keys) == "P-*"  # the same change again
    assert trace_label(FIX, [ev.tool_call("edit", False, "conflict")], sol, keys) == "P+!"  # did not apply
    assert trace_label("test", [ev.verification(False, "visible tests")], sol, keys) == "T-"
    assert trace_label("test", None, sol, keys) == "T?"  # the last step: its events are unseen
    assert [trace_label(a, [], sol, keys) for a in ("revert", "submit", "view m.py", "help")] == ["R", "S", "V", "O"]


def test_what_follows_a_failing_test() -> None:
    assert after_failing_test("P- T- R P+ T+ S") == ["revert"]
    assert after_failing_test("P- T- P+ S") == ["patch on top"]
    assert after_failing_test("P- T- R P-* T- S") == ["revert", "submit"]
    assert after_failing_test("P- T- P-* T- T- V T-") == ["same patch again", "test again", "view", "out of turns"]


def test_how_a_right_first_patch_ends() -> None:
    assert right_first_failures("P+ T+ S", True) == "success"
    assert right_first_failures("P+ P- S", False) == "wrong patch on top at submit"
    assert right_first_failures("P+ R V S", False) == "right patch reverted before submit"
    assert right_first_failures("P+ V V", False) == "out of turns"
    assert right_first_failures("P+ T+ S", False) == "submitted, hidden tests failed"


def test_the_budget_env_test_is_labelled_a_test() -> None:
    assert trace_label("run tests", [ev.verification(True, "tests")], frozenset(), set()) == "T+"


def _rec(trace: str, t: int) -> dict:
    return {"T": t, "success": False, "cost": {"trace": trace}}


def test_decision_rates_count_each_decision_in_its_state() -> None:
    rates = decision_rates([_rec("P- T- R P+ T+ S", 16), _rec("P- S", 16), _rec("P+ V T+ P- S", 16)])
    # unverified edit: T- and T+ (1st), S (2nd), V, T+ and S (3rd); a revert leaves no unverified edit
    assert rates["test | unverified edit"] == {"n": 6, "k": 3, "rate": 0.5}
    assert rates["revert | failing test"] == {"n": 1, "k": 1, "rate": 1.0}
    assert rates["submit | passing test"] == {"n": 2, "k": 1, "rate": 0.5}


def test_decision_rates_skip_unverified_edits_without_room_to_recover() -> None:
    # at T=4 the decision after the patch has 3 turns left: too few for test, revert, patch, submit
    assert decision_rates([_rec("P- T- R S", 4)])["test | unverified edit"] == {"n": 0, "k": 0, "rate": None}
    assert decision_rates([_rec("P- S", 5)])["test | unverified edit"]["n"] == 1
