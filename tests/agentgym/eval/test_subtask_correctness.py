"""Subtask correctness beside success: each episode record says how many of its task's subtasks were done
at the end, and the summary and report give the share per T, apart for submitted and cut-off episodes."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgym.eval import evaluate
from agentgym.eval.metrics import subtask_correctness


def _rec(t: int, done: int, total: int, submitted: bool, success: bool) -> dict:
    return {
        "T": t,
        "task": f"x{done}{total}{submitted}",
        "success": success,
        "submitted": submitted,
        "subtasks": {"done": done, "total": total},
    }


def test_the_share_is_split_by_how_the_episode_ended() -> None:
    rows = [_rec(2, 2, 2, False, False), _rec(2, 1, 4, False, False), _rec(8, 3, 3, True, True)]
    rows.append({"T": 8, "task": "none", "success": False, "submitted": True})  # a task without subtasks
    out = subtask_correctness(rows)
    assert out[2] == {"all": pytest.approx(0.625), "submitted": None, "cut_off": pytest.approx(0.625), "episodes": 2}
    assert out[8]["all"] == 1.0 and out[8]["cut_off"] is None and out[8]["episodes"] == 1


@pytest.mark.filterwarnings("ignore::agentgym.sandbox.local.LocalSandboxWarning")
def test_the_oracle_cut_off_at_t2_did_its_subtasks_without_success(tmp_path: Path) -> None:
    """At T=2 the oracle's fix is made but never submitted: progress without success, which the
    report shows beside pass@1; at T=16 every subtask is done and the task passes."""
    run = evaluate(
        "agentgym/ToolUse-v0",
        "oracle",
        ks="1",
        ts="2,16",
        n=1,
        split="test",
        tasks=3,
        workers=1,
        seed=0,
        out=tmp_path,
        sandbox="local",
        progress=False,
        report=True,
    )
    short = [r for r in run.records if r["T"] == 2]
    assert all(r["subtasks"]["total"] > 0 and not r["success"] for r in short)
    assert any(r["subtasks"]["done"] > 0 for r in short)
    assert all(r["subtasks"]["done"] == r["subtasks"]["total"] for r in run.records if r["T"] == 16)
    report = (tmp_path / "report.md").read_text()
    assert "## Subtask correctness" in report and "| 16 | 1.00 | 1.00 | 1.00 | – | 3 |" in report
