"""What the charts draw, per run: a small digest of `agentgym.eval.summary.summarize`.

The page never recomputes a statistic in JavaScript that the harness already defines: Pass@(K,T)
with its bootstrap interval over tasks, the failure categories, recovery after faults, the paired
effect of a forced start, cost and latency are the summary's own numbers, taken from the run's
records here (not from a ``summary.json`` that may be older than the records).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentgym.eval.summary import summarize
from agentgym.view.runs import Run

__all__ = ["digest_run", "grid_config", "VIEW_RESAMPLES"]

VIEW_RESAMPLES = 400
"""Bootstrap resamples for the page's intervals: enough for a chart, and 49 agents' runs digest in
seconds (``agentgym report`` keeps the run's own count for the numbers it publishes)."""

_COSTS = ("model_calls", "env_calls", "env_seconds", "prompt_tokens", "completion_tokens")


def grid_config(run: Run) -> dict[str, Any]:
    """The run's grid (envs, ks, ts, n) from ``run.json``, or read off the records without one."""
    config = dict(run.config)
    recs = run.records
    config.setdefault("envs", sorted({r["env"] for r in recs}))
    config.setdefault("ts", sorted({int(r["T"]) for r in recs}))
    config.setdefault("n", max(int(r.get("sample", 0)) for r in recs) + 1)
    config.setdefault("ks", [1])
    config["resamples"] = VIEW_RESAMPLES
    return config


def _by_t(table: Mapping[str, Any] | None, fn: Any) -> dict[str, Any]:
    return {t: fn(v) for t, v in (table or {}).items()}


def digest_run(run: Run) -> dict[str, Any]:
    """The chart data of one run: grid, success with intervals, categories, recovery, cost, latency."""
    config = grid_config(run)
    summary = summarize(run.records, config)
    envs = list(config["envs"])
    group = "all" if len(envs) > 1 else envs[0]
    results = summary["results"]
    # a run of faulted episodes only (no clean twin) still has a grid to draw
    clean: dict[str, Any] = results.get("clean", {}).get(group) or results.get("faulted", {}).get(group) or {}
    faulted: dict[str, Any] = results.get("faulted", {}).get(group) or {}
    recovery = summary.get("recovery", {}).get(group, {}).get("by_t", {})
    intervention = summary.get("intervention", {})
    out: dict[str, Any] = {
        "label": run.label,
        "path": str(run.path),
        "agent": str(config.get("agent") or ""),
        "envs": envs,
        "ts": [int(t) for t in config["ts"]],
        "ks": [int(k) for k in config["ks"]],
        "counts": summary["counts"],
        "pass": _by_t(clean.get("pass"), lambda row: {k: _cell(c) for k, c in row.items()}),
        "categories": clean.get("categories", {}),
        "exhaustion": clean.get("exhaustion", {}),
        "cost": _by_t(clean.get("cost"), lambda row: {f: row.get(f) for f in _COSTS if f in row}),
        "latency": clean.get("latency", {}),
        "faults": str(config.get("faults") or ""),
        "faulted_pass": _by_t(faulted.get("pass"), lambda row: _cell(row.get("1") or {})),
        "recovery": {
            t: {
                "pairs": r.get("pairs"),
                "clean": r.get("success_clean"),
                "faulted": r.get("success_faulted"),
                "paired_rate": r.get("paired_rate"),
                "fault_episodes": r.get("fault_episodes"),
                "recovered_tool": (r.get("time_to_recover") or {}).get("recovered"),
            }
            for t, r in recovery.items()
            if r.get("pairs") or r.get("fault_episodes")
        },
        "intervention": {},
    }
    if intervention:
        out["intervention"] = {
            "name": intervention.get("name"),
            "by_t": {
                t: {
                    "pairs": v.get("pairs"),
                    "clean": v.get("success_clean"),
                    "intervened": v.get("success_intervened"),
                    "diff": v.get("diff"),
                    "recovered": v.get("recovered"),
                }
                for t, v in (intervention.get("by_group", {}).get(group) or {}).items()
            },
        }
    return out


def _cell(cell: Mapping[str, Any]) -> dict[str, Any]:
    return {k: cell.get(k) for k in ("mean", "lo", "hi", "tasks")}
