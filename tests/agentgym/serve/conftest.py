"""Loopback servers for the serve tests: in-process (`ServerThread`), 127.0.0.1, ephemeral ports,
always stopped. One server serves every registered id (under ``/<id>``) plus the toy env."""

from __future__ import annotations

import glob
import os
import secrets
import tempfile
import warnings
from collections.abc import Iterator

import gymnasium as gym
import pytest

import agentgym
from agentgym.serve.app import ServeConfig
from agentgym.serve.server import ServerThread
from agentgym.serve.sessions import EnvEndpoint

TOY_ID = "agentgym-test/Toy-v0"
IDS = sorted(agentgym.ENV_IDS)
TOKEN = secrets.token_urlsafe(32)
OTHER_TOKEN = secrets.token_urlsafe(32)

if TOY_ID not in gym.registry:
    from agentgym.make import ENTRY_POINT

    # through agentgym's entry point, so the toy env takes the same options (budget=, numeric=) as the real ids
    gym.register(id=TOY_ID, entry_point=ENTRY_POINT, kwargs={"family_entry_point": "support.toy_env:ToyEnv"},
                 disable_env_checker=False)

warnings.filterwarnings("ignore", message="agentgym local sandbox backend")


def leftovers(pid: int | None = None) -> list[str]:
    """Local sandbox folders and Docker channel folders this process still holds."""
    pid = os.getpid() if pid is None else pid
    tmp = tempfile.gettempdir()
    return glob.glob(os.path.join(tmp, f"agentgym-local-{pid}-*")) + glob.glob(os.path.join(tmp, f"agentgym-chan-{pid}-*"))


def start(ids: list[str] | None = None, kwargs: dict | None = None, **config: object) -> ServerThread:
    endpoints = [EnvEndpoint(i, dict(kwargs if kwargs is not None else {"backend": "local"})) for i in (ids or IDS)]
    return ServerThread(endpoints=endpoints, token=[TOKEN, OTHER_TOKEN], config=ServeConfig(**config)).start()  # type: ignore[arg-type]


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
