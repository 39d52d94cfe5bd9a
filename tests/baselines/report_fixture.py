"""The inputs of one experiment report, stored, and the report they render to: `baselines.report` pinned byte for byte.

``data/report_inputs.json`` holds what `baselines.experiment.run_experiment` passed to
`baselines.report.write_report` in a smoke run with every section on (split 2, multi-bug tasks,
injected faults, scripted and pick+loop references, probe, positive control), cut to the fields
the report reads. ``data/report_golden/`` holds the ``report.md``, ``contrasts.json`` and
``summary.json`` those inputs render to. When a change to the report's content is intended,
regenerate the golden files and review their diff:

    python tests/baselines/report_fixture.py
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

DATA = Path(__file__).parent / "data"
INPUTS = DATA / "report_inputs.json"
GOLDEN = DATA / "report_golden"
RENDERED = ("report.md", "contrasts.json", "summary.json")
"""The text files `write_report` writes (its PNGs are not compared: matplotlib's bytes vary by version)."""


def _by_seed(by_name: dict[str, dict[str, Any]]) -> dict[str, dict[int, Any]]:
    """JSON turned the seed keys into strings; the report expects ints."""
    return {name: {int(seed): v for seed, v in by.items()} for name, by in by_name.items()}


def report_inputs(out: Path) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``(args, kwargs)`` for ``write_report(*args, **kwargs)`` writing into ``out``."""
    d = json.loads(INPUTS.read_text())
    args = (out, SimpleNamespace(**d["args"]), d["schedules"], _by_seed(d["training"]), _by_seed(d["evals"]),
            d["timing"], d["probe"], d["task_lists"])
    return args, {"eval_cache": d["eval_cache"], "control": d["control"]}


def render(out: Path) -> Path:
    """Write the stored inputs' report into ``out``; returns the report's path."""
    from baselines.report import write_report

    out.mkdir(parents=True, exist_ok=True)
    args, kwargs = report_inputs(out)
    return write_report(*args, **kwargs)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    with tempfile.TemporaryDirectory() as tmp:
        render(Path(tmp))
        GOLDEN.mkdir(parents=True, exist_ok=True)
        for name in RENDERED:
            shutil.copyfile(Path(tmp) / name, GOLDEN / name)
    print(f"wrote {', '.join(RENDERED)} to {GOLDEN}")
