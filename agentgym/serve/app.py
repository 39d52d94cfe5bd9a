"""The ASGI app of `agentgym serve`: OpenEnv's protocol over HTTP and WebSocket, and MCP.

Routes, for each served id under ``/<id>`` (``/agentgym/Coding-v0/ws``) and for the first one
also at the root (``/ws``), as OpenEnv's server lays them out:

- ``GET /health`` (the only route without a token), ``GET /schema``, ``GET /metadata``;
- ``WS /ws``: one session per connection, OpenEnv's messages ``reset`` / ``step`` / ``state``
  / ``close`` / ``mcp`` answered with ``observation`` / ``state`` / ``mcp`` / ``error``;
- ``POST /reset``, ``POST /step``, ``GET|POST /state``, ``POST /close``: the same over plain
  HTTP. OpenEnv's HTTP routes build a fresh env per request; here ``/reset`` opens a session
  (or resets the one named by ``session_id``) and returns its id, so HTTP episodes are real;
- ``/mcp``: the official MCP SDK's Streamable HTTP server (`agentgym.serve.mcp`).

`Guard` sits in front of everything: the token (`agentgym.wire.auth`), the request size and
read deadline, and errors that never carry a stack trace or a token.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from agentgym.serve.asgi import send_json
from agentgym.serve.sessions import (
    CapacityReached,
    ClientBounds,
    EnvEndpoint,
    RequestError,
    Session,
    SessionTable,
    mcp_tools,
)
from agentgym.wire.auth import Authenticator, normalize_origin
from agentgym.wire.protocol import CALL_TIMEOUT

__all__ = ["ServeConfig", "create_app", "Guard"]

log = logging.getLogger("agentgym.serve")


@dataclass
class ServeConfig:
    """Limits of one server process (the CLI flags of the same names)."""

    max_sessions: int = 512
    """Open sessions at once (each holds an env and, once reset, a sandbox): one process held 512
    Docker-backed Coding-v0 sessions on 2 cores (benchmarks/serve.py --concurrency, docs/serve.md)."""
    idle_timeout: float = 300.0
    """Seconds without a request after which a session is closed and its sandbox with it."""
    max_request_bytes: int = 1 << 20
    """Largest HTTP body or WebSocket message accepted."""
    request_timeout: float = 30.0
    """Seconds a client may take to send one request body (slow clients are cut off)."""
    send_timeout: float = 30.0
    """Seconds a reply may wait on a client that does not read."""
    call_timeout: float = 600.0
    """Seconds one env call (reset or step) may take before its session is closed."""
    client: ClientBounds = field(default_factory=ClientBounds)
    """What a client may choose at reset (``--client-budget``, ``--client-faults``); by default nothing."""
    allow_origins: tuple[str, ...] = ()
    """Browser origins (``http(s)://host[:port]``) whose pages may call the server; requests
    carrying any other ``Origin`` header are refused, so by default only non-browser clients."""

    def __post_init__(self) -> None:
        self.allow_origins = tuple(normalize_origin(o) for o in self.allow_origins)


class _BodyRefused(Exception):
    """Raised into a route by the guard's receive once the body is too large or too slow (the
    guard has answered already)."""


class Guard:
    """Pure ASGI middleware: refuses browser pages of other origins, authenticates every request
    but ``/health`` and caps body sizes."""

    def __init__(
        self,
        app: Any,
        authenticator: Authenticator,
        config: ServeConfig,
        open_paths: frozenset[str] = frozenset({"/health"}),
    ) -> None:
        self.app, self.auth, self.config = app, authenticator, config
        self.open_paths = open_paths  # exact paths: a route added later never inherits the exemption

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http" and scope.get("path", "") in self.open_paths:
            await self.app(scope, receive, send)  # says only that the server is up
            return
        headers = dict(scope.get("headers") or [])
        origin = headers.get(b"origin")
        if origin is not None and origin.decode("latin-1").strip().lower() not in self.config.allow_origins:
            await _deny(
                scope,
                receive,
                send,
                403,
                f"requests from the browser origin {origin.decode('latin-1')[:80]!r} "
                "are refused; serve a trusted page's origin with --allow-origin",
            )
            return
        raw = headers.get(b"authorization")
        principal = self.auth.principal(raw.decode("latin-1") if raw is not None else None)
        if principal is None:
            await _deny(scope, receive, send)
            return
        scope["agentgym.principal"] = principal
        scope["user"] = _mcp_user(principal)  # the MCP SDK binds its sessions to this identity
        if scope["type"] == "http":
            length = headers.get(b"content-length")
            if length is not None and (not length.isdigit() or int(length) > self.config.max_request_bytes):
                await send_json(send, 413, {"error": f"request body over {self.config.max_request_bytes} bytes"})
                return
            await self._http(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _http(self, scope: Any, receive: Any, send: Any) -> None:
        """Run the route with a receive that counts the body and keeps its deadline. Past either,
        the guard answers (413, 408) itself and drops whatever the route then tries to send: a
        route or a mounted app (the MCP SDK) sees only an exception, and would answer 422 or 500."""
        started = answered = False
        limit, deadline = self.config.max_request_bytes, time.monotonic() + self.config.request_timeout
        seen = 0

        async def guarded_send(message: Any) -> None:
            nonlocal started
            if answered:
                return  # the guard answered already; the route's own reply to the exception is dropped
            started = started or message["type"] == "http.response.start"
            await send(message)

        async def refuse(status: int, error: str) -> None:
            nonlocal answered
            if not started and not answered:
                answered = True
                await send_json(send, status, {"error": error}, [(b"connection", b"close")])

        async def bounded() -> Any:  # one deadline for the whole body: a byte at a time cannot extend it
            nonlocal seen
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                await refuse(408, "the request body did not arrive in time")
                raise _BodyRefused() from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:  # a chunked body has no Content-Length to refuse up front
                    await refuse(413, f"request body over {limit} bytes")
                    raise _BodyRefused()
            return message

        try:
            await self.app(scope, bounded, guarded_send)
        except _BodyRefused:
            if not answered:  # pragma: no cover - refuse() answers before raising unless a reply had started
                log.debug("a request body was refused after its response had started")


def _mcp_user(principal: str) -> Any:
    try:
        from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
        from mcp.server.auth.provider import AccessToken
    except ImportError:  # pragma: no cover - the serve extra installs it
        return None
    return AuthenticatedUser(AccessToken(token=principal, client_id=principal, scopes=[]))


async def _deny(
    scope: Any,
    receive: Any,
    send: Any,
    status: int = 401,
    error: str = "unauthorized: send Authorization: Bearer <token>",
) -> None:
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.close", "code": 1008, "reason": "refused"})  # the handshake gets a 403
        return
    await send_json(
        send, status, {"error": error}, [(b"www-authenticate", b'Bearer realm="agentgym"')] if status == 401 else None
    )


_HTTP_STATUS = {
    "VALIDATION_ERROR": 422,
    "INVALID_JSON": 400,
    "CAPACITY_REACHED": 503,
    "SESSION_ERROR": 404,
    "EXECUTION_ERROR": 409,
    "UNKNOWN_TYPE": 400,
    "FACTORY_ERROR": 500,
}


class _Routes:
    """The routes of one served id; ``prefix`` is ``""`` or ``"/<id>"``."""

    def __init__(self, endpoint: EnvEndpoint, table: SessionTable, config: ServeConfig, mcp: Any) -> None:
        self.endpoint, self.table, self.config, self.mcp = endpoint, table, config, mcp

    def routes(self) -> list[BaseRoute]:
        out: list[BaseRoute] = [
            Route("/health", self.health, methods=["GET"]),
            Route("/schema", self.schema, methods=["GET"]),
            Route("/metadata", self.metadata, methods=["GET"]),
            Route("/reset", self.http_reset, methods=["POST"]),
            Route("/step", self.http_step, methods=["POST"]),
            Route("/state", self.http_state, methods=["GET", "POST"]),
            Route("/close", self.http_close, methods=["POST"]),
            WebSocketRoute("/ws", self.ws),
        ]
        if self.mcp is not None:
            out += [Route("/mcp", self.mcp), Route("/mcp/", self.mcp)]  # an ASGI app: the SDK answers every method
        return out

    # ---------------------------------------------------------------- info
    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "healthy"})

    async def schema(self, request: Request) -> Response:
        return JSONResponse(self.endpoint.schema())

    async def metadata(self, request: Request) -> Response:
        return JSONResponse(self.endpoint.metadata())

    # ---------------------------------------------------------------- HTTP sessions
    async def _body(self, request: Request) -> dict[str, Any]:
        raw = await request.body()  # the guard answers a body too large or too slow (413, 408)
        if not raw:
            return {}
        try:
            data = json.loads(raw)
        except (
            ValueError,
            UnicodeDecodeError,
            RecursionError,
        ) as exc:  # RecursionError: nesting past the parser's depth
            raise RequestError(f"invalid JSON: {type(exc).__name__}", "INVALID_JSON") from None
        if not isinstance(data, dict):
            raise RequestError("the body must be a JSON object", "VALIDATION_ERROR")
        return data

    def _session(self, request: Request, session_id: Any) -> Session:
        session = self.table.get(session_id, request.scope["agentgym.principal"])
        if session is None or session.endpoint is not self.endpoint:
            raise RequestError("unknown session_id (closed, expired, or not opened with this token)", "SESSION_ERROR")
        return session

    async def _answer(self, request: Request, work: Any) -> Response:
        try:
            return JSONResponse(await work(request))
        except RequestError as exc:
            status = 504 if exc.error_type == CALL_TIMEOUT else _HTTP_STATUS.get(exc.code, 400)
            return JSONResponse({"error": exc.payload()}, status_code=status)

    async def http_reset(self, request: Request) -> Response:
        async def work(request: Request) -> dict[str, Any]:
            data = await self._body(request)
            if data.get("session_id") is not None:
                session = self._session(request, data["session_id"])
            else:
                session = await self.table.open(request.scope["agentgym.principal"], self.endpoint, "http")
            try:
                out = await self.table.call(session, session.reset, data)
            except RequestError:
                if data.get("session_id") is None:
                    await self.table.close(session)
                raise
            return {**out, "session_id": session.id}

        return await self._answer(request, work)

    async def http_step(self, request: Request) -> Response:
        async def work(request: Request) -> dict[str, Any]:
            data = await self._body(request)
            session = self._session(request, data.get("session_id"))
            if "action" not in data:
                raise RequestError("the body needs an 'action'")
            action = data["action"]
            return await self._act(session, action if isinstance(action, Mapping) else {"action": action})

        return await self._answer(request, work)

    async def http_state(self, request: Request) -> Response:
        async def work(request: Request) -> dict[str, Any]:
            sid = request.headers.get("x-session-id")
            if request.method == "POST":
                sid = (await self._body(request)).get("session_id", sid)
            session = self._session(request, sid)
            session.last_active = time.monotonic()
            return session.state()

        return await self._answer(request, work)

    async def http_close(self, request: Request) -> Response:
        async def work(request: Request) -> dict[str, Any]:
            session = self._session(request, (await self._body(request)).get("session_id"))
            await self.table.close(session)
            return {"session_id": session.id, "closed": True}

        return await self._answer(request, work)

    # ---------------------------------------------------------------- shared by HTTP and WebSocket
    async def _act(self, session: Session, data: Mapping[str, Any]) -> dict[str, Any]:
        """One OpenEnv step payload: ``{"action": ...}``, or MCP's ``call_tool`` / ``list_tools``."""
        kind = data.get("type")
        if kind == "list_tools":
            tools = [
                {"name": t["name"], "description": t["description"], "input_schema": t["inputSchema"]}
                for t in mcp_tools(session)
            ]
            return {"observation": {"tools": tools}, "reward": None, "done": session.done}
        if kind == "call_tool":
            name, arguments = data.get("tool_name"), data.get("arguments") or {}
            if not isinstance(name, str) or not isinstance(arguments, Mapping):
                raise RequestError("call_tool needs a tool_name string and an arguments object")
            out = await self.table.call_tool(session, name, arguments)
            obs = dict(out["observation"]) if isinstance(out["observation"], Mapping) else {"value": out["observation"]}
            text = obs.get("text")
            obs.update(
                tool_name=name, result={"data": text if isinstance(text, str) else out["observation"]}, error=None
            )
            return {**out, "observation": obs}
        if "action" not in data:
            raise RequestError("a step needs {'action': ...} (or an MCP call_tool / list_tools action)")
        return await self.table.call(session, session.step, data["action"])

    async def _message(self, session: Session, raw: str | bytes) -> dict[str, Any] | None:
        """One WebSocket message in, one reply out (None: the client closed the session)."""
        try:
            message = json.loads(raw)
        except (
            ValueError,
            UnicodeDecodeError,
            RecursionError,
        ) as exc:  # RecursionError: nesting past the parser's depth
            return {"type": "error", "data": {"message": f"Invalid JSON: {type(exc).__name__}", "code": "INVALID_JSON"}}
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            return {
                "type": "error",
                "data": {"message": "a message is an object with a 'type'", "code": "VALIDATION_ERROR"},
            }
        kind, data = message["type"], message.get("data", {})
        if data is None:
            data = {}
        try:
            if not isinstance(data, Mapping):
                raise RequestError("'data' must be an object")
            if kind == "reset":
                return {"type": "observation", "data": await self.table.call(session, session.reset, data)}
            if kind == "step":
                return {"type": "observation", "data": await self._act(session, data)}
            if kind == "state":
                return {"type": "state", "data": session.state()}
            if kind == "close":
                return None
            if kind == "mcp":
                return {"type": "mcp", "data": await self._jsonrpc(session, data)}
            raise RequestError(f"Unknown message type: {kind[:40]}", "UNKNOWN_TYPE")
        except RequestError as exc:
            return {"type": "error", "data": exc.payload()}

    async def _jsonrpc(self, session: Session, request: Mapping[str, Any]) -> dict[str, Any]:
        """OpenEnv's ``mcp`` WebSocket message: JSON-RPC ``tools/list`` and ``tools/call``."""
        rid = request.get("id") if isinstance(request.get("id"), (str, int)) else None
        method, params = request.get("method"), request.get("params") or {}
        try:
            if not isinstance(params, Mapping):
                raise RequestError("params must be an object")
            if method == "tools/list":
                return {"jsonrpc": "2.0", "id": rid, "result": {"tools": mcp_tools(session)}}
            if method == "tools/call":
                out = await self._act(
                    session,
                    {"type": "call_tool", "tool_name": params.get("name"), "arguments": params.get("arguments") or {}},
                )
                text = out["observation"]["result"]["data"]
                return {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "result": {
                        "content": [{"type": "text", "text": text if isinstance(text, str) else json.dumps(text)}],
                        "structuredContent": dict(out),
                        "isError": False,
                    },
                }
            return {
                "jsonrpc": "2.0",
                "id": rid,
                "error": {"code": -32601, "message": f"Method not found: {str(method)[:40]}"},
            }
        except RequestError as exc:
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32000, "message": str(exc), "data": exc.payload()}}

    async def ws(self, websocket: WebSocket) -> None:
        principal = websocket.scope["agentgym.principal"]
        await websocket.accept()
        try:
            session = await self.table.open(principal, self.endpoint, "ws")
        except CapacityReached as exc:
            await self._send(
                websocket,
                {
                    "type": "error",
                    "data": {**exc.payload(), "active_sessions": exc.open_sessions, "max_sessions": exc.limit},
                },
            )
            await self._close(websocket, 1013)
            return
        except RequestError as exc:  # the env took past the call deadline to build
            await self._send(websocket, {"type": "error", "data": exc.payload()})
            await self._close(websocket, 1011)
            return
        except Exception:  # the env could not be built; said, not raised
            log.exception("could not build %s for a session", self.endpoint.env_id)
            await self._send(
                websocket, {"type": "error", "data": {"message": "the env could not be built", "code": "FACTORY_ERROR"}}
            )
            await self._close(websocket, 1011)
            return
        reason = (1000, "")
        try:
            while True:
                try:
                    message = await asyncio.wait_for(websocket.receive(), self.config.idle_timeout)
                except TimeoutError:
                    reason = (4408, "idle timeout")
                    break
                if message["type"] == "websocket.disconnect":
                    reason = (0, "")
                    break
                text = message.get("text")
                raw = text if text is not None else message.get("bytes", b"")
                reply = await self._message(session, raw)
                if reply is None:
                    break
                if not await self._send(websocket, reply):
                    reason = (0, "")
                    break
                if session.closed:  # an env call ran past its deadline: the session (one per connection) is over
                    reason = (1011, "the session was closed")
                    break
        except WebSocketDisconnect:
            reason = (0, "")
        finally:
            await self.table.close(session)
            if reason[0]:
                await self._close(websocket, *reason)

    async def _close(self, websocket: WebSocket, code: int, reason: str = "") -> None:
        """Close the connection, within the send deadline; a client gone already is no error."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(websocket.close(code=code, reason=reason), self.config.send_timeout)

    async def _send(self, websocket: WebSocket, payload: dict[str, Any]) -> bool:
        try:
            await asyncio.wait_for(
                websocket.send_text(json.dumps(payload, ensure_ascii=False)), self.config.send_timeout
            )
        except (TimeoutError, WebSocketDisconnect, RuntimeError, OSError):
            return False
        return True


def create_app(
    endpoints: list[EnvEndpoint], tokens: list[str], config: ServeConfig | None = None, *, mcp: bool = True
) -> Any:
    """The ASGI app serving ``endpoints`` (the first also at the root), behind `Guard`.

    ``app.state.table`` is the `SessionTable` (tests and benchmarks count sessions there).
    """
    config = config or ServeConfig()
    if not endpoints:
        raise ValueError("serve at least one env id")
    table = SessionTable(
        max_sessions=config.max_sessions, idle_timeout=config.idle_timeout, call_timeout=config.call_timeout
    )
    mcps: list[Any] = []
    routes: list[BaseRoute] = []
    for i, endpoint in enumerate(endpoints):
        server_mcp = None
        if mcp:
            from agentgym.serve.mcp import McpEndpoint

            server_mcp = McpEndpoint(endpoint, table, max_request_bytes=config.max_request_bytes)
            mcps.append(server_mcp)
        group = _Routes(endpoint, table, config, server_mcp).routes()
        routes.append(Mount("/" + endpoint.env_id, routes=group))
        if i == 0:
            routes.extend(group)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for server_mcp in mcps:
                await stack.enter_async_context(server_mcp.run())
            reaper = asyncio.get_running_loop().create_task(table.reap_forever())
            try:
                yield
            finally:
                reaper.cancel()
                await table.close_all()
                table.shutdown()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.table = table
    health = frozenset({"/health"} | {f"/{endpoint.env_id}/health" for endpoint in endpoints})
    guarded = Guard(app, Authenticator(tokens), config, open_paths=health)
    guarded.state = app.state  # type: ignore[attr-defined]
    return guarded
