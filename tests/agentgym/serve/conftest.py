"""Fixtures of the serve tests: loopback servers, always stopped (helpers in `serve_helpers`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentgym.serve.server import ServerThread

from serve_helpers import IDS, TOY_ID, start


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    """Every registered id and the toy env, local backend, under ``/<id>``."""
    srv = start(IDS + [TOY_ID])
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def small_server() -> Iterator[ServerThread]:
    """The toy env alone, with tight limits (for attacks and timeouts)."""
    srv = start([TOY_ID], max_sessions=8, idle_timeout=1.0, max_request_bytes=64 * 1024, request_timeout=1.0,
                send_timeout=2.0)
    try:
        yield srv
    finally:
        srv.stop()
