"""How well the policy's candidate features can tell a true fix from a decoy patch, offline.

A supervised upper reference for the RL policy's first decision on Coding-v0: a linear ranker
(softmax over each task's candidate patches) trained on the train split with the true fixes as
labels, then scored on the test split. It compares three feature sets the policy could use: the
hashed tokens of the whole diff, the change features (`baselines.policy.features.change_features`),
and both. No sandbox is needed: candidates and labels come from the task data.

    python -m baselines.policy.patch_ranker                    # 600 train tasks, 300 test tasks
    python -m baselines.policy.patch_ranker --test-split heldout   # scored on modules never trained on
    python -m baselines.policy.patch_ranker --train 100 --test 60 --json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

import numpy as np
import torch

from agentgym.envs.coding.tasks import CodingTasks
from baselines.policy.features import change_features, text_features

__all__ = ["FEATURE_SETS", "candidate_sets", "rank_accuracy", "main"]

FEATURE_SETS = ("whole_diff", "change", "both")
"""The compared inputs: hashed whole diff, the change features, both together."""


def _features(action: str, dim: int, which: str) -> np.ndarray:
    parts = [text_features(action, dim)] if which in ("whole_diff", "both") else []
    if which in ("change", "both"):
        change, is_patch, balance = change_features(action, dim)
        parts += [change, np.array([is_patch, balance], dtype=np.float32)]
    return np.concatenate(parts).astype(np.float32)


def candidate_sets(split: str, n: int, seed: int = 0) -> list[tuple[list[str], np.ndarray]]:
    """``n`` tasks of ``split`` (shuffled with ``seed``): each task's patch actions as the menu shows them,
    and which are true fixes."""

    tasks = CodingTasks()
    ids = list(tasks.ids(split))
    random.Random(seed).shuffle(ids)
    out = []
    for task_id in ids[:n]:
        task = tasks.get(task_id)
        actions, labels = [], []
        for cand in task.meta["candidates"]:
            diff = cand.patch(task.files[cand.file])
            if diff is not None:
                actions.append("patch\n" + diff)
                labels.append(bool(cand.fix))
        out.append((actions, np.array(labels)))
    return out


def rank_accuracy(
    train: list[tuple[list[str], np.ndarray]],
    test: list[tuple[list[str], np.ndarray]],
    which: str,
    *,
    dim: int = 256,
    epochs: int = 60,
    seed: int = 0,
) -> dict[str, float]:
    """Top-1 accuracy (a true fix ranked first) of a linear ranker on ``which`` features; and a blind pick's."""
    if which not in FEATURE_SETS:
        raise ValueError(f"feature set {which!r}; choose one of {FEATURE_SETS}")
    torch.manual_seed(seed)

    def pad(data: list[tuple[list[str], np.ndarray]]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        rows = [np.stack([_features(a, dim, which) for a in actions]) for actions, _ in data]
        width = max(len(r) for r in rows)
        x = np.zeros((len(data), width, rows[0].shape[1]), dtype=np.float32)
        y = np.zeros((len(data), width), dtype=bool)
        mask = np.zeros((len(data), width), dtype=bool)
        for i, (row, (actions, labels)) in enumerate(zip(rows, data)):
            x[i, : len(actions)] = row
            y[i, : len(actions)] = labels
            mask[i, : len(actions)] = True
        return torch.as_tensor(x), torch.as_tensor(y), torch.as_tensor(mask)

    x, y, mask = pad(train)
    w = torch.zeros(x.shape[-1], requires_grad=True)
    optimizer = torch.optim.Adam([w], lr=0.05)
    for _ in range(epochs):
        logp = torch.log_softmax((x @ w).masked_fill(~mask, -1e9), dim=-1)
        # likelihood of the true fixes (several in multi-bug tasks), a little L2
        loss = -(logp * y).sum(-1).div(y.sum(-1).clamp(min=1)).mean() + 1e-3 * (w**2).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    def accuracy(x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor) -> tuple[float, float]:
        with torch.no_grad():
            best = (x @ w).masked_fill(~mask, -1e9).argmax(-1)
        top1 = y[torch.arange(len(y)), best].float().mean().item()
        blind = (y.sum(-1) / mask.sum(-1)).float().mean().item()
        return top1, blind

    train_top1, train_blind = accuracy(x, y, mask)
    test_top1, test_blind = accuracy(*pad(test))
    return {"train_top1": train_top1, "train_blind": train_blind, "test_top1": test_top1, "test_blind": test_blind}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m baselines.policy.patch_ranker", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--train", type=int, default=600, help="train-split tasks to fit on")
    parser.add_argument("--test", type=int, default=300, help="test-split tasks to score")
    parser.add_argument(
        "--test-split", default="test", help="split to score: test (unseen bugs) or heldout (unseen modules)"
    )
    parser.add_argument("--dim", type=int, default=256, help="hashed feature size")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    train, test = candidate_sets("train", args.train), candidate_sets(args.test_split, args.test)
    results: dict[str, Any] = {w: rank_accuracy(train, test, w, dim=args.dim) for w in FEATURE_SETS}
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    print(f"{args.train} train tasks, {args.test} {args.test_split} tasks; top-1 = a true fix ranked first")
    print("| features | train top-1 | scored-split top-1 | blind pick (scored split) |\n|---|---|---|---|")
    for which, r in results.items():
        print(f"| {which} | {r['train_top1']:.2f} | {r['test_top1']:.2f} | {r['test_blind']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
