"""Two scripted Browser-v0 policies for the budget experiment (issue 14 item 6), as `agentgym eval` agents.

About a third of listing rows are wrong (`templates.stale_listings`), so the budget decides which
habit pays. **Careful** is the oracle: it opens every record's own page before answering or
refusing and re-reads what it wrote. **Hasty** reads answers and refusals off the first listing row
that shows them and never re-reads its writes: a turn fewer per lookup, refusal or write, and wrong
when the listing is (a listing row grounds a refusal, but a refusal of an allowed request fails).

    agentgym eval --env agentgym/Browser-v0 --agent agentgym.envs.browser.policies:hasty --t 4,8,16 --k 1
"""

from __future__ import annotations

from typing import Any

__all__ = ["ScriptedPolicy", "hasty", "careful"]


class ScriptedPolicy:
    """An eval agent that asks the env for its scripted next action (``hasty`` or ``careful``)."""

    def __init__(self, style: str) -> None:
        if style not in ("hasty", "careful"):
            raise ValueError(f"style must be 'hasty' or 'careful', got {style!r}")
        self.style = style
        self.env: Any = None

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        self.env = env.unwrapped

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        return self.env.hasty_action() if self.style == "hasty" else self.env.reference_action()


def hasty() -> ScriptedPolicy:
    return ScriptedPolicy("hasty")


def careful() -> ScriptedPolicy:
    return ScriptedPolicy("careful")
