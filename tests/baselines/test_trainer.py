"""The trainer: infrastructure failures masked out, GAE, group advantages, and PPO that learns."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np
import pytest
import torch

import agentgym
from agentgym.errors import SandboxCrashed
from baselines.config import PPOConfig
from baselines.policy.model import MenuPolicy
from baselines.policy.ppo import episode_advantages, gae, make_optimizer, ppo_update
from baselines.policy.rollout import Episode, EpisodeCollector
from budget_env import ENV_ID, BudgetChoiceEnv

DIM, MAX_ACTIONS = 32, 12


class FirstBuiltMisbehaves(BudgetChoiceEnv):
    """Counts the envs built of its class; ``self.first`` marks the first one (the one that misbehaves)."""

    built = 0

    def __init__(self, **kw):
        super().__init__(**kw)
        type(self).built += 1
        self.first = type(self).built == 1
        self.steps = 0


class CrashOnce(FirstBuiltMisbehaves):
    """Its sandbox 'crashes' on the second step of its first episode (the first built only)."""

    built = 0

    def step(self, action):
        self.steps += 1
        if self.first and self.steps == 2:
            raise SandboxCrashed("step server died")
        return super().step(action)


def _collector(env_fn, n_envs: int = 2, seed: int = 0) -> EpisodeCollector:
    policy = MenuPolicy(dim=DIM, hidden=16)
    return EpisodeCollector([env_fn] * n_envs, policy, dim=DIM, max_actions=MAX_ACTIONS, seed=seed, threads=1)


def test_infrastructure_failure_is_masked_not_scored() -> None:
    CrashOnce.built = 0
    collector = _collector(lambda: _wrapped(CrashOnce()), n_envs=2)
    try:
        episodes = collector.collect(40)
    finally:
        collector.close()
    assert collector.infra_failures == 1
    assert CrashOnce.built == 3  # two envs, plus the rebuild of the crashed one
    # the crashed episode is not in the batch: every episode ended by submission or budget
    for ep in episodes:
        assert len(ep) >= 1 and len(ep.steps) == len(ep.rewards) == len(ep.choices)
        assert ep.truncated or ep.actions[-1] == "submit"
    assert sum(len(ep) for ep in episodes) >= 40 - 1


def _wrapped(env):
    from agentgym.make import wrap

    return wrap(env, budget=6, labels=True)


def test_group_rollouts_share_a_task() -> None:
    policy = MenuPolicy(dim=DIM, hidden=16)
    collector = EpisodeCollector(
        [lambda: agentgym.make(ENV_ID, budget=3)] * 2,
        policy,
        dim=DIM,
        max_actions=MAX_ACTIONS,
        seed=0,
        threads=1,
        group_size=4,
    )
    try:
        episodes = collector.collect(30)
    finally:
        collector.close()
    from collections import Counter

    counts = Counter(ep.task_id for ep in episodes)
    assert len(episodes) >= 8 and len(counts) < len(episodes)
    assert max(counts.values()) <= 4 and sorted(counts.values())[-1] == 4


def test_a_task_pool_fixes_the_training_tasks() -> None:
    """--train-tasks N: every episode draws from the same N tasks, whatever the seed."""
    pools = []
    for seed in (0, 1):
        collector = EpisodeCollector(
            [lambda: agentgym.make(ENV_ID, budget=2)] * 2,
            MenuPolicy(dim=DIM, hidden=16),
            dim=DIM,
            max_actions=MAX_ACTIONS,
            seed=seed,
            threads=1,
            task_pool=3,
        )
        try:
            episodes = collector.collect(30)
        finally:
            collector.close()
        assert len(episodes) >= 10 and set(collector._pool) >= {ep.task_id for ep in episodes}
        pools.append(collector._pool)
    assert pools[0] == pools[1] and len(pools[0]) == 3


def test_gae_without_bootstrap_past_the_end() -> None:
    adv, ret = gae([0.0, 0.0, 1.0], [0.5, 0.5, 0.5], gamma=1.0, lam=1.0)
    assert ret.tolist() == [1.0, 1.0, 1.0]
    assert np.allclose(adv, [0.5, 0.5, 0.5])
    adv, _ = gae([0.0, 1.0], [0.2, 0.6], gamma=1.0, lam=0.0)
    assert np.allclose(adv, [0.6 - 0.2, 1.0 - 0.6])


def test_group_advantage_is_relative_to_the_same_task() -> None:
    eps = [
        Episode(rewards=[0.0, r], values=[0, 0], task_id=t) for t, r in [("a", 1.0), ("a", 0.0), ("b", 1.0), ("b", 1.0)]
    ]
    adv, _ = episode_advantages(eps, PPOConfig(advantage="group"))
    assert adv.tolist() == [0.5, 0.5, -0.5, -0.5, 0.0, 0.0, 0.0, 0.0]


def test_ppo_learns_the_short_budget_strategy() -> None:
    # at T=2 only "patch the clue, submit" can succeed (clue right 60% of the time); random: ~1%
    torch.manual_seed(0)
    collector = _collector(lambda: agentgym.make(ENV_ID, budget=2), n_envs=16, seed=0)
    optimizer = torch.optim.Adam(collector.policy.parameters(), lr=3e-3)
    rng = np.random.default_rng(0)
    try:
        first = collector.collect(256)
        for _ in range(24):
            episodes = collector.collect(256)
            stats = ppo_update(collector.policy, optimizer, episodes, PPOConfig(minibatch_size=128), MAX_ACTIONS, rng)
    finally:
        collector.close()
    before = np.mean([ep.success for ep in first])
    after = np.mean([ep.success for ep in episodes])
    assert np.isfinite(list(stats.values())).all()
    assert before < 0.05 and after > 0.2, (before, after)


class SlowFirstStep(FirstBuiltMisbehaves):
    """The first env built stalls on its first step, as a sandbox waiting out a test timeout: it sleeps
    ``SLOW_S``, or, when ``hold`` is set, waits until the test releases it (at most 60 s)."""

    built = 0
    hold: threading.Event | None = None
    slow_step_done = False

    def step(self, action):
        if self.first:
            self.first = False
            if self.hold is not None:
                self.hold.wait(60)
            else:
                time.sleep(SLOW_S)
            type(self).slow_step_done = True
        return super().step(action)


SLOW_S = 0.8


@pytest.mark.parametrize("mode", ["async", "lockstep"])
def test_a_slow_step_stalls_only_its_own_env_in_async_mode(mode: str) -> None:
    # async: the slow step is held until collect() has returned, so the claim "the other env kept
    # stepping" is checked by order of events, not by a wall-clock bound a loaded machine can break
    SlowFirstStep.built, SlowFirstStep.slow_step_done = 0, False
    SlowFirstStep.hold = threading.Event() if mode == "async" else None
    policy = MenuPolicy(dim=DIM, hidden=16)
    collector = EpisodeCollector(
        [lambda: _wrapped(SlowFirstStep())] * 2, policy, dim=DIM, max_actions=MAX_ACTIONS, seed=0, threads=2, mode=mode
    )
    try:
        started = time.perf_counter()
        episodes = collector.collect(30)
        elapsed = time.perf_counter() - started
        slow_done_at_return = SlowFirstStep.slow_step_done
        steps = sum(len(ep) for ep in episodes)
    finally:
        if SlowFirstStep.hold is not None:
            SlowFirstStep.hold.set()
        SlowFirstStep.hold = None
        collector.close()
    assert steps >= 30
    if mode == "async":
        # the other env played 30 steps of whole episodes while the slow step was still running
        assert not slow_done_at_return
        assert collector.stats["straggler_seconds"] < SLOW_S / 4
    else:
        assert slow_done_at_return and elapsed >= SLOW_S  # the batch waited for the slow env
        assert collector.stats["straggler_seconds"] >= SLOW_S / 2 * 0.9  # one of two envs idle for SLOW_S


def test_async_episodes_carry_over_whole_and_consistent() -> None:
    policy = MenuPolicy(dim=DIM, hidden=16)
    collector = EpisodeCollector(
        [lambda: agentgym.make(ENV_ID, budget=5)] * 3,
        policy,
        dim=DIM,
        max_actions=MAX_ACTIONS,
        seed=0,
        threads=3,
        mode="async",
    )
    try:
        batches = [collector.collect(25) for _ in range(4)]
    finally:
        collector.close()
    for episodes in batches:
        assert sum(len(ep) for ep in episodes) >= 25
        for ep in episodes:  # whole episodes only, every field aligned
            assert (
                len(ep.steps)
                == len(ep.rewards)
                == len(ep.choices)
                == len(ep.logprobs)
                == len(ep.actions)
                == len(ep.events)
            )
            assert ep.truncated or ep.actions[-1] == "submit"
            assert len(ep) <= 5


def test_make_optimizer_is_adam_with_the_same_steps() -> None:
    """`make_optimizer` (Adam's fused kernel where torch has one) takes the steps plain Adam takes,
    and loads a plain Adam's state dict (checkpoints written before it)."""

    def train(make: Callable[[MenuPolicy], torch.optim.Optimizer]) -> list[torch.Tensor]:
        torch.manual_seed(0)
        policy = MenuPolicy(dim=16, hidden=8)
        opt = make(policy)
        for _ in range(20):
            opt.zero_grad()
            sum(((p - 0.1) ** 2).sum() for p in policy.parameters()).backward()
            opt.step()
        return [p.detach().clone() for p in policy.parameters()]

    fused = train(lambda m: make_optimizer(m, 3e-3))
    plain = train(lambda m: torch.optim.Adam(m.parameters(), lr=3e-3, eps=1e-5))
    for a, b in zip(fused, plain):
        assert torch.allclose(a, b, atol=1e-5)
    policy = MenuPolicy(dim=16, hidden=8)
    make_optimizer(policy, 3e-3).load_state_dict(torch.optim.Adam(policy.parameters(), lr=3e-3).state_dict())


def test_head_lr_scale_gives_the_scoring_terms_a_larger_step() -> None:
    """--head-lr-scale: the linear and bilinear scoring terms in their own group at lr x scale;
    every other parameter keeps the base rate, and the group says its scale (the trainer anneals by it)."""
    from baselines.policy.ppo import HEADS

    policy = MenuPolicy(dim=16, hidden=8)
    opt = make_optimizer(policy, 1e-3, head_lr_scale=10.0)
    assert [g["lr_scale"] for g in opt.param_groups] == [1.0, 10.0]
    assert opt.param_groups[1]["lr"] == pytest.approx(1e-2) and opt.param_groups[0]["lr"] == pytest.approx(1e-3)
    heads = {id(p) for n, p in policy.named_parameters() if n.split(".")[0] in HEADS}
    assert {id(p) for p in opt.param_groups[1]["params"]} == heads and heads
    assert len(make_optimizer(policy, 1e-3).param_groups) == 1  # scale 1: plain Adam's single group
