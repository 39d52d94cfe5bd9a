"""Browser-v0's Chromium backend: the same episodes as the text backend, step for step.

Parity: the oracle on one test task per template (also with each kind of fault at turn 2), a
seeded random-menu agent and an explorer with odd actions give identical observations, rewards,
events and menus on both backends (text on the local backend, Chromium in Docker). The oracle
solves a sample of test tasks in ``min_turns`` here; ``benchmarks/browser_chromium.py`` runs it on
all 360. Chromium and the site survive ``reset()``; ``close()`` leaves no container. With
``CI=true`` these tests fail instead of skipping when Docker or the image is missing.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from agentgym.envs.browser import BrowserEnv
from agentgym.envs.browser.env import CHROMIUM_IMAGE
from agentgym.envs.browser.site import CHROME_MODULE
from agentgym.errors import ConfigError
from support.docker import require_docker

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def chromium():
    require_docker(CHROMIUM_IMAGE)
    env = BrowserEnv(split="test", backend="docker", browser="chromium", render_mode="ansi")
    yield env
    env.close()


@pytest.fixture(scope="module")
def text():
    env = BrowserEnv(split="test", backend="local", render_mode="ansi")
    yield env
    env.close()


def _one_per_template(env) -> list[str]:
    seen: dict[str, str] = {}
    for tid in env.tasks.ids("test"):
        seen.setdefault(tid.rsplit("/", 1)[0], tid)
    return list(seen.values())


def _same_episode(text, chromium, task_id, seed, choose, limit=40):
    """Run one episode on both envs with the actions ``choose(env)`` picks on the text env; compare every step."""
    got = [env.reset(seed=seed, options={"task_id": task_id}) for env in (text, chromium)]
    assert got[0][0] == got[1][0], f"{task_id}: the first observations differ"
    assert got[0][1] == got[1][1]
    reward = 0.0
    for turn in range(limit):
        action = choose(text)
        steps = [env.step(action) for env in (text, chromium)]
        for i, name in enumerate(("observation", "reward", "terminated", "truncated", "info")):
            assert steps[0][i] == steps[1][i], f"{task_id} turn {turn + 1} {action!r}: the {name}s differ"
        if steps[0][2]:
            reward = steps[0][1]
            break
    return reward, text.turn


def test_oracle_episodes_are_identical_on_both_backends(text, chromium):
    for tid in _one_per_template(text):
        reward, turns = _same_episode(text, chromium, tid, 0, lambda env: env.reference_action())
        assert reward == 1.0 and turns == text.task.min_turns, (tid, reward, turns, chromium.verdict)


@pytest.mark.parametrize("seed", range(4))
def test_random_menu_agent_episodes_are_identical_on_both_backends(text, chromium, seed):
    rng = np.random.default_rng(seed)
    tasks = text.tasks.ids("test")
    for episode in range(3):
        tid = tasks[int(rng.integers(len(tasks)))]

        def pick(env):
            menu = env.admissible_actions()
            return menu[int(rng.integers(len(menu)))]

        _same_episode(text, chromium, tid, seed * 10 + episode, pick, limit=12)


# what a careless agent types: words into number boxes, spaces around an email, characters a URL
# must encode, markup; and moves off the menu (history, reload, scrolling, bad paths)
WORDS = ["many", "3", "-1", "Lamp", "a~b*c d", "  spaced  ", "\u00fcn\u00ef", "x@y.z", "", "<b>&amp;"]
MOVES = [
    "back()",
    "forward()",
    "reload()",
    'scroll("down")',
    'scroll("up")',
    'goto("/search?q=a~b c")',
    'goto("/nope#top")',
    'goto("/orders")',
    'goto("/forum/flags")',
    'goto("/admin/users?q=a")',
    "noop()",
]


def _explorer(rng):
    """Half menu actions, half any verb on any element of the page with odd arguments."""

    def pick(env):
        ids = re.findall(r"^\s*\[(\d+)\]", env.render() or "", re.M)
        if rng.random() < 0.5 or not ids:
            menu = env.admissible_actions()
            return menu[int(rng.integers(len(menu)))]
        ident, word = ids[int(rng.integers(len(ids)))], WORDS[int(rng.integers(len(WORDS)))]
        return [
            f"click({ident})",
            f'fill({ident}, "{word}")',
            f'select({ident}, "{word}")',
            f'press({ident}, "Enter")',
            MOVES[int(rng.integers(len(MOVES)))],
        ][int(rng.integers(5))]

    return pick


@pytest.mark.parametrize("seed", range(3))
def test_an_explorer_with_odd_actions_gets_identical_episodes(text, chromium, seed):
    rng = np.random.default_rng(100 + seed)
    tasks = text.tasks.ids("test")
    for episode in range(4):
        tid = tasks[int(rng.integers(len(tasks)))]
        _same_episode(text, chromium, tid, episode, _explorer(rng), limit=15)


@pytest.mark.parametrize("kind", ["tool_error", "timeout", "empty_output", "corrupted_output", "state_drift"])
def test_oracle_episodes_with_a_fault_are_identical_on_both_backends(text, chromium, kind):
    def oracle_with_a_fault_at_turn_2(env):  # called before each turn; arms the fault on both envs alike
        if env.turn == 1:
            text.inject_fault(kind)
            chromium.inject_fault(kind)
        return env.reference_action()

    for tid in _one_per_template(text)[::3]:
        reward, _ = _same_episode(text, chromium, tid, 5, oracle_with_a_fault_at_turn_2)
        assert reward == 1.0, (kind, tid, chromium.verdict)


def test_paths_a_browser_treats_specially_give_the_same_pages(text, chromium):
    """A fragment, a space, a full URL on this host, a double slash: the same request reaches the site."""
    moves = [
        'goto("/cart#top")',
        'goto("/orders?x=a b")',
        'goto("http://localhost/orders")',
        'goto("//x/y")',
        'goto("/admin/users#")',
        "back()",
        "back()",
        "go_forward()",
        "forward()",
        "reload()",
    ]
    tid = next(t for t in text.tasks.ids("test") if "/shop/" in t)
    _same_episode(text, chromium, tid, 0, lambda env: moves[env.turn], limit=len(moves))


@pytest.mark.slow
def test_oracle_solves_sampled_test_tasks_in_min_turns(chromium):
    failed = []
    for tid in chromium.tasks.ids("test")[::6]:
        obs, info = chromium.reset(seed=1, options={"task_id": tid})
        for turn in range(1, info["min_turns"] + 3):
            obs, reward, terminated, truncated, info = chromium.step(chromium.reference_action())
            if terminated:
                break
        if reward != 1.0 or turn != chromium.task.min_turns:
            failed.append((tid, reward, turn, chromium.verdict))
    assert not failed, failed[:3]


def test_the_browser_and_site_survive_reset_and_close_leaves_no_container():
    require_docker(CHROMIUM_IMAGE)
    from agentgym.sandbox.docker import docker_client

    env = BrowserEnv(split="test", backend="docker", browser="chromium")
    env.reset(seed=0)
    launched = dict(env.chromium)
    container = env.sandbox.container.id
    for seed in range(1, 4):
        obs, info = env.reset(seed=seed)
        obs, *_ = env.step(env.reference_action())
        assert not obs["text"].startswith("error"), obs["text"][:200]
    # the same Chromium (pid, origin) served every episode
    again = env.sandbox.call(CHROME_MODULE, "start")
    assert (again["pid"], again["origin"]) == (launched["pid"], launched["origin"])
    env.close()
    client = docker_client()
    assert not client.containers.list(all=True, filters={"id": container}, sparse=True)


def test_an_unknown_browser_is_refused_with_its_name():
    with pytest.raises(ConfigError, match="'firefox'"):
        BrowserEnv(browser="firefox")
