"""One BudgetMix training run: PPO on menu tasks under a turn-budget schedule, read top to bottom.

`train(settings, run_name)` is a short list of named stages, in the order they happen:

1. `start_run`: the run folder, seeding and TensorBoard writer (with ``--resume``, a finished
   run is returned as it is);
2. `make_envs`: the budget schedule, and one `make_env` thunk per env;
3. `make_policy`: the device, the policy and its optimizer, restored from the checkpoint with
   ``--resume``;
4. the loop, until the run's env steps are spent: `anneal` (learning rate, curriculum),
   `collect` whole episodes, `update` (one PPO update), `log_update` (history, TensorBoard,
   progress bar) and `checkpoint`;
5. `summarize`: the run's summary, also written to ``summary.json``.

The model (`baselines.policy.model`), its features (`baselines.policy.features`), the episode collector
(`baselines.policy.rollout`) and the PPO update (`baselines.policy.ppo`) live in their own modules because the
evaluation agent and the probe use the same ones. ``settings`` is `baselines.config.TrainSettings`; this
module imports neither `baselines.budgetmix` nor `baselines.experiment.run`, so both can import it.
"""

from __future__ import annotations

import dataclasses
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from agentgym.envs.coding.result_cache import process_cache
from agentgym.make import wrap
from baselines.config import TrainSettings
from baselines.policy.agent import load_policy, save_checkpoint
from baselines.policy.env_pool import borrow
from baselines.policy.families import family_env_kwargs
from baselines.policy.family_features import features_tag
from baselines.policy.model import MenuPolicy, pick_device
from baselines.policy.ppo import make_optimizer, ppo_update
from baselines.policy.rollout import Episode, EpisodeCollector
from baselines.policy.schedules import BudgetSchedule, parse_schedule

__all__ = ["train", "make_env", "coding_kwargs"]


def train(settings: TrainSettings, run_name: str) -> dict[str, Any]:
    """Train one policy with ``settings.schedule``; returns its training summary (also in summary.json)."""
    run = start_run(settings, run_name)
    if run.finished is not None:
        return {**run.finished, "skipped": True}  # --resume never retrains a finished run
    schedule, env_fns = make_envs(settings)
    policy, optimizer = make_policy(settings, run)
    rng = np.random.default_rng(settings.seed + run.update)  # the PPO update's minibatch order
    collector = EpisodeCollector(
        env_fns,
        policy,
        dim=settings.dim,
        max_actions=settings.max_actions,
        seed=settings.seed * 1000 + run.update,
        threads=settings.env_threads,
        group_size=settings.group_size,
        task_pool=settings.train_tasks,
        mode=settings.collect_mode,
        recovery_starts=settings.recovery_starts,
        recovery_start_patch=settings.recovery_start_patch,
    )
    run.start_clock(settings)
    try:
        while run.global_step < settings.total_env_steps:
            anneal(optimizer, schedule, settings, run.global_step / settings.total_env_steps)
            batch = collect(collector, settings, run)
            if not batch.episodes:
                continue
            losses = update(policy, optimizer, batch.episodes, settings, rng, run)
            log_update(run, batch, losses, collector, optimizer)
            checkpoint(run, policy, optimizer, settings)
    finally:
        run.collector_timing = collector.timing()
        collector.close()
        run.close()
    return summarize(run, settings, schedule, collector)


# ---------------------------------------------------------------------- the envs
def coding_kwargs(env_id: str, test_timeout: float | None, result_cache: bool) -> dict[str, Any]:
    """Coding-v0's constructor arguments from the trainer's flags (nothing for other envs): the
    test and shell timeout sized from measured runs, and the per-process result cache."""
    if not env_id.endswith("Coding-v0"):
        return {}
    out: dict[str, Any] = {"result_cache": True} if result_cache else {}
    if test_timeout is not None:
        out.update(test_timeout=test_timeout, shell_timeout=test_timeout)
    return out


def make_env(
    env_id: str,
    budget: Any,
    *,
    backend: str = "auto",
    split: str = "train",
    process_reward: float = 0.0,
    faults: str = "",
    test_timeout: float | None = None,
    result_cache: bool = False,
    tiers: str = "",
) -> Callable[[], gym.Env]:
    """A thunk building one training env: the agentgym wrapper stack with this budget, around a
    bare env borrowed from `baselines.policy.env_pool` (closing the stack lends it back, sandbox warm).

    ``test_timeout`` goes to Coding-v0 (its ``test_timeout`` and ``shell_timeout``), so a looping
    decoy ends in a time sized from measured test runs, not the env's 10 s default;
    ``result_cache`` turns on Coding-v0's per-process result cache; ``tiers`` (comma-separated)
    restricts Coding-v0's training tasks to those tiers (`TrainSettings.train_tier`). Another family gets
    its plan's arguments (`baselines.policy.families`: the menu that does not hand out the answer, and
    MiniWoB-v0's pages), the same the evaluation gives it.
    """
    env_kwargs = {**coding_kwargs(env_id, test_timeout, result_cache), **family_env_kwargs(env_id)}
    if tiers and env_id.endswith("Coding-v0"):
        env_kwargs["tiers"] = tuple(t for t in tiers.split(",") if t)

    def thunk() -> gym.Env:
        # a warm bare env from the runs before (its sandbox already started), with this run's stack
        return wrap(
            borrow(env_id, backend=backend, split=split, **env_kwargs),
            budget=budget,
            faults=faults or None,
            labels=True,
            # running out of turns ends the episode for this trainer (no bootstrap), so the
            # shaping must treat it as terminal too, or unsubmitted progress pays
            process_reward={"weight": process_reward, "truncation_is_terminal": True} if process_reward else None,
            cost=True,
        )

    return thunk


# ---------------------------------------------------------------------- what the stages share
@dataclass
class Run:
    """One run's folder, outputs and counters: what the stages of `train` read and advance."""

    name: str
    dir: Path
    device: torch.device = torch.device("cpu")
    writer: Any = None
    """TensorBoard's SummaryWriter (None without ``--track``)"""
    finished: dict[str, Any] | None = None
    """the summary of a run already finished (``--resume``)"""
    global_step: int = 0
    update: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    """one row of metrics per PPO update"""
    bar: Any = None
    start_step: int = 0
    start_time: float = 0.0
    rollout_seconds: float = 0.0
    update_seconds: float = 0.0
    cache_before: dict[str, dict[str, int]] = field(default_factory=dict)
    collector_timing: dict[str, Any] = field(default_factory=dict)

    @property
    def checkpoint_path(self) -> Path:
        return self.dir / "checkpoint.pt"

    @property
    def summary_path(self) -> Path:
        return self.dir / "summary.json"

    def start_clock(self, settings: TrainSettings) -> None:
        """The progress bar, the result cache's counts and the clock, from this session's first step."""
        self.bar = progress_bar(settings.progress)(
            total=settings.total_env_steps,
            initial=self.global_step,
            desc=self.name,
            unit="step",
            disable=not settings.progress,
        )
        self.cache_before = _cache_stats()
        self.start_time, self.start_step = time.perf_counter(), self.global_step

    def close(self) -> None:
        self.bar.close()
        if self.writer is not None:
            self.writer.close()


# ---------------------------------------------------------------------- 1-3: set up
def start_run(settings: TrainSettings, run_name: str) -> Run:
    """The run folder, the seeds of every generator and the TensorBoard writer."""
    run = Run(run_name, Path(settings.out) / run_name)
    run.dir.mkdir(parents=True, exist_ok=True)
    if settings.resume and run.summary_path.exists():
        finished = json.loads(run.summary_path.read_text())
        if finished["env_steps"] >= settings.total_env_steps:
            run.finished = finished
            return run
    random.seed(settings.seed)
    np.random.seed(settings.seed)
    torch.manual_seed(settings.seed)
    torch.set_num_threads(max(1, settings.torch_threads))
    if settings.track:
        from torch.utils.tensorboard import SummaryWriter

        run.writer = SummaryWriter(str(run.dir / "tb"))
        run.writer.add_text(
            "hyperparameters", "|param|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in vars(settings).items())
        )
    return run


def make_envs(settings: TrainSettings) -> tuple[BudgetSchedule, list[Callable[[], gym.Env]]]:
    """The budget schedule, and one env thunk per env (the env ids taken in turn), all sampling T from it."""
    schedule = parse_schedule(settings.schedule, ramp=settings.curriculum_ramp)
    budget = schedule.budget_arg()
    env_ids = _env_ids(settings)
    env_fns = [
        make_env(
            env_ids[i % len(env_ids)],
            budget,
            backend=settings.backend,
            process_reward=settings.process_reward,
            faults=settings.train_faults,
            test_timeout=settings.test_timeout,
            result_cache=settings.result_cache,
            tiers=settings.train_tier,
        )
        for i in range(settings.num_envs)
    ]
    return schedule, env_fns


def make_policy(settings: TrainSettings, run: Run) -> tuple[MenuPolicy, torch.optim.Optimizer]:
    """A fresh policy and optimizer on the run's device, or (``--resume``) the checkpoint's,
    with its step counters and torch RNG."""
    run.device = pick_device(settings.device)
    features = features_tag(_env_ids(settings)[0])  # the encoder its checkpoints record (Coding's, or family-v<N>)
    policy = MenuPolicy(dim=settings.dim, hidden=settings.hidden, features=features).to(run.device)
    optimizer = make_optimizer(policy, settings.learning_rate, settings.head_lr_scale)
    if settings.resume and run.checkpoint_path.exists():
        policy, ckpt = load_policy(run.checkpoint_path, str(run.device), features=features)
        optimizer = make_optimizer(policy, settings.learning_rate, settings.head_lr_scale)
        optimizer.load_state_dict(ckpt["optimizer"])
        run.global_step, run.update, run.history = ckpt["global_step"], ckpt["update"], ckpt["history"]
        torch.set_rng_state(ckpt["torch_rng"])
    return policy, optimizer


# ---------------------------------------------------------------------- 4: the loop
def anneal(
    optimizer: torch.optim.Optimizer, schedule: BudgetSchedule, settings: TrainSettings, progress: float
) -> None:
    """The learning rate down linearly to 0 (``--anneal-lr``); a curriculum's budget up with ``progress``."""
    if settings.anneal_lr:
        for group in optimizer.param_groups:
            group["lr"] = settings.learning_rate * group.get("lr_scale", 1.0) * (1.0 - progress)
    schedule.update(progress)


@dataclass
class Batch:
    """One update's episodes and what `log_update` reports about their collection."""

    episodes: list[Episode]
    steps: int
    started: float
    """when collection began (``perf_counter``)"""
    infra_before: int
    """the collector's infrastructure failures before this batch"""


def collect(collector: EpisodeCollector, settings: TrainSettings, run: Run) -> Batch:
    """Whole episodes for one update; infrastructure failures are masked out by the collector.

    ``--turn-cost`` is charged here, in training only: success is what the env says.
    """
    started, infra_before = time.perf_counter(), collector.infra_failures
    episodes = collector.collect(
        min(settings.steps_per_update, settings.total_env_steps - run.global_step), run.bar.update
    )
    run.rollout_seconds += time.perf_counter() - started
    run.global_step = run.start_step + collector.env_steps
    run.update += 1
    if settings.turn_cost:
        for ep in episodes:
            ep.rewards = [r - settings.turn_cost for r in ep.rewards]
    return Batch(episodes, sum(len(ep) for ep in episodes), started, infra_before)


def update(
    policy: MenuPolicy,
    optimizer: torch.optim.Optimizer,
    episodes: list[Episode],
    settings: TrainSettings,
    rng: np.random.Generator,
    run: Run,
) -> dict[str, float]:
    """One PPO update on the batch (in async mode, open episodes keep stepping meanwhile); its losses."""
    started = time.perf_counter()
    losses = ppo_update(
        policy, optimizer, episodes, settings, settings.max_actions, rng
    )  # TrainSettings is a PPOConfig
    run.update_seconds += time.perf_counter() - started
    return losses


def log_update(
    run: Run, batch: Batch, losses: dict[str, float], collector: EpisodeCollector, optimizer: torch.optim.Optimizer
) -> None:
    """The update's metrics (CleanRL's ``charts/`` and ``losses/``) into the history, TensorBoard and the bar."""
    episodes = batch.episodes
    success = float(np.mean([ep.success for ep in episodes]))
    budgets = [ep.budget for ep in episodes if ep.budget is not None]
    sps = (run.global_step - run.start_step) / (time.perf_counter() - run.start_time)
    row = {
        "update": run.update,
        "global_step": run.global_step,
        "charts/success_rate": success,
        "charts/episodic_return": float(np.mean([sum(ep.rewards) for ep in episodes])),
        "charts/episodic_length": float(np.mean([len(ep) for ep in episodes])),
        "charts/truncated_rate": float(np.mean([ep.truncated for ep in episodes])),
        "charts/budget_mean": float(np.mean(budgets)) if budgets else float("nan"),
        "charts/episodes": len(episodes),
        "charts/decisions": batch.steps,
        "charts/infra_failures_masked": collector.infra_failures - batch.infra_before,
        "charts/learning_rate": optimizer.param_groups[0]["lr"],
        "charts/SPS": sps,
        "charts/rollout_SPS": batch.steps / max(time.perf_counter() - batch.started, 1e-9),
        **{f"losses/{k}": v for k, v in losses.items()},
    }
    run.history.append(row)
    if run.writer is not None:
        for key, value in row.items():
            if "/" in key:
                run.writer.add_scalar(key, value, run.global_step)
    run.bar.set_postfix(success=f"{success:.2f}", T=f"{row['charts/budget_mean']:.1f}", sps=f"{sps:.0f}")


def checkpoint(run: Run, policy: MenuPolicy, optimizer: torch.optim.Optimizer, settings: TrainSettings) -> None:
    """Everything ``--resume`` needs to continue from here, written atomically."""
    save_checkpoint(
        run.checkpoint_path,
        policy,
        optimizer=optimizer.state_dict(),
        global_step=run.global_step,
        update=run.update,
        history=run.history,
        torch_rng=torch.get_rng_state(),
        max_actions=settings.max_actions,
        args=dataclasses.asdict(settings),  # the key older checkpoints use
    )


# ---------------------------------------------------------------------- 5: the summary
def summarize(
    run: Run, settings: TrainSettings, schedule: BudgetSchedule, collector: EpisodeCollector
) -> dict[str, Any]:
    """The run's summary (throughput, where the time went, the result cache, final training success),
    also written to summary.json."""
    elapsed = time.perf_counter() - run.start_time
    steps = run.global_step - run.start_step
    tail = run.history[-3:] if run.history else []
    device = run.device
    summary = {
        "run": run.name,
        "schedule": str(schedule),
        "schedule_mean_T": schedule.mean,
        "env_ids": _env_ids(settings),
        "env_steps": run.global_step,
        "updates": run.update,
        "seconds": elapsed,
        "steps_per_second": steps / max(elapsed, 1e-9),
        "cuda_max_memory_mb": torch.cuda.max_memory_allocated(device) / 2**20 if device.type == "cuda" else None,
        "rollout_steps_per_second": steps / max(run.rollout_seconds, 1e-9),
        "rollout_seconds": run.rollout_seconds,
        "update_seconds": run.update_seconds,
        "collect_mode": settings.collect_mode,
        "test_timeout": settings.test_timeout,
        **run.collector_timing,
        "infra_failures_masked": collector.infra_failures,
        "trained_decisions": int(sum(r.get("charts/decisions", 0) for r in run.history)),
        "forced_start_episodes": collector.forced_episodes,
        "forced_start_steps": collector.forced_steps,
        "result_cache": _cache_delta(run.cache_before, _cache_stats()) if settings.result_cache else None,
        "final_train_success": float(np.mean([r["charts/success_rate"] for r in tail])) if tail else float("nan"),
        "checkpoint": str(run.checkpoint_path),
        "device": str(device),
        "history": run.history,
    }
    run.summary_path.write_text(json.dumps(summary, indent=1))
    return summary


# ---------------------------------------------------------------------- small helpers of the stages
def _env_ids(settings: TrainSettings) -> list[str]:
    return [e for e in settings.env_ids.split(",") if e]


def _cache_stats() -> dict[str, dict[str, int]]:
    return process_cache().stats()


def _cache_delta(before: dict[str, dict[str, int]], after: dict[str, dict[str, int]]) -> dict[str, Any]:
    """Hits and misses of the process's result cache during one run, and the hit rate per kind."""
    out: dict[str, Any] = {}
    for kind, counts in after.items():
        hits, misses = (counts[k] - before.get(kind, {}).get(k, 0) for k in ("hits", "misses"))
        out[kind] = {"hits": hits, "misses": misses, "hit_rate": hits / (hits + misses) if hits + misses else None}
    return out


def progress_bar(show: bool) -> Callable[..., Any]:
    """tqdm, or (``show`` false: no ``--progress``) a bar that shows nothing; tqdm need not be
    installed then (the GPU machine lacks it)."""
    if not show:
        return _NoBar
    from tqdm import tqdm

    tqdm.monitor_interval = 0  # no monitor thread: the experiment forks its worker processes later
    return tqdm


class _NoBar:
    def __init__(self, *_: Any, initial: int = 0, **__: Any) -> None:
        pass

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix(self, **_: Any) -> None:
        pass

    def close(self) -> None:
        pass
