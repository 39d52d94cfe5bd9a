"""The cuts of issue 34 item 7 change no number: the cached menu features encode exactly what a fresh
computation encodes, and the policy's forward without `nn.Module` calls equals the modules' own."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import agentgym
from baselines.experiment.budget_env import RECOVER_ENV_ID
from baselines.policy import features
from baselines.policy.features import EpisodeMemory, menu_features, stack_steps
from baselines.policy.model import MenuPolicy


def _episode_steps(dim: int, seed: int) -> list:
    """Encoded decision points of one random-menu episode on the budget env."""
    env = agentgym.make(RECOVER_ENV_ID, budget=8)
    memory, rng, out = EpisodeMemory(dim, 16), np.random.default_rng(seed), []
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        step = memory.encode(obs, info)
        out.append(step)
        action = step.actions[int(rng.integers(len(step.actions)))]
        memory.record(action)
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    env.close()
    return out


def test_encoding_with_warm_caches_equals_encoding_from_empty_ones() -> None:
    cold = []
    for seed in range(4):
        menu_features.cache_clear()
        features._words.cache_clear()
        cold += _episode_steps(32, seed)
    warm = [s for seed in range(4) for s in _episode_steps(32, seed)]  # every menu now looked up
    assert menu_features.cache_info().hits > 0
    for a, b in zip(cold, warm, strict=True):
        assert a.actions == b.actions
        for name in ("observation", "budget", "progress", "candidates", "candidate_extras"):
            x, y = getattr(a, name), getattr(b, name)
            assert x.dtype == y.dtype == np.float32 and x.tobytes() == y.tobytes(), name


def test_cached_menu_arrays_are_read_only() -> None:
    menu = menu_features(("test", "revert", "submit"), 16)
    with pytest.raises(ValueError):
        menu.candidates[0, 0] = 1.0


def test_forward_equals_the_modules_called_one_by_one() -> None:
    torch.manual_seed(0)
    policy = MenuPolicy(dim=32, hidden=16)
    batch = {k: torch.as_tensor(v) for k, v in stack_steps(_episode_steps(32, 1), 16).items()}
    logits, value = policy.forward_batch(batch)
    context = torch.cat([batch["budget"], batch["progress"]], dim=-1)
    state = policy.state_encoder(torch.cat([batch["observation"], context], dim=-1))
    action_in = torch.cat([batch["candidates"], batch["candidate_extras"]], dim=-1)
    expected = (
        torch.einsum("bh,bah->ba", policy.state_query(state), policy.action_encoder(action_in))
        + policy.prior_score(action_in).squeeze(-1)
        + torch.einsum("bj,baj->ba", context @ policy.budget_score.weight[0], action_in)
        + policy.budget_score.bias
    )
    expected = expected.masked_fill(~batch["mask"], torch.finfo(expected.dtype).min)
    assert torch.equal(logits, expected)
    assert torch.equal(value, policy.value_head(state).squeeze(-1))
