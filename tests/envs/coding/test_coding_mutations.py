"""Mutation operators: every kind makes valid code, and a mutant the hidden tests catch (executed here)."""

from __future__ import annotations

import ast
import tempfile
from pathlib import Path

import pytest

from agentgym.envs.coding import build_tasks
from agentgym.envs.coding.corpus_loader import load_corpus
from agentgym.envs.coding.mutations import MUTATION_KINDS, Mutant, enumerate_mutants, select_mutants
from agentgym.envs.coding.tasks import default_taskset

FIXTURE_CORPUS = Path(__file__).with_name("fixtures")

SNIPPET = '''\
def f(xs, a, b):
    """Docstring with 1 < 2 stays untouched."""
    if a < b and xs:
        return xs[0] + xs[-1]
    elif a == b:
        total = 0
        for i in range(len(xs)):
            total += xs[i]
        return total
    else:
        pick(xs, a)
        return not xs
'''


def _by_kind(source: str) -> dict[str, list[Mutant]]:
    out: dict[str, list[Mutant]] = {}
    for m in enumerate_mutants(source):
        out.setdefault(m.kind, []).append(m)
    return out


def test_every_kind_has_sites_in_the_snippet_and_stays_valid_python():
    kinds = _by_kind(SNIPPET)
    assert set(kinds) == set(MUTATION_KINDS)
    for mutants in kinds.values():
        for m in mutants:
            mutated = m.apply(SNIPPET)
            ast.parse(mutated)
            assert ast.dump(ast.parse(mutated)) != ast.dump(ast.parse(SNIPPET))
            assert "1 < 2" in mutated  # docstrings are never mutated


@pytest.mark.parametrize(
    "kind, before, after",
    [
        ("comparison_flip", "    if a < b and xs:\n", "    if a <= b and xs:\n"),
        ("comparison_flip", "    elif a == b:\n", "    elif a != b:\n"),
        ("off_by_one", "        for i in range(len(xs)):\n", "        for i in range(len(xs) - 1):\n"),
        ("off_by_one", "        return xs[0] + xs[-1]\n", "        return xs[1] + xs[-1]\n"),
        ("arithmetic_swap", "        return xs[0] + xs[-1]\n", "        return xs[0] - xs[-1]\n"),
        ("arithmetic_swap", "            total += xs[i]\n", "            total -= xs[i]\n"),
        ("boolean_swap", "    if a < b and xs:\n", "    if a < b or xs:\n"),
        ("boolean_swap", "        return not xs\n", "        return xs\n"),
        ("wrong_constant", "        total = 0\n", "        total = 1\n"),
        ("swapped_arguments", "        pick(xs, a)\n", "        pick(a, xs)\n"),
        ("dropped_condition", "    if a < b and xs:\n", "    if xs:\n"),
        ("dropped_statement", "        pick(xs, a)\n", ""),
        ("wrong_return", "        return total\n", "        return None\n"),
    ],
)
def test_operator_edits_only_the_bug_site(kind, before, after):
    edits = {("".join(m.old), "".join(m.new)) for m in _by_kind(SNIPPET)[kind]}
    assert (before, after) in edits


def test_dropped_branch_removes_else_and_keeps_blocks_valid():
    dropped = [m for m in _by_kind(SNIPPET)["dropped_branch"]]
    assert any("else:" in "".join(m.old) and not m.new for m in dropped)
    only_stmt = "def g(x):\n    if x:\n        x.pop()\n    return x\n"
    (m,) = [m for m in enumerate_mutants(only_stmt) if m.kind == "dropped_statement"]
    assert m.new == ("        pass\n",)


def test_apply_refuses_a_different_source():
    m = enumerate_mutants(SNIPPET)[0]
    with pytest.raises(ValueError, match="does not match"):
        m.apply(SNIPPET.replace("a < b", "a  <  b"))


def test_selection_is_deterministic_and_spread_over_kinds():
    mutants = enumerate_mutants(SNIPPET)
    first = select_mutants("snippet", mutants, 10)
    assert first == select_mutants("snippet", list(reversed(mutants)), 10)
    assert len({m.kind for m in first}) == 10


def test_every_shipped_kind_is_caught_by_hidden_tests_when_executed():
    """One shipped mutant per kind, re-executed: the original passes, the mutant fails a hidden test."""
    tasks = default_taskset()
    seen: dict[str, tuple[str, dict]] = {}
    for name, entry in tasks.entries.items():
        for m in entry["mutants"]:
            seen.setdefault(m["kind"], (name, m))
    assert set(seen) == set(MUTATION_KINDS)
    with tempfile.TemporaryDirectory() as workspace:
        for kind, (name, m) in sorted(seen.items()):
            module = tasks.corpus[name]
            assert build_tasks._fails(module, build_tasks.run_hidden_forked(workspace, module, module.source)) == []
            mutant = Mutant.from_json(m)
            fails = build_tasks._fails(
                module, build_tasks.run_hidden_forked(workspace, module, mutant.apply(module.source))
            )
            assert fails and fails == m["fails"], (kind, name, m["key"])


def test_build_on_a_fixture_corpus_keeps_only_caught_mutants(tmp_path):
    data = build_tasks.build(FIXTURE_CORPUS, tmp_path / "mutants.json", jobs=1, limit=12)
    corpus = load_corpus(FIXTURE_CORPUS)
    assert set(data["modules"]) == {"clamp_utils", "word_stats"}
    for name, entry in data["modules"].items():
        assert entry["digest"] == corpus[name].digest
        assert 0 < len(entry["mutants"]) <= entry["candidates"] <= 12
        for m in entry["mutants"]:
            assert m["fails"] and set(m["visible_fails"]) <= set(m["fails"]) <= set(corpus[name].test_names)
    # `or False` in is_pangram is an equivalent-mutant trap: dropping it changes nothing observable
    pangram = [
        m
        for m in enumerate_mutants(corpus["word_stats"].source)
        if m.kind == "dropped_condition" and m.new == ("    return len(letters) == 26\n",)
    ]
    assert pangram and all(m.key not in {k["key"] for k in data["modules"]["word_stats"]["mutants"]} for m in pangram)
