"""Names both ends of the wire agree on (the server raises them, `agentgym.remote` reads them)."""

from __future__ import annotations

__all__ = ["CALL_TIMEOUT"]

CALL_TIMEOUT = "CallTimeout"
"""``error.type`` of an env call the server abandoned past ``--call-timeout``; it closed the session."""
