"""The evaluation lists (issue 34): a fresh headline list drawn by a committed rule from tasks no
spent list holds, the tuning list kept under its name, and intervals that resample held-out units."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agentgym.errors import ConfigError
from baselines.experiment import eval_lists
from baselines.experiment.eval_lists import fresh_list, seeded_list, spent_lists, task_list
from baselines.report.contrasts import contrast, success_at
from baselines.report.contrasts import task_unit as unit_of

CODING, HELDOUT, ONE_BUG = "agentgym/Coding-v0", "heldout", ("one_bug",)
IDS = [f"fam/tier/m{m}/task{i}" for m in range(6) for i in range(20)]


@pytest.fixture
def fake_split(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """120 tasks in 6 units, and an empty spent-list file to write to."""
    monkeypatch.setattr(eval_lists, "split_task_ids", lambda env_id, split, tiers: list(IDS))
    path = tmp_path / "eval_lists.json"
    monkeypatch.setattr(eval_lists, "SPENT_FILE", path)
    return path


def _spend(path: Path, name: str, ids: list[str]) -> None:
    doc = json.loads(path.read_text()) if path.exists() else {}
    doc.setdefault("env", {}).setdefault("heldout/", {})[name] = {"rule": "test", "ids": ids}
    path.write_text(json.dumps(doc))


def test_the_committed_tuning_list_is_the_old_headline_list_and_the_fresh_list_avoids_it() -> None:
    tuning = spent_lists(CODING, HELDOUT, ONE_BUG)["tuning-1"]
    assert tuning == seeded_list(CODING, HELDOUT, ONE_BUG, 100)  # the record matches the rule it names
    fresh = task_list("fresh-1", CODING, HELDOUT, ONE_BUG, 100)
    assert len(fresh) == 100 and fresh == sorted(fresh) and not set(fresh) & set(tuning)
    assert len({unit_of(t) for t in fresh}) == 13  # every held-out module is in it
    assert task_list("tuning-1", CODING, HELDOUT, ONE_BUG, 100) == tuning


def test_the_fresh_rule_depends_only_on_the_ids_and_the_next_draw_avoids_a_spent_one(fake_split: Path) -> None:
    first = fresh_list("env", "heldout", None, 30)
    assert first == fresh_list("env", "heldout", None, 30) == sorted(first)
    assert set(fresh_list("env", "heldout", None, 10)) <= set(first)  # a shorter list: the same hash order, cut earlier
    _spend(fake_split, "fresh-1", first)  # someone tuned on fresh-1: it is spent
    second = task_list("fresh-2", "env", "heldout", None, 30)
    assert not set(second) & set(first)
    assert set(fresh_list("env", "heldout", None, 90)) == set(IDS) - set(first)  # all that is left
    with pytest.raises(ConfigError, match="never spent"):
        fresh_list("env", "heldout", None, 91)


def test_unknown_list_names_are_config_errors_that_list_the_choices(fake_split: Path) -> None:
    _spend(fake_split, "tuning-1", IDS[:10])
    for bad in ("fresh-0", "fresh-x", "tuning-2", ""):
        with pytest.raises(ConfigError, match="tuning-1"):
            task_list(bad, "env", "heldout", None, 10)


def test_unit_intervals_widen_when_tasks_of_a_unit_succeed_together() -> None:
    rng = np.random.default_rng(0)
    tasks = IDS
    unit_effect = {f"fam/tier/m{m}": rng.choice([0.0, 1.0]) for m in range(6)}  # a unit is all-or-nothing
    a = {s: {(t, 8): unit_effect[unit_of(t)] for t in tasks} for s in range(3)}
    b = {s: {(t, 8): 0.5 for t in tasks} for s in range(3)}
    one = success_at(a, tasks, 8, unit_of=unit_of)
    assert one["units"] == 6 and one["hi_unit"] - one["lo_unit"] > 2 * (one["hi"] - one["lo"])
    c = contrast(a, 8, b, 8, tasks, unit_of=unit_of)
    assert c["hi_unit"] - c["lo_unit"] > 2 * (c["hi"] - c["lo"])
    assert c["p_unit"] >= c["p"]
    # without unit_of the result is unchanged and carries no unit fields
    assert "lo_unit" not in contrast(a, 8, b, 8, tasks) and contrast(a, 8, b, 8, tasks)["lo"] == c["lo"]
