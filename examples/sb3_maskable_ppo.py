"""SB3 MaskablePPO (sb3-contrib) on NumericView with BudgetMix budgets, logging the success rate.

    pip install 'agentgym-budget[examples]'
    python examples/sb3_maskable_ppo.py --total-timesteps 4096

`agentgym.make(..., numeric=True)` gives Discrete actions over the env's menu with
``action_masks()`` (what MaskablePPO calls) and a flat Dict of Box observations
(``MultiInputPolicy``); ``budget={"uniform": [lo, hi]}`` draws T per episode (BudgetMix).
SB3 logs ``rollout/success_rate`` from ``info["is_success"]`` at episode ends; `IsSuccess`
copies agentgym's ``info["success"]`` there, and does nothing once the env sets it itself.
"""

from __future__ import annotations

import argparse

import gymnasium as gym
from sb3_contrib import MaskablePPO
from stable_baselines3.common.monitor import Monitor

import agentgym


class IsSuccess(gym.Wrapper):
    """``info["is_success"]`` at episode ends, for SB3's Monitor and EvalCallback."""

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        if (terminated or truncated) and "is_success" not in info:
            info["is_success"] = bool(info.get("success", False))
        return obs, reward, terminated, truncated, info


def make_env(env_id: str, lo: int, hi: int, backend: str) -> gym.Env:
    env = agentgym.make(
        env_id, budget={"uniform": [lo, hi]}, numeric={"max_actions": 32, "dim": 64}, backend=backend, split="train"
    )
    return Monitor(IsSuccess(env))


def main(argv: list[str] | None = None) -> float:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", default="agentgym/ToolUse-v0")
    p.add_argument("--budget", default="4,12", help="BudgetMix range lo,hi of T")
    p.add_argument("--total-timesteps", type=int, default=4096)
    p.add_argument("--n-steps", type=int, default=256)
    p.add_argument("--backend", default="auto", help="sandbox backend: auto, docker or local")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    lo, hi = (int(x) for x in args.budget.split(","))
    env = make_env(args.env, lo, hi, args.backend)
    model = MaskablePPO(
        "MultiInputPolicy", env, n_steps=args.n_steps, batch_size=min(64, args.n_steps), seed=args.seed, verbose=1
    )
    model.learn(total_timesteps=args.total_timesteps)
    successes = list(model.ep_success_buffer)  # what rollout/success_rate averages
    rate = sum(successes) / len(successes) if successes else 0.0
    print(f"episodes with is_success logged: {len(successes)}, success rate {rate:.2f}")
    env.close()
    return rate


if __name__ == "__main__":
    main()
