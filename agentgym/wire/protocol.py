"""Names both ends of the wire agree on (the server raises them, `agentgym.remote` reads them)."""

from __future__ import annotations

__all__ = ["CALL_TIMEOUT", "SESSION_CLOSED"]

CALL_TIMEOUT = "CallTimeout"
"""``error.type`` of an env call the server abandoned past ``--call-timeout``; it closed the session."""

SESSION_CLOSED = "session_closed"
"""Key of an error's ``data``, true when the server closed the session with its env (its sandbox died,
or a call ran past the deadline): the session's slot is free again, and the client's next reset
opens a new session on a fresh env."""
