"""The real CLIs in a subprocess at a tiny budget: `python -m baselines.budgetmix --smoke` and SB3."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str], tmp_path: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "baselines")])}
    return subprocess.run(
        [sys.executable, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.slow
def test_budgetmix_smoke_runs_the_whole_experiment(smoke_run: tuple[Path, dict[str, str]]) -> None:
    out, _ = (
        smoke_run  # `--smoke --backend local --workers 1` (conftest; test_grid checks 2 workers and Ray give the same)
    )
    report = (out / "report.md").read_text()
    for section in (
        "Success at each budget T",
        "Contrasts named in advance",
        "Pass@(K,T)",
        "Failure categories per T",
        "Recovery under injected faults",
        "First decisions against recovery",
        "recovered / wrong first",
        "Cost per success",
        "env steps/s",
        "forced-state probe",
        "P(revert \\| failing test)",
    ):
        assert section in report, section
    for name in ("random", "fixed-T3", "fixed-T6", "budgetmix", "curriculum", "curriculum-steps"):
        assert f"| {name} |" in report
    for label in "abcdefg":  # every named contrast has a row
        assert f"| {label} |" in report, label
    assert "Equivalence test for (d)" in report and "p (Holm)" in report and "## Traces" in report
    assert "## Positive control" in report and (out / "positive_control.png").stat().st_size > 1000
    control = json.loads((out / "control.json").read_text())
    # the three schedules from scratch, and PPO started from the optimum cloned into the network (issue 34)
    assert set(control["by_T"]) == {"fixed-T2", "fixed-T10", "budgetmix", "fixed-T10 from the optimum"}
    assert set(control["best_policy"]) == {"2", "5", "10"} and set(control["cloned_start"]) == {"2", "5", "10"}
    contrasts = json.loads((out / "contrasts.json").read_text())
    # (a)-(g), the primary intervention's (h1)-(h4) in the family, the other interventions' rows beside it
    assert {c["label"] for c in contrasts} == set("abcdefg") | {"h1", "h2", "h3", "h4", "h1'", "h2'", "h3'"}
    assert "## Recovery by intervention" in report and "BudgetMix without forced starts" in report
    family = [c for c in contrasts if not c["label"].endswith("'")]  # the variants are outside the Holm family
    assert all({"p", "p_holm"} <= set(c) for c in family) and not any(
        "p_holm" in c for c in contrasts if c not in family
    )
    # every difference of success has its equivalence test; (h4) is a share, not a difference
    assert all({"lo90", "hi90", "p_equiv", "equivalent"} <= set(c) for c in contrasts if c["label"] != "h4")
    # summary.json: per agent and T, success with its interval, accuracy, success when right, recovery counts
    result = json.loads((out / "summary.json").read_text())
    assert result["schema"] == 1 and result["ts"] == [2, 6] and result["tasks"] == 2
    assert {"random", "fixed-T3", "fixed-T6", "budgetmix", "curriculum", "curriculum-steps"} <= set(result["agents"])
    for agent in result["agents"].values():
        assert set(agent["by_T"]) == {"2", "6"} and agent["seeds"] >= 1
        for cell in agent["by_T"].values():
            assert set(cell["success"]) == {"mean", "lo", "hi"} and 0.0 <= cell["success"]["mean"] <= 1.0
            assert cell["success"]["lo"] <= cell["success"]["mean"] <= cell["success"]["hi"]
            assert isinstance(cell["recovered"], int) and isinstance(cell["wrong_first"], int)
            assert 0 <= cell["recovered"] <= cell["wrong_first"] <= cell["committed"] <= cell["episodes"]
            assert {"first_commit_accuracy", "success_if_right", "recovery_rate"} <= set(cell)

    for png in ("success_vs_T.png", "failure_categories.png", "first_commit_vs_recovery.png", "training.png"):
        assert (out / png).stat().st_size > 1000, png
    assert "Coding-v0 result cache" in report and "in the evaluation test " in report  # two eval processes, counted
    summary = json.loads((out / "budgetmix-s1" / "summary.json").read_text())
    assert summary["result_cache"]["test"]["hits"] + summary["result_cache"]["test"]["misses"] > 0
    assert summary["env_steps"] >= 160 and summary["steps_per_second"] > 0
    assert summary["rollout_seconds"] > 0 and "straggler_seconds" in summary and summary["step_ms_by_kind"]
    assert (out / "budgetmix-s1" / "checkpoint.pt").exists()
    assert any((out / "budgetmix-s1" / "tb").iterdir())  # TensorBoard event file
    # one fixed list of held-out tasks, the same for every agent
    tasks = json.loads((out / "eval_tasks.json").read_text())
    assert len(tasks["primary"]) == 2 and all("/one_bug/" in t for t in tasks["primary"])
    # what pool and compare check: the code, the settings and the task lists (baselines/experiment/provenance.py)
    record = json.loads((out / "provenance.json").read_text())
    assert record["code"]["sources"] and record["settings"]["t_short"] == 3 and "seeds" not in record["settings"]
    assert set(record["tasks"]) == {"eval/primary", "eval/split2", "eval/multi", "train"}
    grids = {
        name: [json.loads(line) for line in (out / "eval" / name / "grid" / "episodes.jsonl").open()]
        for name in ("budgetmix-s1", "random")
    }
    for grid in grids.values():
        assert {r["T"] for r in grid} == {2, 6} and all(r["infra_error"] is None for r in grid)
        assert {r["task"] for r in grid} == set(tasks["primary"])
        # every episode's trace has one label per turn (`baselines.report.decisions.trace_label`)
        assert all(len(r["cost"]["trace"].split()) == r["turns"] for r in grid)


@pytest.mark.slow
def test_budgetmix_resume_continues_a_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = [
        "-m",
        "baselines.budgetmix",
        "--smoke",
        "--backend",
        "local",
        "--out",
        str(out),
        "--schedule",
        "uniform:2-6",
    ]
    first = _run(args, tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    again = _run(args + ["--resume", "--total-env-steps", "320"], tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    before, after = json.loads(first.stdout), json.loads(again.stdout)
    assert before["env_steps"] >= 160 and after["env_steps"] >= 320
    # it continued from the checkpoint (same updates first), it did not start over
    history = json.loads((out / "budgetmix-uniform-2-6" / "summary.json").read_text())["history"]
    assert len(history) > before["updates"] and history[0]["global_step"] <= 160


def test_sb3_ppo_trains_on_the_numeric_view(tmp_path: Path) -> None:
    pytest.importorskip("stable_baselines3")
    proc = _run(
        [
            "-m",
            "baselines.sb3_ppo",
            "--env-id",
            "budget_env:agentgym-test/BudgetChoice-v0",
            "--total-timesteps",
            "256",
            "--n-steps",
            "64",
            "--num-envs",
            "2",
            "--eval-ts",
            "2,8",
            "--eval-episodes",
            "4",
            "--max-actions",
            "8",
        ],
        tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(proc.stdout[proc.stdout.index("{") :])
    assert result["timesteps"] >= 256 and set(result["success_by_T"]) == {"2", "8"}
