"""`summarize`: every statistic of a run, from its episode records, as one JSON-ready dict.

The summary is what ``summary.json`` holds and what the report, the plots and ``compare`` read;
they never look at episodes again. Keys that are numbers (T, K) are strings, as in JSON, so a
summary read back from disk and one fresh from `summarize` are the same object.

Layout::

    config                   the run's settings
    counts                   episodes, scored, infra_errors, infra_retried
    results[cond][group]     cond: "clean" | "faulted" | "intervened"; group: an env id or "all"
        pass[T][K]           {"mean", "lo", "hi", "tasks", "skipped"}  Pass@(K,T), bootstrap CI over tasks
        pass_hat[T][K]       the same for pass^k (all K of K attempts succeed; tau-bench)
        success[T]           pass@1
        extrapolation[T]     success(T) / success(T_ref)
        exhaustion[T]        turn-limit exhaustion rate
        categories[T][cat]   failure-category shares
        latency[T]           {"p50", "p95", "p99"} seconds
        cost[T][field]       mean per-episode cost (model_calls, env_calls, env_seconds, ..., latency_s)
        success_at_cost      {"turns" | "env_calls" | "seconds": {C: best cell with cost <= C}}
        cost_at_success      {"turns" | "env_calls" | "seconds": {target: cheapest cell}}
    recovery[group]          paired and natural recovery rates per T (see `metrics.recovery`),
                             with by_t[T].time_to_recover (see `metrics.time_to_recover`)
    soft_budget[cond][group] with budget_mode "soft": per T, hard against soft paired by task,
                             sample and seeds (see `metrics.soft_vs_hard`)
    intervention             with an intervention: name, episodes, scored, no_candidate (episodes
                             whose task had no candidate: not played, not scored) and their tasks,
                             by_group[group][T]: intervened against clean, paired by task, sample and
                             seeds (see `metrics.intervention_effect`)

Everything but ``soft_budget`` (and ``counts``) is computed over the hard-budget episodes.

docs/eval.md lists every field with its meaning.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agentgym.eval import metrics
from agentgym.eval.episodes import budget_mode

__all__ = ["summarize", "CONDITIONS", "SUCCESS_TARGETS"]

CONDITIONS = ("clean", "faulted", "intervened")
SUCCESS_TARGETS = (0.25, 0.5, 0.75, 0.9, 0.95, 1.0)
_COST_FIELDS = (
    "model_calls",
    "env_calls",
    "env_seconds",
    "agent_seconds",
    "episode_seconds",
    "prompt_tokens",
    "completion_tokens",
)


def summarize(records: Sequence[Mapping[str, Any]], config: Mapping[str, Any]) -> dict[str, Any]:
    """All statistics of ``records`` over the grid in ``config`` (ks, ts, n, envs, faults, t_ref)."""
    ks = [int(k) for k in config["ks"]]
    ts = [int(t) for t in config["ts"]]
    envs = list(config["envs"])
    resamples = int(config.get("resamples", 2000))
    seed = int(config.get("seed", 0))
    t_ref = int(config.get("t_ref") or max(ts))
    in_grid = [r for r in records if r["env"] in envs and int(r["T"]) in ts and int(r["sample"]) < int(config["n"])]
    infra = [r for r in in_grid if r.get("infra_error")]
    hard = [r for r in in_grid if budget_mode(r) == "hard"]
    groups = envs + (["all"] if len(envs) > 1 else [])
    results: dict[str, Any] = {}
    for cond in CONDITIONS:
        # a task without a candidate for the intervention has no intervened episode
        # (summary["intervention"] counts them)
        cond_records = [r for r in _in_condition(hard, cond) if not r.get("no_candidate")]
        if not cond_records:
            continue
        results[cond] = {g: _group_stats(_in_group(cond_records, g), ks, ts, t_ref, resamples, seed) for g in groups}
    summary = {
        "config": dict(config),
        "counts": {
            "episodes": len(in_grid),
            "scored": len(metrics.scored(in_grid)),
            "successes": sum(bool(r.get("success")) for r in in_grid if not r.get("infra_error")),
            "infra_errors": len(infra),
            "infra_retried": sum(1 for r in in_grid if len(r.get("infra_retries") or []) > 0),
            "infra_error_kinds": _kinds(infra),
            "no_candidate": sum(1 for r in in_grid if r.get("no_candidate")),
        },
        "results": results,
        "recovery": {g: metrics.recovery(_in_group(hard, g)) for g in groups},
    }
    if config.get("intervention") or any(r.get("intervention") for r in in_grid):
        summary["intervention"] = _intervention(hard, groups, config, resamples, seed)
    if any(budget_mode(r) == "soft" for r in in_grid):
        summary["soft_budget"] = {}
        for cond in CONDITIONS:
            cond_records = _in_condition(in_grid, cond)
            if cond_records:
                summary["soft_budget"][cond] = {
                    g: metrics.soft_vs_hard(_in_group(cond_records, g), resamples=resamples, seed=seed) for g in groups
                }
    # One canonical form: JSON's (string keys, plain floats, null for undefined).
    return json.loads(json.dumps(_no_nan(summary), default=_jsonable))


def _in_condition(rs: Sequence[Mapping[str, Any]], cond: str) -> list[Mapping[str, Any]]:
    """The records of ``cond``: "intervened" (run with a forced start), "faulted" (run with a fault
    spec) or "clean" (neither)."""
    if cond == "intervened":
        return [r for r in rs if r.get("intervention")]
    return [r for r in rs if not r.get("intervention") and bool(r.get("faults")) == (cond == "faulted")]


def _intervention(
    rs: Sequence[Mapping[str, Any]], groups: list[str], config: Mapping[str, Any], resamples: int, seed: int
) -> dict[str, Any]:
    """The intervention section: what was forced, how often it could not be, and its paired effect."""
    forced = [r for r in rs if r.get("intervention") and not r.get("infra_error")]
    missing = [r for r in forced if r.get("no_candidate")]
    names = sorted(
        {str(r["intervention"]) for r in forced}
        | ({str(config["intervention"])} if config.get("intervention") else set())
    )
    return {
        "name": ", ".join(names),
        "episodes": len(forced),
        "scored": len(forced) - len(missing),
        "no_candidate": len(missing),
        "no_candidate_tasks": sorted({f"{r['env']}::{r['task']}" for r in missing}),
        "by_group": {g: metrics.intervention_effect(_in_group(rs, g), resamples=resamples, seed=seed) for g in groups},
    }


def _in_group(rs: Sequence[Mapping[str, Any]], group: str) -> Sequence[Mapping[str, Any]]:
    """The records of one env id, or all of them for the group "all"."""
    return rs if group == "all" else [r for r in rs if r["env"] == group]


def _group_stats(
    rs: Sequence[Mapping[str, Any]], ks: list[int], ts: list[int], t_ref: int, resamples: int, seed: int
) -> dict[str, Any]:
    grid = metrics.pass_grid(rs, ks, ts, resamples=resamples, seed=seed)
    success = {t: grid[t][1]["mean"] if 1 in grid[t] else metrics.pass_grid(rs, [1], [t])[t][1]["mean"] for t in ts}
    cost: dict[int, dict[str, Any]] = {t: {} for t in ts}
    for f in (*_COST_FIELDS, "latency_s"):
        for t, v in metrics.cell_costs(rs, f).items():
            cost[t][f] = v
    measures = {
        "turns": {(t, k): float(k * t) for t in ts for k in ks},
        "env_calls": {(t, k): k * cost[t]["env_calls"] for t in ts for k in ks if "env_calls" in cost[t]},
        "seconds": {(t, k): k * cost[t]["latency_s"] for t in ts for k in ks if "latency_s" in cost[t]},
    }
    budgets = sorted({k * t for t in ts for k in ks})
    return {
        "pass": grid,
        "pass_hat": metrics.pass_grid(rs, ks, ts, resamples=resamples, seed=seed, estimator=metrics.pass_hat_k),
        "success": success,
        "extrapolation": metrics.budget_extrapolation(success, t_ref),
        "exhaustion": metrics.exhaustion_rate(rs),
        "categories": metrics.category_breakdown(rs),
        "subtasks": metrics.subtask_correctness(rs),
        "latency": metrics.latency_percentiles(rs),
        "cost": cost,
        "success_at_cost": {
            "turns": metrics.success_at_cost(grid, budgets, measures["turns"]),
            "env_calls": metrics.success_at_cost(
                grid, sorted(set(measures["env_calls"].values())), measures["env_calls"]
            ),
            "seconds": metrics.success_at_cost(grid, sorted(set(measures["seconds"].values())), measures["seconds"]),
        },
        "cost_at_success": {name: metrics.cost_at_success(grid, SUCCESS_TARGETS, m) for name, m in measures.items()},
        "tasks": len({(r["env"], r["task"]) for r in rs}),
        "episodes": len(rs),
    }


def _kinds(infra: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in infra:
        kind = str(r["infra_error"]).split(":", 1)[0]
        out[kind] = out.get(kind, 0) + 1
    return out


def _no_nan(value: Any) -> Any:
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_no_nan(v) for v in value]
    return value


def _jsonable(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, tuple)):
        return list(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
