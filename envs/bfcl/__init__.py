"""agentgym/BFCL-v0: the Berkeley Function Calling Leaderboard's multi-turn tasks, run in the sandbox.

The pinned ``bfcl-eval`` wheel (Apache-2.0) is fetched and hash-checked by `agentgym setup`, never
committed (`agentgym.setup.api_images`); its API classes run inside the sandbox, driven by calls
parsed with agentgym's grammar; the verdict is BFCL's own, per user turn. Imports are lazy, so the
registry can name the categories without loading the data.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BFCLEnv", "BFCLTasks", "CATEGORIES", "category_env_id"]


def __getattr__(name: str) -> Any:
    if name == "BFCLEnv":
        from agentgym.envs.bfcl.env import BFCLEnv

        return BFCLEnv
    if name in ("BFCLTasks", "CATEGORIES", "category_env_id"):
        from agentgym.envs.bfcl import tasks

        return getattr(tasks, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
