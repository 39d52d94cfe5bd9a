"""examples/pettingzoo_supersuit_sb3.py: KAttemptsEnv through black_death, SuperSuit vectorisation
(two pickled copies of a reset env) and SB3 PPO."""

from __future__ import annotations

import pytest

pytest.importorskip("supersuit", reason="pip install 'agentgym-budget[examples]'")


@pytest.mark.slow
def test_k_attempts_train_under_supersuit_and_sb3(run_example):
    proc = run_example(
        "pettingzoo_supersuit_sb3.py",
        "--k",
        "2",
        "--copies",
        "2",
        "--total-timesteps",
        "64",
        "--n-steps",
        "16",
        "--budget",
        "4",
        "--backend",
        "local",
    )
    assert "trained on 64 attempt-steps (2 attempts x 2 copies)" in proc.stdout
