"""The report's figures, drawn from a summary (``summary.json``) with matplotlib's Agg backend.

Each function takes the summary and a path, writes one PNG and returns the path:
`plot_pass_heatmap`, `plot_pass_hat`, `plot_success_vs_t`, `plot_failures_per_t`,
`plot_recovery` (with the time to recover), `plot_success_vs_cost`, `plot_latency`. `plot_all` draws them all;
`plot_compare` draws two runs side by side.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

from agentgym.eval.metrics import CATEGORIES

__all__ = [
    "CATEGORY_COLORS",
    "PLOT_FILES",
    "plot_all",
    "plot_pass_heatmap",
    "plot_pass_hat",
    "plot_success_vs_t",
    "plot_failures_per_t",
    "plot_recovery",
    "plot_success_vs_cost",
    "plot_latency",
    "plot_compare",
    "main_group",
]

PLOT_FILES = {
    "pass_heatmap": "pass_heatmap.png",
    "pass_hat": "pass_hat_k.png",
    "success_vs_t": "success_vs_t.png",
    "failures_per_t": "failures_per_t.png",
    "recovery": "recovery.png",
    "success_vs_cost": "success_vs_cost.png",
    "latency": "latency_vs_t.png",
}

CATEGORY_COLORS = {  # one colour per failure category, in every plot that shows them
    "success": "#2ca02c",
    "answer_contradicts_state": "#17becf",
    "timeout": "#d62728",
    "tool_call_error": "#ff7f0e",
    "state_misidentification": "#9467bd",
    "missing_verification": "#8c564b",
    "planning_mistake": "#7f7f7f",
}


def main_group(summary: Mapping[str, Any]) -> str:
    """The group a single-panel plot shows: the only env, or "all" when there are several."""
    envs = summary["config"]["envs"]
    return envs[0] if len(envs) == 1 else "all"


def _ts(summary: Mapping[str, Any]) -> list[int]:
    return [int(t) for t in summary["config"]["ts"]]


def _ks(summary: Mapping[str, Any]) -> list[int]:
    return [int(k) for k in summary["config"]["ks"]]


def _save(fig: Any, path: str | os.PathLike[str]) -> Path:
    if not fig.get_constrained_layout():
        fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return Path(path)


def _log_ticks(ax: Any, values: list[float], most: int = 7) -> None:
    """Label a log axis at the data's own values: a narrow log range otherwise shows one tick
    label or none."""
    vals = sorted({float(f"{v:.3g}") for v in values if v and v > 0})
    if not vals:
        return
    step = max(1, -(-len(vals) // most))
    ticks = vals[::step] if vals[::step][-1] == vals[-1] else vals[::step] + [vals[-1]]
    ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
    ax.xaxis.set_minor_formatter(NullFormatter())


def _num(x: Any) -> float:
    return float("nan") if x is None else float(x)


def _title(summary: Mapping[str, Any]) -> str:
    c = summary["config"]
    return f"{c['agent']} on {', '.join(c['envs'])} ({c['split']} split)"


def plot_pass_heatmap(summary: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """Pass@(K,T) as a K x T heatmap, one panel per condition (and env), cells annotated with
    the estimate and its bootstrap interval."""
    ks, ts = _ks(summary), _ts(summary)
    conds = list(summary["results"])
    groups = summary["config"]["envs"] + (["all"] if len(summary["config"]["envs"]) > 1 else [])
    # at least 6.4 x 3.2 inches: a 1 x 1 grid must still fit its title and colour bar
    fig, axes = plt.subplots(
        len(groups),
        len(conds),
        squeeze=False,
        layout="constrained",
        figsize=(max(6.4, 2.4 + 1.3 * len(ts) * len(conds)), max(3.2, 1.6 + 0.8 * len(ks) * len(groups))),
    )
    for gi, group in enumerate(groups):
        for ci, cond in enumerate(conds):
            ax = axes[gi][ci]
            cells = summary["results"][cond][group]["pass"]
            mean = np.array([[_num(cells[str(t)][str(k)]["mean"]) for t in ts] for k in ks])
            im = ax.imshow(mean, vmin=0, vmax=1, cmap="viridis", origin="lower", aspect="auto")
            for i, k in enumerate(ks):
                for j, t in enumerate(ts):
                    c = cells[str(t)][str(k)]
                    if c["mean"] is None:
                        continue
                    text = f"{c['mean']:.2f}\n[{c['lo']:.2f},{c['hi']:.2f}]"
                    ax.text(
                        j, i, text, ha="center", va="center", fontsize=7, color="black" if c["mean"] > 0.6 else "white"
                    )
            ax.set_xticks(range(len(ts)), [str(t) for t in ts])
            ax.set_yticks(range(len(ks)), [str(k) for k in ks])
            ax.set_xlabel("turn budget T")
            ax.set_ylabel("samples K")
            label = f"{cond}" + {
                "faulted": f" ({summary['config']['faults']})",
                "intervened": f" ({summary['config'].get('intervention')})",
            }.get(cond, "")
            ax.set_title(f"{group}: {label}", fontsize=9)
    fig.colorbar(im, ax=axes, shrink=0.8, label="pass@K")
    fig.suptitle(f"Pass@(K,T), 95% bootstrap CI over tasks\n{_title(summary)}", fontsize=9)
    return _save(fig, path)


def plot_pass_hat(summary: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """pass^k (all K of K attempts succeed, solid) beside pass@K (any succeeds, dotted) against
    K, one line per T: the gap is how inconsistent the agent is."""
    group, ks, ts = main_group(summary), _ks(summary), _ts(summary)
    conds = list(summary["results"])
    fig, axes = plt.subplots(1, len(conds), figsize=(5.5 * len(conds), 4), squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, cond in zip(axes[0], conds):
        res = summary["results"][cond][group]
        for i, t in enumerate(ts):
            color = colors[i % len(colors)]
            if "pass_hat" in res:
                ax.plot(
                    ks,
                    [_num(res["pass_hat"][str(t)][str(k)]["mean"]) for k in ks],
                    "-",
                    marker="o",
                    color=color,
                    label=f"T={t} pass^k",
                )
            ax.plot(
                ks,
                [_num(res["pass"][str(t)][str(k)]["mean"]) for k in ks],
                ":",
                marker=".",
                color=color,
                label=f"T={t} pass@k",
            )
        ax.set_xscale("log", base=2)
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.set_xlabel("attempts k")
        ax.set_ylabel("rate")
        ax.set_ylim(-0.03, 1.05)
        ax.grid(alpha=0.3)
        ax.set_title(f"pass^k (solid) and pass@k (dotted), {cond}", fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle(_title(summary), fontsize=9)
    return _save(fig, path)


def plot_success_vs_t(summary: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """Pass@K against T for each K with its interval (left) and budget extrapolation
    success(T)/success(T_ref) (right)."""
    group, ks, ts = main_group(summary), _ks(summary), _ts(summary)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for cond, style in (("clean", "-"), ("faulted", "--")):
        if cond not in summary["results"]:
            continue
        res = summary["results"][cond][group]
        for k in ks:
            m = [_num(res["pass"][str(t)][str(k)]["mean"]) for t in ts]
            lo = [_num(res["pass"][str(t)][str(k)]["lo"]) for t in ts]
            hi = [_num(res["pass"][str(t)][str(k)]["hi"]) for t in ts]
            (line,) = ax.plot(ts, m, style, marker="o", label=f"K={k} {cond}")
            ax.fill_between(ts, lo, hi, color=line.get_color(), alpha=0.12)
        ax2.plot(ts, [_num(res["extrapolation"].get(str(t))) for t in ts], style, marker="o", label=cond)
    t_ref = summary["config"]["t_ref"]
    for a in (ax, ax2):
        a.set_xscale("log", base=2)
        a.set_xticks(ts, [str(t) for t in ts])
        a.set_xlabel("turn budget T")
        a.grid(alpha=0.3)
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel("pass@K")
    ax.set_title("success against budget, per K", fontsize=10)
    ax.legend(fontsize=7)
    ax2.axhline(1.0, color="grey", lw=0.8)
    ax2.axvline(t_ref, color="grey", lw=0.8, ls=":")
    ax2.set_ylabel(f"success(T) / success(T={t_ref})")
    ax2.set_title("budget extrapolation (pass@1)", fontsize=10)
    ax2.legend(fontsize=7)
    fig.suptitle(_title(summary), fontsize=9)
    return _save(fig, path)


def plot_failures_per_t(summary: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """Stacked shares of failure categories per T, one panel per condition."""
    group, ts = main_group(summary), _ts(summary)
    conds = list(summary["results"])
    fig, axes = plt.subplots(1, len(conds), figsize=(5 * len(conds) + 1.5, 4), squeeze=False)
    for ax, cond in zip(axes[0], conds):
        cats = summary["results"][cond][group]["categories"]
        bottom = np.zeros(len(ts))
        for cat in CATEGORIES:
            share = np.array([_num(cats.get(str(t), {}).get(cat, 0.0)) for t in ts])
            ax.bar([str(t) for t in ts], share, bottom=bottom, color=CATEGORY_COLORS[cat], label=cat)
            bottom += np.nan_to_num(share)
        ax.set_ylim(0, 1.0)
        ax.set_xlabel("turn budget T")
        ax.set_ylabel("share of episodes")
        ax.set_title(f"failure categories per T ({cond})", fontsize=10)
    axes[0][-1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle(_title(summary), fontsize=9)
    return _save(fig, path)


def plot_recovery(summary: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """Success with and without injected faults per T (left) and recovery rates (right): the
    paired rate success(faulted)/success(clean), and the natural error-recovery rate."""
    group, ts = main_group(summary), _ts(summary)
    fig, (ax, ax2, ax3) = plt.subplots(1, 3, figsize=(15, 4))
    for cond, color in (("clean", "#1f77b4"), ("faulted", "#d62728")):
        if cond in summary["results"]:
            s = summary["results"][cond][group]["success"]
            ax.plot(ts, [_num(s.get(str(t))) for t in ts], marker="o", color=color, label=f"{cond}")
    rec = summary.get("recovery", {}).get(group, {}).get("by_t", {})
    paired = any(v.get("pairs") for v in rec.values())
    if paired:
        ax2.plot(ts, [_num(rec.get(str(t), {}).get("paired_rate")) for t in ts], marker="o", label="paired rate")
        ax2.plot(
            ts,
            [_num(rec.get(str(t), {}).get("paired_conditional")) for t in ts],
            marker="s",
            label="P(faulted ok | clean ok)",
        )
        ax2.plot(
            ts,
            [_num(rec.get(str(t), {}).get("fault_rate")) for t in ts],
            marker="^",
            label="success when a fault fired",
        )
    ax2.plot(
        ts,
        [_num(rec.get(str(t), {}).get("natural_rate")) for t in ts],
        marker="x",
        ls=":",
        label="natural error recovery (clean)",
    )
    if not paired:
        hint = "no faults injected in this run:\nrerun with --faults SPEC, e.g. --faults tool_error@turn=1"
        for a in (ax2, ax3):
            a.text(0.5, 0.85, hint, transform=a.transAxes, ha="center", fontsize=8, color="grey")
    _plot_time_to_recover(ax3, rec, ts)
    for a in (ax, ax2):
        a.set_xscale("log", base=2)
        a.set_xticks(ts, [str(t) for t in ts])
        a.set_xlabel("turn budget T")
        a.set_ylim(-0.03, 1.1)
        a.grid(alpha=0.3)
        a.legend(fontsize=7)
    ax.set_ylabel("success (pass@1)")
    ax.set_title(f"with and without faults ({summary['config']['faults'] or 'none'})", fontsize=10)
    ax2.set_ylabel("rate")
    ax2.set_title("recovery", fontsize=10)
    fig.suptitle(_title(summary), fontsize=9)
    return _save(fig, path)


_TTR_BINS = ((1, "1 turn"), (2, "2 turns"), (3, "3 turns"), (None, "4+ turns"))


def _plot_time_to_recover(ax: Any, rec: Mapping[str, Any], ts: list[int]) -> None:
    """Per T, the share of fault episodes that recovered in 1, 2, 3, 4+ turns, or never."""
    shares = []
    for t in ts:
        ttr = (rec.get(str(t)) or {}).get("time_to_recover") or {}
        n = ttr.get("episodes") or 0
        hist = {int(k): v for k, v in (ttr.get("hist") or {}).items()}
        row = [hist.get(b, 0) for b, _ in _TTR_BINS[:-1]] + [
            sum(v for k, v in hist.items() if k >= 4),
            ttr.get("never", 0),
        ]
        shares.append([x / n if n else 0.0 for x in row])
    colors = ("#2ca02c", "#98df8a", "#ffbb78", "#ff7f0e", "#d62728")
    bottom = np.zeros(len(ts))
    for i, label in enumerate([lbl for _, lbl in _TTR_BINS] + ["never"]):
        col = np.array([row[i] for row in shares])
        ax.bar([str(t) for t in ts], col, bottom=bottom, color=colors[i], label=label)
        bottom += col
    ax.set_ylim(0, 1.1)
    ax.set_xlabel("turn budget T")
    ax.set_ylabel("share of episodes where a fault fired")
    ax.set_title("time to recover: fault to next successful tool call", fontsize=10)
    ax.legend(fontsize=7, loc="upper right", ncols=2)


def plot_success_vs_cost(summary: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """Pass@K(T) of every cell against its cost: K x T turns, expected env calls (K x mean per
    episode) and expected seconds (K x mean latency), with the best-success-at-cost frontier."""
    group = main_group(summary)
    res = summary["results"].get("clean") or next(iter(summary["results"].values()))
    res = res[group]
    measures = (
        ("turns", "turn budget K x T"),
        ("env_calls", "env calls (K x mean)"),
        ("seconds", "seconds (K x mean latency)"),
    )
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    ks, ts = _ks(summary), _ts(summary)
    for ax, (name, label) in zip(axes, measures):
        for k in ks:
            xs, ys = [], []
            for t in ts:
                cost = _cell_cost(res, name, t, k)
                mean = res["pass"][str(t)][str(k)]["mean"]
                if cost is not None and mean is not None:
                    xs.append(cost)
                    ys.append(mean)
            ax.scatter(xs, ys, label=f"K={k}", s=22)
        frontier = sorted((float(c), v["success"]) for c, v in res["success_at_cost"][name].items() if v)
        if frontier:
            ax.step(
                [f[0] for f in frontier],
                [f[1] for f in frontier],
                where="post",
                color="black",
                lw=1,
                label="best at cost <= C",
            )
        ax.set_xscale("log")
        _log_ticks(ax, [_cell_cost(res, name, t, k) or 0.0 for t in ts for k in ks])
        ax.set_xlabel(label)
        ax.set_ylabel("pass@K")
        ax.set_ylim(-0.03, 1.05)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"success against cost (clean): {_title(summary)}", fontsize=9)
    return _save(fig, path)


def _cell_cost(res: Mapping[str, Any], name: str, t: int, k: int) -> float | None:
    if name == "turns":
        return float(k * t)
    field = "env_calls" if name == "env_calls" else "latency_s"
    value = res["cost"].get(str(t), {}).get(field)
    return None if value is None else k * float(value)


def plot_latency(summary: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """P50/P95/P99 episode latency against T (seconds, wall clock from reset to the last step)."""
    group, ts = main_group(summary), _ts(summary)
    fig, ax = plt.subplots(figsize=(6, 4))
    for cond, style in (("clean", "-"), ("faulted", "--")):
        if cond not in summary["results"]:
            continue
        lat = summary["results"][cond][group]["latency"]
        for q in ("p50", "p95", "p99"):
            ax.plot(ts, [_num(lat.get(str(t), {}).get(q)) for t in ts], style, marker="o", label=f"{q} {cond}")
    ax.set_xscale("log", base=2)
    ax.set_xticks(ts, [str(t) for t in ts])
    ax.set_xlabel("turn budget T")
    ax.set_ylabel("episode latency (s)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(f"episode latency: {_title(summary)}", fontsize=9)
    return _save(fig, path)


def plot_all(summary: Mapping[str, Any], out_dir: str | os.PathLike[str]) -> list[Path]:
    """Every report figure into ``out_dir``; returns their paths."""
    out = Path(out_dir)
    fns = {
        "pass_heatmap": plot_pass_heatmap,
        "pass_hat": plot_pass_hat,
        "success_vs_t": plot_success_vs_t,
        "failures_per_t": plot_failures_per_t,
        "recovery": plot_recovery,
        "success_vs_cost": plot_success_vs_cost,
        "latency": plot_latency,
    }
    return [fn(summary, out / PLOT_FILES[name]) for name, fn in fns.items()]


def plot_compare(
    a: Mapping[str, Any], b: Mapping[str, Any], names: tuple[str, str], group: str, path: str | os.PathLike[str]
) -> Path:
    """Two runs' pass@K against T for their shared K (solid: A, dashed: B) and their pass@1 gap."""
    ks = sorted(set(_ks(a)) & set(_ks(b)))
    ts = sorted(set(_ts(a)) | set(_ts(b)))
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, k in enumerate(ks):
        for s, name, style in ((a, names[0], "-"), (b, names[1], "--")):
            res = s["results"]["clean"][group]["pass"]
            xs = [t for t in ts if str(t) in res]
            ax.plot(
                xs,
                [_num(res[str(t)][str(k)]["mean"]) for t in xs],
                style,
                marker="o",
                color=colors[i % len(colors)],
                label=f"K={k} {name}",
            )
    common = [
        t
        for t in ts
        if str(t) in a["results"]["clean"][group]["success"] and str(t) in b["results"]["clean"][group]["success"]
    ]
    gap = [
        _num(b["results"]["clean"][group]["success"][str(t)]) - _num(a["results"]["clean"][group]["success"][str(t)])
        for t in common
    ]
    ax2.bar([str(t) for t in common], gap, color=["#2ca02c" if g >= 0 else "#d62728" for g in gap])
    ax2.axhline(0, color="black", lw=0.8)
    ax2.set_xlabel("turn budget T")
    ax2.set_ylabel(f"pass@1: {names[1]} - {names[0]}")
    ax.set_xscale("log", base=2)
    ax.set_xticks(ts, [str(t) for t in ts])
    ax.set_xlabel("turn budget T")
    ax.set_ylabel("pass@K")
    ax.set_ylim(-0.03, 1.05)
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    for style, name in (("-", names[0]), ("--", names[1])):  # say which line style is which run
        handles.append(plt.Line2D([], [], color="black", ls=style))
        labels.append(f"{'solid' if style == '-' else 'dashed'}: {name}")
    ax.legend(handles, labels, fontsize=7)
    fig.suptitle(f"{names[0]} (solid) vs {names[1]} (dashed) on {group}", fontsize=9)
    return _save(fig, path)
