"""The experiment's report: one ``report.md`` with PNG plots, from training and harness summaries.

`write_report` reads as its table of contents: it gathers every number once (`gather`:
success with its intervals, the named contrasts, Pass@(K,T) and failure categories over all
seeds, first decisions and recovery, trace tallies, the deployment metrics and costs), draws the
plots (`baselines.report.plots`), saves the numbers for machines (``contrasts.json``,
``summary.json``), then writes the sections in order, each a function below it or in
`baselines.report.deployment` and `baselines.report.recovery`: setup and
throughput; training exposure per run; success (pass@1) per schedule and T; the named contrasts;
recovery by intervention; multi-bug tasks; Pass@(K,T) tables; failure categories per T; recovery under injected faults;
first-commit accuracy against recovery rate; cost per success and the deployment metrics;
training cost against inference cost against cross-budget success; what each agent does; traces;
the forced-state probe; the positive control; training curves. Every section and plot uses every
training seed (the probe alone runs on the first). Numbers come from the episode records and
harness summaries of each evaluation and the training summaries; nothing here re-runs an episode.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agentgym.eval.metrics import CATEGORIES, subtask_correctness
from baselines.config import NO_STARTS, PROCESS_SUFFIX, ReportSettings, describe, first_env_id, intervention_runs
from baselines.report.cells import (
    Records,
    at_each_t,
    category_share,
    fmt,
    fmt_interval,
    headline_records,
    md_table,
    over_seeds,
    pass_at,
    pooled,
    task_cells,
)
from baselines.report.contrasts import (
    Agent,
    cells_from_records,
    contrast_table,
    named_contrasts,
    process_contrasts,
    success_at,
    task_unit,
)
from baselines.report.decisions import (
    FOLLOW_UPS,
    RIGHT_FIRST_FATES,
    after_failing_test,
    decision_stats,
    has_commitments,
    right_first_failures,
)
from baselines.report.deployment import (
    Deployment,
    agent_costs,
    costs_section,
    deployment,
    deployment_section,
    exposure,
    exposure_section,
)
from baselines.report.families import ALPHA, FLOOR, hypothesis_table
from baselines.report.plots import draw_plots, plot_control
from baselines.report.recovery import intervention_cells, recovery_rows, recovery_section

__all__ = ["write_report", "experiment_summary", "SUMMARY_SCHEMA"]


def write_report(
    out: Path,
    settings: ReportSettings,
    schedules: dict[str, str],
    training: dict[str, dict[int, dict[str, Any]]],
    evals: dict[str, dict[int, dict[str, Any]]],
    timing: dict[str, float],
    probe: dict[str, dict[str, Any]] | None = None,
    task_lists: dict[str, list[str]] | None = None,
    eval_cache: dict[str, dict[str, int]] | None = None,
    control: dict[str, Any] | None = None,
) -> Path:
    """Write ``out/report.md`` and its PNGs; returns the report's path.

    ``training`` and ``evals`` are keyed by agent name, then training seed (0 for agents that
    are not trained). Every table and plot uses every seed, with intervals over seeds (and tasks
    where the numbers are per task); the probe alone is of the first seed's policies.
    """
    n = gather(settings, schedules, training, evals, task_lists or {})
    draw_plots(
        out,
        success=n.success,
        ts=n.ts,
        schedules=n.schedules,
        categories=n.categories,
        decisions=n.decisions,
        training=n.training,
    )
    (out / "contrasts.json").write_text(json.dumps(n.contrasts + n.recovery_described + n.process, indent=1))
    (out / "summary.json").write_text(json.dumps(experiment_summary(n), indent=1))
    path = out / "report.md"
    sections = _sections(n, settings, timing, eval_cache, probe, control, out)
    path.write_text("\n".join(line for section in sections for line in section) + "\n")
    return path


def _sections(
    n: Numbers,
    settings: ReportSettings,
    timing: dict[str, float],
    eval_cache: dict[str, dict[str, int]] | None,
    probe: dict[str, dict[str, Any]] | None,
    control: dict[str, Any] | None,
    out: Path,
) -> list[list[str]]:
    """The report's sections, in order, each a list of lines."""
    return [
        setup_section(n),
        throughput_section(n, settings, timing, eval_cache),
        exposure_section(n.exposure),
        success_section(n),
        contrasts_section(n),
        hypotheses_section(n),
        process_section(n),
        subtask_section(n),
        recovery_section(
            settings,
            n.after,
            n.cells,
            n.primary,
            [c for c in n.contrasts if c["label"].startswith("h")],
            n.recovery_described,
        ),
        multi_bug_section(n),
        pass_at_k_section(n),
        categories_section(n),
        faults_section(n),
        decisions_section(n),
        deployment_section(n.deployment, n.success, n.ts),
        costs_section(n.costs, n.ts),
        behaviour_section(n),
        traces_section(n),
        probe_section(probe) if probe else [],
        control_section(control, out / "positive_control.png") if control else [],
        training_section(),
    ]


# ---------------------------------------------------------------------- the numbers, computed once
@dataclass
class Numbers:
    """Every number the report shows, and the inputs its sections read."""

    settings: ReportSettings
    schedules: dict[str, str]
    ts: list[int]
    """the evaluation budgets T"""
    ks: list[int]
    primary: list[str]
    """the headline task list"""
    runs: list[tuple[str, int, dict[str, Any]]]
    """(schedule name, seed, training summary) of every training run"""
    evals: dict[str, dict[int, dict[str, Any]]]
    """per agent and seed: its evaluations (`baselines.experiment.run.evaluate_agent`)"""
    training: dict[str, dict[int, dict[str, Any]]]
    records: dict[str, Records]
    """per agent and seed: the clean scored episodes on the headline list"""
    cells: dict[str, Agent]
    """per agent: success per (task, T) and seed, on the headline list"""
    success: dict[str, dict[int, dict[str, Any]]]
    """per agent and T: success on the headline list with its seed-and-task interval"""
    ts2: list[int]
    cells2: dict[str, Agent]
    success2: dict[str, dict[int, dict[str, Any]]]
    """the same on the second split (``--eval-split2``), at ``ts2``"""
    multi_tasks: list[str]
    cells_multi: dict[str, Agent]
    success_multi: dict[str, dict[int, dict[str, Any]]]
    """the same on the multi-bug list (empty without one)"""
    contrasts: list[dict[str, Any]]
    """the named contrasts, (h1)-(h4) included: the Holm family"""
    recovery_described: list[dict[str, Any]]
    """the other interventions' (h1)-(h3), outside the family"""
    after: dict[str, dict[str, Agent]]
    """per intervention and agent: success after it, per seed and (task, T)
    (`baselines.report.recovery.intervention_cells`)"""
    pass_k: dict[str, dict[int, dict[int, dict[str, Any]]]]
    """per agent, T and K: Pass@(K,T) over all seeds with its seed-and-task interval"""
    categories: dict[str, dict[int, dict[str, dict[str, Any]]]]
    """per agent, T and failure category: the share of episodes, all seeds, with its interval"""
    exposure: list[dict[str, Any]]
    """per training run: env steps, updates, trained decisions, forced starts
    (`baselines.report.deployment.exposure`)"""
    deployment: Deployment
    costs: dict[str, dict[str, Any]]
    """per agent: training cost, inference cost, cross-budget success (`baselines.report.deployment.agent_costs`)"""
    decisions: dict[str, dict[int, dict[str, Any]]]
    """per agent and T: first-commit accuracy, success if right, recovery (all seeds pooled)"""
    traces: dict[str, dict[int, dict[str, Any]]]
    """per agent and T (all seeds): what followed each failing test, how right first patches ended"""
    process: list[dict[str, Any]]
    """(p1)-(p5): process supervision against budget design, their own Holm family (empty without the arms)"""
    subtasks: dict[str, dict[int, dict[str, Any]]]
    """per agent and T (all seeds): the share of subtasks done at the end
    (`agentgym.eval.metrics.subtask_correctness`)"""


def gather(
    settings: ReportSettings,
    schedules: dict[str, str],
    training: dict[str, dict[int, dict[str, Any]]],
    evals: dict[str, dict[int, dict[str, Any]]],
    task_lists: dict[str, list[str]],
) -> Numbers:
    """Success with its intervals and the named contrasts (`baselines.report.contrasts`), Pass@(K,T) and the
    failure categories over all seeds (`baselines.report.cells`), first decisions, recovery and trace
    tallies (`baselines.report.decisions`), then the deployment metrics and costs (`baselines.report.deployment`)."""
    ts = [int(t) for t in str(settings.eval_ts).split(",")]
    primary = task_lists.get("primary") or sorted(
        {r["task"] for by in evals.values() for ev in by.values() for r in ev["records"]}
    )
    ts2 = [int(t) for t in str(settings.eval_split2_ts).split(",") if t] if settings.eval_split2 else []
    multi_tasks = task_lists.get("multi") or []
    cells, cells2 = _cells_of(evals, "records"), _cells_of(evals, "split2_records")
    cells_multi = _cells_of(evals, "multi_records") if multi_tasks else {}
    after, contrasts, recovery_described = _contrasts(settings, schedules, evals, cells, primary, ts)
    success = _success_of(cells, primary, ts)
    success2 = _success_of(cells2, task_lists.get("split2") or [], ts2)
    success_multi = _success_of(cells_multi, multi_tasks, ts)
    decisions, traces = _decision_numbers(evals, ts)
    ks = [int(k) for k in str(settings.eval_ks).split(",")]
    records = headline_records(evals)
    pass_k, categories = _pass_and_categories(records, primary, ts, ks)
    runs = [(n, seed, s) for n, by_seed in training.items() for seed, s in sorted(by_seed.items())]
    exposed = exposure(runs)
    return Numbers(
        settings=settings,
        schedules=schedules,
        ts=ts,
        ks=ks,
        primary=primary,
        runs=runs,
        evals=evals,
        training=training,
        records=records,
        cells=cells,
        success=success,
        ts2=ts2,
        cells2=cells2,
        success2=success2,
        multi_tasks=multi_tasks,
        cells_multi=cells_multi,
        success_multi=success_multi,
        contrasts=contrasts,
        recovery_described=recovery_described,
        after=after,
        pass_k=pass_k,
        categories=categories,
        exposure=exposed,
        deployment=deployment(records, pass_k, primary, ts),
        costs=agent_costs(exposed, records, cells, primary, ts),
        decisions=decisions,
        traces=traces,
        process=_process_contrasts(settings, schedules, cells, after, primary, ts),
        subtasks={name: subtask_correctness(r for by in recs.values() for r in by) for name, recs in records.items()},
    )


def _cells_of(evals: dict[str, dict[int, dict[str, Any]]], key: str) -> dict[str, Agent]:
    """Per agent and seed: success per (task, T) from the records under ``key``."""
    return {
        name: {seed: cells_from_records(ev.get(key) or []) for seed, ev in by_seed.items()}
        for name, by_seed in evals.items()
    }


def _success_of(cells: dict[str, Agent], tasks: list[str], at: list[int]) -> dict[str, dict[int, dict[str, Any]]]:
    """Per agent and T in ``at``: success on ``tasks`` with its seed-and-task interval."""
    return {name: {t: success_at(agent, tasks, t) for t in at} for name, agent in cells.items()}


def _contrasts(
    settings: ReportSettings,
    schedules: dict[str, str],
    evals: dict[str, dict[int, dict[str, Any]]],
    cells: dict[str, Agent],
    primary: list[str],
    ts: list[int],
) -> tuple[dict[str, dict[str, Agent]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Success after each intervention, the named contrasts, and the other interventions' rows: (h1)-(h4)
    join the Holm family of the named contrasts; the other interventions' rows are described beside it."""
    names = list(schedules)
    after = intervention_cells(settings, evals)
    recovery_family, recovery_described = recovery_rows(
        settings, evals, after, primary, short=names[0], long=names[1], mix="budgetmix", unit_of=task_unit
    )
    contrasts = named_contrasts(
        cells,
        primary,
        ts,
        short=names[0],
        long=names[1],
        mix="budgetmix",
        curricula=[n for n in names if n.startswith("curriculum")],
        no_starts=NO_STARTS if NO_STARTS in schedules else None,
        unit_of=task_unit,
        more=recovery_family,
    )
    return after, contrasts, recovery_described


def _process_contrasts(
    settings: ReportSettings,
    schedules: dict[str, str],
    cells: dict[str, Agent],
    after: dict[str, dict[str, Agent]],
    primary: list[str],
    ts: list[int],
) -> list[dict[str, Any]]:
    """(p1)-(p5) when the process-reward arms ran (``--process-arms``); empty otherwise."""
    if not any(name.endswith(PROCESS_SUFFIX) for name in schedules):
        return []
    runs = intervention_runs(settings)
    iv, iv_ts = (runs[0][0], [int(t) for t in runs[0][2].split(",") if t]) if runs else ("", [])
    return process_contrasts(
        cells,
        after.get(iv),
        primary,
        ts,
        long=list(schedules)[1],
        mix="budgetmix",
        suffix=PROCESS_SUFFIX,
        intervention_ts=iv_ts,
        intervention=iv,
        unit_of=task_unit,
    )


def _pass_and_categories(
    records: dict[str, Records], primary: list[str], ts: list[int], ks: list[int]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Per agent, T and K: Pass@(K,T); per agent, T and failure category: its share (all seeds)."""
    pass_k: dict[str, Any] = {}
    categories: dict[str, Any] = {}
    for name, recs in records.items():
        by_k = {k: at_each_t(task_cells(recs, pass_at(k)), primary, ts) for k in ks}
        by_cat = {cat: at_each_t(task_cells(recs, category_share(cat)), primary, ts) for cat in CATEGORIES}
        pass_k[name] = {t: {k: by_k[k][t] for k in ks} for t in ts}
        categories[name] = {t: {cat: by_cat[cat][t] for cat in CATEGORIES} for t in ts}
    return pass_k, categories


def _decision_numbers(
    evals: dict[str, dict[int, dict[str, Any]]], ts: list[int]
) -> tuple[dict[str, dict[int, dict[str, Any]]], dict[str, dict[int, dict[str, Any]]]]:
    """Per agent and T, all seeds pooled: (1) first-commit accuracy, success if right and recovery
    after a wrong first commit, with counts; (2) from the traced clean episodes, what followed each
    failing test, how episodes whose first patch was right ended, and (at the largest T) up to three
    episodes whose first patch was wrong (the first seeds' first)."""
    decisions: dict[str, dict[int, dict[str, Any]]] = {}
    traces: dict[str, dict[int, dict[str, Any]]] = {}
    for name, by_seed in evals.items():
        records = [r for seed in sorted(by_seed) for r in by_seed[seed]["records"]]
        decisions[name] = decision_stats(records)
        for t, d in decisions[name].items():
            rs = [r for r in records if int(r["T"]) == t and not r.get("infra_error") and not r.get("faults")]
            d["recovered"] = sum(bool(r["success"]) for r in rs if (r.get("cost") or {}).get("first_commit_right") == 0)
        traces[name] = {}
        for t in ts:
            rs = [
                r
                for r in records
                if int(r["T"]) == t
                and not r.get("faults")
                and not r.get("infra_error")
                and "trace" in (r.get("cost") or {})
            ]
            if not rs:
                continue
            traces[name][t] = {
                "follow": [f for r in rs for f in after_failing_test(r["cost"]["trace"])],
                "right_first": [
                    right_first_failures(r["cost"]["trace"], bool(r["success"]))
                    for r in rs
                    if (r.get("cost") or {}).get("first_commit_right") == 1
                ],
                "wrong_first": [r for r in rs if (r.get("cost") or {}).get("first_commit_right") == 0][:3]
                if t == max(ts)
                else [],
            }
    return decisions, traces


# ---------------------------------------------------------------------- sections, in the report's order
def setup_section(n: Numbers) -> list[str]:
    """The command, seeds and device; the protocol: steps, the task list, how intervals are made."""
    settings, runs = n.settings, n.runs
    seeds = sorted({seed for _, seed, _ in runs})
    return [
        "# BudgetMix experiment: fixed-T against mixed budgets",
        "",
        f"Command: `python -m baselines.budgetmix --preset {settings.preset}`. Envs: {settings.env_ids}. "
        f"Training seeds {seeds}. Device: {runs[0][2]['device'] if runs else '?'}.",
        "",
        "## Protocol",
        "",
        f"- Every schedule trained for {settings.total_env_steps} environment steps per seed "
        f"({settings.num_envs} envs, {settings.steps_per_update} steps per PPO update, gamma {settings.gamma:g}, "
        f"turn cost {settings.turn_cost:g}, "
        f"collection `{settings.collect_mode}`, test timeout {settings.test_timeout:g} s).",
        f"- Headline: one fixed list of **{len(n.primary)} `{settings.eval_split}` tasks** "
        f"(tier `{settings.eval_tier or 'all'}`; "
        "modules never trained on when the split is `heldout`), the same for every agent and seed, "
        f"{settings.eval_n} episode(s) per task and T, T in {{{settings.eval_ts}}}. The list is in `eval_tasks.json`.",
        "- Intervals: 95% two-level bootstrap (seeds, then tasks). Contrasts are paired by task "
        "(`baselines/report/contrasts.py`).",
        "",
    ]


def throughput_section(
    n: Numbers, settings: Any, timing: dict[str, float], eval_cache: dict[str, dict[str, int]] | None
) -> list[str]:
    """Per training run: steps, seconds and where they went; wall time per phase; the result cache's hits."""
    runs = n.runs
    return [
        "## Throughput",
        "",
        _runs_table(runs),
        "",
        _wall_time_line(runs, settings, timing),
        "",
        "Coding-v0 result cache (`--result-cache`): " + _cache_line(runs, eval_cache),
        "",
    ]


def _runs_table(runs: list[tuple[str, int, dict[str, Any]]]) -> str:
    """One row per training run: env steps, seconds and where they went, final training success."""
    return md_table(
        [
            "run",
            "seed",
            "schedule",
            "env steps",
            "train s",
            "env steps/s",
            "rollout s",
            "update s",
            "straggler s",
            "test timeouts",
            "infra masked",
            "train success (last)",
        ],
        [
            [
                name,
                str(seed),
                s["schedule"],
                str(s["env_steps"]),
                f"{s['seconds']:.0f}",
                f"{s['steps_per_second']:.0f}",
                f"{s.get('rollout_seconds', float('nan')):.0f}",
                f"{s.get('update_seconds', float('nan')):.0f}",
                f"{s.get('straggler_seconds', float('nan')):.1f}",
                str(s.get("timeouts", "–")),
                str(s["infra_failures_masked"]),
                fmt(s["final_train_success"]),
            ]
            for name, seed, s in runs
        ],
    )


def _wall_time_line(runs: list[tuple[str, int, dict[str, Any]]], settings: Any, timing: dict[str, float]) -> str:
    """The grid's training throughput over wall time, per run, and the wall time of each phase."""
    total_steps = sum(s["env_steps"] for _, _, s in runs)
    train_s = sum(s["seconds"] for _, _, s in runs)
    return (
        (
            "Training throughput of the whole grid: "
            f"**{timing['train_env_steps'] / max(timing['train_seconds'], 1e-9):.0f} "
            f"env steps/s** ({timing['train_env_steps']:,} env steps in {timing['train_seconds']:.0f} s of wall time, "
            f"{describe(settings.workers, settings.executor)}, evaluations of finished runs sharing the workers); "
            if timing.get("train_env_steps")
            else ""
        )
        + f"per run, over all runs: {total_steps / max(train_s, 1e-9):.0f} env steps/s (rollout and update together). "
        f"Wall time of each phase, from its first job's start to its last job's end (the phases run in one job "
        f"graph and overlap, so they add up to more than the total): training {timing['train_seconds']:.0f} s, "
        f"evaluation {timing['eval_seconds']:.0f} s, probe {timing.get('probe_seconds', float('nan')):.0f} s, "
        f"positive control {timing.get('control_seconds', float('nan')):.0f} s; total {timing['total_seconds']:.0f} s "
        "(`timeline.json` holds every job's start, end and CPU)."
    )


def success_section(n: Numbers) -> list[str]:
    """The headline: success per agent and T with intervals over seeds and tasks, then the second split."""
    settings = n.settings
    header = ["agent", "seeds"] + [f"T={t}" for t in n.ts] + [f"{settings.eval_split2} T={t}" for t in n.ts2]
    rows = [
        [name, str(len(agent))]
        + [fmt_interval(n.success[name][t]) for t in n.ts]
        + [fmt_interval(n.success2[name][t]) for t in n.ts2]
        for name, agent in n.cells.items()
    ]
    return [
        f"## Success at each budget T (pass@1 on the {settings.eval_split} list; "
        f"last columns: the {settings.eval_split2 or '–'} split)",
        "",
        md_table(header, rows),
        "",
        "![success vs T](success_vs_T.png) (all seeds; bars: the intervals of the table)",
        "",
    ]


def contrasts_section(n: Numbers) -> list[str]:
    """The contrasts named in advance (`baselines.report.contrasts.named_contrasts`), with p-values."""
    return [
        "## Contrasts named in advance (paired by task, seeds resampled)",
        "",
        "A - B in success; an interval that excludes 0 supports the difference. *p*: two-sided bootstrap p-value; "
        "*p (Holm)*: Holm-adjusted over all the rows of this table (the family). (d) picks the specialist on the same "
        "data, which favours it. (g) is [fixed-T_long's success at the longest T minus at the shortest] minus the same "
        "for fixed-T_short (> 0: the long specialist loses more when the budget shrinks), paired by task and seed. "
        "(h1)-(h4): recovery by intervention, detailed in the next section. "
        f"The family: {len(n.contrasts)} rows ({', '.join(dict.fromkeys(c['label'] for c in n.contrasts))}).",
        "",
        contrast_table(n.contrasts),
        "",
    ]


def hypotheses_section(n: Numbers) -> list[str]:
    """This family's hypotheses tested by (a), (g), (f), (b), with the verdict by the rule named in advance
    (`baselines.report.families`); ``python -m baselines.report.families`` puts several families side by side."""
    family = first_env_id(n.settings.env_ids).rsplit("/", 1)[-1]
    return [
        f"## Hypotheses on {family} (held / not supported / open)",
        "",
        f"Held: Holm p < {ALPHA:g} (the family of the table above) in the predicted direction; not supported: the 95% "
        "interval lies wholly against it, or the equivalence test puts it within the margin of 0; open: otherwise, and "
        f"when every success rate compared is below {FLOOR:g} (a floor: nothing to collapse or keep).",
        "",
        hypothesis_table(n.contrasts),
        "",
    ]


def process_section(n: Numbers) -> list[str]:
    """(p1)-(p5): process supervision against budget design, in their own Holm family (none without the arms)."""
    if not n.process:
        return []
    return [
        "## Process supervision against budget design (paired by task, seeds resampled)",
        "",
        "The long-budget specialist and BudgetMix also trained with the process reward (`+pr`: potential-based "
        "subtask progress, the same env steps and forced starts as every arm, on the first seeds only). (p1) its "
        "effect on the long specialist at the longest T; (p2) that specialist's own collapse, shortest T minus "
        "longest; (p3) BudgetMix against it at the shortest T: budget design against process supervision; (p4) "
        "the process reward added to BudgetMix; (p5) recovery after the primary intervention, with against without "
        "the process reward. *p (Holm)*: adjusted over these rows alone.",
        "",
        contrast_table(n.process),
        "",
    ]


def subtask_section(n: Numbers) -> list[str]:
    """Subtask correctness beside success, per agent and T (none when the tasks name no subtasks)."""
    if not any(by_t for by_t in n.subtasks.values()):
        return []
    rows = []
    for name, by_t in n.subtasks.items():
        for label, key in (("all", "all"), ("cut off", "cut_off")):
            rows.append(
                [name, label]
                + [
                    f"{fmt(n.success[name][t]['mean'])} / {fmt((by_t.get(t) or {}).get(key))}"
                    if label == "all"
                    else fmt((by_t.get(t) or {}).get(key))
                    for t in n.ts
                ]
            )
    return [
        "## Subtask correctness (all seeds)",
        "",
        "The share of a task's subtasks done at the episode's end (the process reward's own measure), beside "
        "success: *all*: success / subtasks done over every clean episode; *cut off*: subtasks done in the episodes "
        "the turn limit ended before a submission. High subtask correctness with low success is local progress "
        "that was never finished.",
        "",
        md_table(["agent", "which episodes"] + [f"T={t}" for t in n.ts], rows),
        "",
    ]


def multi_bug_section(n: Numbers) -> list[str]:
    """Success on multi-bug tasks, apart from the headline (none without ``--eval-multi-tasks``)."""
    if not n.multi_tasks:
        return []
    rows = [
        [name, str(len(agent))] + [fmt_interval(n.success_multi[name][t]) for t in n.ts]
        for name, agent in n.cells_multi.items()
    ]
    return [
        f"## Multi-bug tasks ({len(n.multi_tasks)} {n.settings.eval_split} tasks, reported apart)",
        "",
        md_table(["agent", "seeds"] + [f"T={t}" for t in n.ts], rows),
        "",
    ]


def pass_at_k_section(n: Numbers) -> list[str]:
    """Pass@(K,T) per agent over all seeds, with seed-and-task intervals."""
    lines = [
        "## Pass@(K,T) (all seeds)",
        "",
        "Per task and seed, the unbiased pass@K of its episodes at T; the mean over seeds and tasks, with the "
        "interval of the success table (seeds, then tasks, resampled).",
        "",
    ]
    for name, by_t in n.pass_k.items():
        rows = [[f"K={k}"] + [fmt_interval(by_t[t][k]) for t in n.ts] for k in n.ks]
        lines += [f"**{name}**", "", md_table([""] + [f"T={t}" for t in n.ts], rows), ""]
    return lines


def categories_section(n: Numbers) -> list[str]:
    """The failure taxonomy's share of episodes per T, all seeds, with intervals."""
    lines = [
        "## Failure categories per T (all seeds)",
        "",
        "Share of clean episodes in each category (DESIGN section 5), with the seed-and-task interval.",
        "",
        "![failure categories](failure_categories.png)",
        "",
    ]
    for name, by_t in n.categories.items():
        rows = [[c] + [fmt_interval(by_t[t][c]) for t in n.ts] for c in CATEGORIES]
        lines += [f"**{name}**", "", md_table(["category"] + [f"T={t}" for t in n.ts], rows), ""]
    return lines


def faults_section(n: Numbers) -> list[str]:
    """Success with an injected fault against the paired clean episode, all seeds (none without ``--eval-faults``)."""
    settings = n.settings
    fts = [int(t) for t in str(settings.eval_fault_ts).split(",") if t] if settings.eval_faults else []
    if not fts:
        return []
    rows = []
    for name, by_seed in n.evals.items():
        for t in fts:
            f = fault_numbers(by_seed, t)
            rows.append(
                [
                    name,
                    str(t),
                    str(f["seeds"]),
                    fmt(f["success_clean"]),
                    fmt(f["success_faulted"]),
                    fmt_interval(f["difference"]),
                    fmt(f["paired_rate"]),
                    str(f["pairs"]),
                ]
            )
    return [
        "## Recovery under injected faults (all seeds)",
        "",
        f"Fault `{settings.eval_faults}` at T in {{{settings.eval_fault_ts}}}, paired with the clean episode of the "
        "same task, T, sample and seeds. Successes and pairs summed over seeds; *with fault - clean*: the mean over "
        "seeds of each seed's difference, with a 95% bootstrap interval over seeds; *paired rate* = successes with "
        "the fault / successes without it.",
        "",
        md_table(
            [
                "agent",
                "T",
                "seeds",
                "success clean",
                "success with fault",
                "with fault - clean",
                "paired rate",
                "pairs",
            ],
            rows,
        ),
        "",
    ]


def fault_numbers(by_seed: dict[int, dict[str, Any]], t: int) -> dict[str, Any]:
    """One agent's paired fault numbers at ``t`` over its seeds, from each evaluation's harness recovery
    statistics (``faults.recovery``, `agentgym.eval.metrics.recovery`)."""
    clean = faulted = pairs = 0.0
    diffs = []
    for seed in sorted(by_seed):
        rec: dict[str, Any] = (by_seed[seed].get("faults") or {}).get("recovery") or {}
        group: dict[str, Any] = (rec.get("all") or next(iter(rec.values()), {})) if rec else {}
        d = group.get("by_t", {}).get(str(t)) or {}
        if not d.get("pairs"):
            continue
        pairs += d["pairs"]
        clean += d["success_clean"] * d["pairs"]
        faulted += d["success_faulted"] * d["pairs"]
        diffs.append(d["success_faulted"] - d["success_clean"])
    return {
        "seeds": len(diffs),
        "pairs": int(pairs),
        "success_clean": clean / pairs if pairs else None,
        "success_faulted": faulted / pairs if pairs else None,
        "difference": over_seeds(diffs),
        "paired_rate": faulted / clean if clean else None,
    }


def decisions_section(n: Numbers) -> list[str]:
    """First-commit accuracy, success when it was right, and recovery after a wrong one (all seeds)."""
    if not has_commitments(n.decisions):
        return [
            "## First decisions against recovery",
            "",
            "Left out: no evaluation episode recorded a first commitment (an action that changed task state, "
            "labelled against the task's reference solution); this family's records carry none.",
            "",
        ]
    rows = [
        [
            name,
            str(t),
            fmt(d["first_commit_accuracy"]),
            fmt(d["success_if_right"]),
            fmt(d["recovery_rate"]),
            f"{d['recovered']}/{d['wrong_first']}",
            f"{d['committed']}/{d['episodes']}",
        ]
        for name, by_t in n.decisions.items()
        for t, d in by_t.items()
    ]
    return [
        "## First decisions against recovery (all seeds pooled)",
        "",
        "The first action that changed task state is the agent's first commitment; it is right when it is an action of "
        "the task's reference solution. *recovered / wrong first*: episodes that succeeded after a wrong first commit, "
        "out of those with a wrong first commit. "
        "success = accuracy x success-if-right + (1 - accuracy) x recovery rate.",
        "",
        "![first commit vs recovery](first_commit_vs_recovery.png)",
        "",
        md_table(
            [
                "agent",
                "T",
                "first-commit accuracy",
                "success if right",
                "recovery rate",
                "recovered / wrong first",
                "committed",
            ],
            rows,
        ),
        "",
    ]


def behaviour_section(n: Numbers) -> list[str]:
    """What each agent does at each T (`behaviour_table`, all seeds)."""
    return [
        "## What each agent does at each T (all seeds)",
        "",
        "Means per clean episode: turns used, share that submitted (the rest ran out of turns), share that "
        "exhausted the budget, and how many `test`, `revert` and `patch` actions it took (Coding-v0's menu verbs).",
        "",
        md_table(
            ["agent", "T", "turns", "submitted", "budget exhausted", "tests", "reverts", "patches", "success"],
            behaviour_table({name: pooled(recs) for name, recs in n.records.items()}, n.ts),
        ),
        "",
    ]


def traces_section(n: Numbers) -> list[str]:
    """What follows a failing test, and how episodes whose first patch was right end, per agent and
    T (all seeds), from the per-episode traces `DecisionRecorder` writes."""
    follow_rows, fate_rows, examples = [], [], []
    for name, by_t in n.traces.items():
        for t, tally in by_t.items():
            follow, right = tally["follow"], tally["right_first"]
            follow_rows.append(
                [name, str(t), str(len(follow))]
                + ["–" if not follow else f"{follow.count(k) / len(follow):.2f}" for k in FOLLOW_UPS]
            )
            fate_rows.append(
                [name, str(t), str(len(right))] + ["–" if not right else str(right.count(k)) for k in RIGHT_FIRST_FATES]
            )
            examples += [
                f"- {name} T={t} {'success' if r['success'] else 'fail'}: `{r['cost']['trace']}`"
                for r in tally["wrong_first"]
            ]
    return [
        "## Traces: what follows a failing test, and why a right first patch fails (all seeds)",
        "",
        "From each episode's trace (`baselines/report/decisions.py`; it reads the task's solution to label patches, "
        "which the agent never sees): `P+` a right patch, `P-` a wrong one, `*` the same change applied before in the "
        "episode, `!` it did not apply, `T+`/`T-` a passing/failing visible test, `R` revert, `S` submit, `V` view.",
        "",
        "**After a failing visible test** (share of failing tests followed by each action; *patch on top*: a new "
        "patch while the tested one is still applied; *same patch again*: a change applied before in the episode):",
        "",
        md_table(["agent", "T", "failing tests"] + list(FOLLOW_UPS), follow_rows),
        "",
        "**Episodes whose first patch was right**, by how they ended (counts):",
        "",
        md_table(["agent", "T", "right first"] + list(RIGHT_FIRST_FATES), fate_rows),
        "",
        f"Example traces after a wrong first patch at T={max(n.ts)}:",
        "",
        *examples,
        "",
    ]


def probe_section(probe: dict[str, dict[str, Any]]) -> list[str]:
    """Forced-state tables: P(action | state, turns left) per policy (`baselines.experiment.probe`)."""
    tl = sorted({int(t) for d in probe.values() for t in d["p"]["submit"]["opening"]})
    asks = [
        ("revert", "failing test"),
        ("submit", "failing test"),
        ("submit", "unverified edit"),
        ("test", "unverified edit"),
        ("submit", "passing test"),
        ("submit", "opening"),
    ]
    rows = []
    for name, d in probe.items():
        for action, state in asks:
            by_t = d["p"][action][state]
            rows.append(
                [name, f"P({action} \\| {state})", str(d["states"][state])]
                + [fmt(by_t.get(t, by_t.get(str(t)))) for t in tl]
            )
        rows.append([name, "TV(min, max turns left)", "", fmt(d["tv_min_max"])] + [""] * (len(tl) - 1))
    return [
        "## Does the policy use the budget and the verdict? (forced-state probe, first seed)",
        "",
        "Held-out tasks driven into named states by a fixed script, the policy's memory fed exactly as on-policy "
        "(opening instruction first, then each step's observation and events); only the turns left change across "
        "columns. *failing test*: a patch, then `test` failed; *unverified edit*: a patch, not tested; *passing test*: "
        "a patch, then `test` passed. A policy that recovers puts weight on `revert` after a failing test when turns "
        "allow; one that uses the budget submits an unverified edit when turns run low.",
        "",
        md_table(["policy", "probability", "states"] + [f"left={t}" for t in tl], rows),
        "",
    ]


def control_section(control: dict[str, Any], png: Path) -> list[str]:
    """The positive control (`baselines.experiment.control`): success per schedule and T against the
    known optimum, with recovery counts and how often a failing test was followed by a revert."""
    ts = sorted({int(t) for by_t in control["by_T"].values() for t in by_t})
    best = control.get("best_policy") or {}
    opt = next(iter(control["by_T"].values()))
    rows = [["optimum (dynamic programme)"] + [fmt(opt[str(t)]["optimum"]) for t in ts]]
    if best:
        rows.append(["known best policy, simulated"] + [fmt(best.get(str(t))) for t in ts])
    if control.get("cloned_start"):
        rows.append(
            ["optimum cloned into the network, before PPO"] + [fmt(control["cloned_start"].get(str(t))) for t in ts]
        )

    def cell(c: dict[str, Any]) -> str:
        ci = c.get("success_ci95")
        return (
            f"{fmt(c['success'])}{f' [{fmt(ci[0])}, {fmt(ci[1])}]' if ci else ''} "
            f"(rec {c['recovered']}/{c['wrong_first']}, "
            f"revert {c.get('reverts_after_failing_test', 0)}/{c.get('failing_tests', 0)})"
        )

    for name, by_t in control["by_T"].items():
        rows.append([name] + [cell(by_t[str(t)]) for t in ts])
    plot_control(control, ts, png)
    return [
        "## Positive control (sandbox-free budget env, known best policy)",
        "",
        f"`{control.get('env', '?')}`: one of five patches fixes the bug, the instruction's clue names it 60% of the "
        "time, a patch on top of another breaks the code until `revert` undoes it, and the right patch's test fails "
        "10% of the time (a failing test is evidence, not proof). The optimum is an exact dynamic programme over what "
        "the agent can know (`baselines.experiment.budget_env.recover_optimum`). The same trainer, features and "
        f"start-state curriculum, {control['steps']} env steps per run, seeds {control['seeds']}. "
        "Cells: success with its 95% "
        "interval over seeds (rec: recovered / wrong first patch; revert: reverts right after a failing test / failing "
        "tests). *from the optimum*: PPO started from the optimal policy cloned into the network (does it keep it?).",
        "",
        md_table(["schedule"] + [f"T={t}" for t in ts], rows),
        "",
        f"![positive control]({png.name})",
        "",
    ]


def training_section() -> list[str]:
    """Training success and the batch's mean budget against env steps (all seeds)."""
    return [
        "## Training curves (all seeds)",
        "",
        "![training](training.png) (thin lines: one seed each; thick: their mean)",
        "",
    ]


# ---------------------------------------------------------------------- for machines: summary.json
SUMMARY_SCHEMA = 1
"""Version of ``summary.json``'s layout (`experiment_summary`)."""


def experiment_summary(n: Numbers) -> dict[str, Any]:
    """``summary.json``, for machines to read, all seeds:

    - ``agents[name]["by_T"][T]``: success with its interval, first-commit accuracy, success when it
      was right, recovery as counts; ``pass_at_k[K]`` and ``categories[category]`` with intervals;
      the deployment metrics: ``exhausted`` (interval), ``turns``, ``env_seconds``, ``agent_seconds``
      (means per episode), ``latency_s`` (``p50``, ``p95``, ``p99``);
    - ``agents[name]``: ``success_at_cost`` and ``cost_at_success``, each ``{"turns" | "env_seconds":
      {C or target: {"success", "K", "T", "cost"} or null}}``; ``training`` (null if not trained),
      ``inference`` and ``cross_budget`` (``mean_over_T``, ``min_over_T``), intervals over seeds;
    - ``runs``: per training run, its exposure (env steps, updates, trained decisions, episodes,
      forced-start episodes and steps, seconds).

    An interval is ``{"mean", "lo", "hi"}``."""
    agents: dict[str, Any] = {}
    dep = n.deployment
    for name, agent in n.cells.items():
        by_t = {}
        for t in n.ts:
            sat = n.success[name][t]
            d = n.decisions.get(name, {}).get(t) or {}
            cost = dep.by_t[name][t]
            by_t[str(t)] = {
                "success": _span(sat),
                "first_commit_accuracy": d.get("first_commit_accuracy"),
                "success_if_right": d.get("success_if_right"),
                "recovered": int(d.get("recovered", 0)),
                "wrong_first": int(d.get("wrong_first", 0)),
                "recovery_rate": d.get("recovery_rate"),
                "subtasks_done": n.subtasks.get(name, {}).get(t),
                "committed": int(d.get("committed", 0)),
                "episodes": int(d.get("episodes", 0)),
                "pass_at_k": {str(k): _span(c) for k, c in n.pass_k[name][t].items()},
                "categories": {cat: _span(c) for cat, c in n.categories[name][t].items()},
                "exhausted": _span(cost["exhausted"]),
                **{key: cost[key] for key in ("turns", "env_seconds", "agent_seconds", "latency_s")},
            }
        costs = n.costs[name]
        agents[name] = {
            "seeds": len(agent),
            "by_T": by_t,
            "success_at_cost": {m: {f"{c:g}": cell for c, cell in by.items()} for m, by in dep.at_cost[name].items()},
            "cost_at_success": {
                m: {f"{c:g}": cell for c, cell in by.items()} for m, by in dep.at_success[name].items()
            },
            "training": costs["training"] and {k: _span(c) for k, c in costs["training"].items()},
            **{part: {k: _span(c) for k, c in costs[part].items()} for part in ("inference", "cross_budget")},
        }
    return {
        "schema": SUMMARY_SCHEMA,
        "split": n.settings.eval_split,
        "tier": n.settings.eval_tier,
        "tasks": len(n.primary),
        "ts": list(n.ts),
        "interval": "95% bootstrap, seeds then tasks (intervals over seeds for costs)",
        "agents": agents,
        "runs": n.exposure,
    }


def _span(c: dict[str, Any]) -> dict[str, Any]:
    return {"mean": c["mean"], "lo": c["lo"], "hi": c["hi"]}


# ---------------------------------------------------------------------- tables and formatting
def behaviour_table(records: Mapping[str, Sequence[Mapping[str, Any]]], ts: list[int]) -> list[list[str]]:
    """Rows of what each agent does at each T over its clean episodes: turns used, submissions, test runs, reverts."""
    rows = []
    for name, recs in records.items():
        for t in ts:
            rs = [r for r in recs if int(r["T"]) == t]
            if not rs:
                continue
            acts = [r.get("actions") or [] for r in rs]
            rows.append(
                [
                    name,
                    str(t),
                    f"{np.mean([r['turns'] for r in rs]):.1f}",
                    f"{np.mean([bool(r['submitted']) for r in rs]):.2f}",
                    f"{np.mean([bool(r['budget_exhausted']) for r in rs]):.2f}",
                    f"{np.mean([a.count('test') for a in acts]):.2f}",
                    f"{np.mean([a.count('revert') for a in acts]):.2f}",
                    f"{np.mean([sum(x.startswith('patch') for x in a) for a in acts]):.2f}",
                    f"{np.mean([bool(r['success']) for r in rs]):.2f}",
                ]
            )
    return rows


def _cache_line(runs: list[tuple[str, int, dict[str, Any]]], eval_cache: dict[str, dict[str, int]] | None) -> str:
    """Hits / lookups of the result cache in training (all runs) and in the evaluation, per kind."""

    def counted(counts: dict[str, dict[str, int]]) -> str:
        return ", ".join(f"{kind} {c['hits']}/{c['hits'] + c['misses']}" for kind, c in counts.items())

    train: dict[str, dict[str, int]] = {}
    for _, _, s in runs:
        for kind, c in (s.get("result_cache") or {}).items():
            t = train.setdefault(kind, {"hits": 0, "misses": 0})
            t["hits"] += c["hits"]
            t["misses"] += c["misses"]
    if not train and not eval_cache:
        return "off."
    return (
        f"hits / lookups in training {counted(train) or '–'}; in the evaluation {counted(eval_cache or {}) or '–'}. "
        "A hit gives the outcome a run gives (tests/envs/coding/test_coding_result_cache.py)."
    )
