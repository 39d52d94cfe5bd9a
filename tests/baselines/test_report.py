"""The experiment report: the same inputs render the same bytes (`report_fixture`), every section in its place."""

from __future__ import annotations

from pathlib import Path

import pytest

from report_fixture import GOLDEN, RENDERED, render


def test_stored_inputs_render_the_golden_report_byte_for_byte(tmp_path: Path) -> None:
    path = render(tmp_path)
    assert path == tmp_path / "report.md"
    for name in RENDERED:
        assert (tmp_path / name).read_bytes() == (GOLDEN / name).read_bytes(), (
            f"{name} differs from {GOLDEN / name}; if the change is intended: python tests/baselines/report_fixture.py"
        )
    for png in (
        "success_vs_T.png",
        "failure_categories.png",
        "first_commit_vs_recovery.png",
        "training.png",
        "positive_control.png",
    ):
        assert (tmp_path / png).stat().st_size > 1000, png


def test_report_sections_come_in_reading_order(tmp_path: Path) -> None:
    """Setup first, the headline and its contrasts next, the detail after, training curves last."""
    text = render(tmp_path).read_text()
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    order = [
        "## Protocol",
        "## Throughput",
        "## Training exposure per run",
        "## Success at each budget T",
        "## Contrasts named in advance",
        "## Hypotheses on",
        "## Process supervision against budget design",
        "## Subtask correctness",
        "## Recovery by intervention",
        "## Multi-bug tasks",
        "## Pass@(K,T)",
        "## Failure categories per T",
        "## Recovery under injected faults",
        "## First decisions against recovery",
        "## Cost per success",
        "## Training cost, inference cost and cross-budget success",
        "## What each agent does at each T",
        "## Traces",
        "## Does the policy use the budget",
        "## Positive control",
        "## Training curves",
    ]
    assert [next(i for i, h in enumerate(headings) if h.startswith(o)) for o in order] == list(range(len(order)))


def test_a_family_without_first_commits_leaves_the_decisions_section_and_plot_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MiniWoB-v0's records label no first commitment: a table of dashes and an empty plot say nothing."""
    from types import SimpleNamespace

    from baselines.report import plots as report_plots
    from baselines.report.markdown import decisions_section

    for other in ("_plot_success", "_plot_categories", "_plot_training"):
        monkeypatch.setattr(report_plots, other, lambda *a: None)

    empty = {
        "first_commit_accuracy": None,
        "success_if_right": None,
        "recovery_rate": None,
        "recovered": 0,
        "wrong_first": 0,
        "committed": 0,
        "episodes": 28,
    }
    decisions = {"random": {1: empty, 12: empty}, "fixed-T2": {1: empty, 12: empty}}
    text = "\n".join(decisions_section(SimpleNamespace(decisions=decisions)))
    assert "Left out" in text and "first_commit_vs_recovery.png" not in text and "|" not in text
    report_plots.draw_plots(
        tmp_path, success={}, ts=[1, 12], schedules={}, categories={}, decisions=decisions, training={}
    )
    assert not (tmp_path / "first_commit_vs_recovery.png").exists()
    committed = {**empty, "committed": 3, "first_commit_accuracy": 0.5, "recovery_rate": 0.0, "success_if_right": 1.0}
    text = "\n".join(decisions_section(SimpleNamespace(decisions={"random": {1: committed}})))
    assert "first_commit_vs_recovery.png" in text
