"""ToolUse-v0's ``menu="no-oracle"``: a menu that does not hand out the answer, attacked by a menu-only adversary.

The adversary (`support.menu_adversary`) plays the oracle through every test task and tries the
rules a menu policy could learn without solving anything: the k-th entry, or the only entry with
some verb, argument, word, unseen word, length or novelty, fitted on half the tasks and scored on
the other half. On the default menu it finds the oracle's grounded refusal by its reasons (the
only entry holding "delivered", "days", ...): that test is kept, so the adversary is known to
bite. The local backend runs the same world code as Docker's (test_tooluse_env.py covers both).
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import agentgym
from agentgym.core import MAX_MENU
from agentgym.envs.browser import BrowserEnv
from agentgym.envs.tooluse import ToolUseEnv
from agentgym.errors import ConfigError
from support.menu_adversary import STRUCTURAL, decision_points, leaks, position_hits


@pytest.fixture(scope="module")
def points():
    """Every decision point of the oracle over the test split, per menu mode."""
    out = {}
    for mode in ("oracle", "no-oracle"):
        env = ToolUseEnv(split="test", backend="local", menu=mode)
        try:
            out[mode] = decision_points(env, env.tasks.ids("test"))
        finally:
            env.close()
    return out


def test_the_adversary_finds_the_answer_on_the_default_menu(points):
    found = set(leaks(points["oracle"])) - set(STRUCTURAL)
    assert found, "the default menu holds the oracle's reasoned refusal: the adversary must find it"
    assert any(rule.startswith("only:word:") for rule in found)


def test_no_menu_only_rule_finds_the_answer_without_the_oracle(points):
    pts = points["no-oracle"]
    assert len({p.task_id for p in pts}) >= 50
    assert set(leaks(pts)) <= set(STRUCTURAL), leaks(pts)
    # position: no k-th entry (from either end) is the oracle's action more than twice as often as chance
    chance = sum(1 / len(p.menu) for p in pts) / len(pts)
    assert max(position_hits(pts).values()) <= 2 * chance, (position_hits(pts), chance)
    # and the looser the adversary, the less it may find: even rules right 3 times in 4 are rare
    loose = {r: fh for r, fh in leaks(pts, precision=0.75).items() if r not in STRUCTURAL}
    assert sum(f for f, _ in loose.values()) <= 0.02 * len(pts), loose


def test_the_oracles_action_is_not_always_on_the_menu_yet_every_task_stays_solvable(points):
    pts = points["no-oracle"]
    absent = [p for p in pts if p.oracle not in p.menu]
    assert 0 < len(absent) < 0.1 * len(pts)
    # what is missing is the oracle's own wording of a refusal; the menu's plain refusal passes (below)
    assert all(p.oracle.startswith("finish(") and "sorry" in p.oracle for p in absent)


def test_a_menu_player_solves_every_test_task_without_the_oracle_on_the_menu():
    env = ToolUseEnv(split="test", backend="local", menu="no-oracle")
    plain_refusal = env.finish_action(env.refusal_answer)
    try:
        for tid in env.tasks.ids("test")[::4]:
            obs, info = env.reset(options={"task_id": tid})
            for _ in range(20):
                ref = env.reference_action()
                action = ref if ref in info["admissible_actions"] else plain_refusal
                assert action in info["admissible_actions"], (tid, ref)
                obs, reward, terminated, _, info = env.step(action)
                if terminated:
                    break
            assert reward == 1.0, (tid, env.verdict)
    finally:
        env.close()


def test_the_menu_never_asks_the_oracle_and_is_the_same_for_the_same_state(monkeypatch):
    env = ToolUseEnv(split="test", backend="local", menu="no-oracle")
    try:
        tid = [t for t in env.tasks.ids("test") if "/refuse" in t][0]
        obs, info = env.reset(options={"task_id": tid})
        played = []
        for _ in range(6):
            ref = env.reference_action()
            played.append(ref)
            obs, _, terminated, _, info = env.step(ref)
            if terminated:
                break
        # replay the same actions with an oracle that fails when asked: the menus are the same
        first = [info["admissible_actions"]]

        def no_oracle() -> str:
            raise AssertionError("the no-oracle menu asked the oracle")

        monkeypatch.setattr(env, "reference_action", no_oracle)
        obs, info = env.reset(options={"task_id": tid})
        for action in played:
            assert 1 <= len(info["admissible_actions"]) <= MAX_MENU
            assert info["admissible_actions"] == env.admissible_actions()  # asking again changes nothing
            obs, _, terminated, _, info = env.step(action)
        assert [info["admissible_actions"]] == first
    finally:
        env.close()


def test_the_default_menu_is_unchanged_and_modes_are_checked():
    env = ToolUseEnv(split="test", backend="local")
    try:
        assert env.menu == "oracle"
        obs, info = env.reset(options={"task_id": env.tasks.ids("test")[0]})
        menu = info["admissible_actions"]
        assert env.reference_action() in menu and menu == sorted(menu)
    finally:
        env.close()
    with pytest.raises(ConfigError, match="no-oracle"):
        ToolUseEnv(menu="blind")
    with pytest.raises(ConfigError, match="menu modes"):  # Browser-v0's world menu is built by its sites, not audited
        BrowserEnv(menu="no-oracle")
    gym.register_envs(agentgym)
    made = gym.make("agentgym/ToolUse-v0", menu="no-oracle", backend="local")
    try:
        assert made.unwrapped.menu == "no-oracle" and made.spec is not None and made.spec.kwargs["menu"] == "no-oracle"
    finally:
        made.close()
