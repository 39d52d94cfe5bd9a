"""What a deployment asks of each agent, over all seeds: cost, latency, budget exhaustion, and what
its training cost against what it earns across budgets.

- `exposure`: per training run, what it was trained on: env steps, PPO updates, trained decisions,
  forced-start episodes and steps (every schedule should get the same share of forced starts).
- `deployment`: per agent and T, the turn-limit exhaustion rate (interval over seeds and tasks),
  mean turns, env seconds and policy seconds per episode, P50/P95/P99 episode latency; per agent,
  success at fixed cost and average cost at fixed success over the Pass@(K,T) grid.
- `agent_costs`: per agent, training cost, inference cost and cross-budget success (mean and
  minimum over T), each with an interval over seeds.
- the sections that show them: `exposure_section`, `deployment_section`, `costs_section`.

The statistics are `agentgym.eval.metrics`'s (DESIGN section 6): `cell_costs`, `latency_percentiles`,
`success_at_cost` and `cost_at_success` (on the all-seed Pass@(K,T) grid), `exhaustion_rate` (per
task, through `baselines.report.cells.task_cells`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agentgym.eval.metrics import cell_costs, cost_at_success, exhaustion_rate, latency_percentiles, success_at_cost
from agentgym.eval.summary import SUCCESS_TARGETS
from baselines.report.cells import (
    Records,
    at_each_t,
    fmt,
    fmt_interval,
    md_table,
    over_seeds,
    pooled,
    task_cells,
)
from baselines.report.contrasts import Agent

__all__ = [
    "Deployment",
    "exposure",
    "trained_decisions",
    "deployment",
    "agent_costs",
    "exposure_section",
    "deployment_section",
    "costs_section",
    "SECONDS_LEVELS",
]

SECONDS_LEVELS = 4
"""Columns of success at a fixed env-seconds cost: log-spaced from the cheapest cell to the dearest, all agents."""

Grid = dict[int, dict[int, dict[str, Any]]]
"""T -> K -> ``{"mean", "lo", "hi", ...}``: an agent's Pass@(K,T) over all seeds."""


# ---------------------------------------------------------------------- training exposure per run
def trained_decisions(summary: Mapping[str, Any]) -> int:
    """The policy's own decisions a run trained on: the summary's ``trained_decisions``, or, in a run
    written before that key, its env steps less its forced-start steps (the oracle's, not trained)."""
    if summary.get("trained_decisions") is not None:
        return int(summary["trained_decisions"])
    return int(summary["env_steps"]) - int(summary.get("forced_start_steps") or 0)


def exposure(runs: Sequence[tuple[str, int, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Per run: schedule, seed, env steps, PPO updates, trained decisions, training episodes (None when
    the history does not count them), forced-start episodes and steps, and wall seconds."""
    out = []
    for name, seed, s in runs:
        counted = [h.get("charts/episodes") for h in s.get("history") or []]
        out.append(
            {
                "run": name,
                "seed": seed,
                "schedule": s.get("schedule"),
                "env_steps": int(s["env_steps"]),
                "updates": s.get("updates"),
                "trained_decisions": trained_decisions(s),
                "episodes": int(sum(counted)) if counted and None not in counted else None,
                "forced_start_episodes": s.get("forced_start_episodes"),
                "forced_start_steps": s.get("forced_start_steps"),
                "seconds": float(s["seconds"]),
            }
        )
    return out


def _forced_share(run: Mapping[str, Any]) -> float | None:
    return (
        run["forced_start_episodes"] / run["episodes"]
        if run["episodes"] and run["forced_start_episodes"] is not None
        else None
    )


# ---------------------------------------------------------------------- deployment metrics per agent and T
@dataclass
class Deployment:
    """The deployment numbers of every agent (see `deployment`)."""

    by_t: dict[str, dict[int, dict[str, Any]]]
    """agent -> T -> exhausted (interval), turns, env_seconds, agent_seconds (means per episode), latency_s
    (p50, p95, p99), episodes"""
    at_cost: dict[str, dict[str, dict[float, dict[str, Any] | None]]]
    """agent -> "turns" | "env_seconds" -> cost C -> the best cell with cost <= C (`metrics.success_at_cost`)"""
    at_success: dict[str, dict[str, dict[float, dict[str, Any] | None]]]
    """agent -> "turns" | "env_seconds" -> target success -> the cheapest cell reaching it
    (`metrics.cost_at_success`)"""
    turn_budgets: list[float]
    second_budgets: list[float]


def deployment(
    records: Mapping[str, Records], grids: Mapping[str, Grid], tasks: Sequence[str], ts: Sequence[int]
) -> Deployment:
    """Per agent and T: exhaustion with its seed-and-task interval, mean per-episode costs and latency
    percentiles over all seeds' episodes; per agent: success at fixed cost and cost at fixed success.

    A (T, K) cell's cost in turns is the budget K x T for success at fixed cost (DESIGN 6: the best
    pass over K*T <= C) and K x the mean turns used for the average cost at fixed success; in env
    seconds it is K x the mean env seconds of an episode at T, both ways.
    """
    by_t: dict[str, dict[int, dict[str, Any]]] = {}
    turn_cost: dict[str, dict[tuple[int, int], float]] = {}
    second_cost: dict[str, dict[tuple[int, int], float]] = {}
    for name, recs in records.items():
        everyone = pooled(recs)
        exhausted = at_each_t(task_cells(recs, exhaustion_rate), tasks, ts)
        costs = {f: cell_costs(everyone, f) for f in ("model_calls", "env_seconds", "agent_seconds")}
        latency = latency_percentiles(everyone)
        by_t[name] = {
            t: {
                "exhausted": exhausted[t],
                "turns": costs["model_calls"].get(t),
                "env_seconds": costs["env_seconds"].get(t),
                "agent_seconds": costs["agent_seconds"].get(t),
                "latency_s": latency.get(t),
                "episodes": sum(int(r["T"]) == t for r in everyone),
            }
            for t in ts
        }
        ks = sorted({k for row in grids[name].values() for k in row})
        turn_cost[name] = {(t, k): k * costs["model_calls"][t] for t in ts for k in ks if t in costs["model_calls"]}
        second_cost[name] = {(t, k): k * costs["env_seconds"][t] for t in ts for k in ks if t in costs["env_seconds"]}
    all_ks = sorted({k for g in grids.values() for row in g.values() for k in row})
    turn_budgets = sorted({float(k * t) for t in ts for k in all_ks})
    second_budgets = _levels([c for by in second_cost.values() for c in by.values()])
    at_cost = {
        name: {
            "turns": success_at_cost(grids[name], turn_budgets),
            "env_seconds": success_at_cost(grids[name], second_budgets, second_cost[name]),
        }
        for name in records
    }
    at_success = {
        name: {
            "turns": cost_at_success(grids[name], SUCCESS_TARGETS, turn_cost[name]),
            "env_seconds": cost_at_success(grids[name], SUCCESS_TARGETS, second_cost[name]),
        }
        for name in records
    }
    return Deployment(
        by_t=by_t, at_cost=at_cost, at_success=at_success, turn_budgets=turn_budgets, second_budgets=second_budgets
    )


def _levels(costs: Sequence[float]) -> list[float]:
    """`SECONDS_LEVELS` costs, log-spaced from the smallest to the largest (2 significant digits; the
    largest rounded up so that every agent's dearest cell fits)."""
    positive = [c for c in costs if c > 0]
    if not positive:
        return []
    lo, hi = min(positive), max(positive)
    levels = [float(f"{c:.2g}") for c in np.geomspace(lo, hi, SECONDS_LEVELS)] if hi > lo else [float(f"{lo:.2g}")]
    while levels[-1] < hi:  # rounding down must not leave the dearest cell out
        levels[-1] = float(f"{levels[-1] * 1.05:.2g}")
    return sorted(set(levels))


# ---------------------------------------------------------------------- training against inference
# against cross-budget success
def agent_costs(
    runs: Sequence[Mapping[str, Any]],
    records: Mapping[str, Records],
    cells: Mapping[str, Agent],
    tasks: Sequence[str],
    ts: Sequence[int],
) -> dict[str, dict[str, Any]]:
    """Per agent: ``seeds``, and each an interval over its seeds (`over_seeds`): ``training`` (env steps, updates,
    trained decisions, forced-start episodes and their share of training episodes, wall seconds; None
    for an agent that was not trained), ``inference`` (per episode over the T grid: turns, env
    seconds; policy milliseconds per decision) and ``cross_budget`` (success: the mean over T and the
    minimum over T of the mean over tasks)."""
    out: dict[str, dict[str, Any]] = {}
    for name, recs in records.items():
        mine = [r for r in runs if r["run"] == name]
        training = None
        if mine:
            training = {
                key: over_seeds([r[key] for r in mine])
                for key in ("env_steps", "updates", "trained_decisions", "forced_start_episodes", "seconds")
            }
            training["forced_share"] = over_seeds([_forced_share(r) for r in mine])
        inference = {
            "turns": over_seeds([_mean([r["cost"].get("model_calls") for r in rs]) for rs in recs.values()]),
            "env_seconds": over_seeds([_mean([r["cost"].get("env_seconds") for r in rs]) for rs in recs.values()]),
            "ms_per_decision": over_seeds([_ratio(rs, "agent_seconds", "model_calls", 1000.0) for rs in recs.values()]),
        }
        by_seed = [
            [v for v in (_task_mean(by_cell, tasks, t) for t in ts) if v is not None]
            for by_cell in cells[name].values()
        ]
        cross = {
            "mean_over_T": over_seeds([float(np.mean(row)) if row else None for row in by_seed]),
            "min_over_T": over_seeds([min(row) if row else None for row in by_seed]),
        }
        out[name] = {"seeds": len(recs), "training": training, "inference": inference, "cross_budget": cross}
    return out


def _mean(values: Sequence[Any]) -> float | None:
    xs = [float(v) for v in values if v is not None]
    return float(np.mean(xs)) if xs else None


def _ratio(rs: Sequence[Mapping[str, Any]], num: str, den: str, scale: float) -> float | None:
    n = sum(float(r["cost"].get(num) or 0.0) for r in rs)
    d = sum(float(r["cost"].get(den) or 0.0) for r in rs)
    return scale * n / d if d else None


def _task_mean(by_cell: Mapping[tuple[str, int], float], tasks: Sequence[str], t: int) -> float | None:
    xs = [by_cell[(task, t)] for task in tasks if (task, t) in by_cell]
    return float(np.mean(xs)) if xs else None


# ---------------------------------------------------------------------- sections
def exposure_section(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Per run: what it trained on, so that equal exposure can be checked."""
    rows = [
        [
            r["run"],
            str(r["seed"]),
            str(r["env_steps"]),
            _int(r["updates"]),
            str(r["trained_decisions"]),
            _int(r["episodes"]),
            _int(r["forced_start_episodes"]),
            fmt(_forced_share(r)),
            _int(r["forced_start_steps"]),
        ]
        for r in runs
    ]
    return [
        "## Training exposure per run",
        "",
        "What each run trained on: equal exposure means the same env steps, and the same share of forced-start "
        "episodes (episodes begun from a scripted patch, and its test, before the policy acts) in every schedule. "
        "*trained decisions*: the policy's own actions (forced steps are the script's and count as env steps).",
        "",
        md_table(
            [
                "run",
                "seed",
                "env steps",
                "PPO updates",
                "trained decisions",
                "episodes",
                "forced-start episodes",
                "forced share",
                "forced steps",
            ],
            rows,
        ),
        "",
    ]


def deployment_section(
    d: Deployment, success: Mapping[str, Mapping[int, Mapping[str, Any]]], ts: Sequence[int]
) -> list[str]:
    """Per agent and T: success, exhaustion, cost per episode and per success, latency percentiles; then
    success at fixed cost and average cost at fixed success."""
    return [
        "## Cost per success and deployment metrics (all seeds)",
        "",
        "Every seed's clean episodes on the headline list (seeds per agent as in the success table). "
        "*exhausted*: the share the turn limit cut off (interval over seeds and tasks, as for success); *turns*: agent "
        "turns (model calls) per episode; *env ms*: milliseconds the env spent per episode; */ success*: that cost "
        "divided by the success rate; *P50/P95/P99*: end-to-end episode latency in milliseconds.",
        "",
        _deployment_table(d, success, ts),
        "",
        *_fixed_cost_tables(d),
    ]


def _deployment_table(d: Deployment, success: Mapping[str, Mapping[int, Mapping[str, Any]]], ts: Sequence[int]) -> str:
    """Per agent and T: success, exhaustion, turns and env time per episode and per success, latency."""
    rows = []
    for name, by_t in d.by_t.items():
        for t in ts:
            c, s = by_t[t], success[name][t]["mean"]
            lat = c["latency_s"] or {}
            rows.append(
                [
                    name,
                    str(t),
                    str(c["episodes"]),
                    fmt_interval(success[name][t]),
                    fmt_interval(c["exhausted"]),
                    fmt(c["turns"], 1),
                    _per(c["turns"], s, 1),
                    _ms(c["env_seconds"]),
                    _ms(_div(c["env_seconds"], s)),
                    _ms(lat.get("p50")),
                    _ms(lat.get("p95")),
                    _ms(lat.get("p99")),
                ]
            )
    header = [
        "agent",
        "T",
        "episodes",
        "success",
        "exhausted",
        "turns",
        "turns / success",
        "env ms",
        "env ms / success",
        "P50 ms",
        "P95 ms",
        "P99 ms",
    ]
    return md_table(header, rows)


def _fixed_cost_tables(d: Deployment) -> list[str]:
    """Success at fixed cost, and average cost at fixed success, in turns and in env time."""
    at_turns = [[name] + [_cell(by["turns"].get(c)) for c in d.turn_budgets] for name, by in d.at_cost.items()]
    at_seconds = [
        [name] + [_cell(by["env_seconds"].get(c)) for c in d.second_budgets] for name, by in d.at_cost.items()
    ]
    targets = sorted({t for by in d.at_success.values() for t in by["turns"]})
    cost_turns = [[name] + [_cell(by["turns"].get(t), "cost", 1) for t in targets] for name, by in d.at_success.items()]
    cost_seconds = [
        [name] + [_cell(by["env_seconds"].get(t), "cost", None) for t in targets] for name, by in d.at_success.items()
    ]
    return [
        "**Success at fixed cost**: the best Pass@(K,T) (all seeds) over the (T, K) cells whose cost is at most C, "
        "with the cell that gives it. In turns a cell costs its budget K x T; in env seconds, K x the mean env "
        "seconds of an episode at T.",
        "",
        md_table(["agent"] + [f"<= {c:g} turns" for c in d.turn_budgets], at_turns),
        "",
        md_table(["agent"] + [f"<= {1000 * c:.3g} env ms" for c in d.second_budgets], at_seconds),
        "",
        "**Average cost at fixed success**: the cheapest (T, K) cell whose Pass@(K,T) reaches the target; its cost "
        "in turns used (K x the mean turns of an episode at T) and in env milliseconds. – : no cell reaches it.",
        "",
        md_table(["agent"] + [f"turns at >= {t:g}" for t in targets], cost_turns),
        "",
        md_table(["agent"] + [f"env ms at >= {t:g}" for t in targets], cost_seconds),
        "",
    ]


def costs_section(costs: Mapping[str, Mapping[str, Any]], ts: Sequence[int]) -> list[str]:
    """One table: training cost, inference cost and cross-budget success per agent, intervals over seeds."""
    rows = []
    for name, c in costs.items():
        tr, inf, cross = c["training"] or {}, c["inference"], c["cross_budget"]
        rows.append(
            [name, str(c["seeds"])]
            + [
                fmt_interval(tr[k], 0) if k in tr else "–"
                for k in ("env_steps", "updates", "trained_decisions", "forced_start_episodes")
            ]
            + [
                fmt_interval(tr["forced_share"]) if tr else "–",
                fmt_interval(tr["seconds"], 1) if tr else "–",
                fmt_interval(inf["turns"], 1),
                fmt_interval(inf["ms_per_decision"], 2),
                fmt_interval(_scaled(inf["env_seconds"], 1000.0), 1),
                fmt_interval(cross["mean_over_T"]),
                fmt_interval(cross["min_over_T"]),
            ]
        )
    return [
        "## Training cost, inference cost and cross-budget success",
        "",
        f"Per agent, the mean over its training seeds with a 95% bootstrap interval over the seeds (one seed: its "
        f"value). Training: per run. Inference: per clean episode over T in {{{','.join(map(str, ts))}}}; *policy ms / "
        "decision*: the agent's own compute per turn. Cross-budget success: the mean over tasks at each T, then the "
        "mean and the minimum over T (a policy for every budget should keep both high).",
        "",
        md_table(
            [
                "agent",
                "seeds",
                "env steps",
                "PPO updates",
                "trained decisions",
                "forced-start episodes",
                "forced share",
                "train wall s",
                "turns / episode",
                "policy ms / decision",
                "env ms / episode",
                "success, mean over T",
                "success, min over T",
            ],
            rows,
        ),
        "",
    ]


def _int(x: Any) -> str:
    return "–" if x is None else str(int(x))


def _div(x: float | None, s: float | None) -> float | None:
    return None if x is None or not s else x / s


def _per(x: float | None, s: float | None, digits: int) -> str:
    return fmt(_div(x, s), digits)


def _ms(seconds: float | None) -> str:
    return "–" if seconds is None else f"{1000 * seconds:.3g}"


def _scaled(c: Mapping[str, Any], k: float) -> dict[str, Any]:
    return {**c, **{key: None if c.get(key) is None else k * c[key] for key in ("mean", "lo", "hi")}}


def _cell(cell: Mapping[str, Any] | None, value: str = "success", digits: int | None = 2) -> str:
    """``0.75 (T=6)``, ``0.80 (K=2, T=6)``; a cost in env ms when ``digits`` is None."""
    if cell is None:
        return "–"
    where = f"T={cell['T']}" if cell["K"] == 1 else f"K={cell['K']}, T={cell['T']}"
    shown = _ms(cell[value]) if digits is None else f"{cell[value]:.{digits}f}"
    return f"{shown} ({where})"
