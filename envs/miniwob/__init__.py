"""agentgym/MiniWoB-v0: MiniWoB++'s own task pages, served offline in the sandbox's Chromium, as text tasks.

The pinned ``miniwob`` 1.1.0 pages (MIT) are fetched and hash-checked by `agentgym setup`, never
committed; the observation and the actions are Browser-v0's; the page's own script scores the
episode (success only at a raw reward of exactly 1.0). Imports are lazy, so the registry can read
the task list (`agentgym.envs.miniwob.tasks`) without loading the env.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MiniWoBEnv", "MiniWoBTasks", "TASKS", "task_env_id"]


def __getattr__(name: str) -> Any:
    if name == "MiniWoBEnv":
        from agentgym.envs.miniwob.env import MiniWoBEnv

        return MiniWoBEnv
    if name in ("MiniWoBTasks", "TASKS", "task_env_id"):
        from agentgym.envs.miniwob import tasks

        return getattr(tasks, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
