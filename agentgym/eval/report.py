"""``report.md`` and its figures, from a run's summary; `render` rebuilds both from a run folder.

The report reads top to bottom the way the questions come: how does success depend on K and
T, how much of it survives a shorter budget, why do episodes fail, does the agent recover from
faults, and what does each extra turn or sample cost.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentgym.errors import ConfigError
from agentgym.eval.episodes import read_episodes
from agentgym.eval.metrics import CATEGORIES
from agentgym.eval.plots import PLOT_FILES, main_group, plot_all
from agentgym.eval.summary import summarize

__all__ = ["write_report", "render", "render_markdown", "load_summary"]


def load_summary(run_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The summary of a run folder, recomputed from ``episodes.jsonl`` when it is there, so a
    killed run still reports what it finished."""
    d = Path(run_dir)
    run_file, episodes = d / "run.json", d / "episodes.jsonl"
    if run_file.exists() and episodes.exists():
        return summarize(read_episodes(episodes), json.loads(run_file.read_text()))
    if (d / "summary.json").exists():
        return json.loads((d / "summary.json").read_text())
    raise ConfigError(
        f"{d} holds no evaluation (no summary.json or episodes.jsonl): run `agentgym eval --out {d}` first"
    )


def render(run_dir: str | os.PathLike[str]) -> list[Path]:
    """Recompute ``summary.json`` and redraw ``report.md`` with its figures in ``run_dir``."""
    d = Path(run_dir)
    summary = load_summary(d)
    old = d / "summary.json"
    if old.exists():  # keep the wall-clock record of the run that produced the episodes
        summary.setdefault("timing", json.loads(old.read_text()).get("timing"))
    old.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    return [old, *write_report(d, summary)]


def write_report(out_dir: str | os.PathLike[str], summary: Mapping[str, Any]) -> list[Path]:
    """Figures and ``report.md`` into ``out_dir``; returns the paths written."""
    out = Path(out_dir)
    pngs = plot_all(summary, out)
    md = out / "report.md"
    md.write_text(render_markdown(summary))
    return [*pngs, md]


def _f(x: Any, digits: int = 2) -> str:
    return "–" if x is None else f"{float(x):.{digits}f}"


def _pass_table(res: Mapping[str, Any], ks: list[int], ts: list[int], key: str = "pass") -> list[str]:
    lines = ["| K \\ T | " + " | ".join(str(t) for t in ts) + " |", "|---" * (len(ts) + 1) + "|"]
    for k in ks:
        row = []
        for t in ts:
            c = res[key][str(t)][str(k)]
            row.append("–" if c["mean"] is None else f"{c['mean']:.2f} [{c['lo']:.2f}, {c['hi']:.2f}]")
        lines.append(f"| **{k}** | " + " | ".join(row) + " |")
    return lines


def _soft_budget_section(summary: Mapping[str, Any]) -> list[str]:
    """Hard against soft budget per T, paired (present when the run used ``--budget-mode soft``)."""
    by_cond = summary.get("soft_budget")
    if not by_cond:
        return []
    soft = summary["config"].get("soft_budget") or {}
    L = [
        "## Hard vs soft budget",
        "",
        f"Every episode ran twice with the same task, sample and seeds: under a turn limit of T (hard) and "
        f"under T made soft (`{json.dumps(soft, sort_keys=True)}`: a warning at `warn_at` turns left, and an "
        "`extend` action that adds `extra` turns up to `max_requests` times, paying `cost` reward each). "
        "Soft - hard is the paired difference in success with a 95% bootstrap interval over tasks; turns count "
        "`extend`; asked is the share of soft episodes that sent it; granted, extra turns and cost are means per "
        "episode; net = soft success - cost; ran out = share of soft episodes that asked and still ran out.",
        "",
    ]
    head = (
        "| T | pairs | success hard | success soft | soft - hard | turns hard | turns soft | asked | granted | "
        "extra turns | cost | net | exhausted hard | exhausted soft | ran out |"
    )
    for cond, groups in by_cond.items():
        for g, by_t in groups.items():
            if not by_t:
                continue
            L += [f"**{g}, {cond}**", "", head, "|---" * 15 + "|"]
            for t, r in sorted(by_t.items(), key=lambda kv: int(kv[0])):
                d = r["diff"]
                L.append(
                    f"| {t} | {r['pairs']} | {_f(r['success_hard'])} | {_f(r['success_soft'])} | "
                    f"{d['mean']:+.2f} [{d['lo']:+.2f}, {d['hi']:+.2f}] | {_f(r['turns_hard'], 1)} | "
                    f"{_f(r['turns_soft'], 1)} | {_f(r['asked'])} | {_f(r['granted'])} | {_f(r['extra_turns'], 1)} | "
                    f"{_f(r['cost'], 3)} | {_f(r['net_soft'])} | {_f(r['exhausted_hard'])} | "
                    f"{_f(r['exhausted_soft'])} | {_f(r['ran_out_after_extension'])} |"
                )
            L.append("")
    return L


def _subtask_section(clean: Mapping[str, Any], ts: list[int]) -> list[str]:
    """Subtask correctness beside success: what share of a task's subtasks was done at the end, apart
    for submitted episodes and those the turn limit cut off (empty when the tasks have no subtasks)."""
    by_t = clean.get("subtasks") or {}
    if not by_t:
        return []
    lines = [
        "## Subtask correctness",
        "",
        "The mean share of a task's subtasks done at the episode's end, beside success: high subtask "
        "correctness with low success is progress that was never finished or submitted.",
        "",
        "| T | pass@1 | subtasks done | when submitted | when cut off | episodes |",
        "|---|---|---|---|---|---|",
    ]
    for t in ts:
        row = by_t.get(str(t)) or by_t.get(t) or {}
        lines.append(
            f"| {t} | {_f(clean['success'].get(str(t)))} | {_f(row.get('all'))} | {_f(row.get('submitted'))} | "
            f"{_f(row.get('cut_off'))} | {row.get('episodes', 0)} |"
        )
    return lines + [""]


def _intervention_section(summary: Mapping[str, Any]) -> list[str]:
    """Recovery by intervention: the forced start against the clean episode, paired by task, sample and seeds."""
    iv = summary.get("intervention")
    if not iv:
        return []
    L = [
        "## Recovery by intervention",
        "",
        f"`{iv['name']}`: the same first action(s) forced on every episode, played as the agent's own and counted "
        "against T; success within the turns left, against the clean twin (same task, sample and seeds). "
        f"{iv['no_candidate']} of {iv['episodes']} intervened episode(s) had no candidate for it (not played, "
        "not scored).",
        "",
    ]
    for g, by_t in iv["by_group"].items():
        L += [
            f"**{g}**",
            "",
            "| T | pairs | success clean | success intervened | diff [95% CI] | recovered | forced turns | "
            "ended in the forced start |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for t, r in sorted(by_t.items(), key=lambda kv: int(kv[0])):
            d = r["diff"]
            L.append(
                f"| {t} | {r['pairs']} | {_f(r['success_clean'])} | {_f(r['success_intervened'])} | "
                f"{d['mean']:+.2f} [{d['lo']:+.2f}, {d['hi']:+.2f}] | {_f(r['recovered'])} | "
                f"{_f(r['forced_turns'], 1)} | {r['ended_in_start']} |"
            )
        L.append("")
    return L


def render_markdown(summary: Mapping[str, Any]) -> str:
    """The report text (figures are referenced by file name, next to it)."""
    c = summary["config"]
    ks, ts = [int(k) for k in c["ks"]], [int(t) for t in c["ts"]]
    group = main_group(summary)
    counts = summary["counts"]
    results = summary["results"]
    clean = results.get("clean", {}).get(group)
    faulted = results.get("faulted", {}).get(group)
    n_tasks = sum(len(v) for v in c["tasks"].values())
    L: list[str] = [
        f"# Evaluation: {c['agent']} on {', '.join(c['envs'])}",
        "",
        f"- split `{c['split']}`, {n_tasks} task(s), n = {c['n']} episodes per task and budget, "
        f"K in {ks}, T in {ts}, seed {c['seed']}",
        f"- faults: `{c['faults']}` (every episode also run clean with the same seeds)"
        if c["faults"]
        else "- faults: none",
        f"- intervention: `{c['intervention']}` (a forced start; every episode also run clean with the same seeds)"
        if c.get("intervention")
        else "- intervention: none",
        f"- budget: hard and soft (`{json.dumps(c['soft_budget'], sort_keys=True)}`), paired; the tables before "
        "'Hard vs soft budget' are the hard-budget episodes'"
        if c.get("soft_budget")
        else "- budget: hard",
        f"- execution: {c.get('executor', c.get('backend'))} executor, {c['workers']} worker(s), "
        f"sandbox `{c['sandbox']}`",
        f"- episodes: {counts['episodes']} ({counts['scored']} scored, {counts['successes']} successes); "
        f"infrastructure failures: {counts['infra_errors']} (retried episodes: {counts['infra_retried']})",
    ]
    if c.get("command"):
        L.append(f"- command: `{c['command']}`")
    timing = summary.get("timing")
    if timing:
        L.append(f"- wall clock: {timing['seconds']:.1f} s for {timing['episodes_run']} episode(s) run this time")
    L += [
        "",
        "## Pass@(K,T)",
        "",
        "Unbiased pass@K (1 - C(n-c,K)/C(n,K) per task, averaged over tasks) with a 95% percentile "
        "bootstrap interval over tasks. Each T is a separate run: the agent sees its budget.",
        "",
    ]
    for cond, by_group in results.items():
        for g, res in by_group.items():
            label = {"faulted": f" (`{c['faults']}`)", "intervened": f" (`{c.get('intervention')}`)"}.get(cond, "")
            L += [f"**{g}, {cond}**" + label, ""]
            L += _pass_table(res, ks, ts) + [""]
    L += [f"![Pass@(K,T) heatmap]({PLOT_FILES['pass_heatmap']})", ""]
    L += [
        "## pass^k (consistency)",
        "",
        "tau-bench's pass^k: the chance that all K of K attempts succeed, C(c,K)/C(n,K) per task "
        "(unbiased from n >= K episodes), averaged over tasks, with the same bootstrap interval.",
        "",
    ]
    for cond, by_group in results.items():
        for g, res in by_group.items():
            if "pass_hat" in res:
                L += [f"**{g}, {cond}**", ""] + _pass_table(res, ks, ts, "pass_hat") + [""]
    L += [f"![pass^k]({PLOT_FILES['pass_hat']})", ""]

    if clean:
        L += [
            "## Budget extrapolation",
            "",
            f"success(T) / success(T_ref = {c['t_ref']}), with pass@1 as success; turn-limit exhaustion "
            "is the share of episodes the budget cut off before they ended.",
            "",
            "| T | pass@1 | ratio to T_ref | exhaustion rate |",
            "|---|---|---|---|",
        ]
        for t in ts:
            L.append(
                f"| {t} | {_f(clean['success'].get(str(t)))} | {_f(clean['extrapolation'].get(str(t)))} | "
                f"{_f(clean['exhaustion'].get(str(t)))} |"
            )
        L += ["", f"![success against T]({PLOT_FILES['success_vs_t']})", ""]

        L += [
            "## Why episodes fail",
            "",
            "One primary category per episode (first match: success, answer_contradicts_state, timeout, "
            "tool_call_error, state_misidentification, missing_verification, planning_mistake); shares per T.",
            "",
            "| T | " + " | ".join(CATEGORIES) + " |",
            "|---" * (len(CATEGORIES) + 1) + "|",
        ]
        for t in ts:
            row = clean["categories"].get(str(t), {})
            L.append(f"| {t} | " + " | ".join(_f(row.get(cat, 0.0)) for cat in CATEGORIES) + " |")
        if faulted:
            L += [
                "",
                "With faults:",
                "",
                "| T | " + " | ".join(CATEGORIES) + " |",
                "|---" * (len(CATEGORIES) + 1) + "|",
            ]
            for t in ts:
                row = faulted["categories"].get(str(t), {})
                L.append(f"| {t} | " + " | ".join(_f(row.get(cat, 0.0)) for cat in CATEGORIES) + " |")
        L += ["", f"![failure categories per T]({PLOT_FILES['failures_per_t']})", ""]
        L += _subtask_section(clean, ts)

    rec = summary.get("recovery", {}).get(group, {}).get("by_t", {})
    L += [
        "## Recovery",
        "",
        "Paired rate: success with the fault / success without it, on the same tasks, samples and "
        "seeds. Conditional: share of clean successes whose faulted twin also succeeded. Natural "
        "error recovery: share of clean episodes with a bad action or failed tool call that still succeeded.",
        "",
        "| T | pairs | success clean | success faulted | paired rate | conditional | fault fired: success | "
        "natural recovery (episodes) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for t in ts:
        r = rec.get(str(t), {})
        L.append(
            f"| {t} | {r.get('pairs', 0)} | {_f(r.get('success_clean'))} | {_f(r.get('success_faulted'))} | "
            f"{_f(r.get('paired_rate'))} | {_f(r.get('paired_conditional'))} | {_f(r.get('fault_rate'))} "
            f"({r.get('fault_episodes', 0)}) | {_f(r.get('natural_rate'))} ({r.get('natural_episodes', 0)}) |"
        )
    if any((r.get("time_to_recover") or {}).get("episodes") for r in rec.values()):
        L += [
            "",
            "Time to recover: turns from the first injected fault to the first successful tool call "
            "after it, over episodes where a fault fired.",
            "",
            "| T | episodes | recovered | mean | p50 | p90 | never |",
            "|---|---|---|---|---|---|---|",
        ]
        for t in ts:
            r = (rec.get(str(t), {}) or {}).get("time_to_recover") or {}
            L.append(
                f"| {t} | {r.get('episodes', 0)} | {_f(r.get('recovered'))} | {_f(r.get('mean'))} | "
                f"{_f(r.get('p50'), 1)} | {_f(r.get('p90'), 1)} | {r.get('never', 0)} |"
            )
    L += ["", f"![recovery]({PLOT_FILES['recovery']})", ""]
    L += _intervention_section(summary)
    L += _soft_budget_section(summary)

    if clean:
        L += [
            "## Cost",
            "",
            "Mean cost per episode at each T (model calls are agent turns unless the agent reports "
            "its own calls; latency is wall clock from reset to the last step).",
            "",
            "| T | model calls | env calls | env s | agent s | latency s | prompt tokens | completion tokens |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for t in ts:
            cost = clean["cost"].get(str(t), {})
            L.append(
                f"| {t} | {_f(cost.get('model_calls'), 1)} | {_f(cost.get('env_calls'), 1)} | "
                f"{_f(cost.get('env_seconds'), 3)} | {_f(cost.get('agent_seconds'), 3)} | "
                f"{_f(cost.get('latency_s'), 3)} | {_f(cost.get('prompt_tokens'), 0)} | "
                f"{_f(cost.get('completion_tokens'), 0)} |"
            )
        L += [
            "",
            "Success at fixed cost (best pass@K over cells with K x T <= C):",
            "",
            "| C = K x T | best pass | cell |",
            "|---|---|---|",
        ]
        for cost, v in sorted(clean["success_at_cost"]["turns"].items(), key=lambda kv: float(kv[0])):
            L.append(f"| {float(cost):g} | {_f(v and v['success'])} | " + (f"K={v['K']}, T={v['T']} |" if v else "– |"))
        L += [
            "",
            "Cost at fixed success (cheapest cell reaching the target):",
            "",
            "| target | K x T | cell | env calls | seconds |",
            "|---|---|---|---|---|",
        ]
        cas = clean["cost_at_success"]
        for target, v in cas["turns"].items():
            ec, sec = cas["env_calls"].get(target), cas["seconds"].get(target)
            L.append(
                f"| {float(target):g} | {_f(v and v['cost'], 0)} | "
                + (f"K={v['K']}, T={v['T']}" if v else "unreached")
                + f" | {_f(ec and ec['cost'], 1)} | {_f(sec and sec['cost'], 3)} |"
            )
        L += ["", f"![success against cost]({PLOT_FILES['success_vs_cost']})", ""]

        L += ["## Latency", "", "| T | p50 s | p95 s | p99 s |", "|---|---|---|---|"]
        for t in ts:
            lat = clean["latency"].get(str(t), {})
            L.append(f"| {t} | {_f(lat.get('p50'), 3)} | {_f(lat.get('p95'), 3)} | {_f(lat.get('p99'), 3)} |")
        L += ["", f"![latency against T]({PLOT_FILES['latency']})", ""]

    L += [
        "## Infrastructure failures",
        "",
        f"{counts['infra_errors']} episode(s) failed for infrastructure reasons after every retry "
        f"(retries per episode: {c['retries']}); they are excluded from every statistic above. "
        f"{counts['infra_retried']} episode(s) needed at least one retry.",
        "",
    ]
    for kind, n in sorted(counts.get("infra_error_kinds", {}).items()):
        L.append(f"- {kind}: {n}")
    return "\n".join(L).rstrip() + "\n"
