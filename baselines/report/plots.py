"""The experiment report's plots (`baselines.report.markdown`), every one over all seeds:

- `draw_plots`: ``success_vs_T.png`` (success against T per agent, seed-and-task intervals as error
  bars), ``failure_categories.png`` (stacked category shares per T, each share's interval as a
  whisker), ``first_commit_vs_recovery.png`` (first-commit accuracy against recovery rate, seeds
  pooled) and ``training.png`` (training success and mean budget against env steps: one thin line
  per seed, their mean thick);
- `plot_control`: ``positive_control.png``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from agentgym.eval.metrics import CATEGORIES
from agentgym.eval.plots import CATEGORY_COLORS
from baselines.report.decisions import has_commitments

__all__ = ["draw_plots", "plot_control"]


def draw_plots(
    out: Path,
    *,
    success: Mapping[str, Mapping[int, Mapping[str, Any]]],
    ts: list[int],
    schedules: Mapping[str, str],
    categories: Mapping[str, Mapping[int, Mapping[str, Mapping[str, Any]]]],
    decisions: Mapping[str, Mapping[int, Mapping[str, Any]]],
    training: Mapping[str, Mapping[int, Mapping[str, Any]]],
) -> None:
    """The report's four PNGs, all seeds (the positive control's is `plot_control`)."""
    _plot_success(success, ts, schedules, out / "success_vs_T.png")
    _plot_categories(categories, ts, out / "failure_categories.png")
    if has_commitments(decisions):  # else the report leaves it out
        _plot_decisions(decisions, out / "first_commit_vs_recovery.png")
    _plot_training(training, out / "training.png")


def plot_control(control: Mapping[str, Any], ts: list[int], path: Path) -> None:
    """The positive control: success per schedule against T beside the optimum."""
    opt = next(iter(control["by_T"].values()))
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(ts, [opt[str(t)]["optimum"] for t in ts], "k--", label="optimum")
    for name, by_t in control["by_T"].items():
        ax.plot(ts, [by_t[str(t)]["success"] for t in ts], marker="o", label=name)
    _save_success_plot(
        fig,
        ax,
        path,
        "evaluation budget T",
        "success",
        "Positive control: the trainer where the best policy is known",
        dpi=110,
    )


def _plot_success(
    success: Mapping[str, Mapping[int, Mapping[str, Any]]], ts: list[int], train_ts: Mapping[str, str], path: Path
) -> None:
    """Success against T per agent, all seeds, with the seed-and-task intervals as error bars."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, by_t in success.items():
        xs, ys, lo, hi = [], [], [], []
        for t in ts:
            c = by_t[t]
            if c["mean"] is not None:
                xs.append(t)
                ys.append(c["mean"])
                lo.append(c["mean"] - (c["lo"] if c["lo"] is not None else c["mean"]))
                hi.append((c["hi"] if c["hi"] is not None else c["mean"]) - c["mean"])
        if name.startswith("script:"):
            ax.plot(xs, ys, linestyle=":", marker=".", alpha=0.8, label=f"{name} (scripted reference)")
            continue
        style: dict[str, Any] = dict(linestyle="--", color="grey") if name == "random" else {}
        ax.errorbar(
            xs,
            ys,
            yerr=[lo, hi],
            marker="o",
            capsize=3,
            label=f"{name} ({train_ts.get(name, 'uniform menu' if name == 'random' else 'reference')})",
            **style,
        )
    ax.set_xscale("log", base=2)
    ax.set_xticks(ts)
    ax.set_xticklabels([str(t) for t in ts])
    _save_success_plot(
        fig,
        ax,
        path,
        "evaluation budget T (turns)",
        "success (pass@1), held-out tasks",
        "Success against the turn budget, per training schedule",
        dpi=120,
    )


def _save_success_plot(fig: Any, ax: Any, path: Path, xlabel: str, ylabel: str, title: str, dpi: int) -> None:
    """Labels, a 0-1 success axis, grid and legend; then save and close."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def _plot_categories(
    categories: Mapping[str, Mapping[int, Mapping[str, Mapping[str, Any]]]], ts: list[int], path: Path
) -> None:
    """Stacked shares of the failure categories per T and agent, all seeds; a whisker on a segment's top
    edge, in its colour: that share's seed-and-task interval."""
    names = list(categories)
    fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names), 3.6), sharey=True)
    axes = axes if len(names) > 1 else [axes]
    colors = CATEGORY_COLORS
    for ax, name in zip(axes, names):
        bottom = np.zeros(len(ts))
        for cat in CATEGORIES:
            cells = [categories[name][t][cat] for t in ts]
            vals = np.array([c["mean"] or 0.0 for c in cells])
            ax.bar([str(t) for t in ts], vals, bottom=bottom, color=colors[cat], label=cat)
            # the segment's interval as a whisker on its top edge (where its share ends), when it has width
            shown = [i for i, c in enumerate(cells) if c["mean"] and c["hi"] > c["lo"]]
            ax.errorbar(
                [str(ts[i]) for i in shown],
                [bottom[i] + vals[i] for i in shown],
                yerr=[[vals[i] - cells[i]["lo"] for i in shown], [cells[i]["hi"] - vals[i] for i in shown]],
                fmt="none",
                ecolor=colors[cat],
                elinewidth=1.0,
                capsize=3,
                alpha=0.9,
            )
            bottom = bottom + vals
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("T")
        ax.set_ylim(0, 1.25)
    axes[0].set_ylabel("share of episodes (all seeds)")
    axes[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_decisions(decisions: Mapping[str, Mapping[int, Mapping[str, Any]]], path: Path) -> None:
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for name, by_t in decisions.items():
        if name.startswith("script:"):
            continue
        pts = [
            (t, d["first_commit_accuracy"], d["recovery_rate"])
            for t, d in by_t.items()
            if d["first_commit_accuracy"] is not None and d["recovery_rate"] is not None
        ]
        if not pts:
            continue
        style: dict[str, Any] = dict(linestyle="--", color="grey") if name == "random" else {}
        ax.plot([p[1] for p in pts], [p[2] for p in pts], marker="o", label=name, **style)
        for t, x, y in pts:
            ax.annotate(f"T={t}", (x, y), fontsize=6, xytext=(2, 2), textcoords="offset points")
    ax.set_xlabel("first-commit accuracy (first state change is a reference action)")
    ax.set_ylabel("recovery rate (success after a wrong first commit)")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Better first decisions, or better recovery?")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_training(training: Mapping[str, Mapping[int, Mapping[str, Any]]], path: Path) -> None:
    """Training success and mean budget against env steps: one thin line per seed, their mean thick
    (each seed interpolated at common steps, up to the shortest run)."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for i, (name, by_seed) in enumerate(training.items()):
        color = f"C{i % 10}"
        hists = [h for h in ((s.get("history") or []) for s in by_seed.values()) if h]
        for ax, key in zip(axes, ("charts/success_rate", "charts/budget_mean")):
            for hist in hists:
                ax.plot([h["global_step"] for h in hist], [h[key] for h in hist], color=color, alpha=0.3, linewidth=0.8)
            if hists:
                steps = np.linspace(
                    max(h[0]["global_step"] for h in hists), min(h[-1]["global_step"] for h in hists), 50
                )
                mean = np.mean(
                    [np.interp(steps, [h["global_step"] for h in hist], [h[key] for h in hist]) for hist in hists],
                    axis=0,
                )
                ax.plot(steps, mean, color=color, linewidth=2, label=f"{name} ({len(hists)} seeds)")
    axes[0].set_ylabel("training success (at the schedule's budgets)")
    axes[1].set_ylabel("mean budget T of the batch")
    for ax in axes:
        ax.set_xlabel("environment steps")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
