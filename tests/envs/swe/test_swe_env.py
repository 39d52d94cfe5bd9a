"""SWE-v0 in the sandbox: the oracle on every library and tier, the actions, and what the agent sees."""

from __future__ import annotations

import pytest

from agentgym.envs.swe.build import default_taskset
from support.docker import require_docker

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def env():
    require_docker("agentgym/swe:latest")
    from agentgym.envs.swe import SWEEnv

    e = SWEEnv(split="test", backend="docker")
    yield e
    e.close()


def _first_tasks() -> list[str]:
    """The first test-split task of each (library, tier): the oracle's sample in CI."""
    seen: dict[tuple[str, str], str] = {}
    ts = default_taskset()
    for split in ts.splits:
        for tid, tier, library in ts.catalog(split):
            seen.setdefault((library, tier), tid)
    return sorted(seen.values())


def _play_oracle(env, task_id: str) -> tuple[float, int]:
    env.reset(options={"task_id": task_id})
    for turn in range(1, 20):
        _, reward, terminated, _, _ = env.step(env.reference_action())
        if terminated:
            return reward, turn
    return 0.0, 20


@pytest.mark.slow
def test_the_oracle_solves_a_task_of_every_library_and_tier_at_min_turns(env):
    failed = []
    for tid in _first_tasks():
        reward, turns = _play_oracle(env, tid)
        if reward != 1.0 or turns != env.task.min_turns:
            failed.append((tid, reward, turns, env.unwrapped.last_verdict))
    assert not failed


def test_the_first_observation_is_the_report_the_tree_and_the_actions(env):
    tid = _first_tasks()[0]
    obs, info = env.reset(options={"task_id": tid})
    text = obs["text"]
    assert "fails" in text and "The repository (the current directory):" in text and "search PATTERN" in text
    assert env.task.meta["fail_to_pass"][0] in text
    menu = info["admissible_actions"]
    assert menu[0] == "test" and menu[-1] == "submit" and sum(a.startswith("patch") for a in menu) >= 2


def test_reading_actions(env):
    tid = _first_tasks()[0]
    env.reset(options={"task_id": tid})
    path = env.task.meta["record"].files[0]
    function = str(env.task.meta["record"].bugs[0]["function"]).split(".")[-1]
    obs, *_ = env.step(f"find {function}")
    assert f"{path}:" in obs["text"] and function in obs["text"]
    obs, *_ = env.step(f"search {function} {path}")
    assert obs["text"].startswith(path)
    obs, *_ = env.step(f"view {path} 1-3")
    assert obs["text"].startswith(f"{path} (lines 1-3 of")
    obs, _, _, _, info = env.step(f"view {path} 99999-100000")
    assert obs["text"].startswith("error:") and any(e["kind"] == "state_mismatch" for e in info["events"])
    obs, *_ = env.step("view no/such/file.py")
    assert obs["text"].startswith("error:")
    obs, *_ = env.step("search '(unclosed'")
    assert "error" in obs["text"] or "no match" in obs["text"]


def test_test_runs_chosen_tests_and_reports_failures_first(env):
    tid = _first_tasks()[0]
    env.reset(options={"task_id": tid})
    failing = env.task.meta["fail_to_pass"][0]
    passing = env.task.meta["pass_to_pass"][0]
    obs, _, _, _, info = env.step(f"test {failing} {passing}")
    assert obs["text"].startswith(("FAILED", "ERROR")) and failing in obs["text"]
    assert "1 passed" in obs["text"]
    assert any(e["kind"] == "verification" and not e["ok"] for e in info["events"])
    obs, *_ = env.step("test tests/no_such_test.py::test_nothing")
    assert "no_such_test" in obs["text"]


def test_the_minimal_statement_names_no_test():
    require_docker("agentgym/swe:latest")
    from agentgym.envs.swe import SWEEnv

    tid = _first_tasks()[0]
    env = SWEEnv(split="test", backend="docker", statement="minimal")
    try:
        obs, _ = env.reset(options={"task_id": tid})
        head = obs["text"].split("The repository")[0]
        assert "fails" in head and not any(t in head for t in env.task.meta["fail_to_pass"])
    finally:
        env.close()


def test_garbage_actions_cost_a_turn_and_never_raise(env):
    env.reset(options={"task_id": _first_tasks()[0]})
    for action in ["", "\x00\x01", "patch\nnot a diff", "replace x.py 5-1", "test --collect-only", "x" * 20_000]:
        obs, reward, terminated, truncated, _ = env.step(action)
        assert isinstance(obs["text"], str) and reward == 0.0 and not terminated
