"""Several experiment folders with the same knobs and different seeds, analysed as one experiment.

    python -m baselines.experiment.pool runs/long-4k-8 runs/long-4k-8b            # seeds 1-8 and 9-16 together
    python -m baselines.experiment.pool A B --out pooled.md

A device window or a session may not fit every seed, so an experiment can run in parts
(``--seeds 1,...,8``, then ``--seeds 9,...,16``) and be pooled here: success at each T and the
contrasts named in advance (`baselines.report.contrasts.named_contrasts`), with intervals that resample
the seeds of all parts. The parts must have evaluated the same task list and trained the same
schedules, and no seed may appear twice (a seed run twice is a replicate, not a new sample: compare
replicates with `python -m baselines.experiment.compare`). Their records (``provenance.json``,
`baselines.experiment.provenance`) must match: the same code, the same settings but ``--seeds`` (and what only
says where or how fast a part ran), the same task lists; a part that differs is refused with the
difference named. ``--unchecked`` pools folders written before records were kept.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from agentgym.errors import ConfigError
from baselines.experiment import provenance
from baselines.experiment.compare import load_trained, primary_tasks, print_table
from baselines.report.contrasts import Agent, contrast_table, named_contrasts, success_at

__all__ = ["pool_runs", "pooled_report", "main"]

_FIXED = re.compile(r"^fixed-T(\d+)$")


def pool_runs(folders: list[str | Path], *, check: bool = True) -> tuple[dict[str, Agent], list[str]]:
    """Every trained schedule's cells over the seeds of all ``folders``, and their shared task list;
    ``check``: refuse parts whose code, settings or task lists differ (`baselines.experiment.provenance`)."""
    if len(folders) < 2:
        raise ConfigError("pool needs at least two experiment folders")
    runs = [load_trained(f) for f in folders]  # raises a ConfigError for a folder that is not an experiment
    lists = [primary_tasks(f) for f in folders]
    if any(t != lists[0] for t in lists[1:]):
        raise ConfigError(
            "the folders evaluated different task lists (eval_tasks.json); pool only runs of one "
            "command that differ in --seeds"
        )
    if check:
        first = provenance.read(folders[0])
        for folder in folders[1:]:
            changed = provenance.differences(first, provenance.read(folder))
            if changed:
                raise ConfigError(
                    f"{folder} is not a part of the experiment in {folders[0]}: "
                    f"{'; '.join(changed)}. Pool only runs of one command and code that differ in --seeds"
                )
    names = set(runs[0])
    if any(set(r) != names for r in runs[1:]):
        raise ConfigError(f"the folders trained different schedules: {[sorted(r) for r in runs]}")
    pooled: dict[str, Agent] = {}
    for name in sorted(names):
        pooled[name] = {}
        for folder, run in zip(folders, runs):
            twice = sorted(set(pooled[name]) & set(run[name]))
            if twice:
                raise ConfigError(
                    f"{name} seed(s) {twice} appear in more than one folder ({folder}); pooled seeds "
                    "must be independent (compare replicates with `python -m baselines.experiment.compare`)"
                )
            pooled[name].update(run[name])
    return pooled, lists[0]


def pooled_report(folders: list[str | Path], *, resamples: int = 2000, check: bool = True) -> dict[str, Any]:
    """Success at each T per schedule and the named contrasts, over the seeds of all ``folders``."""
    agents, tasks = pool_runs(folders, check=check)
    ts = sorted({t for cells in next(iter(agents.values())).values() for (_, t) in cells})
    fixed = sorted((int(m[1]), n) for n in agents if (m := _FIXED.match(n)))
    if len(fixed) < 2 or "budgetmix" not in agents:
        raise ConfigError(
            f"pooling needs the experiment's schedules (two fixed-T and budgetmix); found {sorted(agents)}"
        )
    curricula = sorted(n for n in agents if n.startswith("curriculum"))
    success = {
        name: {t: success_at(seeds, tasks, t, resamples=resamples) for t in ts} for name, seeds in agents.items()
    }
    contrasts = named_contrasts(
        agents,
        tasks,
        ts,
        short=fixed[0][1],
        long=fixed[-1][1],
        mix="budgetmix",
        curricula=curricula,
        resamples=resamples,
    )
    return {
        "folders": [str(f) for f in folders],
        "seeds": {n: sorted(s) for n, s in agents.items()},
        "tasks": len(tasks),
        "ts": ts,
        "success": success,
        "contrasts": contrasts,
    }


def _f(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def _markdown(report: dict[str, Any]) -> str:
    ts = report["ts"]
    seeds = sorted({s for v in report["seeds"].values() for s in v})
    lines = [
        f"Pooled: {', '.join(f'`{f}`' for f in report['folders'])}; seeds {seeds}; {report['tasks']} tasks; "
        "95% intervals resample seeds, then tasks.",
        "",
        "| schedule | " + " | ".join(f"T={t}" for t in ts) + " |",
        "|---|" + "---|" * len(ts),
    ]
    for name, by_t in report["success"].items():
        lines.append(
            f"| {name} | " + " | ".join(f"{_f(c['mean'])} [{_f(c['lo'])}, {_f(c['hi'])}]" for c in by_t.values()) + " |"
        )
    lines += ["", contrast_table(report["contrasts"])]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m baselines.experiment.pool", description=__doc__.splitlines()[0])
    parser.add_argument(
        "folders", nargs="+", help="experiment folders (the --out of `python -m baselines.budgetmix` runs)"
    )
    parser.add_argument("--out", default="", help="also write the tables to this markdown file")
    parser.add_argument(
        "--unchecked",
        action="store_true",
        help="skip the code/settings/task-list check (folders written before provenance.json)",
    )
    args = parser.parse_args(argv)
    return print_table(lambda: _markdown(pooled_report(args.folders, check=not args.unchecked)), args.out)


if __name__ == "__main__":
    sys.exit(main())
