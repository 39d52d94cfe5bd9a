"""Draws docs/assets/results-*.png from the pass@1 tables on docs/results.md (numbers typed from that page)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

TABLES = {
    "coding": (
        "Coding-v0: 100 held-out one-bug tasks, 8 seeds",
        [2, 3, 5, 8, 12, 16],
        {
            "random": [0.03, 0.10, 0.14, 0.14, 0.17, 0.13],
            "fixed-T3": [0.47, 0.62, 0.58, 0.64, 0.61, 0.60],
            "fixed-T12": [0.15, 0.32, 0.54, 0.68, 0.78, 0.77],
            "BudgetMix": [0.60, 0.58, 0.64, 0.73, 0.74, 0.73],
            "curriculum (linear)": [0.25, 0.40, 0.57, 0.69, 0.74, 0.73],
            "curriculum (steps)": [0.35, 0.58, 0.59, 0.69, 0.69, 0.71],
        },
    ),
    "tooluse": (
        "ToolUse-v0: 48 tasks of held-out templates, 3 seeds",
        [3, 5, 7, 10, 14, 20],
        {
            "random": [0.00, 0.00, 0.02, 0.00, 0.00, 0.00],
            "fixed-T5": [0.00, 0.04, 0.01, 0.04, 0.04, 0.03],
            "fixed-T14": [0.03, 0.06, 0.13, 0.16, 0.14, 0.11],
            "BudgetMix": [0.01, 0.01, 0.02, 0.01, 0.04, 0.03],
            "curriculum (linear)": [0.00, 0.01, 0.00, 0.01, 0.02, 0.01],
            "curriculum (steps)": [0.00, 0.00, 0.01, 0.00, 0.01, 0.01],
        },
    ),
    "miniwob": (
        "MiniWoB-v0: 28 held-out-seed tasks, 3 seeds",
        [1, 2, 3, 5, 8, 12],
        {
            "random": [0.14, 0.25, 0.21, 0.11, 0.14, 0.18],
            "fixed-T2": [0.30, 0.44, 0.39, 0.39, 0.37, 0.42],
            "fixed-T10": [0.18, 0.33, 0.33, 0.37, 0.38, 0.45],
            "BudgetMix": [0.24, 0.33, 0.36, 0.38, 0.36, 0.40],
            "curriculum (linear)": [0.21, 0.27, 0.37, 0.38, 0.33, 0.40],
            "curriculum (steps)": [0.26, 0.40, 0.39, 0.38, 0.37, 0.44],
        },
    ),
}
for name, (title, ts, rows) in TABLES.items():
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for label, ys in rows.items():
        style = dict(linewidth=2.5) if label == "BudgetMix" else dict(linewidth=1.2)
        if label == "random":
            style = dict(linewidth=1, linestyle=":", color="grey")
        ax.plot(ts, ys, marker="o", label=label, **style)
    ax.set_xscale("log", base=2)
    ax.set_xticks(ts, [str(t) for t in ts])
    ax.set_ylim(0, 1)
    ax.set_xlabel("turn budget T at evaluation")
    ax.set_ylabel("pass@1")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    fig.tight_layout()
    fig.savefig(f"docs/assets/results-{name}.png", dpi=100)
