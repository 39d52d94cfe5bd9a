"""Helpers for the red-team tests in tests/security: act only through the public grammar."""

from __future__ import annotations

from agentgym.envs.coding.tasks import default_taskset

__all__ = ["unfixed_task", "shell", "append_to_module", "oracle_episode"]


def unfixed_task(index: int = 0):
    """A one-bug test-split task; submitting it unfixed must score 0."""
    tasks = default_taskset()
    return tasks.get(tasks.ids("test", "one_bug")[index])


def shell(env, command: str) -> str:
    """One `run` turn; returns the observation text."""
    obs, _, _, _, _ = env.step("run " + command)
    return obs["text"]


def append_to_module(env, task, code: str) -> None:
    """Append Python code to the buggy module through `run`, as an agent can."""
    (bug,) = task.meta["bugs"]
    text = shell(env, f"cat >> {bug.file} <<'AGENTGYM_ATTACK'\n{code}\nAGENTGYM_ATTACK")
    assert "[exit code 0]" in text, text


def oracle_episode(env, task_id: str) -> float:
    """The oracle on a task: the env must still score honestly after an attack."""
    env.reset(options={"task_id": task_id})
    for _ in range(10):
        _, reward, terminated, truncated, _ = env.step(env.reference_action())
        if terminated or truncated:
            return reward
    return 0.0
