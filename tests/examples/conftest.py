"""Example smoke tests run each script as users do: ``python examples/NAME.py`` in a subprocess,
at a tiny size, on the local sandbox backend (seconds each)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def run_example():
    def run(name: str, *args: str, python: str = sys.executable, timeout: float = 300) -> subprocess.CompletedProcess:
        env = {**os.environ, "PYTHONPATH": ROOT, "PYTHONWARNINGS": "ignore"}
        start = time.monotonic()
        proc = subprocess.run(
            [python, os.path.join(ROOT, "examples", name), *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        proc.seconds = time.monotonic() - start  # type: ignore[attr-defined]
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        return proc

    return run
