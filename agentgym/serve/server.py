"""Running the app: `serve` (what ``agentgym serve`` calls) and `ServerThread` (a loopback server
inside this process, for tests, benchmarks and notebooks).

uvicorn carries the size and concurrency limits (``ws_max_size``, ``limit_concurrency``,
``h11_max_incomplete_event_size``); access logs are off, so no URL or header is ever logged.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from agentgym.distribution import install_hint
from agentgym.errors import ConfigError
from agentgym.serve.app import ServeConfig, create_app
from agentgym.serve.sessions import EnvEndpoint
from agentgym.wire.auth import load_tokens

__all__ = ["serve", "ServerThread", "uvicorn_config", "LOOPBACK"]

LOOPBACK = "127.0.0.1"


def _uvicorn() -> Any:
    try:
        import uvicorn
    except ImportError:
        raise ConfigError(f"agentgym serve needs its extra: {install_hint('serve')}") from None
    return uvicorn


def uvicorn_config(app: Any, host: str, port: int, config: ServeConfig, *, log_level: str = "warning") -> Any:
    uvicorn = _uvicorn()
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,
        lifespan="on",
        ws="websockets-sansio",
        ws_max_size=config.max_request_bytes,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        # connections beyond this get a 503 before any work: a flood of sockets cannot starve the loop
        limit_concurrency=max(4 * config.max_sessions, 256),
        timeout_keep_alive=5,
        h11_max_incomplete_event_size=64 * 1024,
        timeout_graceful_shutdown=5,
    )


def serve(
    env_ids: list[str],
    *,
    kwargs: Mapping[str, Any] | None = None,
    host: str = LOOPBACK,
    port: int = 8000,
    config: ServeConfig | None = None,
    token_file: str | None = None,
    mcp: bool = True,
    log_level: str = "info",
    ready: Any = None,
) -> int:
    """Serve ``env_ids`` (each built with ``kwargs``) until interrupted; returns an exit code."""
    config = config or ServeConfig()
    tokens, generated = load_tokens(token_file)
    endpoints = [EnvEndpoint(env_id, dict(kwargs or {}), client=config.client) for env_id in env_ids]
    app = create_app(endpoints, tokens, config, mcp=mcp)
    uv = _uvicorn().Server(uvicorn_config(app, host, port, config, log_level=log_level))
    logger = logging.getLogger("agentgym.serve")
    logging.basicConfig(level=getattr(logging, log_level.upper(), logging.INFO), format="[agentgym serve] %(message)s")
    if generated is not None:
        logger.warning(
            "token written to %s (readable by you only); clients: export AGENTGYM_SERVE_TOKEN_FILE=%s",
            generated,
            generated,
        )
    if host not in (LOOPBACK, "localhost", "::1"):
        logger.warning(
            "listening on %s: reachable beyond this machine; the token is the only guard, and the "
            "traffic is not encrypted (put TLS in front)",
            host,
        )

    async def main() -> None:
        task = asyncio.get_running_loop().create_task(uv.serve())
        while not uv.started and not task.done():
            await asyncio.sleep(0.05)
        if uv.started:
            bound = uv.servers[0].sockets[0].getsockname()[1] if uv.servers else port
            logger.info(
                "serving %s at http://%s:%d (sessions <= %d, idle timeout %g s)",
                ", ".join(env_ids),
                host,
                bound,
                config.max_sessions,
                config.idle_timeout,
            )
            if ready is not None:
                ready(bound)
        await task

    asyncio.run(main())
    return 0


class ServerThread:
    """A server on 127.0.0.1 and an ephemeral port, in a daemon thread; a context manager.

    >>> with ServerThread(["agentgym/ToolUse-v0"], {"backend": "local"}, token="x" * 32) as srv:  # doctest: +SKIP
    ...     env = RemoteEnv(srv.url, token="x" * 32)
    """

    def __init__(
        self,
        env_ids: list[str] | None = None,
        kwargs: Mapping[str, Any] | None = None,
        *,
        token: str | list[str],
        config: ServeConfig | None = None,
        endpoints: list[EnvEndpoint] | None = None,
        mcp: bool = True,
        start_timeout: float = 30.0,
    ) -> None:
        self.config = config or ServeConfig()
        self.endpoints = endpoints or [
            EnvEndpoint(e, dict(kwargs or {}), client=self.config.client) for e in env_ids or []
        ]
        self.app = create_app(self.endpoints, [token] if isinstance(token, str) else list(token), self.config, mcp=mcp)
        self.table = self.app.state.table
        self._server = _uvicorn().Server(uvicorn_config(self.app, LOOPBACK, 0, self.config))
        self._thread = threading.Thread(target=self._server.run, name="agentgym-serve", daemon=True)
        self._start_timeout = start_timeout
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self) -> ServerThread:
        self._thread.start()
        deadline = time.monotonic() + self._start_timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the agentgym server thread did not start")
            time.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self, timeout: float = 30.0) -> None:
        self._server.should_exit = True
        self._thread.join(timeout)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
