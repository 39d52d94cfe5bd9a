"""Fixtures of the serve tests: loopback servers, always stopped (helpers in `serve_helpers`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

import serve_helpers
from agentgym.serve.server import ServerThread
from serve_helpers import LOCAL_IDS, TOY_ID, backend_for, start


@pytest.fixture(autouse=True)
def held_before() -> Iterator[None]:
    """Sandboxes this process held before the test (see `serve_helpers.HELD_BEFORE`)."""
    serve_helpers.HELD_BEFORE = set()
    serve_helpers.HELD_BEFORE = set(serve_helpers.leftovers())
    yield
    serve_helpers.HELD_BEFORE = set()


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    """Every registered id that runs on the local backend, and the toy env, under ``/<id>``."""
    srv = start(LOCAL_IDS + [TOY_ID])
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def url_of(server) -> Iterator[Callable[[str], str]]:
    """``url_of(env_id)``: where ``env_id`` is served; Docker-only families get a Docker server of their own."""
    extra: dict[str, ServerThread] = {}

    def url(env_id: str) -> str:
        backend = backend_for(env_id)
        if backend == "local":
            return f"{server.url}/{env_id}"
        if env_id not in extra:
            extra[env_id] = start([env_id], {"backend": backend})
        return extra[env_id].url

    try:
        yield url
    finally:
        for srv in extra.values():
            srv.stop()


@pytest.fixture
def small_server() -> Iterator[ServerThread]:
    """The toy env alone, with tight limits (for attacks and timeouts)."""
    srv = start(
        [TOY_ID], max_sessions=8, idle_timeout=1.0, max_request_bytes=64 * 1024, request_timeout=1.0, send_timeout=2.0
    )
    try:
        yield srv
    finally:
        srv.stop()
