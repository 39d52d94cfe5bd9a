"""Recovery by intervention in the experiment's report (issue 34): the numbers and their section.

Every intervention of ``--eval-interventions`` is forced alike on fixed-T_short, fixed-T_long,
BudgetMix (every seed) and the budget-aware script, and played on the headline list:

- `after_cells`: an agent's success after one intervention, per seed and (task, T): R_A(T);
  `intervention_cells`: those of every intervention, computed once for the rows and the section;
- `recovery_rows`: the primary intervention's (h1)-(h4) (`baselines.report.contrasts.recovery_contrasts`),
  which join the Holm family of the named contrasts, and the other interventions' (h1)-(h3),
  reported beside them as descriptive rows (outside the family);
- `recovery_section`: R_A(T) with intervals beside each agent's clean success at the same T, the
  contrasts, and (h4)'s decomposition of (f).

A task whose menu has no candidate for the intervention (``no_candidate`` records) has no R
cell, so it drops out of that intervention's numbers for every agent alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from baselines.config import ReportSettings, first_env_id, intervention_runs
from baselines.policy.families import plan_for
from baselines.report.contrasts import (
    RECOVERY_SHARE_THRESHOLD,
    Agent,
    cells_from_records,
    decision_cells_from_records,
    recovery_contrasts,
    success_at,
)

__all__ = ["after_cells", "intervention_cells", "recovery_rows", "recovery_section"]

Evals = Mapping[str, Mapping[int, Mapping[str, Any]]]


def after_cells(evals: Evals, intervention: str) -> dict[str, Agent]:
    """Agent -> seed -> (task, T) -> success of its episodes after ``intervention`` (agents that
    did not play it are left out)."""
    out: dict[str, Agent] = {}
    for name, by_seed in evals.items():
        for seed, ev in by_seed.items():
            records = (ev.get("interventions") or {}).get(intervention)
            if records is None:
                continue
            mine = [
                {**r, "faults": None, "intervention": None}
                for r in records
                if intervention in (r.get("intervention"), r.get("faults")) and not r.get("no_candidate")
            ]
            out.setdefault(name, {})[seed] = cells_from_records(mine)
    return out


def intervention_cells(settings: ReportSettings, evals: Evals) -> dict[str, dict[str, Agent]]:
    """Intervention -> `after_cells`, for every intervention of ``--eval-interventions``."""
    return {iv: after_cells(evals, iv) for iv, _, _ in intervention_runs(settings)}


def _ts(spec: str) -> list[int]:
    return sorted(int(t) for t in str(spec).split(",") if t.strip())


def recovery_rows(
    settings: ReportSettings,
    evals: Evals,
    after: Mapping[str, Mapping[str, Agent]],
    tasks: Sequence[str],
    *,
    short: str,
    long: str,
    mix: str = "budgetmix",
    unit_of: Callable[[str], str] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(rows of the Holm family: the primary intervention's (h1)-(h4); descriptive rows: the other
    interventions' (h1)-(h3), labelled ``h1'`` ...). ``after``: `intervention_cells`; ``evals``
    gives (h4) its clean episodes' first decisions."""
    runs = intervention_runs(settings)
    if not runs:
        return [], []
    decisions = {
        name: {seed: decision_cells_from_records(ev.get("records") or []) for seed, ev in by_seed.items()}
        for name, by_seed in evals.items()
        if name in (short, long)
    }
    if plan_for(first_env_id(settings.env_ids)) is not None:
        # (h4) splits (f) by whether the first commit (Coding-v0's first patch) was right; other
        # families' records carry no first commit, so every success would count as recovery
        decisions = {}
    family: list[dict[str, Any]] = []
    described: list[dict[str, Any]] = []
    for i, (iv, _, ts) in enumerate(runs):
        at = _ts(ts)
        rows = recovery_contrasts(
            after[iv],
            tasks,
            short=short,
            long=long,
            mix=mix,
            lo_t=at[0],
            hi_t=at[-1],
            intervention=iv,
            decisions=decisions if i == 0 else None,
            unit_of=unit_of,
        )
        if i == 0:
            family += rows
        else:
            described += [{**r, "label": r["label"] + "'"} for r in rows]
    return family, described


def _f(x: Any) -> str:
    return "–" if x is None or x != x else f"{x:.2f}"  # None or NaN (a share of no gain)


def _cell(s: Mapping[str, Any]) -> str:
    return "–" if s.get("mean") is None else f"{s['mean']:.2f} [{s['lo']:.2f}, {s['hi']:.2f}]"


def recovery_section(
    settings: ReportSettings,
    after: Mapping[str, Mapping[str, Agent]],
    clean: Mapping[str, Agent],
    tasks: Sequence[str],
    family: Sequence[Mapping[str, Any]],
    described: Sequence[Mapping[str, Any]],
) -> list[str]:
    """The report's section: R_A(T) beside clean success, (h1)-(h4) with their Holm p (``family``
    rows as they came back from the named contrasts), the variants' rows, (h4)'s decomposition."""
    runs = intervention_runs(settings)
    if not runs:
        return []
    lines = [
        "## Recovery by intervention",
        "",
        "The same start is forced on every agent, seed and T, paired by task with the clean episodes: "
        f"`{runs[0][0]}` is the primary intervention (the contrasts (h1)-(h4), in the Holm family of the named "
        "contrasts); the others are reported beside it, outside the family. A forced action counts against T. "
        "Success after the intervention R(T), with 95% intervals over seeds and tasks, and clean success at the "
        "same T:",
        "",
    ]
    for iv, _, ts in runs:
        lines += _after_table(iv, _ts(ts), after[iv], clean, tasks)
    rows = list(family) + list(described)
    if rows:
        lines += ["| | contrast | A | B | A - B | 95% interval | modules' interval | p | p (Holm) |", "|" + "---|" * 9]
        lines += [_contrast_line(r) for r in rows] + [""]
    h4 = next((r for r in family if r["label"] == "h4"), None)
    if h4 is not None:
        lines += _h4_table(h4["decomposition"])
    return lines


def _after_table(
    iv: str, at: list[int], after: Mapping[str, Agent], clean: Mapping[str, Agent], tasks: Sequence[str]
) -> list[str]:
    """Success after intervention ``iv`` beside clean success, per agent, at each T in ``at``."""
    lines = [
        f"**`{iv}`**",
        "",
        "| agent | " + " | ".join(f"R(T={t}) | clean T={t}" for t in at) + " | tasks |",
        "|---|" + "---|---|" * len(at) + "---|",
    ]
    for name, agent in after.items():
        cells = [success_at(agent, tasks, t) for t in at]
        base = [success_at(clean[name], tasks, t) if name in clean else {} for t in at]
        lines.append(
            f"| {name} | "
            + " | ".join(f"{_cell(a)} | {_cell(b)}" for a, b in zip(cells, base))
            + f" | {cells[-1].get('tasks', 0)} |"
        )
    return lines + [""]


def _contrast_line(r: Mapping[str, Any]) -> str:
    """One recovery contrast as a table row: its difference, intervals, p and Holm p."""
    unit = f"[{_f(r.get('lo_unit'))}, {_f(r.get('hi_unit'))}]" if r.get("lo_unit") is not None else "–"
    p = r.get("p")
    holm = r.get("p_holm")
    return (
        f"| {r['label']} | {r['name']} | {r['a']} | {r['b']} | {_f(r.get('diff'))} | "
        f"[{_f(r.get('lo'))}, {_f(r.get('hi'))}] | {unit} | {'–' if p is None else f'{p:.3f}'} | "
        f"{'outside the family' if r['label'].endswith(chr(39)) else ('–' if holm is None else f'{holm:.3f}')}"
        " |"
    )


def _h4_table(d: Mapping[str, Any]) -> list[str]:
    """(h4)'s decomposition of (f): through accuracy, follow-through and recovery, and the verdict."""
    verdict = "held" if d.get("held") else "not supported"
    return [
        "**(h4) Where (f) comes from** (clean episodes at the longest T): success = accuracy x follow-through "
        "+ (1 - accuracy) x recovery, split exactly with midpoint weights.",
        "",
        "| gain (f) | through first-commit accuracy | through follow-through | through recovery | recovery share | "
        "95% interval | verdict |",
        "|---|---|---|---|---|---|---|",
        f"| {_f(d.get('gain'))} | {_f(d.get('accuracy'))} | {_f(d.get('follow_through'))} | "
        f"{_f(d.get('recovery'))} | {_f(d.get('share'))} | [{_f(d.get('lo'))}, {_f(d.get('hi'))}] | "
        f"{verdict} (threshold {RECOVERY_SHARE_THRESHOLD:g}, named before the run) |",
        "",
    ]
