"""MCP for a served env: the official ``mcp`` SDK's Streamable HTTP server at ``/mcp``.

Each MCP session (the SDK's ``Mcp-Session-Id``, bound by the SDK to the token that opened it)
gets its own agentgym session, so its own env and sandbox. Tools: ``reset``, the family's
tools (``tools()`` after a reset; ``act`` for grammar families) and ``finish``; a call
returns the observation text, and ``structuredContent`` holds the reward, ``terminated``,
``truncated`` and ``info`` the server's env produced.

The SDK's newest protocol era is sessionless; an env episode is not, so requests in that era
are answered with the handshake versions this server speaks (the SDK client then falls back
to the ``initialize`` handshake by itself).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from agentgym import __version__
from agentgym.serve.asgi import send_json
from agentgym.serve.sessions import EnvEndpoint, RequestError, Session, SessionTable, mcp_tools

__all__ = ["McpEndpoint", "SESSION_HEADER"]

SESSION_HEADER = "mcp-session-id"
_VERSION_HEADER = b"mcp-protocol-version"


def _text_result(text: str, structured: dict[str, Any] | None = None, *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=structured, is_error=error
    )


class McpEndpoint:
    """The MCP server of one `EnvEndpoint`: an ASGI app mounted at ``.../mcp``; `run` goes in the lifespan."""

    def __init__(self, endpoint: EnvEndpoint, table: SessionTable, *, max_request_bytes: int) -> None:
        self.endpoint, self.table = endpoint, table

        server: Server[Any] = Server(
            f"agentgym {endpoint.env_id}",
            version=__version__,
            instructions=endpoint.description,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        self.manager = StreamableHTTPSessionManager(
            server,
            json_response=True,
            session_idle_timeout=table.idle_timeout,
            max_request_body_size=max_request_bytes,
            max_sessions=table.max_sessions,
        )
        self._sdk = StreamableHTTPASGIApp(self.manager)
        self._opening = asyncio.Lock()

    def run(self) -> Any:
        return self.manager.run()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = dict(scope.get("headers") or [])
        version = headers.get(_VERSION_HEADER, b"").decode("latin-1")
        if version and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            await _unsupported_version(scope, receive, send)
            return
        await self._sdk(scope, receive, send)
        if scope.get("method") == "DELETE":  # the client ended its MCP session: close its env now
            sid = headers.get(SESSION_HEADER.encode(), b"").decode("latin-1")
            for session in self.table.find(lambda s: s.kind == "mcp" and s.mcp_id == sid):
                if session.principal == scope.get("agentgym.principal"):
                    await self.table.close(session)

    # ---------------------------------------------------------------- handlers
    async def _session(self, ctx: Any) -> Session:
        request = ctx.request
        principal = request.scope.get("agentgym.principal") if request is not None else None
        sid = request.headers.get(SESSION_HEADER) if request is not None else None
        if not principal or not sid:
            raise RequestError("no MCP session", "SESSION_ERROR")
        async with self._opening:  # two first requests of one MCP session must not open two envs
            found = self.table.find(lambda s: s.kind == "mcp" and s.mcp_id == sid)
            if found:
                session = self.table.get(found[0].id, principal)
                if session is None:
                    raise RequestError("unknown session", "SESSION_ERROR")
                return session
            session = await self.table.open(principal, self.endpoint, "mcp")
            session.mcp_id = sid
            return session

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        session = await self._session(ctx)
        session.last_active = time.monotonic()
        return types.ListToolsResult(
            tools=[
                types.Tool(name=t["name"], description=t["description"], input_schema=t["inputSchema"])
                for t in mcp_tools(session)
            ]
        )

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            session = await self._session(ctx)
            out = await self.table.call_tool(session, params.name, dict(params.arguments or {}))
        except RequestError as exc:
            return _text_result(f"error: {exc}", {"error": exc.payload()}, error=True)
        text = out["observation"].get("text") if isinstance(out["observation"], dict) else None
        if not isinstance(text, str):
            text = json.dumps(out["observation"])
        return _text_result(text, out)


async def _unsupported_version(scope: Any, receive: Any, send: Any) -> None:
    await send_json(
        send,
        400,
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": types.UNSUPPORTED_PROTOCOL_VERSION
                if hasattr(types, "UNSUPPORTED_PROTOCOL_VERSION")
                else -32022,
                "message": "this server keeps one env per MCP session: use the initialize handshake",
                "data": {"supported": list(HANDSHAKE_PROTOCOL_VERSIONS)},
            },
        },
    )
