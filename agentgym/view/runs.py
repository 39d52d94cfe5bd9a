"""Finding evaluation runs on disk and reading their records.

A run is one folder holding ``episodes.jsonl`` (and, from ``agentgym eval``, ``run.json``). Three
layouts are recognised, so one command opens whatever an evaluation left behind:

- an evaluation folder: ``RUN/episodes.jsonl``;
- an agent folder of the BudgetMix experiment: ``RUN/<part>/episodes.jsonl`` (grid, split2, faults,
  intervention-N);
- an experiment folder: ``RUN/eval/<agent>/<part>/episodes.jsonl``, every agent listed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentgym.errors import ConfigError
from agentgym.eval.episodes import read_episodes

__all__ = ["Run", "find_runs", "load_runs", "EPISODES_FILE"]

EPISODES_FILE = "episodes.jsonl"


@dataclass
class Run:
    """One evaluation folder: its label in the page, its settings (``run.json``) and its records."""

    label: str
    path: Path
    config: dict[str, Any] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)


def _part_folders(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_dir() and (p / EPISODES_FILE).is_file())


def find_runs(path: str | os.PathLike[str], prefix: str = "") -> list[Run]:
    """The runs under ``path`` (not yet read), labelled ``prefix`` + their place in the layout.

    Raises `ConfigError` when ``path`` is not a folder or holds no ``episodes.jsonl`` in any known
    layout, naming the command that writes one.
    """
    root = Path(path)
    if not root.is_dir():
        raise ConfigError(f"{root} is not a folder: pass the --out folder of `agentgym eval` (or an experiment's)")
    if (root / EPISODES_FILE).is_file():
        return [Run(prefix + (root.resolve().name or str(root)), root)]
    parts = _part_folders(root)
    if parts:
        return [Run(f"{prefix}{root.resolve().name}/{p.name}", p) for p in parts]
    eval_dir = root / "eval"
    if eval_dir.is_dir():
        found = [
            Run(f"{prefix}{agent.name}/{p.name}", p)
            for agent in sorted(a for a in eval_dir.iterdir() if a.is_dir())
            for p in _part_folders(agent)
        ]
        if found:
            return found
    raise ConfigError(
        f"no {EPISODES_FILE} in {root}, its subfolders or {eval_dir}: write one with "
        f"`agentgym eval --env agentgym/Coding-v0 --agent oracle --out {root}` (or run the experiment)"
    )


def load_runs(paths: Sequence[str | os.PathLike[str]]) -> list[Run]:
    """Find and read the runs of every path; with two paths, labels start with ``A: `` and ``B: ``.

    Raises `ConfigError` when a run's records are all missing (an empty ``episodes.jsonl``).
    """
    prefixes = ["A: ", "B: "] if len(paths) == 2 else [""] * len(paths)
    runs: list[Run] = []
    for path, prefix in zip(paths, prefixes, strict=True):
        found = find_runs(path, prefix)
        for run in found:
            run.records = read_episodes(run.path / EPISODES_FILE)
            config_file = run.path / "run.json"
            if config_file.is_file():
                run.config = json.loads(config_file.read_text(encoding="utf-8"))
        if not any(run.records for run in found):
            raise ConfigError(
                f"{path}: {EPISODES_FILE} holds no episode records; run the evaluation first "
                f"(`agentgym eval ... --out {path}`), or let a running one write its first episodes"
            )
        runs.extend(run for run in found if run.records)
    return runs
