"""PPO on whole episodes: GAE per episode, then clipped policy-gradient minibatch updates.

Every episode ends by its own terminal event (a submission, or the budget running out), so
the advantage needs no bootstrap past the last step: with the budget in the state, running
out of turns is a true terminal state of the budget-augmented task, with value 0.

``advantage="group"`` is the group-relative variant: an episode's return minus the mean
return of the episodes of the same task in the batch (the same advantage on every step),
with no value baseline; several rollouts per task make the group.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from baselines.config import PPOConfig
from baselines.policy.features import stack_steps
from baselines.policy.model import MenuPolicy
from baselines.policy.rollout import Episode

__all__ = ["gae", "episode_advantages", "make_optimizer", "ppo_update"]


HEADS = ("prior_score", "budget_score")
"""The policy's linear and bilinear scoring terms (`MenuPolicy`), which `make_optimizer` may give a larger step."""


def make_optimizer(policy: nn.Module, learning_rate: float, head_lr_scale: float = 1.0) -> torch.optim.Optimizer:
    """Adam with its fused kernel where this torch has one for the parameters' device: one kernel
    for every tensor instead of a dozen ops each (a quick-preset update of 130 steps on the CPU,
    interleaved 30 times: median 100 -> 88 ms). The same steps as plain Adam (a test pins them) and
    the same state dict: a checkpoint written by plain Adam loads, and its ``fused`` setting comes
    with it.

    ``head_lr_scale`` != 1 puts the linear and bilinear scoring terms (`HEADS`) in a second
    parameter group with ``learning_rate x head_lr_scale``: Adam moves a weight by about the
    learning rate per step whatever its gradient, so a 0/1 history input needs thousands of
    steps at 3e-3 to reach a logit gap of a few units, more than a quick-preset run makes. Each
    group carries its ``lr_scale``; the trainer anneals every group by it."""
    if head_lr_scale != 1.0:
        heads = [p for n, p in policy.named_parameters() if n.split(".")[0] in HEADS]
        rest = [p for n, p in policy.named_parameters() if n.split(".")[0] not in HEADS]
        params: Any = [
            {"params": rest, "lr_scale": 1.0},
            {"params": heads, "lr": learning_rate * head_lr_scale, "lr_scale": float(head_lr_scale)},
        ]
    else:
        params = policy.parameters()
    try:
        return torch.optim.Adam(params, lr=learning_rate, eps=1e-5, fused=True)
    except (RuntimeError, TypeError):  # an older torch, or a device without the fused kernel
        return torch.optim.Adam(params, lr=learning_rate, eps=1e-5)


def gae(rewards: Sequence[float], values: Sequence[float], gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns of one episode that ended (no bootstrap after the last step)."""
    n = len(rewards)
    adv = np.zeros(n, dtype=np.float32)
    last = 0.0
    for t in reversed(range(n)):
        next_value = values[t + 1] if t + 1 < n else 0.0
        delta = rewards[t] + gamma * next_value - values[t]
        last = delta + gamma * lam * last
        adv[t] = last
    return adv, adv + np.asarray(values, dtype=np.float32)


def episode_advantages(episodes: Sequence[Episode], cfg: PPOConfig) -> tuple[np.ndarray, np.ndarray]:
    """Flat advantages and value targets for all steps of ``episodes``, in order."""
    advs, rets = [], []
    if cfg.advantage == "group":
        totals: dict[str, list[float]] = defaultdict(list)
        for ep in episodes:
            totals[ep.task_id].append(sum(ep.rewards))
        for ep in episodes:
            group = totals[ep.task_id]
            # a task seen once has no group: fall back to the batch mean as its baseline
            base = float(np.mean(group)) if len(group) > 1 else float(np.mean([sum(e.rewards) for e in episodes]))
            g = sum(ep.rewards) - base
            advs.append(np.full(len(ep), g, dtype=np.float32))
            _, ret = gae(ep.rewards, ep.values, cfg.gamma, 1.0)
            rets.append(ret)
    elif cfg.advantage == "gae":
        for ep in episodes:
            adv, ret = gae(ep.rewards, ep.values, cfg.gamma, cfg.gae_lambda)
            advs.append(adv)
            rets.append(ret)
    else:
        raise ValueError(f"advantage={cfg.advantage!r}; choose 'gae' or 'group'")
    return np.concatenate(advs), np.concatenate(rets)


def ppo_update(
    policy: MenuPolicy,
    optimizer: torch.optim.Optimizer,
    episodes: Sequence[Episode],
    cfg: PPOConfig,
    max_actions: int,
    rng: np.random.Generator,
) -> dict[str, float]:
    """One PPO update on the steps of ``episodes``; returns the ``losses/...`` metrics."""
    device = next(policy.parameters()).device
    steps = [s for ep in episodes for s in ep.steps]
    choices = torch.as_tensor(np.concatenate([ep.choices for ep in episodes]), device=device)
    old_logprob = torch.as_tensor(np.concatenate([ep.logprobs for ep in episodes]), dtype=torch.float32, device=device)
    old_values = np.concatenate([ep.values for ep in episodes]).astype(np.float32)
    adv_np, ret_np = episode_advantages(episodes, cfg)
    advantages = torch.as_tensor(adv_np, device=device)
    returns = torch.as_tensor(ret_np, device=device)
    n = len(steps)
    policy.train()
    stats: dict[str, list[float]] = defaultdict(list)
    for _ in range(cfg.update_epochs):
        order = rng.permutation(n)
        for start in range(0, n, cfg.minibatch_size):
            idx = order[start : start + cfg.minibatch_size]
            mb = {
                k: torch.as_tensor(v, device=device)
                for k, v in stack_steps([steps[i] for i in idx], max_actions).items()
            }
            tidx = torch.as_tensor(idx, device=device)
            logprob, entropy, value = policy.evaluate(mb, choices[tidx])
            ratio = (logprob - old_logprob[tidx]).exp()
            mb_adv = advantages[tidx]
            if cfg.norm_adv and len(idx) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
            v_loss = 0.5 * ((value - returns[tidx]) ** 2).mean()
            ent = entropy.mean()
            loss = pg_loss - cfg.ent_coef * ent + cfg.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                log_ratio = logprob - old_logprob[tidx]
                stats["approx_kl"].append(float(((ratio - 1) - log_ratio).mean()))
                stats["clipfrac"].append(float(((ratio - 1.0).abs() > cfg.clip_coef).float().mean()))
            stats["policy_loss"].append(float(pg_loss.detach()))
            stats["value_loss"].append(float(v_loss.detach()))
            stats["entropy"].append(float(ent.detach()))
        if cfg.target_kl and np.mean(stats["approx_kl"][-max(1, n // cfg.minibatch_size) :]) > cfg.target_kl:
            break
    var = float(np.var(ret_np))
    explained = float("nan") if var == 0 else 1 - float(np.var(ret_np - old_values)) / var
    out = {k: float(np.mean(v)) for k, v in stats.items()}
    out["explained_variance"] = explained
    return out
