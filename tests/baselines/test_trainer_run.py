"""`baselines.policy.train.train`, whole runs on the sandbox-free budget env: a run depends only on its seed and
settings (bit for bit, in lockstep collection), and ``--resume`` continues a run or skips a finished one."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import torch

from baselines.config import PRESETS, Args, TrainSettings
from baselines.experiment.control import CONTROL_ENV
from baselines.policy.train import train

TIMING = ("seconds", "per_second", "SPS", "step_ms", "straggler", "checkpoint")
"""Summary and history keys that measure time (or name the run folder): the rest must repeat exactly."""


def _args(out: Path, **kw: Any) -> Args:
    base = Args(**{**PRESETS["quick"], "preset": "quick"})
    settings = dict(
        env_ids=CONTROL_ENV,
        backend="local",
        total_env_steps=256,
        num_envs=2,
        env_threads=1,
        steps_per_update=64,
        minibatch_size=64,
        update_epochs=2,
        dim=32,
        hidden=16,
        track=False,
        progress=False,
        collect_mode="lockstep",
        seed=3,
        schedule="curriculum:2-6",
        turn_cost=0.05,
    )
    return dataclasses.replace(base, **{**settings, **kw, "out": str(out)})


def _untimed(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != "history" and not any(t in k for t in TIMING)}


def _state(summary: dict[str, Any]) -> dict[str, Any]:
    ckpt = torch.load(summary["checkpoint"], weights_only=False)
    return {
        "policy": ckpt["policy"],
        "optimizer": ckpt["optimizer"]["state"],
        "summary": _untimed(summary),
        "history": [_untimed(row) for row in summary["history"]],
    }


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b or (a != a and b != b)  # nan == nan here


def test_same_seed_same_run_bit_for_bit(tmp_path: Path) -> None:
    """Policy, optimizer moments, summary and per-update metrics repeat exactly; another seed differs."""
    # 384 steps: forced starts at every budget (equal exposure) count as env steps, so 256 made only 3 updates
    runs = [
        _state(train(TrainSettings.from_args(_args(tmp_path / name, seed=seed, total_env_steps=384)), "run"))
        for name, seed in (("a", 3), ("b", 3), ("c", 4))
    ]
    assert runs[0]["summary"]["env_steps"] >= 384 and runs[0]["summary"]["updates"] == len(runs[0]["history"]) >= 4
    assert _same(runs[0], runs[1])
    assert not _same(runs[0]["policy"], runs[2]["policy"])


def test_resume_continues_a_run_and_skips_a_finished_one(tmp_path: Path) -> None:
    first = train(TrainSettings.from_args(_args(tmp_path, total_env_steps=128)), "run")
    resumed = train(TrainSettings.from_args(_args(tmp_path, resume=True)), "run")
    assert first["env_steps"] >= 128 and resumed["env_steps"] >= 256
    assert resumed["history"][: len(first["history"])] == json.loads(json.dumps(first["history"]))
    assert resumed["updates"] == len(resumed["history"]) > len(first["history"])
    ckpt = Path(resumed["checkpoint"])
    written = ckpt.stat().st_mtime_ns
    again = train(
        TrainSettings.from_args(_args(tmp_path, resume=True)), "run"
    )  # finished: returned from summary.json, nothing retrained
    assert ckpt.stat().st_mtime_ns == written and again == {**json.loads(json.dumps(resumed)), "skipped": True}


def test_the_command_line_module_trains_with_the_same_function() -> None:
    import baselines.budgetmix as budgetmix
    import baselines.policy.train as trainer

    assert budgetmix.train is trainer.train
