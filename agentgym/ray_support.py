"""Ray, an optional dependency: imported where a run asks for it, with an error that says how to install it.

Shared by everything that can run its work as Ray tasks or actors (the evaluation harness, the
experiment's job graph, SWE-v0's task generation), so none of them borrows it from another.
"""

from __future__ import annotations

from typing import Any

from agentgym.errors import ConfigError

__all__ = ["require_ray"]


def require_ray() -> Any:
    """The `ray` module, or a `ConfigError` that says how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigError("executor='ray' needs Ray: run `pip install ray` (plain ray, not ray[rllib])") from exc
    return ray
