"""tests/baselines: one torch thread (OpenMP threads spin on a busy shared CPU), budget_env importable
(Coding-v0's disk result cache is the test run's folder, tests/conftest.py, which trainer subprocesses inherit),
the trainer's idle envs (`baselines.policy.env_pool`) closed at the end of each module, and one smoke run of the
experiment's command line that two tests read."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))
torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", autouse=True)
def close_pooled_envs() -> Iterator[None]:
    """The trainer's `make_env` lends envs from a pool that keeps their sandboxes open for the next
    borrower until exit; a module's tests share them, and the next module starts with none held."""
    yield
    if "baselines.policy.env_pool" in sys.modules:
        sys.modules["baselines.policy.env_pool"].close_idle()


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """``python -m baselines.budgetmix --smoke --backend local --workers 1`` once per test run, with a
    result cache of its own: (its output folder, the environment it ran with). The CLI smoke test
    checks its output; the grid test runs 2 workers and Ray with the same environment and compares
    them with it (each run is about 20 s on two cores). Under pytest-xdist the workers share one run:
    it lives in the run's cache folder (tests/conftest.py), made under a file lock by the first worker
    that asks, and read by the others."""
    shared = os.environ.get("_AGENTGYM_TEST_RUN_CACHE")
    base = Path(shared) / "smoke-run" if shared else tmp_path_factory.mktemp("smoke")
    base.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "baselines")]),
        "AGENTGYM_CACHE_DIR": str(base / "cache"),
    }
    out = base / "w1"
    with open(base / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second worker waits here for the first one's run
        if not (base / "done").exists():
            shutil.rmtree(out, ignore_errors=True)  # a failed earlier attempt
            proc = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "baselines.budgetmix",
                    "--smoke",
                    "--backend",
                    "local",
                    "--out",
                    str(out),
                    "--workers",
                    "1",
                ],
                cwd=base,
                env=env,
                capture_output=True,
                text=True,
                timeout=400,
            )
            assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
            (base / "done").touch()
    return out, env
