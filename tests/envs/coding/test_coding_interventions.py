"""Coding-v0's interventions: the forced wrong patch (a fixed rule per task)
and the drift that undoes the first edit."""

from __future__ import annotations

import pytest

from agentgym.envs.coding import CodingEnv
from agentgym.envs.coding.tasks import default_taskset
from agentgym.errors import ConfigError
from agentgym.make import wrap


@pytest.fixture(scope="module")
def env():
    e = CodingEnv(split="test", backend="local")
    yield e
    e.close()


def one_bug_tasks(n: int = 4) -> list[str]:
    """One-bug test-split tasks whose bug the visible tests reveal (the buggy code fails them)."""
    tasks = default_taskset()
    return [
        i
        for i in tasks.ids("test", "one_bug")
        if set(tasks.bugs_of(i)[0].covering) & set(tasks.corpus[tasks.bugs_of(i)[0].module].visible)
    ][:n]


def test_wrong_patch_is_a_menu_patch_that_fixes_nothing_and_depends_on_the_task_alone(env):
    other = CodingEnv(split="test", backend="local")
    try:
        for task_id in one_bug_tasks():
            _, info = env.reset(seed=0, options={"task_id": task_id})
            patch = env.wrong_patch()
            assert patch is not None and patch in info["admissible_actions"] and patch != env.reference_action()
            assert env.forced_start("wrong-patch") == [patch]
            assert env.forced_start("wrong-patch-tested") == [patch, "test"]
            # another env, another seed, after other steps: the same patch
            other.reset(seed=12345, options={"task_id": task_id})
            other.step("test")
            assert other.wrong_patch() == patch
    finally:
        other.close()


def test_the_forced_patch_is_wrong(env):
    task_id = one_bug_tasks(1)[0]
    env.reset(seed=0, options={"task_id": task_id})
    env.step(env.wrong_patch())
    *_, info = env.step("submit")
    assert info["success"] is False


def test_an_unknown_intervention_names_the_choices(env):
    env.reset(seed=0, options={"task_id": one_bug_tasks(1)[0]})
    with pytest.raises(ConfigError, match=r"wrong-patch.*wrong-patch-tested"):
        env.forced_start("right-patch")


def test_drift_on_the_first_edit_undoes_it_silently_and_the_test_then_fails(env):
    stack = wrap(env, budget=6, faults="state_drift@mutation=1")
    task_id = one_bug_tasks(1)[0]
    stack.reset(seed=0, options={"task_id": task_id})
    fix = env.reference_action()
    initial = env.task.files
    obs, *_, info = stack.step(fix)
    assert obs["text"].startswith("Patched")  # the agent is told its edit went through
    assert [e["kind"] for e in info["events"] if e["kind"] == "fault_injected"] == ["fault_injected"]
    path = fix.split("--- a/", 1)[1].split("\n", 1)[0]
    assert env.sandbox.read_file(path).decode() == initial[path]  # ... and it is gone
    *_, info = stack.step("test")
    assert [e["ok"] for e in info["events"] if e["kind"] == "verification"] == [False]


def test_the_oracle_recovers_from_the_drift_when_turns_remain(env):
    stack = wrap(env, budget=5, faults="state_drift@mutation=1")
    for task_id in one_bug_tasks(2):
        stack.reset(seed=0, options={"task_id": task_id})
        terminated = truncated = False
        fired = 0
        while not (terminated or truncated):
            *_, terminated, truncated, info = stack.step(env.reference_action())
            fired += sum(e["kind"] == "fault_injected" for e in info["events"])
        assert fired == 1 and terminated and info["success"], task_id
        assert info["turn"] == 4  # patch (undone), patch again, test, submit
