"""BudgetMix: PPO on agentgym menu tasks with the turn budget fixed, mixed, or grown by a curriculum.

The trainer, read top to bottom in the CleanRL manner: `Args` (every knob, one docstring line
each; the PPO update's knobs come from `baselines.ppo.PPOConfig`), `PRESETS`, `make_env`, and
the training loop `train`. Not single-file: the model (`baselines.policy.MenuPolicy`, DRRN-style,
sees turns left and used), its features, the episode collector and the PPO update live in their
own modules, because the evaluation agent and the probe use the same ones.

    python -m baselines.budgetmix                      # the quick experiment (CPU, <= 15 min)
    python -m baselines.budgetmix --full               # the large preset (GPU)
    python -m baselines.budgetmix --smoke              # seconds; what the smoke test runs
    python -m baselines.budgetmix --schedule uniform:2-16 --total-env-steps 20000   # train one

With no ``--schedule`` it runs the experiment (`baselines.experiment`): it trains fixed-T-short,
fixed-T-long, BudgetMix and the curriculum at equal environment steps, evaluates each with the
evaluation harness on held-out tasks over a K x T grid, and writes ``report.md`` with plots.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from agentgym.errors import ConfigError
from baselines.env_pool import borrow
from baselines.experiment import coding_kwargs, run_experiment
from baselines.ppo import PPOConfig, make_optimizer

__all__ = ["Args", "PRESETS", "make_env", "train", "parse_args", "main"]


@dataclass
class Args(PPOConfig):
    """Every knob of the trainer and the experiment; the PPO update's own (gamma, clip, ...) come from `PPOConfig`."""

    exp_name: str = "budgetmix"
    """the name of this experiment (prefix of the run folder)"""
    out: str = "runs/budgetmix"
    """folder for runs, checkpoints, TensorBoard logs and the report"""
    seed: int = 1
    """seed of a single --schedule run (envs, policy, sampling)"""
    seeds: str = "1,2,3,4,5"
    """training seeds of the experiment: every schedule is trained once per seed (seed variance, not the task list, dominates the contrasts' intervals)"""
    device: str = "auto"
    """torch device: auto (CUDA when present, else CPU), cpu, cuda, cuda:1..."""
    torch_threads: int = 1
    """CPU threads for torch; 1 is fastest for this small model on a shared machine (OpenMP threads spin on busy cores)"""
    backend: str = "auto"
    """sandbox backend: auto (Docker if it answers, else local), docker, local"""
    track: bool = True
    """write TensorBoard logs under OUT/RUN/tb"""
    progress: bool = True
    """show tqdm progress bars"""
    workers: int = 0
    """processes that train the (schedule, seed) runs and evaluate the agents in parallel (0: the machine's cores); results do not depend on it"""
    executor: str = "local"
    """local (worker processes on this machine) or ray (each training run and evaluation a Ray task; a cluster with --ray-address)"""
    ray_address: str = ""
    """Ray cluster to run on with --executor ray (empty: RAY_ADDRESS, else a local Ray session with --workers CPUs)"""
    resume: bool = False
    """continue each run from its checkpoint when one exists (finished runs are skipped)"""
    preset: str = "quick"
    """quick (CPU, <= 15 min), full (GPU, large) or smoke (seconds)"""

    # the task and the budget
    env_ids: str = "agentgym/Coding-v0"
    """comma-separated env ids to train and evaluate on"""
    schedule: str = ""
    """train this one budget schedule (fixed:T, uniform:LO-HI, choice:T1,T2@W1,W2, loguniform:LO-HI, curriculum:LO-HI) instead of the experiment"""
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
    total_env_steps: int = 3200
    """environment steps per training run (equal across the compared schedules and seeds)"""
    num_envs: int = 8
    """envs stepped together (one batched forward scores all their menus)"""
    env_threads: int = 4
    """threads stepping the envs (steps wait on the sandbox process)"""
    collect_mode: str = "lockstep"
    """lockstep (every env steps once per batched forward: a run depends only on its seed and settings) or async (a slow step holds up only its own env, but the policy then depends on machine load)"""
    test_timeout: float = 2.0
    """Coding-v0 test and verification timeout (s) in training; measured under 8-env load: test p99 0.12 s, submit max 0.66 s (benchmarks/train.py)"""
    result_cache: bool = True
    """Coding-v0's result cache for test runs and verifications, shared by the envs of this process (a hit gives the outcome a run gives; envs/coding/result_cache.py)"""
    warm_cache: int = 0
    """fill Coding-v0's disk result cache and exit: every state reachable by up to this many menu patches, on the training split and the evaluation list (0: no fill; baselines/warm_cache.py)"""
    warm_cache_tasks: int = 0
    """with --warm-cache: only the first this many tasks of each list (0: all)"""
    steps_per_update: int = 128
    """environment steps collected (whole episodes) per PPO update"""
    learning_rate: float = 3e-3
    """Adam learning rate"""
    recovery_start_patch: str = "wrong"
    """the start-state curriculum's first patch: wrong (the oracle's fix excluded; starts after its test) or any (a blind pick; may also start right after the patch, untested)"""
    head_lr_scale: float = 1.0
    """learning-rate multiplier of the policy's linear and bilinear scoring terms (`baselines.ppo.HEADS`): a 0/1 input such as "its test failed" needs a weight of a few units, which Adam at 3e-3 reaches only after thousands of steps"""
    anneal_lr: bool = True
    """linearly anneal the learning rate to 0"""
    turn_cost: float = 0.0
    """reward subtracted per turn in training (0: none), so idle tests at long budgets are not free"""
    train_tasks: int = 0
    """train on a fixed pool of this many training-split tasks, the same for every run (0: the whole split); a small pool makes the result cache hit"""
    group_size: int = 1
    """rollouts per task, one after another (the groups of --advantage group); 1 draws a task per episode"""
    dim: int = 128
    """hashed text feature size"""
    hidden: int = 64
    """hidden units of the policy"""
    max_actions: int = 32
    """menu entries the policy scores (the rest are cut)"""
    train_tier: str = "one_bug"
    """Coding-v0 tier(s) of the training tasks, comma-separated (empty: every tier); on two-bug tasks reverting after a failing test is often wrong, so multi-bug tasks are left to the separate evaluation"""
    recovery_starts: float = 0.5
    """start-state curriculum: this share of training episodes with T >= 5 begins after a wrong menu patch and its test (and, half the time, a revert when the test failed), played through the grammar (the turns count against T); 0: off"""

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
    eval_references: str = "budget-aware,pick+loop"
    """Coding-v0 references to evaluate, from hasty, careful, budget-aware (blind scripts) and pick+loop (BudgetMix's pick in the budget-aware loop); empty: none"""
    pick_loop_seeds: int = 3
    """training seeds (the first ones) whose BudgetMix policy is also evaluated as the pick+loop reference (0: every seed); a reference, not a contrast, so a few seeds tell its level"""
    control_steps: int = 8_000
    """env steps per run of the positive control (`baselines.positive_control`: the sandbox-free budget env whose best policy is known), run by the experiment and reported; 0: skip"""
    control_seeds: str = "1,2,3"
    """training seeds of the positive control"""
    control_episodes: int = 200
    """evaluation episodes of the positive control per seed and T"""
    harness_reports: bool = False
    """also write the harness's own report (plots) for each agent's grid run (several seconds each, times 20 agent runs)"""

    def __post_init__(self) -> None:
        from baselines.grid import EXECUTORS, default_workers

        if self.executor not in EXECUTORS:
            raise ConfigError(f"--executor {self.executor!r}: choose one of {EXECUTORS}")
        if self.workers < 0:
            raise ConfigError(f"--workers {self.workers}: give a number of processes, or 0 for the machine's cores")
        self.workers = self.workers or default_workers()


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
        "harness_reports": False,
        "eval_references": "",
        "progress": False,
        "control_steps": 128,
        "control_episodes": 4,
    },
    "full": {
        # one H200 machine with 16 cores for about 8 minutes, local backend (no Docker there):
        # the envs are CPU-bound, so the size is set by env steps and episodes, not the GPU. An
        # estimate from 2-core measurements, not yet run there: training is bound by the trainer's
        # own thread (about 3 ms of CPU per env step: ~300 env steps/s however many cores, so
        # 50,000 steps ~3 min); the evaluation (about 22-46 ms of CPU per episode) spreads over 16
        # workers (~2-3 min). Resize from the rates the first run prints.
        "seeds": "1,2,3,4,5,6,7,8",
        "total_env_steps": 4_000,
        "control_steps": 20_000,
        "num_envs": 32,
        "env_threads": 16,
        "steps_per_update": 512,
        "minibatch_size": 256,
        "learning_rate": 1e-3,
        "dim": 256,
        "hidden": 128,
        "eval_tasks": 200,
        "eval_references": "hasty,careful,budget-aware,pick+loop",
        "harness_reports": True,
        "eval_multi_tasks": 0,
        "backend": "local",
    },
}
"""Overrides of `Args` defaults per ``--preset`` (flags given on the command line win)."""


def _field_docs(cls: type) -> dict[str, str]:
    """The docstring line under each dataclass field, the base classes' included (CleanRL/tyro style help)."""
    docs: dict[str, str] = {}
    for klass in reversed([k for k in cls.__mro__ if dataclasses.is_dataclass(k)]):
        body = ast.parse(inspect.getsource(klass)).body[0].body  # type: ignore[attr-defined]
        for node, nxt in zip(body, body[1:]):
            if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant):
                docs[node.target.id] = str(nxt.value.value)  # type: ignore[union-attr]
    return docs


def parse_args(argv: list[str] | None = None) -> Args:
    """`Args` from the command line: ``--field-name VALUE`` per field, ``--full``/``--smoke`` presets."""
    parser = argparse.ArgumentParser(prog="python -m baselines.budgetmix", description=__doc__.split("\n\n")[0])
    docs = _field_docs(Args)
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type in (bool, "bool"):
            parser.add_argument(flag, dest=f.name, action=argparse.BooleanOptionalAction, default=None, help=docs.get(f.name))
        else:
            kind = {"int": int, "float": float}.get(str(f.type), str)
            parser.add_argument(flag, dest=f.name, type=kind, default=None, help=docs.get(f.name))
    parser.add_argument("--full", dest="preset", action="store_const", const="full", help="the large GPU preset")
    parser.add_argument("--smoke", dest="preset", action="store_const", const="smoke", help="a seconds-long run")
    given = {k: v for k, v in vars(parser.parse_args(argv)).items() if v is not None}
    preset = given.get("preset", "quick")
    if preset not in PRESETS:
        parser.error(f"--preset {preset!r}: choose one of {sorted(PRESETS)}")
    return Args(**{**PRESETS[preset], **given, "preset": preset})


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
    bare env borrowed from `baselines.env_pool` (closing the stack lends it back, sandbox warm).

    ``test_timeout`` goes to Coding-v0 (its ``test_timeout`` and ``shell_timeout``), so a looping
    decoy ends in a time sized from measured test runs, not the env's 10 s default;
    ``result_cache`` turns on Coding-v0's per-process result cache; ``tiers`` (comma-separated)
    restricts Coding-v0's training tasks to those tiers (`Args.train_tier`).
    """
    env_kwargs = coding_kwargs(env_id, test_timeout, result_cache)
    if tiers and env_id.endswith("Coding-v0"):
        env_kwargs["tiers"] = tuple(t for t in tiers.split(",") if t)

    def thunk() -> gym.Env:
        from agentgym.make import wrap

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


def _cache_stats() -> dict[str, dict[str, int]]:
    from agentgym.envs.coding.result_cache import process_cache

    return process_cache().stats()


def _cache_delta(before: dict[str, dict[str, int]], after: dict[str, dict[str, int]]) -> dict[str, Any]:
    """Hits and misses of the process's result cache during one run, and the hit rate per kind."""
    out: dict[str, Any] = {}
    for kind, counts in after.items():
        hits, misses = (counts[k] - before.get(kind, {}).get(k, 0) for k in ("hits", "misses"))
        out[kind] = {"hits": hits, "misses": misses, "hit_rate": hits / (hits + misses) if hits + misses else None}
    return out


class _NoBar:
    def __init__(self, *_: Any, initial: int = 0, **__: Any) -> None:
        pass

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix(self, **_: Any) -> None:
        pass

    def close(self) -> None:
        pass


def train(args: Args, run_name: str) -> dict[str, Any]:
    """Train one policy with ``args.schedule``; returns its training summary (also in summary.json)."""
    from torch.utils.tensorboard import SummaryWriter

    if args.progress:
        from tqdm import tqdm

        tqdm.monitor_interval = 0  # no monitor thread: the experiment forks its evaluation workers later
    else:  # no progress bar: tqdm need not be installed (the GPU machine lacks it)
        tqdm = _NoBar

    from baselines.agent import load_policy, save_checkpoint
    from baselines.policy import MenuPolicy, pick_device
    from baselines.ppo import ppo_update
    from baselines.rollout import EpisodeCollector
    from baselines.schedules import parse_schedule

    # ---------------------------------------------------------------- run folder, seeding, device
    run_dir = Path(args.out) / run_name
    run_dir.mkdir(parents=True, exist_ok=True)
    ckpt_path = run_dir / "checkpoint.pt"
    summary_path = run_dir / "summary.json"
    if args.resume and summary_path.exists():
        finished = json.loads(summary_path.read_text())
        if finished["env_steps"] >= args.total_env_steps:
            return finished  # done: --resume never retrains a finished run
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(max(1, args.torch_threads))
    device = pick_device(args.device)
    writer = SummaryWriter(str(run_dir / "tb")) if args.track else None
    if writer is not None:
        writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in vars(args).items()))

    # ---------------------------------------------------------------- envs with the budget schedule
    schedule = parse_schedule(args.schedule, ramp=args.curriculum_ramp)
    env_ids = [e for e in args.env_ids.split(",") if e]
    env_fns = [
        make_env(
            env_ids[i % len(env_ids)],
            schedule.budget_arg(),
            backend=args.backend,
            process_reward=args.process_reward,
            faults=args.train_faults,
            test_timeout=args.test_timeout,
            result_cache=args.result_cache,
            tiers=args.train_tier,
        )
        for i in range(args.num_envs)
    ]

    # ---------------------------------------------------------------- policy, optimizer, resume
    policy = MenuPolicy(dim=args.dim, hidden=args.hidden).to(device)
    optimizer = make_optimizer(policy, args.learning_rate, args.head_lr_scale)
    global_step, update, history = 0, 0, []
    if args.resume and ckpt_path.exists():
        policy, ckpt = load_policy(ckpt_path, str(device))
        optimizer = make_optimizer(policy, args.learning_rate, args.head_lr_scale)
        optimizer.load_state_dict(ckpt["optimizer"])
        global_step, update, history = ckpt["global_step"], ckpt["update"], ckpt["history"]
        torch.set_rng_state(ckpt["torch_rng"])
    rng = np.random.default_rng(args.seed + update)
    collector = EpisodeCollector(
        env_fns, policy, dim=args.dim, max_actions=args.max_actions, seed=args.seed * 1000 + update,
        threads=args.env_threads, group_size=args.group_size, task_pool=args.train_tasks, mode=args.collect_mode,
        recovery_starts=args.recovery_starts, recovery_start_patch=args.recovery_start_patch,
    )
    bar = tqdm(total=args.total_env_steps, initial=global_step, desc=run_name, unit="step", disable=not args.progress)
    cache_before = _cache_stats()
    start_time, start_step = time.perf_counter(), global_step
    rollout_seconds = update_seconds = 0.0

    # ---------------------------------------------------------------- training loop
    try:
        while global_step < args.total_env_steps:
            progress = global_step / args.total_env_steps
            if args.anneal_lr:
                for group in optimizer.param_groups:
                    group["lr"] = args.learning_rate * group.get("lr_scale", 1.0) * (1.0 - progress)
            schedule.update(progress)

            # ---- rollout: whole episodes, infrastructure failures masked out
            t0 = time.perf_counter()
            infra_before = collector.infra_failures
            episodes = collector.collect(min(args.steps_per_update, args.total_env_steps - global_step), bar.update)
            rollout_seconds += time.perf_counter() - t0
            steps = sum(len(ep) for ep in episodes)
            global_step = start_step + collector.env_steps
            update += 1
            if not episodes:
                continue
            if args.turn_cost:
                for ep in episodes:  # charged in training only; success is what the env says
                    ep.rewards = [r - args.turn_cost for r in ep.rewards]

            # ---- PPO update (in async mode, open episodes keep stepping meanwhile)
            t1 = time.perf_counter()
            losses = ppo_update(policy, optimizer, episodes, args, args.max_actions, rng)  # Args is a PPOConfig
            update_seconds += time.perf_counter() - t1

            # ---- metrics
            success = float(np.mean([ep.success for ep in episodes]))
            budgets = [ep.budget for ep in episodes if ep.budget is not None]
            sps = (global_step - start_step) / (time.perf_counter() - start_time)
            row = {
                "update": update,
                "global_step": global_step,
                "charts/success_rate": success,
                "charts/episodic_return": float(np.mean([sum(ep.rewards) for ep in episodes])),
                "charts/episodic_length": float(np.mean([len(ep) for ep in episodes])),
                "charts/truncated_rate": float(np.mean([ep.truncated for ep in episodes])),
                "charts/budget_mean": float(np.mean(budgets)) if budgets else float("nan"),
                "charts/episodes": len(episodes),
                "charts/infra_failures_masked": collector.infra_failures - infra_before,
                "charts/learning_rate": optimizer.param_groups[0]["lr"],
                "charts/SPS": sps,
                "charts/rollout_SPS": steps / max(time.perf_counter() - t0, 1e-9),
                **{f"losses/{k}": v for k, v in losses.items()},
            }
            history.append(row)
            if writer is not None:
                for key, value in row.items():
                    if "/" in key:
                        writer.add_scalar(key, value, global_step)
            bar.set_postfix(success=f"{success:.2f}", T=f"{row['charts/budget_mean']:.1f}", sps=f"{sps:.0f}")

            # ---- checkpoint (atomic), so --resume continues from here
            save_checkpoint(
                ckpt_path,
                policy,
                optimizer=optimizer.state_dict(),
                global_step=global_step,
                update=update,
                history=history,
                torch_rng=torch.get_rng_state(),
                max_actions=args.max_actions,
                args=dataclasses.asdict(args),
            )
    finally:
        collector_timing = collector.timing()
        bar.close()
        collector.close()
        if writer is not None:
            writer.close()

    elapsed = time.perf_counter() - start_time
    tail = history[-3:] if history else []
    summary = {
        "run": run_name,
        "schedule": str(schedule),
        "schedule_mean_T": schedule.mean,
        "env_ids": env_ids,
        "env_steps": global_step,
        "updates": update,
        "seconds": elapsed,
        "steps_per_second": (global_step - start_step) / max(elapsed, 1e-9),
        "cuda_max_memory_mb": torch.cuda.max_memory_allocated(device) / 2**20 if device.type == "cuda" else None,
        "rollout_steps_per_second": (global_step - start_step) / max(rollout_seconds, 1e-9),
        "rollout_seconds": rollout_seconds,
        "update_seconds": update_seconds,
        "collect_mode": args.collect_mode,
        "test_timeout": args.test_timeout,
        **collector_timing,
        "infra_failures_masked": collector.infra_failures,
        "forced_start_episodes": collector.forced_episodes,
        "forced_start_steps": collector.forced_steps,
        "result_cache": _cache_delta(cache_before, _cache_stats()) if args.result_cache else None,
        "final_train_success": float(np.mean([r["charts/success_rate"] for r in tail])) if tail else float("nan"),
        "checkpoint": str(ckpt_path),
        "device": str(device),
        "history": history,
    }
    summary_path.write_text(json.dumps(summary, indent=1))
    return summary


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.warm_cache:
        from baselines.warm_cache import prefill

        print(json.dumps(prefill(args), indent=1))
        return 0
    if args.schedule:
        summary = train(args, f"{args.exp_name}-{args.schedule.replace(':', '-').replace(',', '_').replace('@', '_w')}")
        print(json.dumps({k: v for k, v in summary.items() if k != "history"}, indent=1))
        return 0
    return run_experiment(args)


if __name__ == "__main__":
    sys.exit(main())
