"""agentgym/ToolUse-v0: customer-service requests served through typed tools over SQLite.

Two domains (retail orders, travel bookings), written policies the tools do not enforce, three
tiers (one write, several writes, a request to refuse), train/test splits plus held-out
templates. Success is the final database state (and the answer, where one is asked for).
"""

from agentgym.envs.tooluse.env import ToolUseEnv
from agentgym.envs.tooluse.tasks import ToolUseTasks

__all__ = ["ToolUseEnv", "ToolUseTasks"]
