"""`baselines.experiment.jobs.experiment_jobs`: the experiment as one job graph, each job after what it needs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from baselines.config import NO_STARTS, PRESETS, Args, EvalSettings
from baselines.experiment.arms import experiment_runs, experiment_schedules
from baselines.experiment.evaluation import eval_episodes
from baselines.experiment.grid import priorities
from baselines.experiment.jobs import experiment_jobs


def _graph(tmp_path: Path, **overrides: object) -> tuple[list, dict, Args]:
    args = dataclasses.replace(
        Args(**{**PRESETS["smoke"], "preset": "smoke"}),
        seeds="1,2",
        no_starts_seeds=1,
        eval_references="budget-aware,pick+loop",
        pick_loop_seeds=1,
        out=str(tmp_path),
        **overrides,
    )
    schedules = experiment_schedules(args)
    seeds = [1, 2]
    training = {name: {} for name in dict.fromkeys(n for n, _, _ in experiment_runs(args, schedules, seeds))}
    agents: dict = {"random": {0: object()}, "script:budget-aware": {0: object()}}
    task_lists = {"primary": ["a", "b"], "split2": ["c"], "multi": []}
    jobs, labels, assemble = experiment_jobs(args, schedules, seeds, task_lists, tmp_path, agents, training)
    return jobs, labels, args


def test_every_job_waits_for_what_it_needs(tmp_path: Path) -> None:
    jobs, labels, args = _graph(tmp_path)
    after = {job.name: set(job.after) for job in jobs}
    runs = [n for n in after if n.startswith("train:")]
    assert len(runs) == 2 * 5 + 1 and all(not after[r] for r in runs)  # 5 schedules x 2 seeds, no-starts on seed 1
    assert after["eval:random"] == set() and after["eval:script:budget-aware"] == set()
    assert after["eval:budgetmix-s2"] == {"train:budgetmix-s2"}
    assert after["eval:ref:budgetmix-pick+loop-s1"] == {"train:budgetmix-s1"}
    assert "eval:ref:budgetmix-pick+loop-s2" not in after  # --pick-loop-seeds 1
    assert after["probe"] == {r for r in runs if r.endswith("-s1")}  # the first seed's policies, no-starts included
    assert f"train:{NO_STARTS}-s1" in after["probe"]
    cloned = [n for n in after if "from-the-optimum" in n or n.startswith("control:cloned-start")]
    assert cloned and all(after[n] == {"control:clone"} for n in cloned)
    assert set(labels.values()) >= {("random", 0), ("budgetmix", 1), ("ref:budgetmix-pick+loop", 1)}


def test_a_run_with_evaluations_behind_it_starts_before_a_lone_evaluation(tmp_path: Path) -> None:
    jobs, _, args = _graph(tmp_path)
    rank = priorities(jobs)
    assert rank["train:budgetmix-s1"] > rank["eval:budgetmix-s1"] > 0
    assert rank["train:budgetmix-s1"] > rank["eval:random"]
    assert rank["control:clone"] > max(rank[n] for n in rank if "from-the-optimum" in n)


def test_eval_episodes_counts_the_grid_the_second_split_and_the_interventions(tmp_path: Path) -> None:
    _, _, args = _graph(tmp_path)
    lists = {"primary": ["a", "b"], "split2": ["c"], "multi": []}
    plain = 2 * 2 * args.eval_n + 1 * 1 + 2 * 1 * args.eval_n  # grid (T=2,6), split2 (T=6), faults (T=6)
    assert eval_episodes(EvalSettings.from_args(args), lists, intervene=False) == plain
    assert (
        eval_episodes(EvalSettings.from_args(args), lists, intervene=True) == plain + 4 * 2 * 1 * args.eval_n
    )  # four interventions at T=6
