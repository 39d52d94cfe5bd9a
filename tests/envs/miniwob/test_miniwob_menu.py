"""MiniWoB-v0's ``menu="no-oracle"``: the page's elements and the instruction's texts, never the solver's action.

The menu-only adversary (`support.menu_adversary`) plays the solver on three test tasks of every
page. On the default menu it finds the solver's computed ``fill`` (the only ``fill`` new to the
menu: a sum, a copied paragraph, a word read off the page); without the oracle it finds nothing.
"""

from __future__ import annotations

import pytest

from agentgym.envs.miniwob import MiniWoBEnv
from agentgym.envs.miniwob.env import IMAGE
from agentgym.envs.miniwob.solvers import candidates
from agentgym.envs.miniwob.tasks import TASKS
from agentgym.errors import ConfigError
from support.docker import require_docker
from support.menu_adversary import STRUCTURAL, leaks, points_per_menu, position_hits

PER_PAGE = 3


@pytest.fixture(scope="module")
def points():
    require_docker(IMAGE)
    env = MiniWoBEnv(split="test", help_in_observation=False)
    try:
        ids = env.tasks.ids("test")
        tids = [t for page in TASKS for t in [x for x in ids if x.split("/")[1] == page][:PER_PAGE]]
        # one play of each page gives both menus: they are built on the host from the same state
        return points_per_menu(env, tids, ["oracle", "no-oracle"])
    finally:
        env.close()


@pytest.mark.docker
def test_the_adversary_finds_the_answer_on_the_default_menu(points):
    found = set(leaks(points["oracle"])) - set(STRUCTURAL)
    assert "only:new:fill" in found, found


@pytest.mark.docker
def test_no_menu_only_rule_finds_the_answer_without_the_oracle(points):
    pts = points["no-oracle"]
    assert set(leaks(pts)) <= set(STRUCTURAL), leaks(pts)
    chance = sum(1 / len(p.menu) for p in pts) / len(pts)
    assert max(position_hits(pts).values()) <= 2 * chance, (position_hits(pts), chance)
    loose = {r: fh for r, fh in leaks(pts, precision=0.75).items() if r not in STRUCTURAL}
    assert sum(f for f, _ in loose.values()) <= 0.02 * len(pts), loose


@pytest.mark.docker
def test_the_solvers_action_is_on_the_menu_where_the_page_and_instruction_state_it(points):
    pts = points["no-oracle"]
    present = sum(p.oracle in p.menu for p in pts) / len(pts)
    assert 0.75 <= present < 1.0, present
    # what is missing is worked out (arithmetic, a transformed or copied text) or read off the page
    by_page: dict[str, list[bool]] = {}
    for p in pts:
        by_page.setdefault(p.task_id.split("/")[1], []).append(p.oracle in p.menu)
    for page in ("click-button", "click-checkboxes", "enter-text", "login-user", "email-inbox", "search-engine"):
        assert all(by_page[page]), page
    assert not all(by_page["simple-arithmetic"])


def test_candidates_come_from_the_page_and_the_instruction_only():
    reply = {
        "utterance": 'Enter "Kasey" into the text field and press Submit. Then type 42.',
        "lines": [
            {"role": "textbox", "name": "", "value": "", "id": 5},
            {"role": "button", "name": "Submit", "id": 6},
            {"role": "StaticText", "name": "Result: 17", "id": 7},
            {"role": "combobox", "name": "", "id": 8, "options": [["a", "One"], ["b", "Two"]]},
        ],
    }
    menu = candidates(reply)
    assert 'fill(5, "Kasey")' in menu and 'fill(5, "42")' in menu and "click(6)" in menu and "click(5)" in menu
    assert 'select(8, "One")' in menu and 'select(8, "Two")' in menu
    assert not any("17" in m for m in menu)  # page text is not typed: reading it is the task's work
    assert not any('"into"' in m or '"Submit"' in m for m in menu)  # the instruction's glue words are not values


def test_menu_modes_are_checked():
    assert MiniWoBEnv(menu="no-oracle").menu == "no-oracle" and MiniWoBEnv().menu == "oracle"
    with pytest.raises(ConfigError, match="menu modes"):
        MiniWoBEnv(menu="nope")
