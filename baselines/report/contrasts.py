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

__all__ = [
    "task_unit",
    "holm_family",
    "process_contrasts",
    "contrast_table",
    "cells_from_records",
    "Agent",
    "success_at",
    "contrast",
    "linear_contrast",
    "named_contrasts",
    "holm",
    "boot_p",
    "EQUIVALENCE_MARGIN",
    "Decisions",
    "decision_cells_from_records",
    "recovery_share",
    "recovery_contrasts",
    "RECOVERY_SHARE_THRESHOLD",
]

EQUIVALENCE_MARGIN = 0.05
"""(d)'s equivalence margin: BudgetMix matches the specialist when their difference lies within +-0.05."""

Agent = dict[int, dict[tuple[str, int], float]]
"""seed -> (task, T) -> mean success of that cell."""


def cells_from_records(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, int], float]:
    """Mean success per (task, T) over clean episodes (no fault, no intervention);
    infrastructure errors are left out."""
    acc: dict[tuple[str, int], list[float]] = defaultdict(list)
    for r in records:
        if r.get("infra_error") or r.get("faults") or r.get("intervention"):
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


def success_at(
    agent: Agent,
    tasks: Sequence[str],
    t: int,
    *,
    resamples: int = 2000,
    seed: int = 0,
    unit_of: Callable[[str], str] | None = None,
) -> dict[str, Any]:
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
    out = {
        "mean": float(m.mean()),
        "lo": float(lo),
        "hi": float(hi),
        "tasks": int(m.shape[1]),
        "seeds": int(m.shape[0]),
    }
    units = _units(tasks, keep, unit_of)
    if units is not None:
        unit = _cluster_interval(per_task, units, rng)
        out.update(lo_unit=unit["lo_unit"], hi_unit=unit["hi_unit"], units=unit["units"])
    return out


def contrast(
    a: Agent,
    ta: int,
    b: Agent,
    tb: int,
    tasks: Sequence[str],
    *,
    same_agent: bool = False,
    resamples: int = 2000,
    seed: int = 0,
    unit_of: Callable[[str], str] | None = None,
) -> dict[str, Any]:
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
    return {
        "diff": float(ma.mean() - mb.mean()),
        "lo": float(lo),
        "hi": float(hi),
        "mean_a": float(ma.mean()),
        "mean_b": float(mb.mean()),
        "tasks": int(n),
        "seeds_a": int(ma.shape[0]),
        "seeds_b": int(mb.shape[0]),
        **_tests(boot),
        **(_cluster_interval(diff_per_task, units, rng) if units is not None else {}),
    }


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
    return {
        "p": boot_p(boot),
        "lo90": float(lo90),
        "hi90": float(hi90),
        "margin": margin,
        "p_equiv": float(min(1.0, max(p_lower, p_upper))),
        "equivalent": bool(-margin < lo90 and hi90 < margin),
    }


def linear_contrast(
    agents: Mapping[str, Agent],
    terms: Sequence[tuple[str, int, float]],
    tasks: Sequence[str],
    *,
    resamples: int = 2000,
    seed: int = 0,
    unit_of: Callable[[str], str] | None = None,
) -> dict[str, Any]:
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
    seeds = {
        a: rng.integers(len(agents[a]), size=(resamples, len(agents[a]))) for a in dict.fromkeys(a for a, _, _ in terms)
    }
    t_idx = rng.integers(n, size=(resamples, n))
    per_task = sum(w * m[seeds[a]].mean(axis=1) for (a, _, w), m in zip(terms, mats))  # (R, tasks)
    boot = np.take_along_axis(per_task, t_idx, axis=1).mean(axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    point = float(sum(w * m.mean() for (_, _, w), m in zip(terms, mats)))
    units = _units(tasks, keep, unit_of)
    return {
        "diff": point,
        "lo": float(lo),
        "hi": float(hi),
        "tasks": int(n),
        "terms": {f"{a} @T={t}": float(m.mean()) for (a, t, _), m in zip(terms, mats)},
        **_tests(boot),
        **(_cluster_interval(per_task, units, rng) if units is not None else {}),
    }


RECOVERY_SHARE_THRESHOLD = 0.5
"""(h4) holds when the lower bound of the recovery share's 95% interval is above this (named before the run)."""

Decisions = dict[int, dict[tuple[str, int], tuple[float, float, float]]]
"""seed -> (task, T) -> (share of episodes whose first commit was right, success, right and success)."""


def decision_cells_from_records(
    records: Iterable[Mapping[str, Any]],
) -> dict[tuple[str, int], tuple[float, float, float]]:
    """Per (task, T) over clean episodes: the first commit right (`baselines.report.decisions`: an episode
    that never committed counts as not right), success, and both."""
    acc: dict[tuple[str, int], list[tuple[float, float]]] = defaultdict(list)
    for r in records:
        if r.get("infra_error") or r.get("faults") or r.get("intervention"):
            continue
        right = float((r.get("cost") or {}).get("first_commit_right") == 1)
        acc[(str(r["task"]), int(r["T"]))].append((right, float(bool(r["success"]))))
    return {
        k: (float(np.mean([a for a, _ in v])), float(np.mean([b for _, b in v])), float(np.mean([a * b for a, b in v])))
        for k, v in acc.items()
    }


def _parts(
    right: np.ndarray, success: np.ndarray, both: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(accuracy, follow-through, recovery, success) from means over the last axis:
    success = accuracy x follow-through + (1 - accuracy) x recovery."""
    a, s, rs = right.mean(axis=-1), success.mean(axis=-1), both.mean(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return a, rs / a, (s - rs) / (1 - a), s


def _share_terms(parts_l: tuple[np.ndarray, ...], parts_s: tuple[np.ndarray, ...]) -> dict[str, np.ndarray]:
    """The midpoint split of the gain between two agents' (accuracy, follow-through, recovery, success)
    parts, and the recovery share of it (`recovery_share`)."""
    (al, fl, rl, sl), (as_, fs, rs, ss) = parts_l, parts_s
    a_bar, f_bar, r_bar = (al + as_) / 2, (fl + fs) / 2, (rl + rs) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = {
            "accuracy": (al - as_) * (f_bar - r_bar),
            "follow_through": a_bar * (fl - fs),
            "recovery": (1 - a_bar) * (rl - rs),
            "gain": sl - ss,
        }
        terms["share"] = terms["recovery"] / terms["gain"]
    return terms


def recovery_share(
    decisions: Mapping[str, Decisions],
    long: str,
    short: str,
    tasks: Sequence[str],
    t: int,
    *,
    resamples: int = 2000,
    seed: int = 0,
    threshold: float = RECOVERY_SHARE_THRESHOLD,
) -> dict[str, Any]:
    """(h4): how much of (f) = success(long @ t) - success(short @ t) comes through recovery.

    Success splits exactly as accuracy x follow-through + (1 - accuracy) x recovery (accuracy: the
    first commit was right; follow-through: success when it was; recovery: success when it was
    not, or never came). The difference of two such products splits exactly with midpoint
    weights: dS = dA (F - R) + A dF + (1 - A) dR, bars the two agents' means. The recovery share
    is (1 - A) dR / dS. Seeds are resampled per agent and tasks jointly, as in `contrast`; the
    p-value is one-sided for "the share is at most ``threshold``".
    """
    mats = {name: _decision_matrices(decisions[name], tasks, t) for name in (long, short)}
    keep = _common_tasks(*(m for ms in mats.values() for m in ms))
    mats = {n: [m[:, keep] for m in ms] for n, ms in mats.items()}
    if not keep.any():
        return {"share": None, "lo": None, "hi": None, "tasks": 0, "p": None, "held": False}
    split = _share_terms
    point = split(_parts(*(m.mean(axis=0) for m in mats[long])), _parts(*(m.mean(axis=0) for m in mats[short])))
    rng = np.random.default_rng(seed)
    n = int(keep.sum())
    t_idx = rng.integers(n, size=(resamples, n))

    def resampled(ms: list[np.ndarray]) -> tuple[np.ndarray, ...]:
        s_idx = rng.integers(ms[0].shape[0], size=(resamples, ms[0].shape[0]))
        return _parts(*(np.take_along_axis(m[s_idx].mean(axis=1), t_idx, axis=1) for m in ms))

    boot = split(resampled(mats[long]), resampled(mats[short]))["share"]
    return _share_result(point, boot[np.isfinite(boot)], n, threshold)


def _decision_matrices(agent: Decisions, tasks: Sequence[str], t: int) -> list[np.ndarray]:
    """An agent's (accuracy, follow-through, recovery) per seed and task at ``t``: three seeds x tasks arrays."""
    return [
        np.array([[agent[sd].get((task, t), (np.nan,) * 3)[k] for task in tasks] for sd in sorted(agent)])
        for k in range(3)
    ]


def _share_result(point: dict[str, np.ndarray], boot: np.ndarray, n: int, threshold: float) -> dict[str, Any]:
    """`recovery_share`'s answer from the point split and the finite bootstrap shares."""
    if boot.size == 0 or not np.isfinite(point["share"]):
        return {
            "share": None,
            "lo": None,
            "hi": None,
            "tasks": n,
            "p": None,
            "held": False,
            **{k: float(v) for k, v in point.items() if k != "share"},
        }
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return {
        "share": float(point["share"]),
        "lo": float(lo),
        "hi": float(hi),
        "tasks": n,
        "threshold": threshold,
        "p": float(max(int(np.sum(boot <= threshold)), 1) / boot.size),
        "held": bool(lo > threshold),
        "resamples_kept": int(boot.size),
        **{k: float(v) for k, v in point.items() if k != "share"},
    }


def recovery_contrasts(
    after: Mapping[str, Agent],
    tasks: Sequence[str],
    *,
    short: str,
    long: str,
    mix: str,
    lo_t: int,
    hi_t: int,
    intervention: str,
    decisions: Mapping[str, Decisions] | None = None,
    unit_of: Callable[[str], str] | None = None,
    resamples: int = 2000,
) -> list[dict[str, Any]]:
    """(h1)-(h4), named before the run (issue 34): ``after[agent]`` is its success after
    ``intervention`` (forced on every agent alike, paired by task), R_A(T).

    (h1) R_long(hi) - R_short(hi): training at a long budget teaches recovery;
    (h2) R_mix(hi) - R_mix(lo): BudgetMix's recovery needs turns;
    (h3) R_mix(hi) - R_long(hi): BudgetMix recovers as well as the long specialist;
    (h4) the recovery share of (f) at ``hi`` (`recovery_share`, from clean episodes' ``decisions``),
         held when its 95% interval's lower bound is above `RECOVERY_SHARE_THRESHOLD`.
    No Holm adjustment here: the caller adds these rows to the family of `named_contrasts`.
    """
    out: list[dict[str, Any]] = []

    def add(label: str, name: str, a: str, ta: int, b: str, tb: int) -> None:
        if a in after and b in after:
            c = contrast(after[a], ta, after[b], tb, tasks, same_agent=a == b, resamples=resamples, unit_of=unit_of)
            out.append(
                {
                    "label": label,
                    "name": f"{name} (after {intervention})",
                    "a": f"{a} @T={ta}",
                    "b": f"{b} @T={tb}",
                    **c,
                }
            )

    add("h1", "recovery: fixed-T_long vs fixed-T_short at the longest T", long, hi_t, short, hi_t)
    add("h2", "recovery: BudgetMix at the longest vs the shortest T", mix, hi_t, mix, lo_t)
    add("h3", "recovery: BudgetMix vs fixed-T_long at the longest T", mix, hi_t, long, hi_t)
    if decisions and long in decisions and short in decisions:
        out.append(
            _share_row(recovery_share(decisions, long, short, tasks, hi_t, resamples=resamples), long, short, hi_t)
        )
    return out


def _share_row(share: dict[str, Any], long: str, short: str, hi_t: int) -> dict[str, Any]:
    """(h4) as a row of the contrast table: the recovery share of (f) with its interval."""
    return {
        "label": "h4",
        "name": "share of (f) that comes through recovery "
        f"(held if > {share.get('threshold', RECOVERY_SHARE_THRESHOLD):g})",
        "a": f"{long} @T={hi_t}",
        "b": f"{short} @T={hi_t}",
        "diff": share["share"],
        "lo": share["lo"],
        "hi": share["hi"],
        "p": share["p"],
        "tasks": share["tasks"],
        "mean_a": None,
        "mean_b": None,
        "decomposition": share,
    }


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


def holm_family(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with ``p_holm``: each row's ``p`` Holm-adjusted over these rows alone, as one family."""
    for row, adjusted in zip(rows, holm([row.get("p") for row in rows])):
        row["p_holm"] = adjusted
    return rows


def named_contrasts(
    agents: Mapping[str, Agent],
    tasks: Sequence[str],
    ts: Sequence[int],
    *,
    short: str,
    long: str,
    mix: str,
    curricula: Sequence[str],
    resamples: int = 2000,
    no_starts: str | None = None,
    unit_of: Callable[[str], str] | None = None,
    more: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """The contrasts named in advance, each with its paired 95% interval.

    (a) collapse: fixed-T_long at the smallest T minus itself at the largest T;
    (b) BudgetMix - fixed-T_long at the smallest T;
    (c) BudgetMix - fixed-T_short at the largest T;
    (d) BudgetMix - the per-T best fixed-T specialist, at each T (the specialist is picked on
        the same data, which favours it);
    (e) BudgetMix - each curriculum, at the smallest and the largest T;
    (f) fixed-T_long - fixed-T_short at the largest T (a long-budget gain exists);
    (g) difference-in-differences for H1: fixed-T_long's drop from the largest to the smallest T
        minus fixed-T_short's, [long@hi - long@lo] - [short@hi - short@lo] (> 0: the long
        specialist loses more when the budget shrinks);
    (e) also BudgetMix - BudgetMix trained without forced starts (``no_starts``), at the smallest
        and the largest T: what the start-state curriculum contributes;
    ``more``: rows computed elsewhere that join the family (the recovery contrasts (h1)-(h4)).

    Each row has its two-sided bootstrap p-value and ``p_holm``, Holm-adjusted over every row
    (the family of the named contrasts, ``more`` included); given ``unit_of``, each row also has
    the interval and p-value with held-out units resampled (``lo_unit``, ``hi_unit``,
    ``p_unit``); every row also has the equivalence test (TOST within +-`EQUIVALENCE_MARGIN`:
    ``lo90``, ``hi90``, ``p_equiv``, ``equivalent``), which is named in advance for (d)
    ("BudgetMix matches the specialist").
    """
    lo_t, hi_t = min(ts), max(ts)
    pairs = _named_pairs(agents, tasks, ts, short, long, mix, curricula, no_starts)
    out = _pair_rows(agents, pairs, tasks, resamples, unit_of)
    if long in agents and short in agents:
        out.append(_did_row(agents, tasks, long, short, lo_t, hi_t, resamples, unit_of))
    out += [dict(row) for row in more]
    return holm_family(out)


def _pair_rows(
    agents: Mapping[str, Agent],
    pairs: Sequence[tuple[str, str, str, int, str, int]],
    tasks: Sequence[str],
    resamples: int,
    unit_of: Callable[[str], str] | None,
) -> list[dict[str, Any]]:
    """A contrast row (paired by task, seeds resampled) per (label, name, a, its T, b, its T) whose agents both ran."""
    out = []
    for label, name, a, ta, b, tb in pairs:
        if a in agents and b in agents:
            c = contrast(agents[a], ta, agents[b], tb, tasks, same_agent=a == b, resamples=resamples, unit_of=unit_of)
            out.append({"label": label, "name": name, "a": f"{a} @T={ta}", "b": f"{b} @T={tb}", **c})
    return out


def process_contrasts(
    agents: Mapping[str, Agent],
    after: Mapping[str, Agent] | None,
    tasks: Sequence[str],
    ts: Sequence[int],
    *,
    long: str,
    mix: str,
    suffix: str,
    intervention_ts: Sequence[int] = (),
    intervention: str = "",
    resamples: int = 2000,
    unit_of: Callable[[str], str] | None = None,
) -> list[dict[str, Any]]:
    """Process supervision against budget design, named before the run; ``long + suffix`` and ``mix +
    suffix`` are the arms trained with the process reward, ``after`` success after the primary intervention.

    (p1) the process reward's effect on the long specialist at the longest T;
    (p2) the collapse of the long specialist trained with process reward: itself at the shortest T
         minus at the longest;
    (p3) budget design against process supervision at the shortest T: BudgetMix minus the long
         specialist trained with process reward;
    (p4) whether they combine: BudgetMix with process reward minus BudgetMix, at the shortest and the
         longest T;
    (p5) local recovery, the (h1) protocol: after the intervention, the long specialist with process
         reward minus without, at the intervention's longest T.

    Holm-adjusted over these rows alone (their own family), as ``p_holm``. Empty without the arms.
    """
    long_pr, mix_pr = long + suffix, mix + suffix
    if long_pr not in agents and mix_pr not in agents:
        return []
    lo_t, hi_t = min(ts), max(ts)
    pairs = [
        ("p1", "process reward's effect on the long-budget specialist at the longest T", long_pr, hi_t, long, hi_t),
        ("p2", "collapse of the long-budget specialist trained with process reward", long_pr, lo_t, long_pr, hi_t),
        ("p3", "budget design vs process supervision at the shortest T", mix, lo_t, long_pr, lo_t),
        ("p4", f"process reward added to BudgetMix at T={lo_t}", mix_pr, lo_t, mix, lo_t),
        ("p4", f"process reward added to BudgetMix at T={hi_t}", mix_pr, hi_t, mix, hi_t),
    ]
    out = _pair_rows(agents, pairs, tasks, resamples, unit_of)
    if after and intervention_ts:
        t_iv = max(intervention_ts)
        recovery = [("p5", f"recovery with process reward (after {intervention})", long_pr, t_iv, long, t_iv)]
        out += _pair_rows(after, recovery, tasks, resamples, unit_of)
    return holm_family(out)


def _named_pairs(
    agents: Mapping[str, Agent],
    tasks: Sequence[str],
    ts: Sequence[int],
    short: str,
    long: str,
    mix: str,
    curricula: Sequence[str],
    no_starts: str | None,
) -> list[tuple[str, str, str, int, str, int]]:
    """(label, name, agent a, its T, agent b, its T) of the paired contrasts (a)-(f), in the report's order."""
    lo_t, hi_t = min(ts), max(ts)
    pairs = [
        ("a", "collapse of the long-budget specialist", long, lo_t, long, hi_t),
        ("b", "BudgetMix vs fixed-T_long at the shortest T", mix, lo_t, long, lo_t),
        ("c", "BudgetMix vs fixed-T_short at the longest T", mix, hi_t, short, hi_t),
    ]
    for t in ts:
        best = max(
            (short, long),
            key=lambda n: success_at(agents[n], tasks, t, resamples=1)["mean"] or -1.0 if n in agents else -1.0,
        )
        pairs.append(("d", f"BudgetMix vs the best fixed-T specialist at T={t}", mix, t, best, t))
    for cur in curricula:
        pairs += [("e", f"BudgetMix vs {cur} at T={t}", mix, t, cur, t) for t in (lo_t, hi_t)]
    if no_starts:
        pairs += [
            ("e", f"BudgetMix vs BudgetMix without forced starts at T={t}", mix, t, no_starts, t) for t in (lo_t, hi_t)
        ]
    pairs.append(("f", "fixed-T_long vs fixed-T_short at the longest T", long, hi_t, short, hi_t))
    return pairs


def _did_row(
    agents: Mapping[str, Agent],
    tasks: Sequence[str],
    long: str,
    short: str,
    lo_t: int,
    hi_t: int,
    resamples: int,
    unit_of: Callable[[str], str] | None,
) -> dict[str, Any]:
    """(g): fixed-T_long's drop from the largest to the smallest T minus fixed-T_short's."""
    terms = [(long, hi_t, 1.0), (long, lo_t, -1.0), (short, hi_t, -1.0), (short, lo_t, 1.0)]
    c = linear_contrast(agents, terms, tasks, resamples=resamples, unit_of=unit_of)
    return {
        "label": "g",
        "name": "H1 difference-in-differences: fixed-T_long's drop minus fixed-T_short's",
        "a": f"{long} @T={hi_t} - @T={lo_t}",
        "b": f"{short} @T={hi_t} - @T={lo_t}",
        "mean_a": None if c["diff"] is None else c["terms"][f"{long} @T={hi_t}"] - c["terms"][f"{long} @T={lo_t}"],
        "mean_b": None if c["diff"] is None else c["terms"][f"{short} @T={hi_t}"] - c["terms"][f"{short} @T={lo_t}"],
        **c,
    }


def _fmt(x: float | None, p: bool = False) -> str:
    if x is None or x != x:  # None or NaN
        return "–"
    return ("< 0.001" if x < 0.001 else f"{x:.3f}") if p else f"{x:.2f}"


def contrast_table(contrasts: Sequence[Mapping[str, Any]]) -> str:
    """The named contrasts as a markdown table (A, B, A - B, 95% interval, half-width, p, Holm p,
    tasks), then the equivalence rows of (d) when the family has them: one layout for the report and
    `baselines.experiment.pool`."""
    lines = [
        "|  | contrast | A | B | A - B | 95% interval | half-width | held-out units' interval | p | p (Holm) | tasks |",
        "|" + "---|" * 11,
    ]
    for c in contrasts:
        half = (c["hi"] - c["lo"]) / 2 if c.get("lo") is not None else None
        units = f"[{_fmt(c['lo_unit'])}, {_fmt(c['hi_unit'])}] ({c['units']})" if c.get("lo_unit") is not None else "–"
        lines.append(
            f"| {c['label']} | {c['name']} | {c['a']} ({_fmt(c.get('mean_a'))}) | {c['b']} ({_fmt(c.get('mean_b'))}) | "
            f"{_fmt(c['diff'])} | [{_fmt(c['lo'])}, {_fmt(c['hi'])}] | {_fmt(half)} | "
            f"{units} | {_fmt(c.get('p'), True)} | "
            f"{_fmt(c.get('p_holm'), True)} | {c['tasks']} |"
        )
    equivalence = [c for c in contrasts if c["label"] == "d"]
    if not equivalence:  # a family without (d), such as (p1)-(p5)
        return "\n".join(lines)
    lines += [
        "",
        f'**Equivalence test for (d)** ("BudgetMix matches the specialist"): two one-sided tests with margin '
        f"+-{EQUIVALENCE_MARGIN:g}; equivalent at the 5% level when the 90% interval lies inside the margin.",
        "",
        "| contrast | A - B | 90% interval | p (TOST) | equivalent |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {c['name']} | {_fmt(c['diff'])} | [{_fmt(c.get('lo90'))}, {_fmt(c.get('hi90'))}] | "
        f"{_fmt(c.get('p_equiv'), True)} | {'yes' if c.get('equivalent') else 'no'} |"
        for c in equivalence
    ]
    return "\n".join(lines)


def task_unit(task_id: str) -> str:
    """A task's held-out unit: its id without the last part (``coding/one_bug/<module>``)."""
    return task_id.rsplit("/", 1)[0]
