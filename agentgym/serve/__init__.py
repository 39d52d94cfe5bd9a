"""``agentgym serve``: every agentgym id behind an OpenEnv-compatible server with MCP tools.

- `agentgym.serve.app`: the ASGI app (OpenEnv's ``/reset`` ``/step`` ``/state`` ``/ws``, ``/mcp``)
  behind the token guard, and `ServeConfig`, its limits;
- `agentgym.serve.sessions`: one env and sandbox per client session, the session table;
- `agentgym.serve.mcp`: the MCP server (the official SDK), one env per MCP session;
- `agentgym.wire.codec`: observations, infos, actions and spaces as JSON (shared with the client);
- `agentgym.wire.auth`: tokens;
- `agentgym.serve.server`: `serve` (the command) and `ServerThread` (a loopback server in-process).

The client is `agentgym.remote.RemoteEnv` (``gym.make(id, remote=URL)``). docs/serve.md has the
protocol, the security model and the measured costs.
"""

from __future__ import annotations

__all__ = ["ServeConfig", "ServerThread", "create_app", "serve"]


def __getattr__(name: str):  # the server's packages load only when a server is built
    if name in ("ServeConfig", "create_app"):
        from agentgym.serve import app

        return getattr(app, name)
    if name in ("ServerThread", "serve"):
        from agentgym.serve import server

        return getattr(server, name)
    raise AttributeError(name)
