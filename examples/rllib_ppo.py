"""RLlib PPO on a flattened `NumericView` (run it in its own virtual environment).

    python -m venv --system-site-packages .venv-rllib     # reuses an installed torch
    .venv-rllib/bin/pip install 'ray[rllib]==2.60.*' .    # ray[rllib] 2.60 pins gymnasium 1.2.2
    .venv-rllib/bin/python examples/rllib_ppo.py --iterations 20

RLlib's default PPO models take a Box observation and use no action mask, so the env is
``FlattenObservation(agentgym.make(id, budget=T, numeric=True))``: NumericView's Dict (text
features, menu features, ``action_mask``, ``turns_left``, ``turns_left_frac``) becomes one Box,
and an action past the menu costs its turn with an error observation (never an exception).
Envs are built inside RLlib's env runners by `register_env`'s creator: sandboxes do not pickle.
See docs/interop.md for masking with a custom RLModule.
"""

from __future__ import annotations

import argparse
from typing import Any

import gymnasium as gym

import agentgym


def make_env(config: dict[str, Any]) -> gym.Env:
    env = agentgym.make(
        config.get("env_id", "agentgym/ToolUse-v0"),
        budget=int(config.get("budget", 8)),
        numeric={"max_actions": 32, "dim": 64},
        backend=config.get("backend", "auto"),
        split="train",
    )
    return gym.wrappers.FlattenObservation(env)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", default="agentgym/ToolUse-v0")
    p.add_argument("--budget", type=int, default=8)
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--batch", type=int, default=512, help="train batch size (env steps per iteration)")
    p.add_argument("--env-runners", type=int, default=0, help="0: sample in the driver process")
    p.add_argument("--backend", default="auto", help="sandbox backend: auto, docker or local")
    args = p.parse_args(argv)

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.tune.registry import register_env

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    register_env("agentgym-flat", make_env)
    config = (
        PPOConfig()
        .environment("agentgym-flat", env_config={"env_id": args.env, "budget": args.budget, "backend": args.backend})
        .env_runners(num_env_runners=args.env_runners, rollout_fragment_length="auto")
        .training(train_batch_size=args.batch, minibatch_size=min(128, args.batch), num_epochs=2, gamma=1.0)
    )
    algo = config.build_algo()
    result: dict[str, Any] = {}
    for i in range(args.iterations):
        result = algo.train()
        runners = result.get("env_runners", {})
        print(
            f"iteration {i + 1}: episodes {runners.get('num_episodes_lifetime')}, "
            f"return mean {runners.get('episode_return_mean')}"
        )
    algo.stop()
    ray.shutdown()
    return result


if __name__ == "__main__":
    main()
