"""examples/custom_agent_grid.py: a user's agent class over a small K x T grid with the harness."""

from __future__ import annotations

import json


def test_the_grid_runs_and_the_budget_shows(run_example, tmp_path):
    out = tmp_path / "grid"
    proc = run_example("custom_agent_grid.py", "--tasks", "4", "--t", "2,8", "--k", "1,2", "--out", str(out))
    assert proc.seconds < 120  # seconds on a quiet machine
    lines = proc.stdout.splitlines()
    assert any(line.startswith("T=2 ") and line.split()[1:] == ["0.00", "0.00"] for line in lines)  # patch, test: out
    assert any(line.startswith("T=8 ") for line in lines) and "report.md" in proc.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["sandbox"] == "local" and summary["counts"]["episodes"] == 4 * 2 * 2
    assert (out / "pass_heatmap.png").is_file()


def test_the_agent_class_loads_by_name_as_agentgym_eval_loads_it(monkeypatch):
    """``agentgym eval --agent examples.custom_agent_grid:PatchTestRevert`` (from the repository root)."""
    import os

    from agentgym.agents.loading import load_agent

    monkeypatch.chdir(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    agent = load_agent("examples.custom_agent_grid:PatchTestRevert", budget_aware=True)
    assert type(agent).__name__ == "PatchTestRevert" and agent.budget_aware
