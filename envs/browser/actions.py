"""Browser-v0's action set: the whole web grammar (`agentgym.web.actions`), which MiniWoB-v0 shares.

Every form a multi-page site takes (``goto``, ``back``, ``forward`` and ``reload`` included);
the grammar, its help text and its tool schemas are defined once, in the web kit.
"""

from __future__ import annotations

from agentgym.web.actions import ACTIONS, NAVIGATING, BrowserActions

__all__ = ["BrowserActions", "ACTIONS", "NAVIGATING"]
