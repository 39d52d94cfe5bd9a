"""`baselines.experiment.jobs.experiment_jobs`: the experiment as one job graph, each job after what it needs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

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


def test_process_arms_train_on_the_first_seeds_with_the_process_reward(tmp_path: Path) -> None:
    """--process-arms W: fixed-T_long+pr and budgetmix+pr on the first --process-seeds seeds, each with
    ProcessReward W in its training settings, and both play the interventions (recovery, (p5))."""
    jobs, labels, args = _graph(tmp_path, process_arms=0.5, process_seeds=1)
    train = {job.name: job for job in jobs if job.name.startswith("train:")}
    long_pr = f"fixed-T{args.t_long}+pr"
    assert {f"train:{long_pr}-s1", "train:budgetmix+pr-s1"} <= set(train)
    assert f"train:{long_pr}-s2" not in train and "train:budgetmix+pr-s2" not in train
    assert train[f"train:{long_pr}-s1"].args[0].process_reward == 0.5
    assert train["train:budgetmix-s1"].args[0].process_reward == 0.0
    evals = {job.name: job for job in jobs if job.name.startswith("eval:")}
    assert evals["eval:budgetmix+pr-s1"].after == ("train:budgetmix+pr-s1",)
    settings = EvalSettings.from_args(args)
    lists = {"primary": ["a", "b"], "split2": ["c"], "multi": []}
    assert evals["eval:budgetmix+pr-s1"].cost == pytest.approx(22.0 * eval_episodes(settings, lists, intervene=True))
