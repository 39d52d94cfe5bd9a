"""The stateful-world kit (`agentgym.world`) on its own: records, the verdict, templates, the menu."""

from __future__ import annotations

import sqlite3

import pytest

from agentgym import answers
from agentgym.core import MAX_MENU, menu_of
from agentgym.world import records, verdict
from agentgym.world.tasks import WorldTasks, templates_by_key
from agentgym.world.templates import Template

SCHEMA = "CREATE TABLE orders(oid TEXT PRIMARY KEY, status TEXT);" + records.VERSIONS_SCHEMA


def _db() -> tuple[sqlite3.Connection, dict[str, str]]:
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    return db, records.primary_keys(SCHEMA)


def test_every_write_raises_the_records_version_and_dumps_leave_bookkeeping_out():
    db, primary = _db()
    records.seed(db, {"orders": [{"oid": "O2", "status": "new"}, {"oid": "O1", "status": "new"}]})
    assert [r[0] for r in db.execute("SELECT oid FROM orders ORDER BY rowid")] == ["O2", "O1"]  # seeded in order
    assert records.version(db, "orders:O1") == 0
    assert records.update(db, primary, "orders", "O1", {"status": "shipped"}) == ("orders:O1", 0, 1)
    assert records.update(db, primary, "orders", "O1", {"status": "lost"}) == ("orders:O1", 1, 2)
    assert records.insert(db, primary, "orders", {"oid": "O3", "status": "new"}) == ("orders:O3", 0, 1)
    assert records.delete(db, primary, "orders", "O3") == ("orders:O3", 1, 2)  # a reader of O3 is now stale
    assert records.row(db, primary, "orders:O1") == ("O1", "lost") and records.row(db, primary, "orders:O3") is None
    assert records.dump(db) == {"orders": [("O1", "lost"), ("O2", "new")]}  # no _versions


@pytest.mark.parametrize(
    "answer, value, refusal, expected, ok",
    [
        ("Done: your order is cancelled.", None, False, None, True),
        ("I cannot do that.", None, False, None, False),  # a refusal where the work was allowed
        ("Done.", "I am unable to", False, None, False),  # a refusal hidden in the value
        ("I cannot cancel it: it has shipped.", None, True, None, True),
        ("I cannot cancel it, but I have cancelled it.", None, True, None, False),  # refuses and claims it
        ("I cannot.", "$5.00", True, None, False),  # a refusal and a value
        ("It is $5.00.", None, False, "$5.00", True),
        ("It is $5.00 or $6.00.", None, False, "$5.00", False),  # stuffing
        (None, None, False, None, True),  # a request carried out needs no words (truncation scoring)
        (None, None, True, None, False),
    ],
)
def test_the_final_answer_is_checked_by_one_rule(answer, value, refusal, expected, ok):
    assert answers.check_final(answer, value, refusal=refusal, expected=expected) is ok


def test_the_verdict_needs_the_state_and_the_answer_and_keeps_evidence_only_for_refusals():
    good = verdict.world_verdict(True, "It is $5.00.", refusal=False, expected="$5.00", evidence={"orders:O1": 2})
    assert good["success"] and good["evidence"] == {} and good["expected_answer"] == "$5.00"
    assert not verdict.world_verdict(False, "It is $5.00.", refusal=False, expected="$5.00")["success"]
    no = verdict.world_verdict(True, "I cannot: it shipped.", refusal=True, evidence={"orders:O1": 2}, reasons=["x"])
    assert no["success"] and no["evidence"] == {"orders:O1": 2} and no["reasons"] == ["x"]


def test_a_world_task_set_is_declared_in_its_class_statement():
    def build(rng):
        return {"n": rng.randint(0, 10**6)}

    templates = templates_by_key(
        [
            Template("a", "g2", "single", build),
            Template("b", "g1", "multi", build),
            Template("c", "g2", "single", build, heldout=True),
        ]
    )

    class Tasks(
        WorldTasks,
        family="w",
        group_filter="groups",
        templates=templates,
        tiers=("single", "multi"),
        seeds_per_template=4,
        build=lambda task_id: Tasks.task(
            task_id,
            *Tasks.scenario(task_id)[:1],
            instruction="do it",
            subtasks=(),
            solution=("x",),
            meta={"scenario": Tasks.scenario(task_id)[1]},
        ),
    ):
        pass

    ts = Tasks()
    assert Tasks.all_groups == ("g2", "g1") and ts.ids("heldout") == [f"w/g2/c/{i}" for i in range(4)]
    task = ts.get("w/g1/b/3")
    assert (task.family, task.tier, task.meta["group"], task.meta["template"]) == ("w", "multi", "g1", "b")
    assert task.meta["scenario"] == Tasks.scenario("w/g1/b/3")[1]  # seeded by the id: the same every time


def test_a_menu_drops_blanks_and_repeats_keeps_the_head_and_is_capped():
    head = ["finish()", "", "look()"]
    rest = [f"act({i})" for i in range(100)] + ["look()"]
    menu = menu_of(head, rest)
    assert len(menu) == MAX_MENU and menu == sorted(menu) and len(set(menu)) == len(menu)
    assert {"finish()", "look()"} <= set(menu) and "" not in menu
