"""Two experiment folders compared schedule by schedule, paired by task: does a training knob matter?

    python -m baselines.experiment.compare runs/turncost runs/budgetmix          # A - B for every shared schedule and T
    python -m baselines.experiment.compare A B --agents budgetmix,fixed-T12 --ts 2,16 --out compare.md

Each folder is the ``--out`` of one `python -m baselines.budgetmix` run. For every trained
schedule both folders evaluated (``eval/NAME-sSEED/grid/episodes.jsonl``) and every budget T,
it prints A - B with the experiment's own paired interval (`baselines.report.contrasts.contrast`:
seeds resampled per side, tasks resampled jointly). The two folders must have evaluated the same
task list (``eval_tasks.json``); a different list is an error, not a smaller table. They must also
have run the same code and trained on the same tasks (``provenance.json``, `baselines.experiment.provenance`),
or a difference would be the code's, not the knob's; the settings that differ (the knobs compared)
head the table. ``--unchecked`` compares folders written before records were kept.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentgym.errors import ConfigError
from agentgym.eval.episodes import read_episodes
from baselines.experiment import provenance
from baselines.report.contrasts import Agent, cells_from_records, contrast

__all__ = ["load_trained", "primary_tasks", "compare_runs", "knobs_compared", "print_table", "main"]

_RUN_DIR = re.compile(r"^(?P<name>.+)-s(?P<seed>\d+)$")


def load_trained(run: str | Path) -> dict[str, Agent]:
    """Every trained schedule's cells (seed -> (task, T) -> success) from an experiment folder."""
    root = Path(run)
    eval_dir = root / "eval"
    if not (root / "eval_tasks.json").is_file() or not eval_dir.is_dir():
        raise ConfigError(
            f"{root} is not a finished experiment folder (no eval_tasks.json or eval/); "
            "pass the --out of a `python -m baselines.budgetmix` run"
        )
    agents: dict[str, Agent] = defaultdict(dict)
    for grid in sorted(eval_dir.glob("*/grid/episodes.jsonl")):
        m = _RUN_DIR.match(grid.parent.parent.name)
        if m is None or m["name"].startswith("ref:"):
            continue  # the random policy, scripts and references: not trained with the folder's knobs
        agents[m["name"]][int(m["seed"])] = cells_from_records(read_episodes(grid))
    return dict(agents)


def primary_tasks(run: str | Path) -> list[str]:
    """The headline task list an experiment folder evaluated (its ``eval_tasks.json``)."""
    return list(json.loads((Path(run) / "eval_tasks.json").read_text())["primary"])


def knobs_compared(a: str | Path, b: str | Path) -> list[str]:
    """The settings that differ between two folders (what a comparison measures); a ConfigError when
    their code or task lists differ, since a difference would then not be the knobs' alone."""
    rec_a, rec_b = provenance.read(a), provenance.read(b)
    changed = provenance.differences(rec_a, rec_b, parts=("code", "tasks"))
    if changed:
        raise ConfigError(
            f"{a} and {b} ran different code or tasks: {'; '.join(changed)}. Rerun one with the "
            "other's code and task settings, or pass --unchecked"
        )
    return provenance.differences(rec_a, rec_b, parts=("settings",))


def compare_runs(
    a: str | Path,
    b: str | Path,
    *,
    agents: list[str] | None = None,
    ts: list[int] | None = None,
    resamples: int = 2000,
    check: bool = True,
) -> list[dict[str, Any]]:
    """A - B for each shared schedule (or ``agents``) at each T (or ``ts``), paired by task; ``check``:
    refuse folders of different code or training tasks (`knobs_compared`)."""
    runs_a, runs_b = load_trained(a), load_trained(b)
    tasks_a, tasks_b = primary_tasks(a), primary_tasks(b)
    if tasks_a != tasks_b:
        raise ConfigError(
            f"{a} and {b} evaluated different task lists (eval_tasks.json); "
            "rerun one with the other's --eval-tasks, --eval-split and --eval-tier"
        )
    if check:
        knobs_compared(a, b)
    names = agents or sorted(set(runs_a) & set(runs_b))
    missing = [n for n in names if n not in runs_a or n not in runs_b]
    if missing or not names:
        raise ConfigError(
            f"schedules {missing or names} are not in both folders; both have: {sorted(set(runs_a) & set(runs_b))}"
        )
    budgets = ts or sorted({t for seeds in runs_a[names[0]].values() for (_, t) in seeds})
    rows = []
    for name in names:
        for t in budgets:
            c = contrast(runs_a[name], t, runs_b[name], t, tasks_b, resamples=resamples)
            rows.append({"agent": name, "T": t, **c})
    return rows


def _markdown(rows: list[dict[str, Any]], a: str, b: str, knobs: list[str] | None = None) -> str:
    lines = [
        f"A = `{a}`, B = `{b}`; A - B in success, paired by task, seeds resampled per side (95%).",
        "",
        *([f"Settings A != B: {'; '.join(knobs) if knobs else 'none (replicates)'}.", ""] if knobs is not None else []),
        "| schedule | T | A | B | A - B | 95% interval | tasks | seeds A / B |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["diff"] is None:
            lines.append(f"| {r['agent']} | {r['T']} | – | – | – | – | 0 | – |")
            continue
        lines.append(
            f"| {r['agent']} | {r['T']} | {r['mean_a']:.2f} | {r['mean_b']:.2f} | {r['diff']:+.2f} | "
            f"[{r['lo']:+.2f}, {r['hi']:+.2f}] | {r['tasks']} | {r['seeds_a']} / {r['seeds_b']} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m baselines.experiment.compare", description=__doc__.splitlines()[0])
    parser.add_argument("a", help="experiment folder A (the --out of a baselines.budgetmix run)")
    parser.add_argument("b", help="experiment folder B, evaluated on the same task list")
    parser.add_argument("--agents", default="", help="comma-separated schedules (default: every one in both)")
    parser.add_argument("--ts", default="", help="comma-separated budgets T (default: A's grid)")
    parser.add_argument("--out", default="", help="also write the table to this markdown file")
    parser.add_argument(
        "--unchecked", action="store_true", help="skip the code/task check (folders written before provenance.json)"
    )
    args = parser.parse_args(argv)
    return print_table(
        lambda: _markdown(
            compare_runs(
                args.a,
                args.b,
                agents=[x for x in args.agents.split(",") if x] or None,
                ts=[int(x) for x in args.ts.split(",") if x] or None,
                check=not args.unchecked,
            ),
            args.a,
            args.b,
            None if args.unchecked else knobs_compared(args.a, args.b),
        ),
        args.out,
    )


def print_table(build: Callable[[], str], out: str = "") -> int:
    """A command's markdown from ``build()``: printed, and written to ``out`` when given; a bad
    folder or argument is one ``error:`` line and exit code 2."""
    try:
        text = build()
    except (ConfigError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(text, end="")
    if out:
        Path(out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
