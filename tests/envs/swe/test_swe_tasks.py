"""SWE-v0's task list: its size, its splits (held out by library and by module), and its statements."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from agentgym.envs.swe.tasks import TIERS, libraries, library_is_heldout, records, split_of


def test_at_least_a_thousand_validated_tasks_from_ten_libraries():
    recs = records()
    per_library = Counter(r.library for r in recs.values())
    assert len(recs) >= 1000, f"{len(recs)} tasks"
    assert len(per_library) >= 10, per_library
    assert set(libraries()) == set(per_library)
    assert {r.tier for r in recs.values()} == set(TIERS)


def test_every_task_has_failing_tests_and_tests_that_still_pass():
    for r in records().values():
        assert r.fail_to_pass, r.task_id
        assert r.test_files, r.task_id
        assert len({b["path"] + b["function"] for b in r.bugs}) == len(r.bugs), r.task_id


def test_splits_hold_out_whole_libraries_and_modules():
    files: dict[str, set[str]] = {"train": set(), "test": set()}
    for r in records().values():
        split = split_of(r)
        if library_is_heldout(r.library):
            assert split == "heldout"
            continue
        assert split != "heldout"
        if split is not None:
            files[split].update(f"{r.library}/{p}" for p in r.files)
    assert files["train"] and files["test"]
    assert not files["train"] & files["test"], "a source file has tasks in both train and test"
    assert any(library_is_heldout(lib) for lib in libraries()), "no library is held out"


def test_the_manifest_names_no_patch():
    """Library code is not committed: a bug is how to make it again (and the failures pytest printed)."""
    for r in list(records().values())[:200]:
        for bug in r.bugs:
            assert set(bug) == {"path", "function", "modifier", "site", "source_sha256", "patch_sha256"}


@pytest.mark.parametrize("kind", ["full", "minimal"])
def test_statements_tell_what_a_user_would(kind):
    from agentgym.envs.swe.build import statement

    for r in list(records().values())[::97]:
        text = statement(r, kind)
        head = text.split("The repository (the current directory):")[0]
        for bug in r.bugs:
            assert bug["modifier"] not in head.replace("-", "_")
            function = str(bug["function"]).split(".")[-1]
            shown = "\n".join(r.failures.values())
            if re.search(rf"\b{re.escape(function)}\b", head):
                assert kind == "full" and function in shown, (r.task_id, function)
        if kind == "minimal":
            assert "FAILED" not in head and not any(t in head for t in r.fail_to_pass)
        else:
            assert r.fail_to_pass[0] in head
