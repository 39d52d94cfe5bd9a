"""examples/sb3_maskable_ppo.py: MaskablePPO trains on NumericView with BudgetMix and logs is_success."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib", reason="pip install 'agentgym-budget[examples]'")


@pytest.mark.slow
def test_maskable_ppo_logs_success_rate(run_example):
    proc = run_example(
        "sb3_maskable_ppo.py", "--total-timesteps", "64", "--n-steps", "32", "--budget", "2,4", "--backend", "local"
    )
    assert "rollout/" in proc.stdout and "success_rate" in proc.stdout
    assert "episodes with is_success logged:" in proc.stdout and "logged: 0," not in proc.stdout
