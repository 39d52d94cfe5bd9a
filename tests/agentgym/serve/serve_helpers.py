"""Shared helpers of the serve tests (a module of its own name: ``conftest`` is ambiguous across
the suite): tokens, the toy id, loopback servers (`ServerThread`, 127.0.0.1, ephemeral ports),
left-over sandbox folders, small HTTP/WebSocket/MCP clients, and `HangingEnv`, whose step hangs."""

from __future__ import annotations

import glob
import json
import os
import secrets
import tempfile
import threading
import urllib.error
import urllib.request

import gymnasium as gym
from websockets.sync.client import connect

import agentgym
from agentgym.serve.app import ServeConfig
from agentgym.serve.server import ServerThread
from agentgym.serve.sessions import EnvEndpoint
from agentgym.testing.kv_env import ScriptedEnv, kv_step

TOY_ID = "agentgym-test/Toy-v0"
IDS = sorted(agentgym.ENV_IDS)
TOKEN = secrets.token_urlsafe(32)
OTHER_TOKEN = secrets.token_urlsafe(32)

if TOY_ID not in gym.registry:
    from agentgym.make import ENTRY_POINT

    # through agentgym's entry point, so the toy env takes the same options (budget=, numeric=) as the real ids
    gym.register(
        id=TOY_ID,
        entry_point=ENTRY_POINT,
        kwargs={"family_entry_point": "support.toy_env:ToyEnv"},
        disable_env_checker=False,
    )


def family_class(env_id: str) -> type:
    import importlib

    module, _, name = agentgym.ENV_IDS[env_id].partition(":")
    return getattr(importlib.import_module(module), name)


def backend_for(env_id: str) -> str:
    """The local backend, or Docker for a Docker-only family (MiniWoB-v0), which then needs the
    engine and its image: skipped without them locally, failed under CI=true."""
    if env_id not in agentgym.ENV_IDS or "local" in getattr(family_class(env_id), "backends", ("local",)):
        return "local"
    from support.docker import require_docker

    require_docker(family_class(env_id).image)
    return "docker"


LOCAL_IDS = [i for i in IDS if "local" in getattr(family_class(i), "backends", ("local",))]


HELD_BEFORE: set[str] = set()
"""What this process held when the running test started (``conftest.held_before``): a leak check
judges the server under test, not a sandbox an earlier test of the whole suite left open."""


def leftovers(pid: int | None = None) -> list[str]:
    """Local sandbox folders and Docker channel folders this process still holds, less those held
    before the running test started."""
    pid = os.getpid() if pid is None else pid
    tmp = tempfile.gettempdir()
    found = glob.glob(os.path.join(tmp, f"agentgym-local-{pid}-*")) + glob.glob(
        os.path.join(tmp, f"agentgym-chan-{pid}-*")
    )
    return [f for f in found if f not in HELD_BEFORE]


def start(ids: list[str] | None = None, kwargs: dict | None = None, **config: object) -> ServerThread:
    endpoints = [EnvEndpoint(i, dict(kwargs if kwargs is not None else {"backend": "local"})) for i in (ids or IDS)]
    return ServerThread(endpoints=endpoints, token=[TOKEN, OTHER_TOKEN], config=ServeConfig(**config)).start()  # type: ignore[arg-type]


def http(
    url: str,
    body: object = None,
    token: str | None = TOKEN,
    method: str | None = None,
    headers: dict | None = None,
    raw: bytes | None = None,
) -> tuple[int, dict]:
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(
        url,
        data=data,
        method=method or ("POST" if data is not None else "GET"),
        headers={
            **({"Authorization": f"Bearer {token}"} if token else {}),
            "Content-Type": "application/json",
            **(headers or {}),
        },
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=20) as response:
            return response.status, _json(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, _json(exc.read())


def _json(raw: bytes) -> dict:
    try:
        return json.loads(raw or b"{}")
    except ValueError:
        return {"text": raw.decode("utf-8", "replace")}


def ws(url: str, token: str | None = TOKEN, headers: dict | None = None):
    if headers is None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
    return connect(
        url.replace("http://", "ws://") + "/ws",
        additional_headers=headers,
        open_timeout=10,
        proxy=None,
        compression=None,
        legacy=True,
    )


def rpc(conn, message: object) -> dict:
    conn.send(message if isinstance(message, (str, bytes)) else json.dumps(message))
    return json.loads(conn.recv(timeout=20))


def healthy(url: str) -> bool:
    return http(url + "/health", token=None)[0] == 200


async def mcp_client(url: str, token: str):
    """``(http, client)``: the official MCP SDK client of ``url`` (enter both)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    return http, Client(streamable_http_client(url, http_client=http))


class HangingEnv(ScriptedEnv):
    """The key-value task, except that ``step("hang")`` blocks. By default it blocks until
    `close` (as a step blocked on its sandbox does until the sandbox is closed); a ``stubborn``
    one ignores `close`, like a pure-Python hang, and returns only when `RELEASE` is set."""

    closed: list[HangingEnv] = []

    def __init__(self, stubborn: bool = False) -> None:
        super().__init__(step_func=self._step)
        self.stubborn, self._closing = stubborn, threading.Event()

    def _step(self, env: ScriptedEnv, action: str):
        if action == "hang":
            (RELEASE if self.stubborn else self._closing).wait(120)  # bounded, so a failing test still ends
            return {"text": "released"}, 0.0, False, False, {"turn": 1}
        return kv_step(env, action)

    def close(self) -> None:
        HangingEnv.closed.append(self)
        self._closing.set()


RELEASE = threading.Event()
