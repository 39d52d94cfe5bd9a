"""Statistics of an evaluation: pass@k, bootstrap intervals, budget and cost curves, recovery.

Everything here is a pure function of episode records (dicts as written to ``episodes.jsonl``),
so a report can be rebuilt from the file alone and two runs compare on equal terms.

Contents:
- `pass_at_k`: the unbiased estimator 1 - C(n-c, k) / C(n, k) of Chen et al. (2021).
- `pass_hat_k`: tau-bench's pass^k, C(c, k) / C(n, k): the chance that all k of k attempts succeed.
- `pass_grid`: Pass@(K,T) (or pass^k with ``estimator=pass_hat_k``) averaged over tasks, with a
  percentile bootstrap interval over tasks.
- `bootstrap_mean`: that interval for any per-task score.
- `budget_extrapolation`: success(T) / success(T_ref).
- `recovery`: paired recovery rate (faulted vs clean on the same tasks and seeds) and the
  natural error-recovery rate; with the turns from the first injected fault to the first
  successful tool call after it (HAL's time-to-recover), see `time_to_recover`.
- `success_at_cost`, `cost_at_success`: the best pass over cells with cost <= C, and the
  cheapest cell reaching a target success.
- `exhaustion_rate`, `category_breakdown`, `latency_percentiles`.
- `soft_vs_hard`: the same episodes under a hard and a soft budget (warning and extension),
  paired by task, sample and seeds: success, turns, extensions asked and granted, their cost.
- `intervention_effect`: episodes with a forced start against their clean twins, paired by task,
  sample and seeds.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from agentgym.eval.episodes import budget_mode, twin_key
from agentgym.wrappers.labels import CATEGORIES  # the taxonomy, in precedence order

__all__ = [
    "CATEGORIES",
    "subtask_correctness",
    "pass_at_k",
    "pass_hat_k",
    "time_to_recover",
    "task_counts",
    "bootstrap_mean",
    "pass_grid",
    "budget_extrapolation",
    "recovery",
    "cell_costs",
    "success_at_cost",
    "cost_at_success",
    "exhaustion_rate",
    "category_breakdown",
    "latency_percentiles",
    "soft_vs_hard",
    "intervention_effect",
    "scored",
]


Record = Mapping[str, Any]


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of ``k`` samples drawn without replacement from ``n``
    episodes, ``c`` of them successful, is a success: 1 - C(n-c, k) / C(n, k).

    Unbiased for the pass@k of the underlying policy, unlike 1 - (1 - c/n)^k.
    """
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got n={n}, k={k}")
    if n - c < k:
        return 1.0
    # The product form avoids huge binomials: C(n-c,k)/C(n,k) = prod_{i=n-c+1}^{n} (1 - k/i).
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """tau-bench's pass^k: the probability that ``k`` samples drawn without replacement from
    ``n`` episodes, ``c`` of them successful, all succeed: C(c, k) / C(n, k).

    Unbiased for p^k of a task with success probability p, unlike (c/n)^k; it measures
    consistency where pass@k measures coverage.
    """
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got n={n}, k={k}")
    if c < k:
        return 0.0
    return float(np.prod((c - np.arange(k)) / (n - np.arange(k))))


def scored(records: Iterable[Record]) -> list[Record]:
    """Episodes that count: infrastructure failures are reported apart, never scored, and so are
    intervened episodes whose task had no candidate for the intervention (``no_candidate``)."""
    return [r for r in records if not r.get("infra_error") and not r.get("no_candidate")]


def task_counts(records: Iterable[Record]) -> dict[str, tuple[int, int]]:
    """Per task id: (episodes n, successes c), infrastructure failures excluded."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in scored(records):
        key = _task_key(r)
        counts[key][0] += 1
        counts[key][1] += int(bool(r["success"]))
    return {t: (n, c) for t, (n, c) in sorted(counts.items())}


def bootstrap_mean(
    values: Sequence[float], *, resamples: int = 2000, level: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """Mean of per-task values and a percentile bootstrap interval over tasks.

    Tasks are the unit of resampling because episodes of one task are correlated; the
    interval therefore says how much the score would move on another draw of tasks.
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(x.mean())
    if x.size == 1:
        return mean, mean, mean
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(resamples, x.size))].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    # Quantiles of resampled means can miss the point estimate by float rounding only.
    return mean, float(min(lo, mean)), float(max(hi, mean))


def pass_grid(
    records: Iterable[Record],
    ks: Sequence[int],
    ts: Sequence[int],
    *,
    resamples: int = 2000,
    seed: int = 0,
    estimator: Callable[[int, int, int], float] = pass_at_k,
) -> dict[int, dict[int, dict[str, Any]]]:
    """Pass@(K,T): ``grid[T][K] = {"mean", "lo", "hi", "tasks", "skipped"}``; with
    ``estimator=pass_hat_k`` the same grid of pass^k.

    A task enters a cell only if it has at least K scored episodes at that T (infrastructure
    failures can leave fewer); ``skipped`` counts the tasks left out.
    """
    by_t: dict[int, list[Record]] = defaultdict(list)
    for r in records:
        by_t[int(r["T"])].append(r)
    grid: dict[int, dict[int, dict[str, Any]]] = {}
    for t in ts:
        counts = task_counts(by_t.get(int(t), []))
        row: dict[int, dict[str, Any]] = {}
        for k in ks:
            values = [estimator(n, c, k) for n, c in counts.values() if n >= k]
            mean, lo, hi = bootstrap_mean(values, resamples=resamples, seed=seed)
            row[int(k)] = {
                "mean": mean,
                "lo": lo,
                "hi": hi,
                "tasks": len(values),
                "skipped": len(counts) - len(values),
            }
        grid[int(t)] = row
    return grid


def budget_extrapolation(success_by_t: Mapping[int, float], t_ref: int) -> dict[int, float | None]:
    """success(T) / success(T_ref) for every T: how much of the reference-budget success a
    shorter (or longer) budget keeps. None where the reference success is zero."""
    ref = success_by_t.get(int(t_ref))
    out: dict[int, float | None] = {}
    for t, s in sorted(success_by_t.items()):
        out[int(t)] = None if not ref or np.isnan(ref) or np.isnan(s) else float(s / ref)
    return out


def recovery(records: Iterable[Record]) -> dict[str, Any]:
    """Recovery statistics per T.

    - ``paired_rate``: success with the fault / success without it, over pairs of episodes that
      share task, T, sample and seeds and differ only in the injected fault.
    - ``paired_conditional``: among pairs whose clean episode succeeded, the share whose faulted
      twin succeeded too.
    - ``natural_rate``: among clean episodes with at least one error (a bad action or a failed
      tool call), the share that still succeeded.
    - ``fault_rate``: among faulted episodes where a fault actually fired, the share that succeeded.

    Episodes with a forced start (an ``intervention``) are left out: `intervention_effect` pairs them.
    """
    rs = [r for r in scored(records) if not r.get("intervention")]
    clean = {_pair_key(r): r for r in rs if not r.get("faults")}
    faulted = {_pair_key(r): r for r in rs if r.get("faults")}
    ts = sorted({int(r["T"]) for r in rs})
    out: dict[str, Any] = {"by_t": {}}
    for t in ts:
        pairs = [(clean[key], f) for key, f in faulted.items() if key in clean and key[2] == t]
        s_clean = sum(bool(c["success"]) for c, _ in pairs)
        s_fault = sum(bool(f["success"]) for _, f in pairs)
        both = sum(bool(c["success"]) and bool(f["success"]) for c, f in pairs)
        with_err = [r for r in clean.values() if int(r["T"]) == t and r.get("n_errors", 0) > 0]
        fired = [r for r in faulted.values() if int(r["T"]) == t and r.get("n_faults", 0) > 0]
        out["by_t"][t] = {
            "pairs": len(pairs),
            "success_clean": s_clean / len(pairs) if pairs else None,
            "success_faulted": s_fault / len(pairs) if pairs else None,
            "paired_rate": s_fault / s_clean if s_clean else None,
            "paired_conditional": both / s_clean if s_clean else None,
            "natural_episodes": len(with_err),
            "natural_rate": _share(with_err),
            "fault_episodes": len(fired),
            "fault_rate": _share(fired),
            "time_to_recover": time_to_recover(fired),
        }
    return out


def time_to_recover(records: Iterable[Record]) -> dict[str, Any]:
    """Turns from the first injected fault to the first successful tool call after it.

    Over episodes where a fault fired (the record's ``recover_turns``: an int, or None when no
    tool call succeeded afterwards): ``episodes``, ``recovered`` (share), ``mean``, ``p50``,
    ``p90`` (of recovered episodes), ``hist`` (turns -> episodes) and ``never`` (episodes).
    """
    rs = [r for r in scored(records) if r.get("n_faults", 0) > 0 and "recover_turns" in r]
    turns = [int(r["recover_turns"]) for r in rs if r["recover_turns"] is not None]
    hist: dict[int, int] = defaultdict(int)
    for t in turns:
        hist[t] += 1
    return {
        "episodes": len(rs),
        "recovered": len(turns) / len(rs) if rs else None,
        "mean": float(np.mean(turns)) if turns else None,
        "p50": float(np.percentile(turns, 50)) if turns else None,
        "p90": float(np.percentile(turns, 90)) if turns else None,
        "hist": dict(sorted(hist.items())),
        "never": len(rs) - len(turns),
    }


def cell_costs(records: Iterable[Record], field: str) -> dict[int, float]:
    """Mean per-episode cost ``field`` (a key of the record's ``cost``, or ``latency_s``) per T."""
    acc: dict[int, list[float]] = defaultdict(list)
    for r in scored(records):
        value = r.get("latency_s") if field == "latency_s" else r.get("cost", {}).get(field)
        if value is not None:
            acc[int(r["T"])].append(float(value))
    return {t: float(np.mean(v)) for t, v in sorted(acc.items())}


def _cells(grid: Mapping[int, Mapping[int, Mapping[str, Any]]], cost_of: Mapping[tuple[int, int], float]):
    for t, row in grid.items():
        for k, cell in row.items():
            if (t, k) in cost_of and not np.isnan(cell["mean"]):
                yield cost_of[(t, k)], cell["mean"], t, k


def success_at_cost(
    grid: Mapping[int, Mapping[int, Mapping[str, Any]]],
    budgets: Sequence[float],
    cost_of: Mapping[tuple[int, int], float] | None = None,
) -> dict[float, dict[str, Any] | None]:
    """For each cost budget C, the best pass@K(T) over cells whose cost is at most C.

    ``cost_of[(T, K)]`` defaults to K*T, the turn budget a K-sample, T-turn attempt may spend.
    """
    cost_of = cost_of if cost_of is not None else {(t, k): float(k * t) for t, row in grid.items() for k in row}
    cells = list(_cells(grid, cost_of))
    out: dict[float, dict[str, Any] | None] = {}
    for c in budgets:
        fit = [x for x in cells if x[0] <= c]
        if not fit:
            out[c] = None
            continue
        cost, s, t, k = max(fit, key=lambda x: (x[1], -x[0]))
        out[c] = {"success": s, "K": k, "T": t, "cost": cost}
    return out


def cost_at_success(
    grid: Mapping[int, Mapping[int, Mapping[str, Any]]],
    targets: Sequence[float],
    cost_of: Mapping[tuple[int, int], float] | None = None,
) -> dict[float, dict[str, Any] | None]:
    """For each target success rate, the cheapest cell reaching it (None if none does)."""
    cost_of = cost_of if cost_of is not None else {(t, k): float(k * t) for t, row in grid.items() for k in row}
    cells = list(_cells(grid, cost_of))
    out: dict[float, dict[str, Any] | None] = {}
    for target in targets:
        fit = [x for x in cells if x[1] >= target - 1e-12]
        if not fit:
            out[target] = None
            continue
        cost, s, t, k = min(fit, key=lambda x: (x[0], -x[1]))
        out[target] = {"cost": cost, "K": k, "T": t, "success": s}
    return out


def exhaustion_rate(records: Iterable[Record]) -> dict[int, float]:
    """Per T: the share of scored episodes the turn limit cut off before they ended."""
    acc: dict[int, list[bool]] = defaultdict(list)
    for r in scored(records):
        acc[int(r["T"])].append(bool(r.get("budget_exhausted")))
    return {t: float(np.mean(v)) for t, v in sorted(acc.items())}


def subtask_correctness(records: Iterable[Record]) -> dict[int, dict[str, Any]]:
    """Per T: the mean share of a task's subtasks done at the episode's end (``all``), and apart for
    the episodes that submitted (``submitted``) and those the turn limit cut off (``cut_off``), over the
    scored episodes whose task has subtasks; with success beside it, a policy that makes progress
    without finishing shows as such. None where no episode of that kind was played."""
    acc: dict[int, dict[str, list[float]]] = defaultdict(lambda: {"all": [], "submitted": [], "cut_off": []})
    for r in scored(records):
        sub = r.get("subtasks")
        if not sub or not sub.get("total"):
            continue
        share = sub["done"] / sub["total"]
        row = acc[int(r["T"])]
        row["all"].append(share)
        row["submitted" if r.get("submitted") else "cut_off"].append(share)
    return {
        t: {**{k: float(np.mean(v)) if v else None for k, v in row.items()}, "episodes": len(row["all"])}
        for t, row in sorted(acc.items())
    }


def category_breakdown(records: Iterable[Record]) -> dict[int, dict[str, float]]:
    """Per T: the share of scored episodes in each failure category (rows sum to 1)."""
    acc: dict[int, dict[str, int]] = defaultdict(lambda: dict.fromkeys(CATEGORIES, 0))
    for r in scored(records):
        cat = r.get("category") or ("success" if r["success"] else "planning_mistake")
        row = acc[int(r["T"])]
        row[cat] = row.get(cat, 0) + 1
    out: dict[int, dict[str, float]] = {}
    for t, row in sorted(acc.items()):
        total = sum(row.values())
        out[t] = {cat: n / total for cat, n in row.items()}
    return out


def latency_percentiles(records: Iterable[Record], qs: Sequence[float] = (50, 95, 99)) -> dict[int, dict[str, float]]:
    """Per T: episode latency percentiles in seconds, e.g. ``{"p50": ..., "p95": ..., "p99": ...}``."""
    acc: dict[int, list[float]] = defaultdict(list)
    for r in scored(records):
        acc[int(r["T"])].append(float(r["latency_s"]))
    return {t: {f"p{q:g}": float(np.percentile(v, q)) for q in qs} for t, v in sorted(acc.items())}


def soft_vs_hard(records: Iterable[Record], *, resamples: int = 2000, seed: int = 0) -> dict[int, dict[str, Any]]:
    """Per T, hard-budget episodes against their soft-budget twins (same task, sample, faults and
    seeds; records carry ``budget_mode``), over the pairs where both were scored:

    - ``success_hard``, ``success_soft`` and ``diff`` = ``{"mean", "lo", "hi"}``: soft minus hard
      success, with a percentile bootstrap interval over tasks (each task's mean paired difference);
    - ``turns_hard``, ``turns_soft``: mean agent turns used (an ``extend`` is a turn);
    - ``asked``: share of soft episodes that sent ``extend``; ``requests``, ``granted``: mean per
      episode; ``extra_turns``: mean turns granted; ``cost``: mean reward paid for extensions, and
      ``net_soft`` = ``success_soft - cost``;
    - ``exhausted_hard``, ``exhausted_soft``: budget exhaustion rates; ``ran_out_after_extension``:
      share of soft episodes that asked and still ran out (the ``timeout_after_extension`` flag);
    - ``warned``: share of soft episodes shown a budget warning.
    """
    rs = scored(records)
    hard = {twin_key(r): r for r in rs if budget_mode(r) == "hard"}
    soft = {twin_key(r): r for r in rs if budget_mode(r) == "soft"}
    out: dict[int, dict[str, Any]] = {}
    for t, pairs, tasks, (mean, lo, hi) in _paired_differences(hard, soft, resamples=resamples, seed=seed):
        ext = [s.get("extensions") or {} for _, s in pairs]

        def avg(values: Iterable[float]) -> float:
            return float(np.mean(list(values)))

        cost = avg(e.get("cost", 0.0) for e in ext)
        success_soft = avg(bool(s["success"]) for _, s in pairs)
        out[t] = {
            "pairs": len(pairs),
            "tasks": tasks,
            "success_hard": avg(bool(h["success"]) for h, _ in pairs),
            "success_soft": success_soft,
            "diff": {"mean": mean, "lo": lo, "hi": hi},
            "turns_hard": avg(h["turns"] for h, _ in pairs),
            "turns_soft": avg(s["turns"] for _, s in pairs),
            "asked": avg(e.get("requested", 0) > 0 for e in ext),
            "requests": avg(e.get("requested", 0) for e in ext),
            "granted": avg(e.get("granted", 0) for e in ext),
            "extra_turns": avg(e.get("extra_turns", 0) for e in ext),
            "cost": cost,
            "net_soft": success_soft - cost,
            "exhausted_hard": avg(bool(h.get("budget_exhausted")) for h, _ in pairs),
            "exhausted_soft": avg(bool(s.get("budget_exhausted")) for _, s in pairs),
            "ran_out_after_extension": avg("timeout_after_extension" in (s.get("flags") or ()) for _, s in pairs),
            "warned": avg(s.get("warnings", 0) > 0 for _, s in pairs),
        }
    return out


def intervention_effect(
    records: Iterable[Record], *, resamples: int = 2000, seed: int = 0
) -> dict[int, dict[str, Any]]:
    """Per T, episodes with a forced start (records with an ``intervention``) against their clean twins
    (same task, sample and seeds, no fault), over the pairs where both were scored:

    - ``success_clean``, ``success_intervened``, and ``diff`` = ``{"mean", "lo", "hi"}``: intervened
      minus clean success, with a percentile bootstrap interval over tasks;
    - ``retained``: success_intervened / success_clean; ``recovered``: among pairs whose clean
      episode succeeded, the share whose intervened twin succeeded too;
    - ``forced_turns``: mean turns the forced start took; ``ended_in_start``: episodes the budget
      ended during the forced start (T at most its length); ``turns_clean``, ``turns_intervened``.
    Intervened episodes whose task had no candidate (``no_candidate``) are not scored, so not paired.
    """
    rs = [r for r in scored(records) if not r.get("faults")]
    clean = {_pair_key(r): r for r in rs if not r.get("intervention")}
    forced = {_pair_key(r): r for r in rs if r.get("intervention")}
    out: dict[int, dict[str, Any]] = {}
    for t, pairs, tasks, (mean, lo, hi) in _paired_differences(clean, forced, resamples=resamples, seed=seed):
        s_clean = sum(bool(c["success"]) for c, _ in pairs)
        s_forced = sum(bool(f["success"]) for _, f in pairs)
        both = sum(bool(c["success"]) and bool(f["success"]) for c, f in pairs)
        out[t] = {
            "pairs": len(pairs),
            "tasks": tasks,
            "success_clean": s_clean / len(pairs),
            "success_intervened": s_forced / len(pairs),
            "diff": {"mean": mean, "lo": lo, "hi": hi},
            "retained": s_forced / s_clean if s_clean else None,
            "recovered": both / s_clean if s_clean else None,
            "forced_turns": float(np.mean([int(f.get("forced_turns", 0)) for _, f in pairs])),
            "ended_in_start": sum(
                int(f.get("forced_turns", 0)) >= int(f["turns"]) and not f.get("submitted") for _, f in pairs
            ),
            "turns_clean": float(np.mean([c["turns"] for c, _ in pairs])),
            "turns_intervened": float(np.mean([f["turns"] for _, f in pairs])),
        }
    return out


def _share(records: Sequence[Record]) -> float | None:
    return sum(bool(r["success"]) for r in records) / len(records) if records else None


def _paired_differences(
    base: Mapping[Any, Record], other: Mapping[Any, Record], *, resamples: int, seed: int
) -> Iterator[tuple[int, list[tuple[Record, Record]], int, tuple[float, float, float]]]:
    """Per T (key[2]) of ``other``'s episodes: each paired with its ``base`` twin (sorted by key: one
    bootstrap order), the number of tasks, and success(other) - success(base) averaged per task,
    with its bootstrap interval."""
    for t in sorted({key[2] for key in other}):
        pairs = [(base[k], o) for k, o in sorted(other.items()) if k in base and k[2] == t]
        if not pairs:
            continue
        by_task: dict[str, list[float]] = defaultdict(list)
        for b, o in pairs:
            by_task[_task_key(o)].append(float(bool(o["success"])) - float(bool(b["success"])))
        yield (
            t,
            pairs,
            len(by_task),
            bootstrap_mean([float(np.mean(v)) for v in by_task.values()], resamples=resamples, seed=seed),
        )


def _task_key(r: Record) -> str:
    return f"{r['env']}::{r['task']}"


def _pair_key(r: Record) -> tuple[str, str, int, int]:
    return (r["env"], r["task"], int(r["T"]), int(r["sample"]))
