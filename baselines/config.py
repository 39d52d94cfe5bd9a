"""The experiment's configuration: every knob in one dataclass, imported by every stage.

- `PPOConfig`: the PPO update's knobs (CleanRL's names);
- `Args`: every knob of the trainer and the experiment (extends `PPOConfig`), one docstring line
  per field, which is also its ``--flag`` help in ``python -m baselines.budgetmix``;
- `PRESETS`: overrides of the defaults per ``--preset``;
- `with_overrides`: ``FIELD=VALUE`` overrides, each converted by its field's type;
- `EXECUTORS`, `default_workers`: where the grid's jobs may run.

The layers run one way: the command line (`baselines.budgetmix`) -> the experiment
(`baselines.experiment.run`) -> one run (`baselines.policy.train`) -> this module, which imports nothing of
the other stages (an import contract in ``.importlinter`` checks it).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Self

from agentgym.errors import ConfigError

__all__ = [
    "PPOConfig",
    "Args",
    "StageSettings",
    "TrainSettings",
    "EvalDesign",
    "EvalSettings",
    "ReportSettings",
    "PRESETS",
    "PRESET_SUITES",
    "EXECUTORS",
    "default_workers",
    "in_parallel",
    "first_env_id",
    "describe",
    "field_docs",
    "converter",
    "add_field_flags",
    "with_overrides",
    "intervention_runs",
    "NO_STARTS",
    "PROCESS_WEIGHT",
    "PROCESS_SUFFIX",
]

EXECUTORS = ("local", "ray")


def default_workers() -> int:
    """The cores this process may use (the ``--workers`` default)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def first_env_id(env_ids: str) -> str:
    """The env an experiment evaluates on: the first of a comma-separated ``--env-ids``."""
    return [e for e in env_ids.split(",") if e][0]


def in_parallel(workers: int, executor: str) -> bool:
    """Whether jobs run outside this process (then their own progress bars are off)."""
    return workers > 1 or executor == "ray"


def describe(workers: int, executor: str) -> str:
    """``2 worker processes`` or ``2 Ray CPUs``: where the jobs run, for progress lines and reports."""
    return f"{workers} {'Ray CPUs' if executor == 'ray' else 'worker processes'}"


@dataclass
class PPOConfig:
    """The update's knobs, declared once: `baselines.config.Args` extends this class, so each is
    also a command-line flag with the docstring line under it as its help (CleanRL's names)."""

    # the PPO update
    gamma: float = 1.0
    """discount; below 1 a turn spent costs value even when the budget allows it"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    advantage: str = "gae"
    """gae (value baseline) or group (return minus the mean of the same task's rollouts)"""
    update_epochs: int = 4
    """PPO epochs per update"""
    minibatch_size: int = 64
    """PPO minibatch size (steps)"""
    clip_coef: float = 0.2
    """PPO surrogate clipping"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient norm clip"""
    norm_adv: bool = True
    """normalise advantages per minibatch"""
    target_kl: float = 0.05
    """stop an update's epochs early past this approximate KL (0: never)"""


@dataclass
class Args(PPOConfig):
    """Every knob of the trainer and the experiment; the PPO update's own (gamma, clip, ...) come from `PPOConfig`."""

    # the run: where it writes, seeds, device, workers
    exp_name: str = "budgetmix"
    """the name of this experiment (prefix of the run folder)"""
    out: str = "runs/budgetmix"
    """folder for runs, checkpoints, TensorBoard logs and the report"""
    seed: int = 1
    """seed of a single --schedule run (envs, policy, sampling)"""
    seeds: str = "17,18,19,20,21,22,23,24"
    """training seeds of the experiment: every schedule is trained once per seed
    (seed variance, not the task list, dominates the contrasts' intervals)"""
    device: str = "auto"
    """torch device: auto (CUDA when present, else CPU), cpu, cuda, cuda:1..."""
    torch_threads: int = 1
    """CPU threads for torch; 1 is fastest for this small model on a shared machine
    (OpenMP threads spin on busy cores)"""
    backend: str = "auto"
    """sandbox backend: auto (Docker if it answers, else local), docker, local"""
    track: bool = True
    """write TensorBoard logs under OUT/RUN/tb"""
    progress: bool = True
    """show tqdm progress bars"""
    workers: int = 0
    """processes that train the (schedule, seed) runs and evaluate the agents in parallel (0: the machine's cores);
    results do not depend on it"""
    executor: str = "local"
    """local (worker processes on this machine) or ray (each training run and evaluation a Ray task;
    a cluster with --ray-address)"""
    ray_address: str = ""
    """Ray cluster to run on with --executor ray (empty: RAY_ADDRESS, else a local Ray session with --workers CPUs)"""
    resume: bool = False
    """continue each run from its checkpoint when one exists (finished runs are skipped)"""
    preset: str = "quick"
    """quick (CPU, <= 15 min), full (16 cores), smoke (seconds), tooluse / miniwob (the experiment on that family,
    baselines/policy/families.py; 2 cores, <= 15 min), tooluse-full / miniwob-full (16 cores),
    process / tooluse-process (the same with the process-reward arms, --process-arms),
    or all-full (every family on 16 cores with Docker, one after another)"""

    # the task and the budget
    env_ids: str = "agentgym/Coding-v0"
    """comma-separated env ids to train and evaluate on"""
    schedule: str = ""
    """train this one budget schedule (fixed:T, uniform:LO-HI, choice:T1,T2@W1,W2, loguniform:LO-HI,
    curriculum:LO-HI) instead of the experiment"""
    t_short: int = 3
    """the experiment's fixed-T-short budget"""
    t_long: int = 12
    """the experiment's fixed-T-long budget"""
    mix: str = "uniform:2-12"
    """the experiment's BudgetMix schedule"""
    curriculum: str = "curriculum:3-12"
    """the experiment's increasing-horizon schedule (linear)"""
    curriculum_steps: str = "steps:3,6,12"
    """the experiment's stepwise increasing-horizon schedule (empty: leave it out)"""
    curriculum_ramp: float = 0.75
    """fraction of training over which the curriculum grows T from LO to HI"""
    process_reward: float = 0.0
    """weight of ProcessReward (dense subtask reward); 0 keeps the trajectory-level reward only"""
    train_faults: str = ""
    """fault spec injected during training, e.g. tool_error@p=0.05 (empty: none)"""

    # the algorithm
    total_env_steps: int = 8000
    """environment steps per training run (equal across the compared schedules and seeds)"""
    num_envs: int = 8
    """envs stepped together (one batched forward scores all their menus)"""
    env_threads: int = 4
    """threads stepping the envs (steps wait on the sandbox process)"""
    collect_mode: str = "lockstep"
    """lockstep (every env steps once per batched forward: a run depends only on its seed and settings)
    or async (a slow step holds up only its own env, but the policy then depends on machine load)"""
    test_timeout: float = 2.0
    """Coding-v0 test and verification timeout (s) in training; measured under 8-env load: test p99 0.12 s,
    submit max 0.66 s (benchmarks/train.py)"""
    result_cache: bool = True
    """Coding-v0's result cache for test runs and verifications, shared by the envs of this process
    (a hit gives the outcome a run gives; envs/coding/result_cache.py)"""
    warm_cache: int = 0
    """fill Coding-v0's disk result cache and exit: every state reachable by up to this many menu patches,
    on the training split and the evaluation list (0: no fill; baselines/experiment/warm_cache.py)"""
    warm_cache_tasks: int = 0
    """with --warm-cache: only the first this many tasks of each list (0: all)"""
    steps_per_update: int = 128
    """environment steps collected (whole episodes) per PPO update"""
    learning_rate: float = 3e-3
    """Adam learning rate"""
    recovery_start_patch: str = "right:0.5"
    """the start-state curriculum's first patch: right:P (the reference fix in a share P of the forced starts, a wrong
    patch in the rest; both then tested, so pass -> submit and fail -> revert are both trained),
    wrong (a wrong patch only) or any (a blind pick; may also start right after the patch, untested)"""
    head_lr_scale: float = 1.0
    """learning-rate multiplier of the policy's linear and bilinear scoring terms (`baselines.policy.ppo.HEADS`):
    a 0/1 input such as "its test failed" needs a weight of a few units, which Adam at 3e-3 reaches only after
    thousands of steps"""
    anneal_lr: bool = True
    """linearly anneal the learning rate to 0"""
    turn_cost: float = 0.0
    """reward subtracted per turn in training (0: none), so idle tests at long budgets are not free"""
    train_tasks: int = 0
    """train on a fixed pool of this many training-split tasks, the same for every run (0: the whole split);
    a small pool makes the result cache hit"""
    group_size: int = 1
    """rollouts per task, one after another (the groups of --advantage group); 1 draws a task per episode"""
    dim: int = 128
    """hashed text feature size"""
    hidden: int = 64
    """hidden units of the policy"""
    max_actions: int = 32
    """menu entries the policy scores (the rest are cut)"""
    train_tier: str = "one_bug"
    """Coding-v0 tier(s) of the training tasks, comma-separated (empty: every tier); on two-bug tasks reverting after a
    failing test is often wrong, so multi-bug tasks are left to the separate evaluation"""
    recovery_starts: float = 0.5
    """start-state curriculum: this share of training episodes, whatever their T (equal exposure), begins after a menu
    patch and its test (and, half the time, a revert when the test failed), played through the grammar (the turns count
    against T; a start leaves the policy at least one turn); 0: off"""
    no_starts_seeds: int = 4
    """also train BudgetMix without forced starts (budgetmix-nostarts) on the first this many seeds:
    what the start-state curriculum contributes (0: skip)"""
    process_arms: float = 0.0
    """also train fixed-T_long and BudgetMix with ProcessReward of this weight (fixed-T<long>+pr, budgetmix+pr):
    process supervision against budget design, contrasts (p1)-(p5); 0: no such arms (the --preset process does)"""
    process_seeds: int = 4
    """training seeds (the first ones) of the process-reward arms"""

    # the evaluation
    eval_ts: str = "2,3,5,8,12,16"
    """budgets T of the evaluation grid (recovery needs T >= 5: patch, test, revert, patch, submit)"""
    eval_ks: str = "1"
    """sampling breadths K of the evaluation grid"""
    eval_n: int = 1
    """episodes per task and T (>= the largest K)"""
    eval_split: str = "heldout"
    """split of the headline numbers: heldout = modules never trained on"""
    eval_tier: str = "one_bug"
    """Coding-v0 tier of the primary eval list (empty: all tiers)"""
    eval_tasks: int = 100
    """tasks in the one fixed eval list shared by every agent and seed"""
    eval_list: str = "fresh-1"
    """the headline list: fresh-N (N-th draw by the committed rule from tasks no spent list holds), a spent list by name
    (tuning-1: the list attempts were tuned on) or seeded (drawn with seed 2026); baselines/experiment/eval_lists.py"""
    eval_split2: str = "test"
    """second column: the same agents on this split (new mutants of training modules); empty: skip"""
    eval_split2_ts: str = "2,16"
    """budgets of the second-split evaluation"""
    eval_multi_tasks: int = 0
    """multi-bug (two_bugs, cross_file) held-out tasks, reported separately (0: skip)"""
    eval_faults: str = ""
    """fault spec for the recovery evaluation (paired with the clean run; empty: skip)"""
    eval_fault_ts: str = ""
    """budgets at which recovery under the injected fault is measured"""
    eval_interventions: str = "wrong-patch,wrong-patch-tested,tool_error@turn=1,state_drift@mutation=1"
    """recovery by intervention (issue 34), forced alike on fixed-T_short, fixed-T_long, BudgetMix, BudgetMix without
    forced starts (every seed) and the budget-aware script, paired by task with their clean episodes: an env's forced
    start (Coding-v0: wrong-patch, a wrong menu patch chosen from the task alone, played as the agent's first action;
    wrong-patch-tested, and its test) or a fault spec (tool_error@turn=1; state_drift@mutation=1 silently undoes the
    agent's first patch). The first is the primary one, of the contrasts (h1)-(h4); empty: skip"""
    eval_intervention_ts: str = "5,8,12,16"
    """budgets of the primary intervention (recovery needs T >= 5)"""
    eval_variant_ts: str = "5,16"
    """budgets of the other interventions (those of the recovery contrasts)"""
    eval_references: str = "budget-aware,pick+loop"
    """Coding-v0 references to evaluate, from hasty, careful, budget-aware (blind scripts)
    and pick+loop (BudgetMix's pick in the budget-aware loop); empty: none"""
    pick_loop_seeds: int = 3
    """training seeds (the first ones) whose BudgetMix policy is also evaluated as the pick+loop reference
    (0: every seed); a reference, not a contrast, so a few seeds tell its level"""
    control_steps: int = 8_000
    """env steps per run of the positive control (`baselines.experiment.control`:
    the sandbox-free budget env whose best policy is known), run by the experiment and reported; 0: skip"""
    control_seeds: str = "1,2,3"
    """training seeds of the positive control"""
    control_episodes: int = 200
    """evaluation episodes of the positive control per seed and T"""
    harness_reports: bool = False
    """also write the harness's own report (plots) for each agent's grid run (several seconds each,
    times 20 agent runs)"""

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise ConfigError(f"--executor {self.executor!r}: choose one of {EXECUTORS}")
        if self.workers < 0:
            raise ConfigError(f"--workers {self.workers}: give a number of processes, or 0 for the machine's cores")
        self.workers = self.workers or default_workers()


class StageSettings:
    """What one stage of the experiment reads, built once from the command line's `Args`.

    Each stage (one training run, one agent's evaluations, the report) takes the small settings
    object it needs rather than every flag, so a reader of a stage sees what it depends on and a
    caller that is not the command line (a benchmark, a test, the positive control) builds only that.
    """

    @classmethod
    def from_args(cls, args: Any, **changes: Any) -> Self:
        """The fields of ``cls`` read from ``args`` (an `Args`, or anything with those attributes),
        then ``changes``."""
        values = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        return cls(**{**values, **changes})


@dataclass(kw_only=True)
class TrainSettings(PPOConfig, StageSettings):
    """What one training run reads (`baselines.policy.train.train`): the PPO update's knobs
    (`PPOConfig`) and these; each field's meaning is the `Args` field of the same name."""

    out: str
    seed: int
    schedule: str
    env_ids: str
    backend: str
    device: str
    torch_threads: int
    track: bool
    progress: bool
    resume: bool
    curriculum_ramp: float
    process_reward: float
    train_faults: str
    total_env_steps: int
    num_envs: int
    env_threads: int
    collect_mode: str
    test_timeout: float
    result_cache: bool
    steps_per_update: int
    learning_rate: float
    recovery_start_patch: str
    head_lr_scale: float
    anneal_lr: bool
    turn_cost: float
    train_tasks: int
    group_size: int
    dim: int
    hidden: int
    max_actions: int
    train_tier: str
    recovery_starts: float


@dataclass(kw_only=True)
class EvalDesign(StageSettings):
    """The evaluation's design, which the evaluations and the report both read: the split and tier of
    the headline list, the T grid, K and samples, the second split, the fault and the interventions;
    each field's meaning is the `Args` field of the same name."""

    eval_tier: str
    eval_split: str
    eval_ts: str
    eval_ks: str
    eval_n: int
    eval_split2: str
    eval_split2_ts: str
    eval_faults: str
    eval_fault_ts: str
    eval_interventions: str
    eval_intervention_ts: str
    eval_variant_ts: str


@dataclass(kw_only=True)
class EvalSettings(EvalDesign):
    """What one agent's evaluations read (`baselines.experiment.evaluation`): the design, and how the
    envs are built and the runs shown."""

    env_ids: str
    backend: str
    test_timeout: float
    result_cache: bool
    progress: bool
    resume: bool
    harness_reports: bool

    @property
    def env_id(self) -> str:
        """The env evaluated on: the first of ``env_ids``."""
        return first_env_id(self.env_ids)


@dataclass(kw_only=True)
class ReportSettings(EvalDesign):
    """What the report reads of the command line (`baselines.report.markdown.write_report`): the
    evaluation's design and the training settings it states; each field is the `Args` field of the
    same name."""

    preset: str
    env_ids: str
    gamma: float
    turn_cost: float
    total_env_steps: int
    num_envs: int
    steps_per_update: int
    collect_mode: str
    test_timeout: float
    workers: int
    executor: str


PRESETS: dict[str, dict[str, Any]] = {
    "quick": {},
    "smoke": {
        "total_env_steps": 160,
        "num_envs": 2,
        "env_threads": 2,
        "steps_per_update": 64,
        "minibatch_size": 64,
        "update_epochs": 1,
        "dim": 64,
        "hidden": 32,
        "t_short": 3,
        "t_long": 6,
        "mix": "uniform:2-6",
        "curriculum": "curriculum:3-6",
        "curriculum_steps": "steps:3,6",
        "seeds": "1",
        "eval_ts": "2,6",
        "eval_ks": "1,2",
        "eval_n": 2,
        "eval_tasks": 2,
        "eval_split2_ts": "6",
        "eval_faults": "tool_error@turn=1",
        "eval_fault_ts": "6",
        "eval_intervention_ts": "6",
        "eval_variant_ts": "6",
        "harness_reports": False,
        "eval_references": "",
        "progress": False,
        "control_steps": 128,
        "control_episodes": 4,
    },
    "full": {
        # one 16-core machine (the GPU machine: no Docker there, so the local backend) in <= 8
        # minutes: the quick preset's learner with 12 seeds and 8,000 env steps per run, every
        # run and evaluation in its own worker process (--workers: the cores). The trainer is
        # CPU-bound (a small model scoring menus; ~1 ms of trainer CPU per env step with the
        # result cache warm), so the cores, not the GPU, set the size: --device cuda works but
        # 16 processes gain nothing from one GPU here (not yet run there: resize from the rates
        # the first run prints).
        "seeds": "1,2,3,4,5,6,7,8,9,10,11,12",
        "total_env_steps": 8_000,
        "control_steps": 20_000,
        "eval_tasks": 200,
        "eval_references": "hasty,careful,budget-aware,pick+loop",
        "harness_reports": True,
        "backend": "local",
        "device": "cpu",
    },
    # issue 39: the same policy architecture on the other families (`baselines.policy.families`: the
    # no-oracle menu, the pages, the faults and the interventions each supports). Budgets are set
    # against the tasks' min_turns: a ToolUse write takes 5-8 turns (refusals 3), MiniWoB's pages
    # 1-9. Coding's forced starts, scripted references and tiers do not apply. Sized for <= 15
    # minutes on a quiet 2-core machine from the CPU time measured per training step and per
    # evaluated agent (docs/baselines.md, "Beyond Coding-v0"); MiniWoB-v0 (Chromium in Docker,
    # a reset is a page load) costs about 10x a ToolUse-v0 step, hence fewer seeds and steps.
    "tooluse": {
        "env_ids": "agentgym/ToolUse-v0",
        "seeds": "1,2,3",
        "total_env_steps": 3_000,
        "t_short": 5,
        "t_long": 14,
        "mix": "uniform:3-14",
        "curriculum": "curriculum:5-14",
        "curriculum_steps": "steps:5,9,14",
        "train_faults": "tool_error+timeout+corrupted_output@p=0.08;state_drift@p=0.04",
        "train_tier": "",
        "recovery_starts": 0.0,
        "no_starts_seeds": 0,
        "eval_split": "heldout",
        "eval_tier": "",
        "eval_tasks": 48,
        "eval_list": "fresh-1",
        "eval_ts": "3,5,7,10,14,20",
        "eval_split2": "test",
        "eval_split2_ts": "5,20",
        "eval_interventions": "tool_error@turn=1,corrupted_output@turn=2,state_drift@mutation=1",
        "eval_intervention_ts": "7,10,14,20",
        "eval_variant_ts": "7,20",
        "eval_references": "",
        "control_steps": 0,
    },
    "miniwob": {
        "env_ids": "agentgym/MiniWoB-v0",
        "seeds": "1,2,3",
        "total_env_steps": 1_000,
        "t_short": 2,
        "t_long": 10,
        "mix": "uniform:1-10",
        "curriculum": "curriculum:2-10",
        "curriculum_steps": "steps:2,5,10",
        "train_faults": "tool_error+timeout@p=0.08;state_drift@p=0.04",
        "train_tier": "",
        "recovery_starts": 0.0,
        "no_starts_seeds": 0,
        "eval_split": "test",
        "eval_tier": "",
        "eval_tasks": 28,
        "eval_list": "fresh-1",
        "eval_ts": "1,2,3,5,8,12",
        "eval_split2": "",
        "eval_interventions": "tool_error@turn=1,state_drift@turn=2",
        "eval_intervention_ts": "3,5,8,12",
        "eval_variant_ts": "3,12",
        "eval_references": "",
        "control_steps": 0,
        "backend": "docker",
    },
    # SWE-v0: the menu policy on real libraries' bugs, Coding-v0's menu shape (the true fix among
    # other modifications of the same function, test, revert, submit) and its forced starts. A step
    # that runs tests costs a pytest run in the sandbox (0.1-1 s, no result cache), and a reset that
    # changes library writes its tree (0.4-1.7 s): a 2-core machine trained at 1-2 env steps/s (a
    # smoke run, 96 steps per schedule, finished end to end in 183 s), so these 12,000 env steps in
    # all need about two hours there. Not yet run at this size.
    "swe": {
        "env_ids": "agentgym/SWE-v0",
        "seeds": "1,2",
        "total_env_steps": 1_200,
        "num_envs": 4,
        "env_threads": 2,
        "t_short": 3,
        "t_long": 12,
        "mix": "uniform:3-12",
        "curriculum": "curriculum:3-12",
        "curriculum_steps": "steps:3,7,12",
        "no_starts_seeds": 0,
        "eval_split": "heldout",
        "eval_tier": "one_bug",
        "eval_tasks": 32,
        "eval_list": "fresh-1",
        "eval_ts": "3,5,8,12,16",
        "eval_split2": "",
        "eval_interventions": "wrong-patch",
        "eval_intervention_ts": "8,16",
        "eval_variant_ts": "16",
        "eval_references": "budget-aware",
        "control_steps": 0,
        "backend": "docker",
    },
}
# one 16-core machine with Docker (MiniWoB-v0's pages run in Chromium containers): the family
# presets at about eight times the 2-core work (more seeds and steps, every held-out task), as
# `full` is for Coding-v0; run together by the suite `all-full` (`PRESET_SUITES`). Not yet run:
# resize from the rates the first run prints.
PRESETS["tooluse-full"] = {
    **PRESETS["tooluse"],
    "seeds": "1,2,3,4,5,6,7,8",
    "total_env_steps": 12_000,
    "eval_tasks": 96,
    "eval_split2_ts": "5,10,20",
    "harness_reports": True,
}
PRESETS["miniwob-full"] = {
    **PRESETS["miniwob"],
    "seeds": "1,2,3,4,5,6,7,8",
    "total_env_steps": 3_000,
    "eval_tasks": 112,
    "harness_reports": True,
}

PRESET_SUITES: dict[str, tuple[str, ...]] = {"all-full": ("full", "tooluse-full", "miniwob-full")}
"""``--preset NAME`` that runs several presets one after another, each into ``OUT/<preset>``, then puts their
contrasts side by side (`baselines.report.families`, ``OUT/families.md``): every family on one 16-core machine."""


PROCESS_WEIGHT = 0.5
"""The process-reward arms' ``--process-arms`` weight in the presets, named before their first run: a
task's subtasks all done are worth half the final reward, so the dense signal is large enough to shape
each step's credit while success, worth twice as much, stays what the policy is trained for. With the
trainer's potential-based shaping (``gamma`` 1, running out of turns terminal) the bonuses of an
episode telescope, so the weight moves credit between its steps and never changes its return."""

PROCESS_SUFFIX = "+pr"
"""The name of a process-reward arm is its schedule's arm name with this suffix (``budgetmix+pr``)."""

NO_STARTS = "budgetmix-nostarts"
"""The experiment's BudgetMix arm trained without forced starts (``--no-starts-seeds``):
what the start-state curriculum contributes."""

# process supervision against budget design: the quick preset (and the ToolUse one) with the process-reward
# arms on the first seeds (four on Coding-v0, three on ToolUse-v0); run apart because the default must finish
# in 12 minutes. None for MiniWoB-v0: its pages name no subtasks, so the process reward is 0 there
# (`baselines.experiment.run.check_process_arms`)
PRESETS["process"] = {"process_arms": PROCESS_WEIGHT}
PRESETS["tooluse-process"] = {**PRESETS["tooluse"], "process_arms": PROCESS_WEIGHT, "process_seeds": 3}


def intervention_runs(args: Args | EvalDesign) -> list[tuple[str, dict[str, str], str]]:
    """(name, `agentgym.eval.evaluate` keyword, budgets) of each ``--eval-interventions`` entry: an
    env's forced start (``intervention=``) or a fault spec (``faults=``: an entry with an ``@``).
    The first is the primary one, of the recovery contrasts, at ``--eval-intervention-ts``; the
    rest at ``--eval-variant-ts``."""
    names = [x.strip() for x in str(args.eval_interventions).split(",") if x.strip()]
    return [
        (
            name,
            {"faults": name} if "@" in name else {"intervention": name},
            args.eval_intervention_ts if i == 0 else args.eval_variant_ts,
        )
        for i, name in enumerate(names)
    ]


def field_docs(cls: type) -> dict[str, str]:
    """The docstring line under each dataclass field, the base classes' included (CleanRL/tyro style help)."""
    docs: dict[str, str] = {}
    for klass in reversed([k for k in cls.__mro__ if dataclasses.is_dataclass(k)]):
        body = ast.parse(inspect.getsource(klass)).body[0].body  # type: ignore[attr-defined]
        for node, nxt in zip(body, body[1:]):
            if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant):
                docs[node.target.id] = str(nxt.value.value)  # type: ignore[union-attr]
    return docs


def converter(field: dataclasses.Field) -> Callable[[str], Any]:
    """How a field's text on the command line becomes its value (a bool: 1, true or yes)."""
    kind = str(field.type)
    if kind == "bool":
        return lambda text: text.lower() in ("1", "true", "yes")
    return {"int": int, "float": float}.get(kind, str)


def field_groups(cls: type) -> dict[str, str]:
    """Field name -> the title of its group: the ``# title`` comment above it in the class body (a
    base class's first fields under its own first comment), for ``--help`` in sections."""
    groups: dict[str, str] = {}
    for klass in reversed([k for k in cls.__mro__ if dataclasses.is_dataclass(k)]):
        lines = inspect.getsource(klass).splitlines()
        body = ast.parse("\n".join(lines)).body[0].body  # type: ignore[attr-defined]
        fields = {n.lineno - 1: n.target.id for n in body if isinstance(n, ast.AnnAssign)}  # type: ignore[union-attr]
        title = "other settings"
        for i, line in enumerate(lines):
            if line.startswith("    # "):
                title = line[6:].strip()
            elif i in fields:
                groups[fields[i]] = title
    return groups


def add_field_flags(parser: argparse.ArgumentParser, cls: type) -> None:
    """A ``--field-name VALUE`` flag per field of dataclass ``cls`` (``--flag/--no-flag`` for a bool),
    its help the field's docstring line, its default None so a caller can tell what was given; the
    flags in argument groups, one per ``# title`` comment of the class body."""
    docs, groups = field_docs(cls), field_groups(cls)
    sections: dict[str, argparse._ArgumentGroup] = {}
    for f in dataclasses.fields(cls):
        title = groups.get(f.name, "other settings")
        if title not in sections:
            sections[title] = parser.add_argument_group(title)
        group, flag = sections[title], "--" + f.name.replace("_", "-")
        if f.type in (bool, "bool"):
            group.add_argument(
                flag, dest=f.name, action=argparse.BooleanOptionalAction, default=None, help=docs.get(f.name)
            )
        else:
            group.add_argument(flag, dest=f.name, type=converter(f), default=None, help=docs.get(f.name))


def with_overrides(args: Args, overrides: Iterable[str]) -> Args:
    """``args`` with ``FIELD=VALUE`` overrides (the benchmarks' ``--set``), each converted by its field's type."""
    fields = {f.name: f for f in dataclasses.fields(Args)}
    values: dict[str, Any] = {}
    for item in overrides:
        name, _, text = item.partition("=")
        if name not in fields:
            raise ConfigError(f"--set {item!r}: no Args field {name!r}")
        values[name] = converter(fields[name])(text)
    return dataclasses.replace(args, **values)
