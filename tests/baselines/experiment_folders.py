"""Fake experiment folders (the ``--out`` of `python -m baselines.budgetmix`) for the tests of the tools that read them."""

from __future__ import annotations

import json
from pathlib import Path

TASKS = [f"task-{i}" for i in range(40)]


def experiment_folder(root: Path, success: dict[str, float], tasks: list[str] = TASKS,
                      seeds: tuple[int, ...] = (1, 2, 3)) -> Path:
    """A folder whose schedule NAME succeeds on the first ``success[NAME]`` share of tasks, at T=2 and 8, for each seed."""
    (root / "eval").mkdir(parents=True)
    (root / "eval_tasks.json").write_text(json.dumps({"primary": tasks, "split2": [], "multi": []}))
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
