"""What the docs claim of a rerun, tested: on the same machine and commit, the experiment's smoke-size
training on Coding-v0 repeats bit for bit (weights, optimizer moments, RNG state, summary, per-update
metrics), the second run's test verdicts coming from the result cache the first one filled. Across
machines it does not (another CPU's floating-point kernels change training), so `baselines.experiment.provenance`
records which machine made which bits; the experiment folder's record is checked here too."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import torch

from baselines.config import PRESETS, Args, TrainSettings
from baselines.experiment import provenance
from baselines.policy.train import train

TIMING = ("seconds", "per_second", "SPS", "step_ms", "straggler", "checkpoint", "result_cache")
"""Keys that measure time, name the run's folder, or count result-cache hits (a hit gives what a run gives):
everything else must repeat exactly."""


def _args(out: Path, seed: int = 1) -> Args:
    smoke = Args(**{**PRESETS["smoke"], "preset": "smoke"})
    return dataclasses.replace(
        smoke,
        backend="local",
        schedule="uniform:2-6",
        seed=seed,
        track=False,
        progress=False,
        collect_mode="lockstep",
        out=str(out),
    )


def _untimed(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if not any(t in k for t in TIMING)}


def _run(out: Path, seed: int = 1) -> dict[str, Any]:
    summary = train(TrainSettings.from_args(_args(out, seed)), "run")
    ckpt = torch.load(summary["checkpoint"], weights_only=False)
    return {
        "checkpoint": {k: v for k, v in ckpt.items() if k not in ("args", "history")},
        "history": [_untimed(row) for row in summary["history"]],
        "summary": _untimed({k: v for k, v in summary.items() if k != "history"}),
    }


def _same(a: Any, b: Any, where: str = "") -> list[str]:
    """Where ``a`` and ``b`` differ, tensors compared bit for bit (empty: identical)."""
    if isinstance(a, torch.Tensor):
        same = isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
        return [] if same else [where]
    if isinstance(a, dict):
        if not isinstance(b, dict) or a.keys() != b.keys():
            return [where]
        return [d for k in a for d in _same(a[k], b[k], f"{where}.{k}")]
    if isinstance(a, (list, tuple)):
        if not isinstance(b, (list, tuple)) or len(a) != len(b):
            return [where]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _same(x, y, f"{where}[{i}]")]
    return [] if a == b or (a != a and b != b) else [f"{where}: {a!r} != {b!r}"]


def test_two_runs_on_one_machine_and_commit_are_bit_identical(tmp_path: Path) -> None:
    first, second = _run(tmp_path / "a"), _run(tmp_path / "b")
    assert first["summary"]["env_steps"] >= 160 and first["summary"]["updates"] >= 2
    assert first["checkpoint"]["policy"] and first["checkpoint"]["optimizer"]["state"]
    assert _same(first, second) == []
    other_seed = _run(tmp_path / "c", seed=2)  # the comparison sees a difference where there is one
    assert any(d.startswith(".checkpoint.policy.") for d in _same(first, other_seed))


def test_the_record_names_the_machine_that_made_the_bits() -> None:
    m = provenance.machine()
    assert m["cpu"] and m["cpus"] and m["arch"]
    assert m["torch"]["version"] == torch.__version__ and m["torch"]["threads"] == torch.get_num_threads()
    assert m["torch"]["blas"] and m["torch"]["lapack"] and m["torch"]["cpu_capability"]
    assert "BLAS_INFO" in m["torch"]["config"] and "parallel" in m["torch"]["parallel_info"].lower()
    assert m["numpy"]["version"] and m["numpy"]["blas"]
    assert set(m["threads_env"]) == set(provenance.THREAD_VARIABLES)
    rec = provenance.record(Args(), {"primary": ["a"]}, ["t"])
    assert rec["machine"]["cpu"] == m["cpu"]
    # recorded, not compared: parts of one experiment may run on several machines (pool, compare)
    elsewhere = {**rec, "machine": {**rec["machine"], "cpu": "another CPU"}}
    assert provenance.differences(rec, elsewhere) == []
