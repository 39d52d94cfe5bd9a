"""Fake experiment folders (the ``--out`` of `python -m baselines.budgetmix`)
for the tests of the tools that read them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from baselines.experiment.provenance import _digest

TASKS = [f"task-{i}" for i in range(40)]
SETTINGS = {"t_short": 3, "t_long": 12, "mix": "uniform:2-12", "total_env_steps": 800, "learning_rate": 0.003}


def experiment_folder(
    root: Path,
    success: dict[str, float],
    tasks: list[str] = TASKS,
    seeds: tuple[int, ...] = (1, 2, 3),
    code: str | None = "abc1234",
    settings: dict[str, Any] | None = None,
    train_tasks: list[str] = TASKS,
) -> Path:
    """A folder whose schedule NAME succeeds on the first ``success[NAME]`` share of tasks, at T=2 and 8, for each seed.

    Its ``provenance.json`` says it ran ``code`` (a git describe; the source digest is derived from
    it) with ``settings`` (default `SETTINGS`) and trained on ``train_tasks``; ``code=None``: a
    folder written before records were kept (no file)."""
    (root / "eval").mkdir(parents=True)
    lists = {"primary": tasks, "split2": [], "multi": []}
    (root / "eval_tasks.json").write_text(json.dumps(lists))
    if code is not None:
        record = {
            "code": {"sources": _digest(code), "git": code},
            "settings": settings or SETTINGS,
            "tasks": {**{f"eval/{k}": _digest(v) for k, v in sorted(lists.items())}, "train": _digest(train_tasks)},
        }
        (root / "provenance.json").write_text(json.dumps(record))
    for name, share in success.items():
        for seed in seeds:
            grid = root / "eval" / f"{name}-s{seed}" / "grid"
            grid.mkdir(parents=True)
            with (grid / "episodes.jsonl").open("w") as f:
                for i, task in enumerate(tasks):
                    for t in (2, 8):
                        f.write(json.dumps({"task": task, "T": t, "success": i < share * len(tasks)}) + "\n")
    ref = root / "eval" / "ref:budgetmix-pick+loop-s1" / "grid"  # a reference: not a trained schedule
    ref.mkdir(parents=True)
    (ref / "episodes.jsonl").write_text(json.dumps({"task": tasks[0], "T": 2, "success": True}) + "\n")
    return root
