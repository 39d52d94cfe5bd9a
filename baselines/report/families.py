"""The budget experiment across env families: (a), (b), (f), (g) side by side, and each family's hypotheses.

Each family's experiment (``python -m baselines.budgetmix``, ``--preset tooluse``, ``--preset
miniwob``) is its own run with its own Holm family: the named contrasts of that run
(`baselines.report.contrasts.named_contrasts`, written to its ``contrasts.json``), Holm-adjusted over that
run's rows only, since the families are separate questions with separate task lists. This module
puts them side by side:

- `hypothesis_rows`: per family, the hypotheses (a), (g), (f), (b) test (`HYPOTHESES`) and a
  verdict by the rule named before any family run (`verdict`): **held** when the Holm-adjusted
  p-value is below 0.05 and the difference has the predicted sign; **not supported** when the 95%
  interval lies wholly on the other side of 0, or the equivalence test puts the difference within
  +-`baselines.report.contrasts.EQUIVALENCE_MARGIN` of 0; **open** otherwise (too wide to tell), and
  also when every success the contrast compares is below `FLOOR` (nothing succeeded, so nothing
  could collapse or be kept: a floor, not evidence either way);
- `families_table`: one row per contrast, one column per family;
- `families_report`: both, for several run folders.

The experiment's own report shows its family's hypothesis table (`baselines.report.markdown`); the
side-by-side table needs the runs of every family:

    python -m baselines.report.families runs/budgetmix runs/i39-tooluse runs/i39-miniwob --out runs/families.md
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agentgym.errors import ConfigError
from baselines.report.contrasts import EQUIVALENCE_MARGIN

__all__ = [
    "HYPOTHESES",
    "ALPHA",
    "FLOOR",
    "verdict",
    "at_floor",
    "hypothesis_rows",
    "hypothesis_table",
    "families_table",
    "family_of_run",
    "families_report",
    "main",
]

ALPHA = 0.05
"""The level of the Holm-adjusted tests."""

FLOOR = 0.05
"""A contrast whose every compared success rate is below this is at the floor: ``open``, whatever its test says."""

HYPOTHESES: tuple[tuple[str, str, int], ...] = (
    ("a", "H1: a long-budget specialist loses at the shortest budget", -1),
    ("g", "H1: ... more than the short specialist does (difference-in-differences)", +1),
    ("f", "a long-budget gain exists (fixed-T_long beats fixed-T_short at the longest T)", +1),
    ("b", "H2: BudgetMix removes the short-budget loss (beats fixed-T_long at the shortest T)", +1),
)
"""(contrast label, the hypothesis it tests, the sign of the difference the hypothesis predicts)."""


def verdict(row: Mapping[str, Any] | None, sign: int) -> str:
    """``held``, ``not supported`` or ``open`` for a contrast row and the sign its hypothesis predicts
    (the rule of the module docstring); ``open`` when the row is missing or has no estimate."""
    if row is None or row.get("diff") is None or at_floor(row):
        return "open"
    p = row.get("p_holm")
    if p is not None and p < ALPHA and sign * row["diff"] > 0:
        return "held"
    lo, hi = row.get("lo"), row.get("hi")
    against = lo is not None and hi is not None and (sign * hi < 0 if sign > 0 else sign * lo < 0)
    return "not supported" if against or row.get("equivalent") else "open"


def at_floor(row: Mapping[str, Any]) -> bool:
    """Every success rate the row compares (its two sides, or the four terms of (g)) is below `FLOOR`."""
    rates = list(row["terms"].values()) if row.get("terms") else [row.get("mean_a"), row.get("mean_b")]
    return all(r is not None and r < FLOOR for r in rates)


def _row(contrasts: Sequence[Mapping[str, Any]], label: str) -> Mapping[str, Any] | None:
    return next((c for c in contrasts if c["label"] == label), None)


def hypothesis_rows(contrasts: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per hypothesis of `HYPOTHESES`: its label, statement, the contrast row (or None) and the verdict."""
    return [
        {
            "label": label,
            "hypothesis": text,
            "row": _row(contrasts, label),
            "verdict": verdict(_row(contrasts, label), sign),
        }
        for label, text, sign in HYPOTHESES
    ]


def _num(x: float | None, p: bool = False) -> str:
    if x is None or x != x:
        return "–"
    return ("< 0.001" if x < 0.001 else f"{x:.3f}") if p else f"{x:+.2f}"


def _estimate(row: Mapping[str, Any] | None) -> str:
    if row is None or row.get("diff") is None:
        return "–"
    return f"{_num(row['diff'])} [{_num(row['lo'])}, {_num(row['hi'])}]"


def _sides(row: Mapping[str, Any] | None) -> str:
    return "–" if row is None else f"{row['a']} vs {row['b']}"


def hypothesis_table(contrasts: Sequence[Mapping[str, Any]]) -> str:
    """One family's hypotheses as a markdown table: hypothesis, contrast, A - B [95%], Holm p, verdict."""
    lines = ["| hypothesis | contrast | A - B [95% interval] | p (Holm) | verdict |", "|---|---|---|---|---|"]
    for h in hypothesis_rows(contrasts):
        row = h["row"]
        verdict_text = f"**{h['verdict']}**" if h["verdict"] == "held" else h["verdict"]
        lines.append(
            f"| {h['hypothesis']} | ({h['label']}) {_sides(row)} | {_estimate(row)} | "
            f"{_num(row.get('p_holm') if row else None, True)} | {verdict_text} |"
        )
    return "\n".join(lines)


def families_table(runs: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """The contrasts (a), (b), (f), (g) of each family side by side (family -> its contrast rows):
    per cell, A - B with its 95% interval (seeds and tasks resampled), the Holm p within that
    family, and the verdict; the last row gives each family's Holm family size (rows described
    beside it, the other interventions' (h1')-(h3'), carry no Holm p and are not counted)."""
    names = list(runs)
    lines = ["| contrast | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for label, text, sign in HYPOTHESES:
        cells = []
        for name in names:
            row = _row(runs[name], label)
            cells.append(
                "–"
                if row is None
                else f"{_estimate(row)}, Holm p {_num(row.get('p_holm'), True)}: {verdict(row, sign)} ({_sides(row)})"
            )
        lines.append(f"| ({label}) {text} | " + " | ".join(cells) + " |")
    lines.append("| Holm family (rows) | " + " | ".join(str(sum("p_holm" in c for c in runs[n])) for n in names) + " |")
    return "\n".join(lines)


def family_of_run(folder: Path) -> str:
    """The env family a run folder trained on (its ``provenance.json`` settings), e.g. ``ToolUse-v0``."""
    path = folder / "provenance.json"
    if not path.is_file():
        raise ConfigError(
            f"{folder}: no provenance.json; give the --out folder of a finished `python -m baselines.budgetmix` run"
        )
    env_ids = str(json.loads(path.read_text())["settings"].get("env_ids", ""))
    return env_ids.split(",")[0].rsplit("/", 1)[-1] or folder.name


def families_report(folders: Sequence[str | Path]) -> str:
    """Markdown: the side-by-side table of every run folder's family, then each family's hypothesis table."""
    runs: dict[str, list[dict[str, Any]]] = {}
    for folder in map(Path, folders):
        path = folder / "contrasts.json"
        if not path.is_file():
            raise ConfigError(f"{folder}: no contrasts.json; give the --out folder of a finished experiment")
        name = family_of_run(folder)
        runs[name if name not in runs else f"{name} ({folder.name})"] = json.loads(path.read_text())
    lines = [
        "## The budget experiment per family (issue 39)",
        "",
        "Each family's contrasts are Holm-adjusted within that family's run (its own task list and seeds). "
        f"Verdict: held when Holm p < {ALPHA:g} in the predicted direction; not supported when the 95% interval "
        f"lies wholly against it, or the equivalence test puts the difference within +-{EQUIVALENCE_MARGIN:g}; "
        f"open otherwise, and when every success rate compared is below {FLOOR:g} (a floor).",
        "",
        families_table(runs),
        "",
    ]
    for name, contrasts in runs.items():
        lines += [f"### Hypotheses: {name}", "", hypothesis_table(contrasts), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m baselines.report.families", description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", help="the --out folders of finished experiments, one per family")
    parser.add_argument("--out", default="", help="write the markdown here as well as to stdout")
    args = parser.parse_args(argv)
    text = families_report(args.folders)
    if args.out:
        Path(args.out).write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
