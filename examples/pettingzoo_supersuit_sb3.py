"""PettingZoo `KAttemptsEnv` (K attempts at one task) vectorised by SuperSuit into SB3 PPO.

    pip install 'agentgym-budget[examples]'
    python examples/pettingzoo_supersuit_sb3.py --k 4 --total-timesteps 4096

``numeric=True`` gives each attempt Discrete actions over the menu, ``flatten=True`` one Box
observation (``black_death_v3`` needs Box observations; it keeps an attempt that finished in
the batch with zero observations until all finish). ``pettingzoo_env_to_vec_env_v1`` turns the
K attempts into K sub-envs; ``concat_vec_envs_v1`` copies the env by pickling it, which
`KAttemptsEnv` supports (each copy starts its own sandboxes). Plain PPO ignores the menu mask.
"""

from __future__ import annotations

import argparse

import supersuit as ss
from stable_baselines3 import PPO

from agentgym.parallel import KAttemptsEnv


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", default="agentgym/ToolUse-v0")
    p.add_argument("--k", type=int, default=4, help="attempts per task (agents)")
    p.add_argument("--budget", type=int, default=8)
    p.add_argument("--copies", type=int, default=1, help="vectorised copies of the K-attempt env")
    p.add_argument("--total-timesteps", type=int, default=4096)
    p.add_argument("--n-steps", type=int, default=128)
    p.add_argument("--backend", default="auto", help="sandbox backend: auto, docker or local")
    args = p.parse_args(argv)

    env = KAttemptsEnv(
        args.env,
        k=args.k,
        flatten=True,
        numeric={"max_actions": 32, "dim": 64},
        budget=args.budget,
        backend=args.backend,
        split="train",
    )
    env = ss.black_death_v3(env)
    venv = ss.pettingzoo_env_to_vec_env_v1(env)
    venv = ss.concat_vec_envs_v1(venv, args.copies, num_cpus=0, base_class="stable_baselines3")
    model = PPO("MlpPolicy", venv, n_steps=args.n_steps, batch_size=min(64, args.n_steps * args.k), verbose=1)
    model.learn(total_timesteps=args.total_timesteps)
    print(f"trained on {model.num_timesteps} attempt-steps ({args.k} attempts x {args.copies} copies)")
    venv.close()
    return model.num_timesteps


if __name__ == "__main__":
    main()
