"""agentgym/MiniWoB-v0: MiniWoB++'s own task pages, served offline in the sandbox's Chromium, as text tasks.

The pinned ``miniwob`` 1.1.0 pages (MIT) are fetched and hash-checked by `agentgym setup`, never
committed; the observation and the actions are Browser-v0's; the page's own script scores the
episode (success only at a raw reward of exactly 1.0).
"""

from agentgym.envs.miniwob.env import MiniWoBEnv
from agentgym.envs.miniwob.tasks import TASKS, MiniWoBTasks, task_env_id

__all__ = ["MiniWoBEnv", "MiniWoBTasks", "TASKS", "task_env_id"]
