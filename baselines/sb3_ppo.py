"""Stable-Baselines3 PPO on an agentgym env's numeric view, with BudgetMix budgets.

Shows that agentgym envs plug into SB3 unchanged: `agentgym.make(..., budget=..., numeric=...)`
gives a flat ``Dict`` of ``Box``/``MultiBinary`` observations (hashed text of the observation
and of each menu entry, the menu mask, the turns left) and a ``Discrete`` action that indexes
the menu, which ``MultiInputPolicy`` takes as it is. SB3's PPO does not mask actions: an index
past the menu costs a turn, so the policy learns the mask from the reward.

    python -m baselines.sb3_ppo                          # a short run, then success per T on test tasks
    python -m baselines.sb3_ppo --total-timesteps 200000 --budget uniform:2-16
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

import agentgym
from baselines.policy.schedules import parse_schedule

__all__ = ["Args", "make_env", "main"]


@dataclass
class Args:
    env_id: str = "agentgym/Coding-v0"
    """the agentgym env id"""
    budget: str = "uniform:2-12"
    """training budget schedule (as in baselines.budgetmix: fixed:T, uniform:LO-HI, ...)"""
    total_timesteps: int = 2048
    """environment steps of training"""
    num_envs: int = 4
    """envs in SB3's DummyVecEnv"""
    n_steps: int = 256
    """PPO rollout length per env"""
    max_actions: int = 24
    """menu entries the Discrete action indexes"""
    dim: int = 64
    """hashed text feature size"""
    eval_ts: str = "2,4,8,12"
    """budgets at which the trained model is evaluated on test tasks"""
    eval_episodes: int = 24
    """test episodes per budget"""
    backend: str = "auto"
    """sandbox backend: auto, docker, local"""
    seed: int = 1
    """seed"""
    device: str = "auto"
    """torch device for SB3"""


def make_env(
    env_id: str, budget: Any, *, max_actions: int, dim: int, split: str, backend: str
) -> Callable[[], gym.Env]:
    """A thunk: the agentgym stack with a budget and the numeric view on top."""

    def thunk() -> gym.Env:
        env = agentgym.make(
            env_id, budget=budget, numeric={"max_actions": max_actions, "dim": dim}, split=split, backend=backend
        )
        # SB3's monitor gives episode returns/lengths in its logs
        from stable_baselines3.common.monitor import Monitor

        return Monitor(env)

    return thunk


def evaluate_model(model: Any, args: Args, t: int) -> float:
    """Success rate of ``model`` (deterministic actions) at budget ``t`` on test tasks."""
    env = make_env(args.env_id, t, max_actions=args.max_actions, dim=args.dim, split="test", backend=args.backend)()
    wins = 0
    try:
        for i in range(args.eval_episodes):
            obs, info = env.reset(seed=10_000 + i)
            done = False
            while not done:
                action, _ = model.predict(obs, deterministic=True)
                obs, _, terminated, truncated, info = env.step(int(action))
                done = terminated or truncated
            wins += bool(info.get("success", False))
    finally:
        env.close()
    return wins / args.eval_episodes


def main(argv: list[str] | None = None) -> int:
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    parser = argparse.ArgumentParser(prog="python -m baselines.sb3_ppo", description=__doc__.split("\n\n")[0])
    for f in dataclasses.fields(Args):
        parser.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=type(f.default), default=f.default)
    args = Args(**vars(parser.parse_args(argv)))
    torch.set_num_threads(1)
    budget = parse_schedule(args.budget).budget_arg()
    venv = DummyVecEnv(
        [
            make_env(
                args.env_id, budget, max_actions=args.max_actions, dim=args.dim, split="train", backend=args.backend
            )
            for _ in range(args.num_envs)
        ]
    )
    venv.seed(args.seed)
    model = PPO(
        "MultiInputPolicy",
        venv,
        n_steps=args.n_steps,
        batch_size=256,
        learning_rate=3e-4,
        gamma=1.0,
        ent_coef=0.01,
        seed=args.seed,
        device=args.device,
        verbose=0,
    )
    start = time.perf_counter()
    model.learn(total_timesteps=args.total_timesteps)
    seconds = time.perf_counter() - start
    venv.close()
    result = {
        "env_id": args.env_id,
        "budget": args.budget,
        "timesteps": int(model.num_timesteps),
        "train_seconds": round(seconds, 1),
        "steps_per_second": round(model.num_timesteps / seconds, 1),
        "success_by_T": {t: evaluate_model(model, args, int(t)) for t in args.eval_ts.split(",")},
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
