"""scripts/typecheck.py, the type check scripts/test.sh runs:
which mypy errors fail it (mypy itself is not run here)."""

import importlib.util
from collections import Counter
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "typecheck.py"
_spec = importlib.util.spec_from_file_location("typecheck", SCRIPT)
typecheck = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(typecheck)

OLD = (
    'baselines/report/markdown.py:326: error: No overload variant of "get" of "dict" '
    'matches argument types "str"  [call-overload]'
)
NEW = 'baselines/experiment/probe.py:120: error: Need type annotation for "acc"  [var-annotated]'
KIT = 'agentgym/core.py:482: error: Incompatible types in assignment (expression has type "str")  [assignment]'


def entries(*lines: str) -> Counter:
    return Counter(typecheck.entry(line) for line in lines)


def test_an_entry_drops_the_line_number_so_moving_code_keeps_it():
    assert typecheck.entry(OLD) == typecheck.entry(OLD.replace(":326:", ":400:"))
    assert (
        typecheck.entry(OLD) == 'baselines/report/markdown.py: [call-overload] No overload variant of "get" of "dict" '
        'matches argument types "str"'
    )
    assert typecheck.entry("Found 3 errors in 2 files (checked 166 source files)") is None
    assert typecheck.entry("baselines/x.py:3: note: See https://mypy.readthedocs.io") is None


def test_an_error_in_the_baseline_passes_and_a_new_one_fails():
    bad, stale = typecheck.unaccepted(entries(OLD, NEW), entries(OLD))
    assert list(bad) == [typecheck.entry(NEW)] and not stale


def test_a_second_copy_of_an_accepted_error_fails():
    bad, _ = typecheck.unaccepted(entries(OLD, OLD), entries(OLD))
    assert bad == entries(OLD)


def test_agentgym_may_have_no_error_even_one_listed_in_the_baseline():
    bad, stale = typecheck.unaccepted(entries(KIT), entries(KIT))
    assert bad == entries(KIT) and not stale


def test_a_fixed_error_left_in_the_baseline_is_reported_so_the_list_shrinks():
    bad, stale = typecheck.unaccepted(Counter(), entries(OLD))
    assert not bad and stale == entries(OLD)


def test_the_committed_baseline_holds_no_agentgym_entry():
    assert not [e for e in typecheck.read_baseline() if e.startswith(typecheck.STRICT)]
