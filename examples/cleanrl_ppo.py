"""A CleanRL-style PPO loop over ``gym.make_vec(..., vectorization_mode="async")``.

    python examples/cleanrl_ppo.py --num-envs 4 --total-timesteps 20000

One file, top to bottom: Args, the vector env, a small masked policy, the rollout, PPO. Each
sub-env is ``agentgym.make(..., budget=..., numeric=...)`` in its own process (Gymnasium's
default ``shared_memory=True`` is fine: numeric observations are Boxes, and text ones
round-trip too). Gymnasium 1.x autoresets on the step *after* an episode ends; that step's
transition is not trained on (``valid``).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import agentgym  # noqa: F401  (registers the ids)


@dataclass
class Args:
    env_id: str = "agentgym/ToolUse-v0"
    """the env id"""
    budget: int = 8
    """turn budget T per episode"""
    num_envs: int = 4
    """sub-envs, each in its own process"""
    num_steps: int = 64
    """steps per env per rollout"""
    total_timesteps: int = 20_000
    """env steps in all"""
    lr: float = 3e-4
    """Adam learning rate"""
    gamma: float = 1.0
    """discount (the reward is trajectory-level)"""
    clip: float = 0.2
    """PPO ratio clip"""
    epochs: int = 4
    """PPO epochs per rollout"""
    backend: str = "auto"
    """sandbox backend: auto, docker or local"""
    seed: int = 0
    """seed of the envs and of torch"""


class Agent(nn.Module):
    """Masked logits over the menu and a value, from the observation's Boxes."""

    def __init__(self, obs_dim: int, n_actions: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh())
        self.pi, self.v = nn.Linear(64, n_actions), nn.Linear(64, 1)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.distributions.Categorical, torch.Tensor]:
        h = self.body(x)
        logits = self.pi(h).masked_fill(mask < 0.5, -1e9)
        return torch.distributions.Categorical(logits=logits), self.v(h).squeeze(-1)


def features(obs: dict[str, np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    x = np.concatenate([obs["text"], obs["turns_left_frac"]], axis=-1)
    return torch.as_tensor(x, dtype=torch.float32), torch.as_tensor(obs["action_mask"], dtype=torch.float32)


def main(argv: list[str] | None = None) -> dict[str, float]:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name, value in vars(Args()).items():
        p.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    args = Args(**vars(p.parse_args(argv)))
    torch.manual_seed(args.seed)

    envs = gym.make_vec(
        args.env_id,
        num_envs=args.num_envs,
        vectorization_mode="async",
        budget=args.budget,
        numeric={"max_actions": 32, "dim": 64},
        backend=args.backend,
        split="train",
    )
    n_actions = envs.single_action_space.n
    agent = Agent(64 + 1, n_actions)
    optim = torch.optim.Adam(agent.parameters(), lr=args.lr)

    # ------------------------------------------------------------------ rollout
    obs, _ = envs.reset(seed=args.seed)
    autoreset = np.zeros(args.num_envs, dtype=bool)  # this step only resets its env
    finished, successes, global_step, start = 0, 0, 0, time.time()
    for _ in range(max(1, args.total_timesteps // (args.num_envs * args.num_steps))):
        xs, masks, acts, logps, vals, rews, dones, valid = [], [], [], [], [], [], [], []
        for _ in range(args.num_steps):
            x, m = features(obs)
            with torch.no_grad():
                dist, v = agent(x, m)
                a = dist.sample()
            obs, r, term, trunc, info = envs.step(a.numpy())
            global_step += args.num_envs
            xs.append(x), masks.append(m), acts.append(a), logps.append(dist.log_prob(a)), vals.append(v)
            rews.append(torch.as_tensor(r, dtype=torch.float32))
            dones.append(torch.as_tensor(term | trunc, dtype=torch.float32))
            valid.append(torch.as_tensor(~autoreset, dtype=torch.float32))
            ended = (term | trunc) & ~autoreset
            finished += int(ended.sum())
            successes += int(np.sum(np.asarray(info.get("success", np.zeros(args.num_envs)), dtype=bool) & ended))
            autoreset = term | trunc

        # -------------------------------------------------------------- returns (no bootstrap past an end)
        with torch.no_grad():
            _, next_v = agent(*features(obs))
        ret, returns = next_v * (1 - torch.as_tensor(autoreset, dtype=torch.float32)), []
        for t in reversed(range(args.num_steps)):
            ret = rews[t] + args.gamma * ret * (1 - dones[t])
            returns.insert(0, ret)
        b = [torch.stack(z).flatten(0, 1) for z in (xs, masks)]
        acts_b, logp_b, val_b, ret_b, valid_b = (torch.stack(z).flatten() for z in (acts, logps, vals, returns, valid))
        adv = ret_b - val_b

        # -------------------------------------------------------------- PPO update
        for _ in range(args.epochs):
            dist, v = agent(b[0], b[1])
            ratio = (dist.log_prob(acts_b) - logp_b).exp()
            pg = -torch.min(ratio * adv, ratio.clamp(1 - args.clip, 1 + args.clip) * adv)
            loss = ((pg + 0.5 * (v - ret_b) ** 2 - 0.01 * dist.entropy()) * valid_b).sum() / valid_b.sum()
            optim.zero_grad()
            loss.backward()
            optim.step()
        sps = global_step / (time.time() - start)
        print(
            f"global_step={global_step} episodes={finished} charts/success_rate={successes / max(finished, 1):.2f} "
            f"losses/loss={loss.item():.4f} charts/SPS={sps:.0f}"
        )
    envs.close()
    return {"episodes": finished, "success_rate": successes / max(finished, 1)}


if __name__ == "__main__":
    main()
