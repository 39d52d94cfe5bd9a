"""Every script under benchmarks/ still starts: its imports resolve, lazy ones included, and ``--help`` runs.

A benchmark is run by hand, rarely; when code it imports moves, nothing else notices. Two checks per
script: every ``from baselines... import NAME`` / ``from agentgym... import NAME`` in it (at module
level or inside a function, where benchmarks import lazily) names something that exists, and the
script answers ``--help`` (which imports its module level) without error. The grid-throughput
benchmark also runs at a smoke size, since its grid is the experiment's own job graph.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.py"))


def _project_imports(path: Path) -> list[tuple[int, str, str]]:
    """(line, module, name) of every ``from agentgym.../baselines... import name`` in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in ("agentgym", "baselines"):
                out += [(node.lineno, node.module, alias.name) for alias in node.names]
    return out


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_project_import_of_a_benchmark_resolves(script: Path) -> None:
    missing = []
    for line, module, name in _project_imports(script):
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:
            if exc.name and exc.name.split(".")[0] not in ("agentgym", "baselines"):
                continue  # an optional third-party dependency of that module, not a moved name
            missing.append(f"{script.name}:{line}: {module} ({exc})")
            continue
        if not hasattr(mod, name):
            try:
                importlib.import_module(f"{module}.{name}")  # `from package import submodule`
            except ImportError:
                missing.append(f"{script.name}:{line}: {module} has no {name}")
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_benchmark_answers_help(script: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(script), "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "usage" in proc.stdout.lower()


def test_a_moved_name_fails_the_import_check(tmp_path: Path) -> None:
    """The check above can fail: a lazy import of a name that does not exist is reported."""
    fake = tmp_path / "fake.py"
    fake.write_text("def run():\n    from baselines.experiment.jobs import train_all\n")
    [(line, module, name)] = _project_imports(fake)
    assert (module, name) == ("baselines.experiment.jobs", "train_all")
    assert not hasattr(importlib.import_module(module), name)


def test_the_grid_benchmark_runs_at_a_smoke_size(tmp_path: Path) -> None:
    """benchmarks/train.py's grid (the experiment's own training jobs) at one schedule, one seed and a
    few dozen env steps, on the sandbox-free positive-control env so it needs no Docker."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [
            sys.executable,
            "benchmarks/train.py",
            "--json",
            "--grid",
            "1x1",
            "--grid-steps",
            "64",
            "--grid-repeats",
            "1",
            "--workers",
            "1",
            "--no-per-run",
            "--set",
            "env_ids=baselines.experiment.budget_env:agentgym-test/BudgetRecover-v0",
            "--set",
            "backend=local",
            "--set",
            "num_envs=2",
            "--set",
            "steps_per_update=32",
            "--set",
            "minibatch_size=32",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    assert result["grid_env_steps_per_s"] > 0 and set(result["grid_configs"]) == {"before", "cold", "warm", "warm-1"}
