"""The start-state curriculum (issue 24): where forced starts begin, played through the env."""

from __future__ import annotations

import pytest

import agentgym
from baselines.experiment.budget_env import RECOVER_ENV_ID
from baselines.policy.model import MenuPolicy
from baselines.policy.rollout import EpisodeCollector, parse_start_patch

DIM, MAX_ACTIONS = 32, 16


def _starts(spec: str, episodes: int = 40, budget: int = 8) -> list[tuple[bool, int, str]]:
    """(first patch right, turns spent, last observation) of ``episodes`` forced starts."""
    collector = EpisodeCollector(
        [lambda: agentgym.make(f"baselines.experiment.budget_env:{RECOVER_ENV_ID}", budget=budget)],
        MenuPolicy(dim=DIM, hidden=16),
        dim=DIM,
        max_actions=MAX_ACTIONS,
        seed=3,
        threads=1,
        recovery_starts=1.0,
        recovery_start_patch=spec,
    )
    out = []
    try:
        for e in range(episodes):
            collector._reset(0, e)
            base = collector.envs[0].unwrapped
            first = collector.memories[0]._taken  # the actions the memory saw, as if the policy took them
            patch = next(a for a in first if a.startswith("patch "))
            out.append((patch == f"patch {base.names[base.answer]}", base.turn, str(collector._obs[0]["text"])))
    finally:
        collector.close()
    assert collector.forced_episodes == episodes
    return out


def test_wrong_starts_begin_after_a_wrong_patch_and_its_failing_test() -> None:
    starts = _starts("wrong")
    assert not any(right for right, _, _ in starts)
    assert {turns for _, turns, _ in starts} == {2, 3}  # patch, test (and, half the time, revert)
    assert all(text in ("tests fail", "reverted") for _, _, text in starts)


def test_right_starts_also_begin_after_the_fix_and_its_test() -> None:
    starts = _starts("right:0.5")
    rights = [s for s in starts if s[0]]
    assert 8 <= len(rights) <= 32  # about half of 40
    # the fix's test passes (90%: the faithful env's test misses 10%); nothing to undo after a pass
    assert sum(text == "tests pass" for _, _, text in rights) >= len(rights) // 2
    assert all(turns == 2 for _, turns, text in rights if text == "tests pass")
    assert all(right for right, _, _ in _starts("right:1.0", episodes=10))


@pytest.mark.parametrize(("budget", "most"), [(2, 1), (3, 2), (4, 3), (12, 3)])
def test_every_budget_gets_forced_starts_that_leave_the_policy_a_turn(budget: int, most: int) -> None:
    """Equal exposure (issue 34): a short budget gets the same share of starts as a long one, cut
    to the turns the episode has less one (at T=2 the patch alone, at T=3 the patch and its test)."""
    starts = _starts("wrong", episodes=12, budget=budget)  # asserts that every episode got a start
    assert max(turns for _, turns, _ in starts) == most
    assert all(turns <= budget - 1 for _, turns, _ in starts)


def test_a_budget_of_one_gets_no_forced_start() -> None:
    collector = EpisodeCollector(
        [lambda: agentgym.make(f"baselines.experiment.budget_env:{RECOVER_ENV_ID}", budget=1)],
        MenuPolicy(dim=DIM, hidden=16),
        dim=DIM,
        max_actions=MAX_ACTIONS,
        seed=3,
        threads=1,
        recovery_starts=1.0,
        recovery_start_patch="wrong",
    )
    try:
        collector._reset(0, 0)
        assert collector.envs[0].unwrapped.turn == 0 and collector.forced_episodes == 0
    finally:
        collector.close()


def test_parse_start_patch() -> None:
    assert parse_start_patch("wrong") == ("wrong", 0.0)
    assert parse_start_patch("any") == ("any", 0.0)
    assert parse_start_patch("right:0.3") == ("right", 0.3)
    for bad in ("right", "right:x", "right:1.5", "both"):
        with pytest.raises(ValueError, match="recovery_start_patch"):
            parse_start_patch(bad)
