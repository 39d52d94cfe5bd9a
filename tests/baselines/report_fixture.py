"""The inputs of one experiment report, stored, and the report they render to:
`baselines.report.markdown` pinned byte for byte.

``data/report_inputs.json`` holds what `baselines.experiment.run.run_experiment` passed to
`baselines.report.markdown.write_report` in a smoke run with two training seeds and every section on
(split 2, multi-bug tasks, injected faults, scripted and pick+loop references, probe, positive
control), keyed by `write_report`'s parameter names. ``data/report_golden/`` holds the
``report.md``, ``contrasts.json`` and ``summary.json`` those inputs render to. When a change to
the report's content is intended, regenerate the golden files and review their diff:

    python tests/baselines/report_fixture.py

When the experiment passes the report something new, capture fresh inputs from a smoke run
(about two minutes on two cores; Docker or ``--backend local``), then regenerate the golden files:

    python tests/baselines/report_fixture.py --capture
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
INPUTS = DATA / "report_inputs.json"
GOLDEN = DATA / "report_golden"
RENDERED = ("report.md", "contrasts.json", "summary.json")
"""The text files `write_report` writes (its PNGs are not compared: matplotlib's bytes vary by version)."""
CAPTURE_FLAGS = [
    "--preset",
    "smoke",
    "--seeds",
    "1,2",
    "--eval-references",
    "budget-aware,pick+loop",
    "--eval-multi-tasks",
    "2",
    "--workers",
    "2",
    "--process-arms",
    "0.5",
    "--process-seeds",
    "1",
]
"""The smoke run whose `write_report` inputs are stored: two seeds, every section on."""
BY_SEED = ("training", "evals")
RECORD_KEYS = (
    "T",
    "actions",
    "budget_exhausted",
    "category",
    "cost",
    "env",
    "faults",
    "flags",
    "forced_turns",
    "infra_error",
    "intervention",
    "latency_s",
    "n_errors",
    "n_faults",
    "no_candidate",
    "sample",
    "submitted",
    "subtasks",
    "success",
    "task",
    "turns",
)
"""The fields of an episode record kept in `INPUTS` (a patch action is cut to a digest of its diff)."""
"""Inputs keyed by agent, then seed: JSON turns the seed keys into strings; the report expects ints."""


def report_inputs(out: Path) -> dict[str, Any]:
    """Keyword arguments of ``write_report`` writing into ``out``."""
    from types import SimpleNamespace

    d = json.loads(INPUTS.read_text())
    for key in BY_SEED:
        d[key] = {name: {int(seed): v for seed, v in by.items()} for name, by in d[key].items()}
    from baselines.config import ReportSettings

    settings = d.pop("settings", None) or d.pop("args")  # stored as the whole Args before the report took settings
    return {**d, "out": out, "settings": ReportSettings.from_args(SimpleNamespace(**settings))}


def render(out: Path) -> Path:
    """Write the stored inputs' report into ``out``; returns the report's path."""
    from baselines.report.markdown import write_report

    out.mkdir(parents=True, exist_ok=True)
    return write_report(**report_inputs(out))


def _cut(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with the `RECORD_KEYS` only, each patch action named by a digest of its diff."""
    import hashlib

    def action(a: str) -> str:
        return f"patch {hashlib.blake2b(a.encode(), digest_size=4).hexdigest()}" if a.startswith("patch\n") else a

    return {**{k: record[k] for k in RECORD_KEYS if k in record}, "actions": [action(a) for a in record["actions"]]}


def capture(out: Path, flags: list[str]) -> None:
    """Run the smoke experiment into ``out`` and store what it passes to ``write_report`` in `INPUTS`
    (checkpoint paths cut to their file name: the run's folder is temporary)."""
    from baselines.budgetmix import main
    from baselines.experiment import run as experiment

    real = experiment.write_report

    def keep(*args: Any, **kwargs: Any) -> Path:
        bound = inspect.signature(real).bind(*args, **kwargs)
        d = dict(bound.arguments)
        d.pop("out")
        d["settings"] = dataclasses.asdict(d["settings"])
        for by_seed in d["training"].values():
            for summary in by_seed.values():
                summary["checkpoint"] = Path(summary["checkpoint"]).name
        for by_seed in d["evals"].values():
            for ev in by_seed.values():
                for key, value in ev.items():
                    if key.endswith("records"):
                        ev[key] = [_cut(r) for r in value]
                for name, value in (ev.get("interventions") or {}).items():
                    ev["interventions"][name] = [_cut(r) for r in value]
        INPUTS.write_text(json.dumps(d, separators=(",", ":"), default=float) + "\n")  # key order is the report's order
        return real(*args, **kwargs)

    experiment.write_report = keep  # type: ignore[assignment]
    try:
        assert main([*flags, "--out", str(out)]) == 0
    finally:
        experiment.write_report = real  # type: ignore[assignment]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--capture", action="store_true", help="first store fresh inputs from a smoke run")
    parser.add_argument("--out", default="", help="the smoke run's folder (default: a temporary one)")
    cli = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if cli.capture:
            capture(Path(cli.out or Path(tmp) / "run"), CAPTURE_FLAGS)
        render(Path(tmp) / "report")
        GOLDEN.mkdir(parents=True, exist_ok=True)
        for name in RENDERED:
            shutil.copyfile(Path(tmp) / "report" / name, GOLDEN / name)
    print(f"wrote {', '.join(RENDERED)} to {GOLDEN}")
