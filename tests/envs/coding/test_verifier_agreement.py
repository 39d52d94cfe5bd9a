"""The agreement benchmark at a small size, on Docker: every version's verdict is the hidden tests'.

`benchmarks/verifier_agreement.py` submits versions of each sampled task's module through the
grammar and runs them under pytest on the host; here its CLI runs on the first tasks of its sample
and every version kind must agree (the full run's table is in docs/security.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.docker import require_docker

pytestmark = pytest.mark.docker

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "verifier_agreement.py"


@pytest.mark.slow
def test_the_verdict_agrees_with_the_hidden_tests_on_every_version_kind():
    require_docker("agentgym/coding:latest")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--limit", "4", "--backend", "docker", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    table = out["today"]["by_kind"]
    assert out["tasks"] == 4 and out["versions"] >= 30
    for kind in ("reference", "reworded_messages", "buggy", "wrong_patch", "other_mutant"):
        assert table[kind]["versions"] > 0, kind
    assert out["disagreements"] == [], out["disagreements"]
    assert all(r["agree"] == r["versions"] for r in table.values()), table
    assert out["today"]["verify_ms"]["n"] == out["versions"]
