"""`python -m baselines.experiment.pool`: parts of one experiment with different seeds, analysed as one."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgym.errors import ConfigError
from baselines.experiment.compare import compare_runs
from baselines.experiment.pool import main, pool_runs, pooled_report
from experiment_folders import TASKS, experiment_folder

SCHEDULES = {"fixed-T3": 0.5, "fixed-T12": 0.25, "budgetmix": 0.5, "curriculum": 0.25}


def test_pooled_seeds_and_named_contrasts(tmp_path: Path) -> None:
    a = experiment_folder(tmp_path / "a", SCHEDULES, seeds=(1, 2, 3))
    b = experiment_folder(tmp_path / "b", SCHEDULES, seeds=(4, 5))
    agents, tasks = pool_runs([a, b])
    assert tasks == TASKS and sorted(agents) == sorted(SCHEDULES)
    assert sorted(agents["budgetmix"]) == [1, 2, 3, 4, 5]  # the reference stays out, as in compare
    report = pooled_report([a, b], resamples=200)
    assert report["success"]["budgetmix"][2]["seeds"] == 5 and report["success"]["budgetmix"][2]["mean"] == 0.5
    by_name = {c["name"]: c for c in report["contrasts"]}
    # (b): budgetmix (0.5) - the long specialist fixed-T12 (0.25) at the shortest T, over all 5 seeds
    b_row = by_name["BudgetMix vs fixed-T_long at the shortest T"]
    assert b_row["a"] == "budgetmix @T=2" and b_row["b"] == "fixed-T12 @T=2"
    assert b_row["diff"] == pytest.approx(0.25) and b_row["lo"] > 0 and b_row["seeds_a"] == 5
    assert by_name["BudgetMix vs fixed-T_short at the longest T"]["b"] == "fixed-T3 @T=8"
    assert {c["label"] for c in report["contrasts"]} == set("abcdefg")


def test_a_seed_in_two_parts_or_different_lists_are_errors(tmp_path: Path, capsys) -> None:
    a = experiment_folder(tmp_path / "a", SCHEDULES, seeds=(1, 2))
    again = experiment_folder(tmp_path / "again", SCHEDULES, seeds=(2, 3))
    with pytest.raises(ConfigError, match=r"seed\(s\) \[2\] appear in more than one folder"):
        pool_runs([a, again])
    other_list = experiment_folder(tmp_path / "list", SCHEDULES, tasks=TASKS[:-1], seeds=(7,))
    with pytest.raises(ConfigError, match="different task lists"):
        pool_runs([a, other_list])
    fewer = experiment_folder(tmp_path / "fewer", {"budgetmix": 0.5}, seeds=(9,))
    with pytest.raises(ConfigError, match="different schedules"):
        pool_runs([a, fewer])
    with pytest.raises(ConfigError, match="at least two"):
        pool_runs([a])
    assert main([str(a), str(again)]) == 2 and "more than one folder" in capsys.readouterr().err


def test_cli_writes_the_tables(tmp_path: Path, capsys) -> None:
    a = experiment_folder(tmp_path / "a", SCHEDULES, seeds=(1,))
    b = experiment_folder(tmp_path / "b", SCHEDULES, seeds=(2,))
    out = tmp_path / "pooled.md"
    assert main([str(a), str(b), "--out", str(out)]) == 0
    text = out.read_text()
    assert "seeds [1, 2]" in text and "| budgetmix | 0.50 [" in text and "| fixed-T12 | 0.25 [" in text
    assert "| b | BudgetMix vs fixed-T_long at the shortest T |" in text
    assert capsys.readouterr().out == text
    # the same folders compared (not pooled) are two samples of one knob: no difference
    assert all(r["diff"] == 0.0 for r in compare_runs(a, b))


def test_parts_of_other_code_settings_or_training_tasks_are_refused_with_the_difference_named(
    tmp_path: Path, capsys
) -> None:
    from experiment_folders import SETTINGS

    a = experiment_folder(tmp_path / "a", SCHEDULES, seeds=(1, 2))
    newer = experiment_folder(tmp_path / "newer", SCHEDULES, seeds=(3,), code="def5678-dirty")
    with pytest.raises(ConfigError, match=r"code: abc1234 \(sources \w+\) != def5678-dirty"):
        pool_runs([a, newer])
    longer = experiment_folder(tmp_path / "longer", SCHEDULES, seeds=(4,), settings={**SETTINGS, "t_long": 16})
    with pytest.raises(ConfigError, match=r"settings.t_long: 12 != 16"):
        pool_runs([a, longer])
    added = experiment_folder(tmp_path / "added", SCHEDULES, seeds=(5,), settings={**SETTINGS, "turn_cost": 0.1})
    with pytest.raises(ConfigError, match=r"settings.turn_cost: '<absent>' != 0.1"):
        pool_runs([a, added])
    trained = experiment_folder(tmp_path / "trained", SCHEDULES, seeds=(6,), train_tasks=TASKS[:10])
    with pytest.raises(ConfigError, match=r"tasks.train: "):
        pool_runs([a, trained])
    assert main([str(a), str(newer)]) == 2 and "is not a part of the experiment" in capsys.readouterr().err
    # a folder written before records were kept: refused, unless the check is skipped by name
    old = experiment_folder(tmp_path / "old", SCHEDULES, seeds=(7,), code=None)
    with pytest.raises(ConfigError, match="no provenance.json.*--unchecked"):
        pool_runs([a, old])
    agents, _ = pool_runs([a, old], check=False)
    assert sorted(agents["budgetmix"]) == [1, 2, 7]
    assert main([str(a), str(newer), "--unchecked"]) == 0
