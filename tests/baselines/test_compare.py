"""`python -m baselines.experiment.compare`: two experiment folders, the same schedules, paired by task."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgym.errors import ConfigError
from baselines.experiment.compare import compare_runs, load_trained, main
from experiment_folders import TASKS
from experiment_folders import experiment_folder as _folder


def test_paired_differences_per_schedule_and_budget(tmp_path: Path) -> None:
    a = _folder(tmp_path / "a", {"budgetmix": 0.5, "fixed-T3": 0.25})
    b = _folder(tmp_path / "b", {"budgetmix": 0.25, "fixed-T3": 0.25, "curriculum": 0.1})
    assert sorted(load_trained(a)) == ["budgetmix", "fixed-T3"]
    rows = {(r["agent"], r["T"]): r for r in compare_runs(a, b)}
    assert sorted(rows) == [("budgetmix", 2), ("budgetmix", 8), ("fixed-T3", 2), ("fixed-T3", 8)]
    mix = rows[("budgetmix", 2)]
    assert mix["diff"] == pytest.approx(0.25) and mix["lo"] > 0 and mix["tasks"] == 40 and mix["seeds_a"] == 3
    assert rows[("fixed-T3", 8)]["diff"] == 0.0 and rows[("fixed-T3", 8)]["lo"] == 0.0


def test_different_task_lists_and_missing_schedules_are_errors(tmp_path: Path, capsys) -> None:
    a = _folder(tmp_path / "a", {"budgetmix": 0.5})
    other = _folder(tmp_path / "other", {"budgetmix": 0.5}, tasks=TASKS[:-1])
    with pytest.raises(ConfigError, match="different task lists"):
        compare_runs(a, other)
    with pytest.raises(ConfigError, match="not in both"):
        compare_runs(a, a, agents=["fixed-T12"])
    with pytest.raises(ConfigError, match="not a finished experiment"):
        load_trained(tmp_path)
    out = tmp_path / "table.md"
    assert main([str(a), str(a), "--ts", "2", "--out", str(out)]) == 0
    assert "| budgetmix | 2 | 0.50 | 0.50 | +0.00 |" in out.read_text()
    assert main([str(a), str(other)]) == 2 and "different task lists" in capsys.readouterr().err


def test_other_code_or_training_tasks_are_refused_and_the_knobs_compared_are_named(tmp_path: Path, capsys) -> None:
    from experiment_folders import SETTINGS

    a = _folder(tmp_path / "a", {"budgetmix": 0.5})
    newer = _folder(tmp_path / "newer", {"budgetmix": 0.5}, code="def5678")
    with pytest.raises(ConfigError, match=r"different code or tasks: code: abc1234 .* != def5678"):
        compare_runs(a, newer)
    trained = _folder(tmp_path / "trained", {"budgetmix": 0.5}, train_tasks=TASKS[:5])
    with pytest.raises(ConfigError, match=r"tasks.train"):
        compare_runs(a, trained)
    assert compare_runs(a, newer, check=False)  # named opt-out, for folders of older code
    knob = _folder(tmp_path / "knob", {"budgetmix": 0.25}, settings={**SETTINGS, "learning_rate": 0.001})
    out = tmp_path / "table.md"
    assert main([str(a), str(knob), "--out", str(out)]) == 0
    assert "Settings A != B: settings.learning_rate: 0.003 != 0.001." in out.read_text()
    assert main([str(a), str(a), "--out", str(out)]) == 0 and "none (replicates)" in out.read_text()
    assert main([str(a), str(newer)]) == 2 and "different code" in capsys.readouterr().err
    old = _folder(tmp_path / "old", {"budgetmix": 0.5}, code=None)
    assert main([str(a), str(old)]) == 2 and "--unchecked" in capsys.readouterr().err
    assert main([str(a), str(old), "--unchecked"]) == 0
