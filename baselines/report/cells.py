"""All-seed numbers for the report: any per-episode measure as cells per seed and (task, T), with the
seed-and-task interval of `baselines.report.contrasts.success_at`, and plain intervals over seeds.

Contents:
- `headline_records`: per agent and seed, the clean scored episodes of the headline list.
- `task_cells`: per seed and (task, T), a statistic of `agentgym.eval.metrics` computed on that
  task's episodes (`exhaustion_rate`; `pass_at`: pass@K; `category_share`: one failure category):
  the `baselines.report.contrasts.Agent` cells that `success_at` bootstraps.
- `at_each_t`: `success_at` of such cells at every T.
- `over_seeds`: the mean of one value per seed with a 95% bootstrap interval over the seeds
  (`agentgym.eval.metrics.bootstrap_mean`).

One estimate for every rate: the mean over tasks of the mean over seeds of the task's rate, its
interval from resampling seeds, then tasks (as for success). Where every task has the same number
of episodes it equals the share over all episodes.

And the report's table formatting (`md_table`, `fmt`, `fmt_interval`), shared by its section modules.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from agentgym.eval.metrics import bootstrap_mean, category_breakdown, pass_grid, scored
from baselines.report.contrasts import Agent, success_at

__all__ = [
    "Records",
    "headline_records",
    "task_cells",
    "pass_at",
    "category_share",
    "at_each_t",
    "over_seeds",
    "pooled",
    "md_table",
    "fmt",
    "fmt_interval",
]

Records = dict[int, list[Mapping[str, Any]]]
"""seed -> episode records."""


def headline_records(evals: Mapping[str, Mapping[int, Mapping[str, Any]]], key: str = "records") -> dict[str, Records]:
    """Per agent and seed: the scored episodes under ``key`` without an injected fault or a forced start."""
    return {
        name: {
            seed: [r for r in scored(ev.get(key) or []) if not r.get("faults") and not r.get("intervention")]
            for seed, ev in by_seed.items()
        }
        for name, by_seed in evals.items()
    }


def task_cells(records: Records, stat: Callable[[list[Mapping[str, Any]]], Mapping[int, float | None]]) -> Agent:
    """seed -> (task, T) -> ``stat(the task's episodes)[T]``, where ``stat`` maps episodes to a value per T
    (an `agentgym.eval.metrics` function: `exhaustion_rate`, a column of `category_breakdown`, `pass_at`)."""
    out: Agent = {}
    for seed, rs in records.items():
        by_task: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        for r in rs:
            by_task[str(r["task"])].append(r)
        out[seed] = {
            (task, int(t)): float(v)
            for task, trs in by_task.items()
            for t, v in stat(trs).items()
            if v is not None and not np.isnan(v)
        }
    return out


def pass_at(k: int) -> Callable[[list[Mapping[str, Any]]], dict[int, float | None]]:
    """A `task_cells` stat: pass@``k`` per T (`agentgym.eval.metrics.pass_grid`;
    None with fewer than ``k`` episodes)."""

    def stat(rs: list[Mapping[str, Any]]) -> dict[int, float | None]:
        grid = pass_grid(rs, [k], sorted({int(r["T"]) for r in rs}), resamples=1)
        return {t: row[k]["mean"] if row[k]["tasks"] else None for t, row in grid.items()}

    return stat


def category_share(category: str) -> Callable[[list[Mapping[str, Any]]], dict[int, float | None]]:
    """A `task_cells` stat: the share of episodes per T in one failure category (`metrics.category_breakdown`)."""

    def stat(rs: list[Mapping[str, Any]]) -> dict[int, float | None]:
        return {t: row.get(category, 0.0) for t, row in category_breakdown(rs).items()}

    return stat


def at_each_t(cells: Agent, tasks: Sequence[str], ts: Iterable[int]) -> dict[int, dict[str, Any]]:
    """T -> ``{"mean", "lo", "hi", "tasks", "seeds"}``: `success_at` of ``cells`` (any rate, not only success)."""
    return {int(t): success_at(cells, tasks, int(t)) for t in ts}


def over_seeds(values: Sequence[float | None]) -> dict[str, Any]:
    """``{"mean", "lo", "hi", "seeds"}`` of one value per seed (None left out): a 95% bootstrap
    interval over the seeds; with one seed the interval is that seed's value."""
    xs = [float(v) for v in values if v is not None and not np.isnan(v)]
    if not xs:
        return {"mean": None, "lo": None, "hi": None, "seeds": 0}
    mean, lo, hi = bootstrap_mean(xs)
    return {"mean": mean, "lo": lo, "hi": hi, "seeds": len(xs)}


def pooled(records: Records) -> list[Mapping[str, Any]]:
    """Every seed's episodes in one list (for percentiles and mean costs over all seeds)."""
    return [r for seed in sorted(records) for r in records[seed]]


# ---------------------------------------------------------------------- formatting
def md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def fmt(x: Any, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def fmt_interval(c: Mapping[str, Any], digits: int = 2) -> str:
    """``mean [lo, hi]`` of `success_at` or `over_seeds`; an `over_seeds` value of one seed is its mean alone."""
    if c.get("mean") is None:
        return "–"
    if c.get("lo") is None or ("tasks" not in c and c.get("seeds") == 1):
        return fmt(c["mean"], digits)
    return f"{c['mean']:.{digits}f} [{c['lo']:.{digits}f}, {c['hi']:.{digits}f}]"
