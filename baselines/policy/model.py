"""The torch policy: a DRRN-style scorer of (observation, candidate action) pairs with a value head.

The observation side encodes the hashed text of the episode so far *together with the budget*
(turns left, turns used), so the same network can prefer checking its work when turns allow
and committing when they run out. Each candidate action of the menu is encoded separately and
scored against the observation encoding; padded menu slots are masked out. Everything is
batched: one forward scores the menus of many envs at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical
from torch.nn import functional as F

from baselines.policy.features import (
    BUDGET_FEATURES,
    CANDIDATE_EXTRAS,
    FEATURES_VERSION,
    PROGRESS_FEATURES,
)

__all__ = ["MenuPolicy", "pick_device", "masked_categorical"]


def pick_device(name: str = "auto") -> torch.device:
    """``auto``: CUDA when present, else the CPU; or any name torch accepts."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def _layer(n_in: int, n_out: int, std: float = float(np.sqrt(2))) -> nn.Linear:
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, 0.0)
    return layer


def masked_categorical(logits: torch.Tensor, mask: torch.Tensor) -> Categorical:
    """A categorical over the menu that gives padded slots zero probability."""
    return Categorical(logits=logits.masked_fill(~mask, torch.finfo(logits.dtype).min))


def _run(layers: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    """``layers(x)`` for a stack of `nn.Linear` and `nn.Tanh`, calling the same kernels
    (``F.linear``, ``torch.tanh``) without `nn.Module`'s call machinery: the same numbers, and
    about a third of a one-row forward's time saved (the evaluation acts one row at a time;
    benchmarks/encode.py)."""
    for layer in layers:
        if isinstance(layer, nn.Linear):
            x = F.linear(x, layer.weight, layer.bias)
        elif isinstance(layer, nn.Tanh):
            x = torch.tanh(x)
        else:
            x = layer(x)
    return x


class MenuPolicy(nn.Module):
    """Scores each candidate action against the observation and budget; value from the observation.

    Inputs (batch B, menu size A, text dim D): ``observation`` (B, 3D), ``budget``
    (B, BUDGET_FEATURES), ``progress`` (B, PROGRESS_FEATURES: the last check's verdict, an
    unverified edit, the last action's kind and error), ``candidates`` (B, A, 2D),
    ``candidate_extras`` (B, A, CANDIDATE_EXTRAS), ``mask`` (B, A) bool. Output: logits (B, A)
    and value (B,). `forward_batch` takes the dict `stack_steps` builds.

    ``features`` names the encoder whose inputs it learned (Coding's `EpisodeMemory`, version
    `FEATURES_VERSION`, or ``"family-v<N>"`` for `baselines.policy.family_features.FamilyMemory`): the
    shapes are the same, the meaning is not, so checkpoints record it and loading checks it.
    """

    def __init__(self, dim: int = 256, hidden: int = 128, features: int | str = FEATURES_VERSION) -> None:
        super().__init__()
        self.dim, self.hidden, self.features = dim, hidden, features
        self.state_encoder = nn.Sequential(
            _layer(3 * dim + BUDGET_FEATURES + PROGRESS_FEATURES, hidden), nn.Tanh(), _layer(hidden, hidden), nn.Tanh()
        )
        # DRRN: the score is an inner product of a state and an action embedding; the action side
        # also sees how the candidate relates to the episode (overlap, repeats), the state side the budget
        self.action_encoder = nn.Sequential(
            _layer(2 * dim + CANDIDATE_EXTRAS, hidden), nn.Tanh(), _layer(hidden, hidden)
        )
        self.state_query = _layer(hidden, hidden, std=0.1)
        # a direct linear path from the candidate alone (what a patch changes, its relation to the
        # episode): a prior over actions that generalises across tasks from the first updates
        self.prior_score = _layer(2 * dim + CANDIDATE_EXTRAS, 1, std=0.01)
        # the budget and the progress meet each candidate directly (bilinear): "one turn left ->
        # submit" and "the last test failed -> revert" are one weight each here, where through
        # the state MLP they must be found among every text feature
        self.budget_score = nn.Bilinear(BUDGET_FEATURES + PROGRESS_FEATURES, 2 * dim + CANDIDATE_EXTRAS, 1)
        nn.init.normal_(self.budget_score.weight, std=0.01)
        nn.init.constant_(self.budget_score.bias, 0.0)
        self.value_head = nn.Sequential(_layer(hidden, hidden), nn.Tanh(), _layer(hidden, 1, std=1.0))

    def forward(
        self,
        observation: torch.Tensor,
        budget: torch.Tensor,
        progress: torch.Tensor,
        candidates: torch.Tensor,
        candidate_extras: torch.Tensor,
        mask: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        context = torch.cat([budget, progress], dim=-1)
        state = _run(self.state_encoder, torch.cat([observation, context], dim=-1))  # (B, H)
        action_in = torch.cat([candidates, candidate_extras], dim=-1)
        acts = _run(self.action_encoder, action_in)  # (B, A, H)
        # budget_score(context, candidate) = context . W . candidate + b; context . W once per row,
        # not per candidate: the same value as nn.Bilinear on the repeated context, 22x fewer products
        budget_score = self.budget_score
        per_budget = context @ budget_score.weight[0]  # (B, candidate features)
        query, prior = self.state_query, self.prior_score
        logits = (
            torch.einsum("bh,bah->ba", F.linear(state, query.weight, query.bias), acts)
            + F.linear(action_in, prior.weight, prior.bias).squeeze(-1)
            + torch.einsum("bj,baj->ba", per_budget, action_in)
            + budget_score.bias
        )
        logits = logits.masked_fill(~mask, torch.finfo(logits.dtype).min)
        return logits, _run(self.value_head, state).squeeze(-1)

    def forward_batch(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """`forward` on the dict of tensors that `stack_steps` builds."""
        return self(
            batch["observation"],
            batch["budget"],
            batch["progress"],
            batch["candidates"],
            batch["candidate_extras"],
            batch["mask"],
        )

    def evaluate(
        self, batch: dict[str, torch.Tensor], actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Log-probability of ``actions``, the menu entropy and the value, for the PPO update."""
        logits, value = self.forward_batch(batch)
        dist = masked_categorical(logits, batch["mask"])
        return dist.log_prob(actions), dist.entropy(), value

    @torch.no_grad()
    def act(
        self, batch: dict[str, np.ndarray], *, greedy: bool = False, generator: torch.Generator | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Choose one menu index per row; returns (index, log-probability, value) as numpy arrays.

        The same numbers `masked_categorical` gives (its normalised logits and their softmax),
        without building the distribution: at one row per call, as in the evaluation, that halves
        the time of an act (tests/baselines/test_policy.py pins the equality).
        """
        device = self.prior_score.weight.device
        t = {k: torch.as_tensor(v, device=device) for k, v in batch.items()}
        logits, value = self.forward_batch(t)  # padded slots already at the dtype's minimum
        logp = logits - logits.logsumexp(dim=-1, keepdim=True)
        if greedy:
            index = logits.argmax(dim=-1)
        else:
            # sample on the CPU so one seeded CPU generator governs every device
            probs = torch.softmax(logp, dim=-1).float().cpu()
            index = torch.multinomial(probs, 1, generator=generator).squeeze(-1).to(device)
        chosen = logp.gather(-1, index.unsqueeze(-1)).squeeze(-1)
        return index.cpu().numpy(), chosen.cpu().numpy(), value.cpu().numpy()

    def config(self) -> dict[str, Any]:
        """Constructor arguments, stored in checkpoints so a policy is rebuilt without its script."""
        return {"dim": self.dim, "hidden": self.hidden, "features": self.features}
