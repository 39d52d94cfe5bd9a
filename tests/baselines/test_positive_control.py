"""The positive control's known answers hold, and the control runs end to end."""

from __future__ import annotations

import numpy as np
import pytest

import agentgym
from baselines.config import TrainSettings
from baselines.experiment.budget_env import ENV_ID, optimum
from baselines.experiment.control import EASY_CONTROL_ENV


def _careful_then_commit(env, turns: int, episodes: int) -> float:
    """Patch the clue, test it, patch an untried name after a failing test; submit on a pass or the last turn."""
    wins = 0
    for e in range(episodes):
        obs, info = env.reset(seed=e)
        names = env.unwrapped.names
        clue = next(w for w in names if w in obs["text"])
        order = iter([clue] + [w for w in names if w != clue])
        left, done, last = turns, False, "start"
        while not done:
            if left == 1 or last == "pass":
                action = "submit"
            elif last == "patched":
                action = "run tests"
            else:  # the start, or a failing test
                action = f"patch {next(order)}"
            obs, _, terminated, truncated, info = env.step(action)
            left -= 1
            done = terminated or truncated
            if action == "run tests":
                ok = any(ev.get("kind") == "verification" and ev.get("ok") for ev in info["events"])
                last = "pass" if ok else "fail"
            elif action.startswith("patch"):
                last = "patched"
        wins += bool(info.get("success", False))
    return wins / episodes


@pytest.mark.parametrize("turns", [2, 4, 8, 10])
def test_optimum_is_what_the_known_best_strategy_scores(turns: int) -> None:
    env = agentgym.make(ENV_ID, budget=turns, split="test")
    try:
        got = _careful_then_commit(env, turns, 600)
    finally:
        env.close()
    assert got == pytest.approx(optimum(turns), abs=0.06)
    assert optimum(2) == pytest.approx(0.6) and optimum(8) == pytest.approx(0.9) and optimum(10) == pytest.approx(1.0)


@pytest.mark.slow
def test_positive_control_runs_the_real_trainer() -> None:
    from baselines.experiment.control import run_control

    result = run_control(steps=128, seeds=(1,), eval_ts=(2, 10), episodes=8, env_id=EASY_CONTROL_ENV)
    assert set(result["by_T"]) == {
        "fixed-T2",
        "fixed-T10",
        "budgetmix",
    }  # no cloned arm: the clone is the faithful env's
    for by_t in result["by_T"].values():
        assert by_t["2"]["optimum"] == pytest.approx(0.6) and 0.0 <= by_t["10"]["success"] <= 1.0
        assert by_t["10"]["wrong_first"] >= by_t["10"]["recovered"] >= 0
    assert np.isfinite(result["by_T"]["budgetmix"]["2"]["success"])


# ---------------------------------------------------------------- the faithful control (issue 24)
@pytest.mark.parametrize(
    "turns", [2, 5, pytest.param(8, marks=pytest.mark.slow), pytest.param(10, marks=pytest.mark.slow)]
)
def test_recover_optimum_is_what_the_known_best_policy_scores(turns: int) -> None:
    """The dynamic programme's value is what its policy scores when played on the env."""
    from baselines.experiment.budget_env import recover_optimum
    from baselines.experiment.control import best_policy_score

    assert best_policy_score(turns, 1500) == pytest.approx(recover_optimum(turns), abs=0.04)


def test_recovery_needs_a_revert_and_a_failing_test_is_evidence() -> None:
    from baselines.experiment.budget_env import (
        RECOVER_ENV_ID,
        recover_best_action,
        recover_optimum,
    )

    values = [recover_optimum(t) for t in range(2, 17)]
    assert values[0] == pytest.approx(0.6) and all(b >= a - 1e-12 for a, b in zip(values, values[1:]))
    assert all(recover_optimum(t) < optimum(t) for t in (4, 6, 8, 10))  # the revert costs turns the easy env does not
    assert recover_best_action(6, 1, (0, 1, 0, 0, 0)) == "revert"  # a failed try: undo it
    env = agentgym.make(RECOVER_ENV_ID, budget=8, split="train")
    try:
        obs, info = env.reset(seed=0)
        base = env.unwrapped
        right, wrong = base.names[base.answer], base.names[(base.answer + 1) % base.n]
        for action in (f"patch {wrong}", f"patch {right}"):  # the fix on top of a wrong patch: still broken
            obs, _, _, _, info = env.step(action)
        assert env.unwrapped.reference_action() == "revert"
        obs, *_ = env.step("run tests")
        assert obs["text"].startswith("tests fail")
        for action in ("revert", "revert", f"patch {right}"):
            obs, *_ = env.step(action)
        obs, _, terminated, _, info = env.step("submit")
        assert terminated and info["success"]
    finally:
        env.close()
    # the right patch's test fails 10% of the time: evidence, not proof
    env = agentgym.make(RECOVER_ENV_ID, budget=400, split="train")
    try:
        obs, info = env.reset(seed=1)
        env.step(f"patch {env.unwrapped.names[env.unwrapped.answer]}")
        fails = sum(env.step("run tests")[0]["text"].startswith("tests fail") for _ in range(300))
    finally:
        env.close()
    assert 15 <= fails <= 50


def test_the_trainer_learns_the_short_budget_best_policy_of_the_faithful_control(tmp_path) -> None:
    """fixed-T2 on the faithful env: the best policy at T=2 is "patch the clue, submit" (0.6; a blind
    pick 0.2). 2,000 env steps (seconds on one core). The long-budget best policy (test, revert,
    retry) is not learned reliably at this size (docs/baselines.md, positive control)."""
    import dataclasses

    from baselines.config import PRESETS, Args
    from baselines.experiment.control import CONTROL_ENV, _score
    from baselines.policy.agent import load_policy
    from baselines.policy.train import train

    args = dataclasses.replace(
        Args(**{**PRESETS["quick"], "preset": "quick"}),
        env_ids=CONTROL_ENV,
        backend="local",
        total_env_steps=2000,
        track=False,
        progress=False,
        dim=64,
        hidden=64,
        env_threads=1,
        schedule="fixed:2",
        seed=1,
        out=str(tmp_path),
    )
    policy, ckpt = load_policy(train(TrainSettings.from_args(args), "control")["checkpoint"])
    score = _score(policy, int(ckpt["max_actions"]), 2, 300, seed=7)
    assert score["optimum"] == pytest.approx(0.6) and score["success"] >= 0.5


# ---------------------------------------------------------------- the optimum cloned, and PPO from it (issue 34)
def test_action_values_agree_with_the_best_action() -> None:
    """`recover_action_values` is the programme `recover_best_action` maximises: its best action is
    one of the highest-valued, whose value is the state's optimum."""
    from itertools import product

    from baselines.experiment.budget_env import recover_action_values, recover_best_action, recover_optimum

    for left, cur, fails in product(range(1, 11), (None, 0, 1), ((0,) * 5, (1, 0, 0, 0, 0), (1, 1, 0, 0, 0))):
        values = recover_action_values(left, cur, fails)
        assert values[recover_best_action(left, cur, fails)] == pytest.approx(max(values.values()))
    assert max(recover_action_values(10, None, (0,) * 5).values()) == pytest.approx(recover_optimum(10))
    # the optimum tests the other patches first and commits to the clue (a noisy test) last
    assert recover_best_action(10, None, (0,) * 5) != "patch 0" and recover_best_action(2, None, (0,) * 5) == "patch 0"
    assert recover_action_values(3, 1, (0,) * 5, passed=True) == {"submit": 1.0}


def test_the_cloned_optimum_scores_the_optimum() -> None:
    """The known best policy, behaviour-cloned into the trainer's network, plays it: a best action
    with probability >= 0.99 in almost every state it visits, and the optimum's success at T = 2, 5, 10
    when sampled by the evaluation agent (400-600 episodes: standard errors 0.02-0.025)."""
    from baselines.experiment.budget_env import recover_optimum
    from baselines.experiment.control import _score, clone_optimum

    policy, fit = clone_optimum(64, 64)
    assert fit["share_p_best_ge_0.99"] >= 0.99 and fit["value_mse"] < 0.02
    for t, episodes in ((2, 400), (5, 400), (10, 600)):
        score = _score(policy, 32, t, episodes, seed=11)
        # 3 standard errors; at T=10 the clue-first test-and-retry loop (0.73) is outside
        assert score["success"] == pytest.approx(recover_optimum(t), abs=0.06 if t < 10 else 0.05), (t, score)
    assert score["recovered"] > 0.5 * score["wrong_first"]  # T=10: most wrong first patches are recovered from


def test_ppo_from_a_start_policy_begins_at_its_weights(tmp_path) -> None:
    """`_start_from` hands the trainer a step-0 checkpoint: with a learning rate of 0 the run ends
    with the weights it started from, and its step count is the run's own."""
    import dataclasses

    import torch

    from baselines.config import PRESETS, Args
    from baselines.experiment.control import CONTROL_ENV, _start_from
    from baselines.policy.agent import load_policy
    from baselines.policy.model import MenuPolicy
    from baselines.policy.train import train

    torch.manual_seed(123)
    start = MenuPolicy(dim=64, hidden=64).state_dict()
    args = dataclasses.replace(
        Args(**{**PRESETS["quick"], "preset": "quick"}),
        env_ids=CONTROL_ENV,
        backend="local",
        total_env_steps=128,
        track=False,
        progress=False,
        dim=64,
        hidden=64,
        env_threads=1,
        schedule="fixed:10",
        seed=1,
        out=str(tmp_path),
        learning_rate=0.0,
    )
    summary = train(_start_from(TrainSettings.from_args(args), "from-start", start), "from-start")
    policy, _ = load_policy(summary["checkpoint"])
    assert summary["env_steps"] >= 128 and summary["updates"] >= 1
    assert all(torch.equal(policy.state_dict()[k], v) for k, v in start.items())


@pytest.mark.slow
def test_the_control_has_a_scratch_and_a_cloned_arm_at_a_tiny_budget() -> None:
    """The experiment's control: the three schedules from scratch with `CONTROL_SETTING`, and fixed-T10
    from the cloned optimum; every cell has its interval over seeds."""
    from baselines.experiment.control import CONTROL_SETTING, run_control

    result = run_control(steps=128, seeds=(1, 2), t_short=2, t_long=10, eval_ts=(2, 10), episodes=8)
    assert result["arms"] == {
        "fixed-T2": "scratch",
        "fixed-T10": "scratch",
        "budgetmix": "scratch",
        "fixed-T10 from the optimum": "cloned",
    }
    assert set(result["by_T"]) == set(result["arms"]) and result["setting"] == CONTROL_SETTING
    assert set(result["cloned_start"]) == {"2", "10"} and result["clone_fit"]["demonstrations"] > 0
    for by_t in result["by_T"].values():
        cell = by_t["10"]
        assert (
            len(cell["success_per_seed"]) == 2 and cell["success_ci95"][0] <= cell["success"] <= cell["success_ci95"][1]
        )
