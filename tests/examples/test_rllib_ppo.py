"""examples/rllib_ppo.py in its own virtual environment: ray[rllib] 2.60 pins gymnasium 1.2.2.

The venv reuses the installed torch (--system-site-packages; a fresh torch is GBs) and gets
ray[rllib] and its gymnasium from the package index; agentgym comes from the source tree.
Measured on the 2-core development machine: about 35 s to build the venv, 27 s to run.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("torch", reason="RLlib's PPO needs torch (pip install torch==2.13.0)")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.slow
def test_rllib_ppo_trains_on_a_flattened_numeric_view(tmp_path, run_example):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    pip = subprocess.run(
        [python, "-m", "pip", "install", "-q", "ray[rllib]==2.60.*"], capture_output=True, text=True, timeout=900
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    versions = subprocess.run(
        [python, "-c", "import gymnasium, ray; print(gymnasium.__version__, ray.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert versions[0].startswith("1.2.") and versions[1].startswith("2.60.")  # RLlib's own pin, not ours
    proc = run_example(
        "rllib_ppo.py", "--iterations", "1", "--batch", "64", "--backend", "local", python=python, timeout=600
    )
    assert "iteration 1: episodes" in proc.stdout
