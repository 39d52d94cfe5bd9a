"""The coding task set: size, tiers, disjoint splits, held-out modules, determinism, fresh data."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from agentgym.envs.coding.build_tasks import build
from agentgym.envs.coding.tasks import TIERS, CodingTasks, StaleMutantData, default_taskset, module_is_heldout
from agentgym.errors import ConfigError
from agentgym.repo.diffs import apply_patch, parse_patch

FIXTURE_CORPUS = Path(__file__).with_name("fixtures")


@pytest.fixture(scope="module")
def tasks() -> CodingTasks:
    return default_taskset()


def _modules(task_id: str) -> set[str]:
    return {spec.split("/")[0] for spec in task_id.split("/", 2)[2].split("+")}


def test_shipped_mutant_data_is_fresh(tasks):
    assert tasks.stale == [], "run `python -m agentgym.envs.coding.build_tasks` and commit data/mutants.json"
    assert len(tasks.corpus) >= 40 and set(tasks.entries) == set(tasks.corpus)
    for entry in tasks.entries.values():  # keys name mutants in task ids: they must be unique per module
        assert len({m["key"] for m in entry["mutants"]}) == len(entry["mutants"])


def test_at_least_1000_tasks_in_every_tier_and_split(tasks):
    counts = tasks.counts()
    assert sum(n for tiers in counts.values() for n in tiers.values()) >= 1000
    for split in tasks.splits:
        for tier in TIERS:
            assert counts[split][tier] > 0, (split, tier)


def test_splits_are_disjoint_and_heldout_modules_never_train(tasks):
    ids = {s: set(tasks.ids(s)) for s in tasks.splits}
    assert (
        not (ids["train"] & ids["test"]) and not (ids["train"] & ids["heldout"]) and not (ids["test"] & ids["heldout"])
    )
    train_modules = set().union(*map(_modules, ids["train"]))
    heldout_modules = set().union(*map(_modules, ids["heldout"]))
    assert heldout_modules and not (train_modules & heldout_modules)
    assert all(module_is_heldout(m) for m in heldout_modules)
    # a test-split bug never appears in any training task
    train_bugs = {spec for i in ids["train"] for spec in i.split("/", 2)[2].split("+")}
    test_bugs = {spec for i in ids["test"] for spec in i.split("/", 2)[2].split("+")}
    assert not (train_bugs & test_bugs)


def test_tasks_are_deterministic_from_their_id(tasks):
    for tier in TIERS:
        task_id = tasks.ids("test", tier)[0]
        a, b = tasks.get(task_id), CodingTasks().get(task_id)
        assert a == b and a.tier == tier and a.split == "test"
        assert a.min_turns == len(a.solution) == len(a.meta["bugs"]) + 2
        assert a.subtasks[-1] == "visible_tests" and len(a.subtasks) == len(a.meta["bugs"]) + 1


def test_unknown_ids_and_tiers_are_config_errors(tasks):
    with pytest.raises(ConfigError, match="unknown coding task id"):
        tasks.get("coding/one_bug/nope/x")
    with pytest.raises(ConfigError, match="unknown tier"):
        tasks.ids("train", "three_bugs")
    with pytest.raises(ConfigError, match="unknown split"):
        tasks.ids("validation")


def test_reference_patches_restore_the_original_source(tasks):
    """Pure text check over a spread of tasks: the solution's patches turn the task files into the originals."""
    for split in tasks.splits:
        for task_id in tasks.ids(split)[::17]:
            task = tasks.get(task_id)
            files = dict(task.files)
            assert files != dict(task.meta["originals"])
            for action in task.solution[:-2]:
                assert action.startswith("patch\n")
                files.update(apply_patch(files, parse_patch(action[len("patch\n") :])))
            assert files == dict(task.meta["originals"]), task_id
            assert task.solution[-2:] == ("test", "submit")


def test_wrong_candidates_never_restore_the_original(tasks):
    for task_id in tasks.ids("test")[::23]:
        task = tasks.get(task_id)
        for cand in task.meta["candidates"]:
            text = task.files[cand.file]
            diff = cand.patch(text)
            if diff is None:
                continue
            patched = apply_patch(dict(task.files), parse_patch(diff))[cand.file]
            if len(task.meta["bugs"]) == 1:  # one bug: exactly the true fix restores the original
                assert (patched == task.meta["originals"][cand.file]) == cand.fix, task_id


def test_visible_tests_are_a_subset_and_the_instruction_names_the_function(tasks):
    task = tasks.get(tasks.ids("train", "one_bug")[0])
    (bug,) = task.meta["bugs"]
    module = tasks.corpus[bug.module]
    assert set(module.visible) < set(module.test_names)
    visible_file = task.files[module.test_file]
    assert all(f"def {t}(" in visible_file for t in module.visible)
    assert not any(f"def {t}(" in visible_file for t in set(module.test_names) - set(module.visible))
    assert "VISIBLE" not in visible_file and bug.covering[0] in task.instruction


def test_stale_data_warns_and_leaves_the_module_out(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for f in FIXTURE_CORPUS.glob("*.py"):
        (corpus / f.name).write_text(f.read_text())
    build(corpus, tmp_path / "m.json", jobs=1, limit=6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fresh = CodingTasks(corpus, tmp_path / "m.json")
    assert fresh.stale == [] and fresh.ids("train") + fresh.ids("test") + fresh.ids("heldout")
    (corpus / "word_stats.py").write_text((corpus / "word_stats.py").read_text() + "\n# changed\n")
    with pytest.warns(StaleMutantData, match="build_tasks"):
        stale = CodingTasks(corpus, tmp_path / "m.json")
    assert stale.stale == ["word_stats"]
