"""``agentgym compare A B``: two evaluation runs side by side (e.g. fixed-T training vs BudgetMix).

Cells are matched by condition, env group, K and T; only what both runs measured is compared.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agentgym.errors import ConfigError
from agentgym.eval.plots import plot_compare
from agentgym.eval.report import load_summary

__all__ = ["compare", "compare_markdown"]


def _name(path: Path) -> str:
    return path.resolve().name or str(path)


def compare_markdown(a: dict[str, Any], b: dict[str, Any], names: tuple[str, str]) -> str:
    """Side-by-side tables: pass@K(T), pass^k(T) of A and B and their difference, per shared
    group and condition, then time to recover under faults."""
    ks = sorted(set(map(int, a["config"]["ks"])) & set(map(int, b["config"]["ks"])))
    ts = sorted(set(map(int, a["config"]["ts"])) & set(map(int, b["config"]["ts"])))
    if not ks or not ts:
        raise ConfigError(
            f"the runs share no (K, T) cell: A has K={a['config']['ks']} T={a['config']['ts']}, "
            f"B has K={b['config']['ks']} T={b['config']['ts']}"
        )
    L = [
        f"# Compare: {names[0]} (A) vs {names[1]} (B)",
        "",
        f"- A: {a['config']['agent']} on {', '.join(a['config']['envs'])}, split {a['config']['split']}, "
        f"n={a['config']['n']}, faults `{a['config']['faults'] or 'none'}`",
        f"- B: {b['config']['agent']} on {', '.join(b['config']['envs'])}, split {b['config']['split']}, "
        f"n={b['config']['n']}, faults `{b['config']['faults'] or 'none'}`",
        "",
    ]
    for cond in ("clean", "faulted"):
        if cond not in a["results"] or cond not in b["results"]:
            continue
        for group in [g for g in a["results"][cond] if g in b["results"][cond]]:
            ra, rb = a["results"][cond][group], b["results"][cond][group]
            L += [f"## {group}, {cond}", ""]
            for key, label in (("pass", "Pass@K"), ("pass_hat", "pass^k (all K attempts succeed)")):
                if key not in ra or key not in rb:
                    continue
                L += [
                    f"{label}: A | B | B - A (95% bootstrap intervals in brackets)",
                    "",
                    "| K | T | A | B | B - A |",
                    "|---|---|---|---|---|",
                ]
                for k in ks:
                    for t in ts:
                        ca, cb = ra[key][str(t)][str(k)], rb[key][str(t)][str(k)]
                        diff = "–" if ca["mean"] is None or cb["mean"] is None else f"{cb['mean'] - ca['mean']:+.2f}"
                        L.append(f"| {k} | {t} | {_cell(ca)} | {_cell(cb)} | {diff} |")
                L.append("")
            L += [
                "",
                "| T | exhaustion A | exhaustion B | extrapolation A | extrapolation B | "
                "latency p50 A | latency p50 B |",
                "|---|---|---|---|---|---|---|",
            ]
            for t in ts:
                L.append(
                    f"| {t} | {_f(ra['exhaustion'].get(str(t)))} | {_f(rb['exhaustion'].get(str(t)))} | "
                    f"{_f(ra['extrapolation'].get(str(t)))} | {_f(rb['extrapolation'].get(str(t)))} | "
                    f"{_f(ra['latency'].get(str(t), {}).get('p50'), 3)} | "
                    f"{_f(rb['latency'].get(str(t), {}).get('p50'), 3)} |"
                )
            L.append("")
    L += _recover_table(a, b, ts)
    return "\n".join(L).rstrip() + "\n"


def _recover_table(a: dict[str, Any], b: dict[str, Any], ts: list[int]) -> list[str]:
    """Time to recover (turns from the fault to the next successful tool call) of A and B per T."""
    L: list[str] = []
    for group in [g for g in a.get("recovery", {}) if g in b.get("recovery", {})]:
        ra, rb = a["recovery"][group]["by_t"], b["recovery"][group]["by_t"]
        rows = [
            (
                t,
                (ra.get(str(t)) or {}).get("time_to_recover") or {},
                (rb.get(str(t)) or {}).get("time_to_recover") or {},
            )
            for t in ts
        ]
        if not any(x.get("episodes") or y.get("episodes") for _, x, y in rows):
            continue
        L += [
            f"## {group}, time to recover",
            "",
            "| T | recovered A | recovered B | mean turns A | mean turns B | p90 A | p90 B |",
            "|---|---|---|---|---|---|---|",
        ]
        for t, x, y in rows:
            L.append(
                f"| {t} | {_f(x.get('recovered'))} | {_f(y.get('recovered'))} | {_f(x.get('mean'))} | "
                f"{_f(y.get('mean'))} | {_f(x.get('p90'), 1)} | {_f(y.get('p90'), 1)} |"
            )
        L.append("")
    return L


def _cell(c: dict[str, Any]) -> str:
    return "–" if c["mean"] is None else f"{c['mean']:.2f} [{c['lo']:.2f}, {c['hi']:.2f}]"


def _f(x: Any, digits: int = 2) -> str:
    return "–" if x is None else f"{float(x):.{digits}f}"


def compare(
    dir_a: str | os.PathLike[str], dir_b: str | os.PathLike[str], out: str | os.PathLike[str] | None = None
) -> tuple[str, list[Path]]:
    """The comparison text, and (with ``out``) ``compare.md`` and ``compare.png`` written there."""
    pa, pb = Path(dir_a), Path(dir_b)
    a, b = load_summary(pa), load_summary(pb)
    names = (_name(pa), _name(pb))
    if names[0] == names[1]:
        names = (f"A:{names[0]}", f"B:{names[1]}")
    text = compare_markdown(a, b, names)
    files: list[Path] = []
    if out is not None:
        o = Path(out)
        o.mkdir(parents=True, exist_ok=True)
        groups = [g for g in a["results"].get("clean", {}) if g in b["results"].get("clean", {})]
        if groups:
            text = text + "\n![comparison](compare.png)\n"
            files.append(plot_compare(a, b, names, "all" if "all" in groups else groups[0], o / "compare.png"))
        (o / "compare.md").write_text(text)
        files.append(o / "compare.md")
    return text, files
