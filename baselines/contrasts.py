"""Success tables and named contrasts with intervals that include seed variance, paired by task.

Every agent is evaluated on one fixed list of tasks; a trained schedule is evaluated once per
training seed. For an agent, ``cells[seed][(task, T)]`` is its mean success on that task at
budget T (over the episodes of that cell). The estimate at T is the mean over tasks of the
mean over seeds. Its interval is a two-level bootstrap: resample the seeds, then the tasks,
with replacement, and take the 2.5 and 97.5 percentiles of the mean.

A contrast A@Ta - B@Tb is paired by task: both sides are evaluated on the same resampled
tasks, so the task-to-task spread (most of the variance with one fixed list) cancels; each
side's seeds are resampled independently (different training runs), or jointly when A and B
are the same agent (its seed-s policy is scored at both budgets).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["contrast_table", "cells_from_records", "Agent", "success_at", "contrast", "linear_contrast", "named_contrasts", "holm",
           "boot_p", "EQUIVALENCE_MARGIN"]

EQUIVALENCE_MARGIN = 0.05
"""(d)'s equivalence margin: BudgetMix matches the specialist when their difference lies within +-0.05."""

Agent = dict[int, dict[tuple[str, int], float]]
"""seed -> (task, T) -> mean success of that cell."""


def cells_from_records(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, int], float]:
    """Mean success per (task, T) over clean episodes; infrastructure errors are left out."""
    acc: dict[tuple[str, int], list[float]] = defaultdict(list)
    for r in records:
        if r.get("infra_error") or r.get("faults"):
            continue
        acc[(str(r["task"]), int(r["T"]))].append(float(bool(r["success"])))
    return {k: float(np.mean(v)) for k, v in acc.items()}


def _matrix(agent: Agent, tasks: Sequence[str], t: int) -> np.ndarray:
    """(seeds, tasks) success; NaN where a cell is missing."""
    return np.array([[agent[s].get((task, t), np.nan) for task in tasks] for s in sorted(agent)], dtype=float)


def _common_tasks(*mats: np.ndarray) -> np.ndarray:
    ok = np.ones(mats[0].shape[1], dtype=bool)
    for m in mats:
        ok &= ~np.isnan(m).any(axis=0)
    return ok


def _cluster_interval(per_task: np.ndarray, units: Sequence[str], rng: np.random.Generator) -> dict[str, Any]:
    """The interval and p-value when whole held-out units (a task's module or template) are
    resampled instead of tasks: tasks of one unit are not independent draws.

    ``per_task`` is (resamples, tasks) after the seed resampling; ``units[i]`` is task i's unit.
    """
    names, index = np.unique(np.asarray(units), return_inverse=True)
    picks = rng.integers(len(names), size=(per_task.shape[0], len(names)))
    counts = np.stack([np.bincount(row, minlength=len(names)) for row in picks])  # (R, units)
    weights = counts[:, index]  # (R, tasks): how often each task's unit was drawn
    boot = (per_task * weights).sum(axis=1) / weights.sum(axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return {"lo_unit": float(lo), "hi_unit": float(hi), "p_unit": boot_p(boot), "units": int(len(names))}


def _units(tasks: Sequence[str], keep: np.ndarray, unit_of: Callable[[str], str] | None) -> list[str] | None:
    return None if unit_of is None else [unit_of(t) for t, k in zip(tasks, keep) if k]


def success_at(agent: Agent, tasks: Sequence[str], t: int, *, resamples: int = 2000, seed: int = 0,
               unit_of: Callable[[str], str] | None = None) -> dict[str, Any]:
    """Mean success at budget ``t`` with its seed-and-task bootstrap interval (and, given
    ``unit_of``, the seed-and-unit interval beside it: ``lo_unit``, ``hi_unit``)."""
    m = _matrix(agent, tasks, t)
    keep = _common_tasks(m)
    m = m[:, keep]
    if m.size == 0:
        return {"mean": None, "lo": None, "hi": None, "tasks": 0, "seeds": len(agent)}
    rng = np.random.default_rng(seed)
    s_idx = rng.integers(m.shape[0], size=(resamples, m.shape[0]))
    t_idx = rng.integers(m.shape[1], size=(resamples, m.shape[1]))
    per_task = m[s_idx].mean(axis=1)  # (R, tasks): mean over the resampled seeds
    boot = np.take_along_axis(per_task, t_idx, axis=1).mean(axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    out = {"mean": float(m.mean()), "lo": float(lo), "hi": float(hi), "tasks": int(m.shape[1]), "seeds": int(m.shape[0])}
    units = _units(tasks, keep, unit_of)
    if units is not None:
        unit = _cluster_interval(per_task, units, rng)
        out.update(lo_unit=unit["lo_unit"], hi_unit=unit["hi_unit"], units=unit["units"])
    return out


def contrast(a: Agent, ta: int, b: Agent, tb: int, tasks: Sequence[str], *, same_agent: bool = False,
             resamples: int = 2000, seed: int = 0, unit_of: Callable[[str], str] | None = None) -> dict[str, Any]:
    """A@ta - B@tb, paired by task, seeds resampled per side (jointly when ``same_agent``); given
    ``unit_of``, also the interval and p-value with held-out units resampled (``lo_unit``...)."""
    ma, mb = _matrix(a, tasks, ta), _matrix(b, tasks, tb)
    keep = _common_tasks(ma, mb)
    ma, mb = ma[:, keep], mb[:, keep]
    if ma.size == 0 or mb.size == 0:
        return {"diff": None, "lo": None, "hi": None, "mean_a": None, "mean_b": None, "tasks": 0}
    rng = np.random.default_rng(seed)
    n = ma.shape[1]
    sa = rng.integers(ma.shape[0], size=(resamples, ma.shape[0]))
    sb = sa if same_agent else rng.integers(mb.shape[0], size=(resamples, mb.shape[0]))
    t_idx = rng.integers(n, size=(resamples, n))
    diff_per_task = ma[sa].mean(axis=1) - mb[sb].mean(axis=1)  # (R, tasks)
    boot = np.take_along_axis(diff_per_task, t_idx, axis=1).mean(axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    units = _units(tasks, keep, unit_of)
    return {"diff": float(ma.mean() - mb.mean()), "lo": float(lo), "hi": float(hi), "mean_a": float(ma.mean()),
            "mean_b": float(mb.mean()), "tasks": int(n), "seeds_a": int(ma.shape[0]), "seeds_b": int(mb.shape[0]),
            **_tests(boot), **(_cluster_interval(diff_per_task, units, rng) if units is not None else {})}


def boot_p(boot: np.ndarray) -> float:
    """Two-sided bootstrap p-value of "the difference is 0": twice the smaller tail beyond 0
    (the share of resamples on the far side, floored at one resample so it is never 0)."""
    r = len(boot)
    tail = min(int(np.sum(boot <= 0)), int(np.sum(boot >= 0)))
    return float(min(1.0, 2.0 * max(tail, 1) / r))


def _tests(boot: np.ndarray, margin: float = EQUIVALENCE_MARGIN) -> dict[str, Any]:
    """The p-value, and the equivalence test (TOST) within +-``margin``: its 90% interval and p."""
    r = len(boot)
    lo90, hi90 = np.percentile(boot, [5, 95])
    p_lower = max(int(np.sum(boot <= -margin)), 1) / r  # H0: diff <= -margin
    p_upper = max(int(np.sum(boot >= margin)), 1) / r  # H0: diff >= +margin
    return {"p": boot_p(boot), "lo90": float(lo90), "hi90": float(hi90), "margin": margin,
            "p_equiv": float(min(1.0, max(p_lower, p_upper))),
            "equivalent": bool(-margin < lo90 and hi90 < margin)}


def linear_contrast(agents: Mapping[str, Agent], terms: Sequence[tuple[str, int, float]], tasks: Sequence[str], *,
                    resamples: int = 2000, seed: int = 0, unit_of: Callable[[str], str] | None = None) -> dict[str, Any]:
    """sum of weight x success(agent @ T) over ``terms``, paired by task: the tasks are resampled
    once for every term, each agent's seeds once for all its terms (a difference-in-differences
    such as (g) is then paired both ways)."""
    mats = [_matrix(agents[a], tasks, t) for a, t, _ in terms]
    keep = _common_tasks(*mats)
    mats = [m[:, keep] for m in mats]
    if any(m.size == 0 for m in mats):
        return {"diff": None, "lo": None, "hi": None, "tasks": 0, "p": None}
    rng = np.random.default_rng(seed)
    n = mats[0].shape[1]
    seeds = {a: rng.integers(len(agents[a]), size=(resamples, len(agents[a]))) for a in dict.fromkeys(a for a, _, _ in terms)}
    t_idx = rng.integers(n, size=(resamples, n))
    per_task = sum(w * m[seeds[a]].mean(axis=1) for (a, _, w), m in zip(terms, mats))  # (R, tasks)
    boot = np.take_along_axis(per_task, t_idx, axis=1).mean(axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    point = float(sum(w * m.mean() for (_, _, w), m in zip(terms, mats)))
    units = _units(tasks, keep, unit_of)
    return {"diff": point, "lo": float(lo), "hi": float(hi), "tasks": int(n),
            "terms": {f"{a} @T={t}": float(m.mean()) for (a, t, _), m in zip(terms, mats)}, **_tests(boot),
            **(_cluster_interval(per_task, units, rng) if units is not None else {})}


def holm(ps: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment of a family of p-values (None stays None)."""
    idx = [i for i, p in enumerate(ps) if p is not None]
    order = sorted(idx, key=lambda i: ps[i])  # type: ignore[arg-type, return-value]
    m = len(order)
    out: list[float | None] = [None] * len(ps)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(ps[i])))  # type: ignore[arg-type]
        out[i] = running
    return out


def named_contrasts(agents: Mapping[str, Agent], tasks: Sequence[str], ts: Sequence[int], *, short: str, long: str,
                    mix: str, curricula: Sequence[str], resamples: int = 2000) -> list[dict[str, Any]]:
    """The contrasts named in advance (issue #15), each with its paired 95% interval.

    (a) collapse: fixed-T_long at the smallest T minus itself at the largest T;
    (b) BudgetMix - fixed-T_long at the smallest T;
    (c) BudgetMix - fixed-T_short at the largest T;
    (d) BudgetMix - the per-T best fixed-T specialist, at each T (the specialist is picked on
        the same data, which favours it);
    (e) BudgetMix - each curriculum, at the smallest and the largest T;
    (f) fixed-T_long - fixed-T_short at the largest T (a long-budget gain exists);
    (g) difference-in-differences for H1: fixed-T_long's drop from the largest to the smallest T
        minus fixed-T_short's, [long@hi - long@lo] - [short@hi - short@lo] (> 0: the long
        specialist loses more when the budget shrinks).

    Each row has its two-sided bootstrap p-value and ``p_holm``, Holm-adjusted over every row
    (the family of the named contrasts); every row also has the equivalence test (TOST within
    +-`EQUIVALENCE_MARGIN`: ``lo90``, ``hi90``, ``p_equiv``, ``equivalent``), which is named in
    advance for (d) ("BudgetMix matches the specialist").
    """
    lo_t, hi_t = min(ts), max(ts)
    out: list[dict[str, Any]] = []

    def add(label: str, name: str, a: str, ta: int, b: str, tb: int) -> None:
        if a in agents and b in agents:
            c = contrast(agents[a], ta, agents[b], tb, tasks, same_agent=a == b, resamples=resamples)
            out.append({"label": label, "name": name, "a": f"{a} @T={ta}", "b": f"{b} @T={tb}", **c})

    add("a", "collapse of the long-budget specialist", long, lo_t, long, hi_t)
    add("b", "BudgetMix vs fixed-T_long at the shortest T", mix, lo_t, long, lo_t)
    add("c", "BudgetMix vs fixed-T_short at the longest T", mix, hi_t, short, hi_t)
    for t in ts:
        best = max((short, long), key=lambda n: success_at(agents[n], tasks, t, resamples=1)["mean"] or -1.0
                   if n in agents else -1.0)
        add("d", f"BudgetMix vs the best fixed-T specialist at T={t}", mix, t, best, t)
    for cur in curricula:
        for t in (lo_t, hi_t):
            add("e", f"BudgetMix vs {cur} at T={t}", mix, t, cur, t)
    add("f", "fixed-T_long vs fixed-T_short at the longest T", long, hi_t, short, hi_t)
    if long in agents and short in agents:
        terms = [(long, hi_t, 1.0), (long, lo_t, -1.0), (short, hi_t, -1.0), (short, lo_t, 1.0)]
        c = linear_contrast(agents, terms, tasks, resamples=resamples)
        out.append({"label": "g", "name": "H1 difference-in-differences: fixed-T_long's drop minus fixed-T_short's",
                    "a": f"{long} @T={hi_t} - @T={lo_t}", "b": f"{short} @T={hi_t} - @T={lo_t}",
                    "mean_a": None if c["diff"] is None else c["terms"][f"{long} @T={hi_t}"] - c["terms"][f"{long} @T={lo_t}"],
                    "mean_b": None if c["diff"] is None else c["terms"][f"{short} @T={hi_t}"] - c["terms"][f"{short} @T={lo_t}"],
                    **c})
    for c, adj in zip(out, holm([c.get("p") for c in out])):
        c["p_holm"] = adj
    return out


def _fmt(x: float | None, p: bool = False) -> str:
    if x is None:
        return "–"
    return ("< 0.001" if x < 0.001 else f"{x:.3f}") if p else f"{x:.2f}"


def contrast_table(contrasts: Sequence[Mapping[str, Any]]) -> str:
    """The named contrasts as a markdown table (A, B, A - B, 95% interval, half-width, p, Holm p,
    tasks), then the equivalence rows of (d): one layout for the report and `baselines.pool`."""
    lines = ["|  | contrast | A | B | A - B | 95% interval | half-width | p | p (Holm) | tasks |", "|" + "---|" * 10]
    for c in contrasts:
        half = (c["hi"] - c["lo"]) / 2 if c.get("lo") is not None else None
        lines.append(f"| {c['label']} | {c['name']} | {c['a']} ({_fmt(c.get('mean_a'))}) | {c['b']} ({_fmt(c.get('mean_b'))}) | "
                     f"{_fmt(c['diff'])} | [{_fmt(c['lo'])}, {_fmt(c['hi'])}] | {_fmt(half)} | {_fmt(c.get('p'), True)} | "
                     f"{_fmt(c.get('p_holm'), True)} | {c['tasks']} |")
    lines += ["", f"**Equivalence test for (d)** (\"BudgetMix matches the specialist\"): two one-sided tests with margin "
              f"+-{EQUIVALENCE_MARGIN:g}; equivalent at the 5% level when the 90% interval lies inside the margin.", "",
              "| contrast | A - B | 90% interval | p (TOST) | equivalent |", "|---|---|---|---|---|"]
    lines += [f"| {c['name']} | {_fmt(c['diff'])} | [{_fmt(c.get('lo90'))}, {_fmt(c.get('hi90'))}] | "
              f"{_fmt(c.get('p_equiv'), True)} | {'yes' if c.get('equivalent') else 'no'} |" for c in contrasts if c["label"] == "d"]
    return "\n".join(lines)
