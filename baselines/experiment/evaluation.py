"""One agent's evaluations: the K x T grid on the fixed task list, then the second split, the
multi-bug tasks, an injected fault and the interventions, each through `agentgym.eval.evaluate`.

The harness seed is the same for every agent, so each (task, T, sample) episode gets the same env
seed whoever plays it, with or without an intervention: contrasts pair episodes by task.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from agentgym.eval import evaluate
from baselines.config import EvalSettings, intervention_runs
from baselines.policy.env_pool import borrow
from baselines.policy.families import family_env_kwargs
from baselines.policy.train import coding_kwargs
from baselines.report.decisions import DecisionRecorder

__all__ = ["MULTI_TIERS", "evaluate_agent", "eval_episodes"]

MULTI_TIERS = ("two_bugs", "cross_file")


def evaluate_agent(
    settings: EvalSettings,
    name: str,
    agent: Any,
    out: Path,
    task_lists: dict[str, list[str]],
    *,
    intervene: bool = False,
) -> dict[str, Any]:
    """Every evaluation of one agent: {"grid", "records", "split2_records", "multi_records", "faults",
    "interventions", "seconds"}; ``interventions`` (intervention name -> records, clean twins
    included) only when ``intervene``."""

    agent = DecisionRecorder(agent)
    folder = out / name
    if not settings.resume:
        shutil.rmtree(folder, ignore_errors=True)  # the harness resumes from what it finds
    grid = _run(
        settings,
        agent,
        folder / "grid",
        task_lists["primary"],
        ts=settings.eval_ts,
        ks=settings.eval_ks,
        n=settings.eval_n,
        report=settings.harness_reports,
    )
    result: dict[str, Any] = {"grid": grid.summary, "records": grid.records, "seconds": grid.seconds}
    if settings.eval_split2:
        second = _run(
            settings,
            agent,
            folder / "split2",
            task_lists["split2"],
            split=settings.eval_split2,
            ts=settings.eval_split2_ts,
        )
        result["split2_records"] = second.records
        result["seconds"] += second.seconds
    if task_lists.get("multi"):
        multi = _run(
            settings, agent, folder / "multi", task_lists["multi"], ts=settings.eval_ts, tiers={"tiers": MULTI_TIERS}
        )
        result["multi_records"] = multi.records
        result["seconds"] += multi.seconds
    if settings.eval_faults and settings.eval_fault_ts:
        faulted = _faulted(settings, agent, grid, folder, task_lists["primary"])
        result["faults"] = faulted.summary
        result["seconds"] += faulted.seconds
    if intervene:
        result["interventions"] = {}
        for i, (iv, how, ts) in enumerate(intervention_runs(settings)):
            run = _intervened(settings, agent, grid, folder, i, task_lists["primary"], how, ts)
            result["interventions"][iv] = run.records
            result["seconds"] += run.seconds
    return result


def _faulted(settings: EvalSettings, agent: Any, grid: Any, folder: Path, tasks: list[str]) -> Any:
    """The grid's tasks again at ``--eval-fault-ts`` with ``--eval-faults`` injected (clean twins from the grid)."""
    fault_ts = {int(t) for t in settings.eval_fault_ts.split(",")}
    _seed_with_clean_twins(grid, folder / "grid", folder / "faults", fault_ts)
    return _run(
        settings,
        agent,
        folder / "faults",
        tasks,
        ts=",".join(map(str, sorted(fault_ts))),
        n=settings.eval_n,
        faults=settings.eval_faults,
    )


def _intervened(
    settings: EvalSettings,
    agent: Any,
    grid: Any,
    folder: Path,
    i: int,
    tasks: list[str],
    how: dict[str, str],
    ts: str,
) -> Any:
    """The ``i``-th intervention (a forced start or a fault spec) at its budgets ``ts``."""
    target = folder / f"intervention-{i}"
    _seed_with_clean_twins(grid, folder / "grid", target, {int(t) for t in ts.split(",")})
    return _run(
        settings,
        agent,
        target,
        tasks,
        ts=ts,
        n=settings.eval_n,
        faults=how.get("faults"),
        intervention=how.get("intervention"),
    )


def _run(
    settings: EvalSettings,
    agent: Any,
    out: Path,
    tasks: list[str],
    *,
    ts: str,
    split: str | None = None,
    ks: str = "1",
    n: int = 1,
    faults: str | None = None,
    intervention: str | None = None,
    tiers: dict[str, Any] | None = None,
    report: bool = False,
) -> Any:
    """One `agentgym.eval.evaluate` run of ``agent`` on ``tasks`` with the experiment's env arguments;
    ``tiers`` defaults to ``--eval-tier`` on Coding-v0."""
    env_id = settings.env_id
    if tiers is None:
        tiers = {"tiers": (settings.eval_tier,)} if settings.eval_tier and "Coding" in settings.env_ids else None
    env_kwargs = {
        **coding_kwargs(env_id, settings.test_timeout, settings.result_cache),
        **family_env_kwargs(env_id),
        **(tiers or {}),
    }
    return evaluate(
        env_id,
        agent,
        ks=ks,
        ts=ts,
        n=n,
        split=split or settings.eval_split,
        tasks=tasks,
        faults=faults,
        workers=1,
        seed=0,
        out=out,
        sandbox=settings.backend,
        progress=settings.progress,
        report=report,
        intervention=intervention,
        env_kwargs=env_kwargs,
        base_env=borrow,  # this worker's warm envs, kept from one evaluation to the next
    )


def _seed_with_clean_twins(grid: Any, grid_dir: Path, folder: Path, ts: set[int]) -> None:
    """Start ``folder``'s run with the clean grid's episodes at ``ts``: they are the clean twins
    the harness pairs a faulted or intervened episode with, so it need not play them again."""
    folder.mkdir(parents=True, exist_ok=True)
    if (folder / "episodes.jsonl").exists():
        return
    shutil.copy(grid_dir / "run.json", folder / "run.json")
    with (folder / "episodes.jsonl").open("w") as fh:
        for r in grid.records:
            if int(r["T"]) in ts and not r.get("faults") and not r.get("intervention"):
                fh.write(json.dumps(r, sort_keys=True) + "\n")


def eval_episodes(settings: EvalSettings, task_lists: dict[str, list[str]], intervene: bool) -> int:
    """The episodes `evaluate_agent` plays for one agent (clean twins copied from the grid not counted)."""

    def count(ts: str) -> int:
        return len([t for t in str(ts).split(",") if t.strip()])

    n = len(task_lists["primary"]) * count(settings.eval_ts) * settings.eval_n
    n += len(task_lists.get("split2") or []) * count(settings.eval_split2_ts) if settings.eval_split2 else 0
    n += len(task_lists.get("multi") or []) * count(settings.eval_ts)
    if settings.eval_faults and settings.eval_fault_ts:
        n += len(task_lists["primary"]) * count(settings.eval_fault_ts) * settings.eval_n
    if intervene:
        n += sum(len(task_lists["primary"]) * count(ts) * settings.eval_n for _, _, ts in intervention_runs(settings))
    return n
