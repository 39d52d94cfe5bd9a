"""Reliability of `agentgym serve`: a killed server is an `InfrastructureError` on the client, a
vanished client's sandbox is closed within the idle timeout, 1,000 sessions leave no sandbox
folder (and Docker sessions no container), a fuzzed request stream never takes it down, and env
calls that hang past the call deadline close their session without starving the server."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
from websockets.sync.client import connect

from agentgym.errors import InfrastructureError, RemoteCallTimeout
from agentgym.remote import RemoteEnv, ServerUnreachable
from agentgym.serve.app import ServeConfig
from agentgym.serve.server import ServerThread
from agentgym.serve.sessions import EnvEndpoint
from serve_helpers import RELEASE, TOKEN, TOY_ID, HangingEnv, http, leftovers, mcp_client, rpc, start, ws
from support.docker import require_docker
from support.procs import wait_until

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@contextlib.contextmanager
def server_process(args: list[str]) -> Iterator[tuple[subprocess.Popen, int]]:
    """``(process, port)``: ``python ARGS`` serving on an ephemeral loopback port, in its own
    process group (so signals reach it alone), killed at exit if it still runs."""
    env = {**os.environ, "AGENTGYM_SERVE_TOKEN": TOKEN, "PYTHONPATH": ROOT}
    proc = subprocess.Popen(
        [sys.executable, *args],
        env=env,
        cwd=ROOT,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        port = None
        deadline = time.monotonic() + 60
        while port is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            assert line or proc.poll() is None, "the server exited before serving"
            found = re.search(r"at http://127\.0\.0\.1:(\d+)", line)
            port = int(found.group(1)) if found else None
        assert port, "the server never said where it listens"
        yield proc, port
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        proc.stderr.close()


def test_server_killed_mid_episode_is_an_infrastructure_error_on_the_client():
    """A real ``agentgym serve`` process, SIGKILLed between two steps."""
    with server_process(
        ["-m", "agentgym", "serve", "agentgym/ToolUse-v0", "--backend", "local", "--port", "0", "--log-level", "info"]
    ) as (proc, port):
        remote = RemoteEnv(f"http://127.0.0.1:{port}", token=TOKEN, step_timeout=30)
        remote.reset(seed=0)
        remote.step("help")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        with pytest.raises(ServerUnreachable) as lost:
            remote.step("help")
        assert isinstance(lost.value, InfrastructureError)
        with pytest.raises(ServerUnreachable):
            remote.reset(seed=1)  # a new connection to a dead server: still typed, still bounded
        remote.close()


def test_vanished_clients_sandboxes_are_closed_within_the_idle_timeout():
    srv = start([TOY_ID], idle_timeout=1.0)
    try:
        # a websocket whose peer disappears without a close frame
        abrupt = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
        conn = connect(
            f"ws://127.0.0.1:{srv.port}/ws",
            sock=abrupt,
            additional_headers={"Authorization": f"Bearer {TOKEN}"},
            proxy=None,
            legacy=True,
        )
        rpc(conn, {"type": "reset", "data": {"seed": 0}})
        # an HTTP session its client never closes
        status, _ = http(srv.url + "/reset", {"seed": 1})
        # a websocket that stays open but says nothing
        silent = ws(srv.url)
        rpc(silent, {"type": "reset", "data": {"seed": 2}})
        assert status == 200 and len(srv.table) == 3 and len(leftovers()) == 3
        abrupt.shutdown(socket.SHUT_RDWR)
        abrupt.close()
        start_wait = time.monotonic()
        wait_until(lambda: len(srv.table) == 0 and not leftovers(), 1.0 + 5.0, "every session and sandbox closed")
        assert time.monotonic() - start_wait < 1.0 + 5.0
        silent.close()
    finally:
        srv.stop()
    assert not leftovers()


@pytest.mark.slow
def test_a_thousand_sessions_leave_no_sandbox_behind():
    srv = start([TOY_ID], max_sessions=32, idle_timeout=30.0)
    try:
        for i in range(1000):
            if i % 50:  # websocket sessions; every 50th starts a sandbox
                with ws(srv.url) as conn:
                    if i % 50 == 1:
                        rpc(conn, {"type": "reset", "data": {"seed": i}})
                        rpc(conn, {"type": "step", "data": {"action": "cat"}})
                    conn.send(json.dumps({"type": "close"}))
            else:  # HTTP sessions (a reset opens one, so each starts a sandbox)
                status, reset = http(srv.url + "/reset", {"seed": i})
                assert status == 200
                assert http(srv.url + "/close", {"session_id": reset["session_id"]})[0] == 200
        wait_until(lambda: len(srv.table) == 0, 10, "every session closed")
        assert srv.table.opened == 1000 and srv.table.closed_count == 1000
        assert not leftovers()
    finally:
        srv.stop()


@pytest.mark.slow
@pytest.mark.docker
def test_docker_sessions_leave_no_container_or_channel_folder():
    require_docker("agentgym/tooluse:latest")
    from agentgym.sandbox.docker import list_managed

    def mine() -> list:
        return [c for c in list_managed() if c.labels.get("io.agentgym.owner_pid") == str(os.getpid())]

    assert not mine()
    srv = start(["agentgym/ToolUse-v0"], {"backend": "docker"}, idle_timeout=120.0)
    try:
        conns = []
        for i in range(9):
            if i % 3 == 2:
                assert http(srv.url + "/reset", {"seed": i})[0] == 200  # abandoned: the reaper closes it
                continue
            conn = ws(srv.url)
            rpc(conn, {"type": "reset", "data": {"seed": i}})
            rpc(conn, {"type": "step", "data": {"action": "help"}})
            conns.append(conn)
        assert len(mine()) == 9
        srv.table.idle_timeout = 0.5  # now the reaper closes the abandoned HTTP sessions (checked every 5 s)
        for i, conn in enumerate(conns):
            if i % 2:
                conn.send(json.dumps({"type": "close"}))
            conn.close()
        wait_until(lambda: len(srv.table) == 0, 5.0 + 10, "every docker session closed")
        wait_until(lambda: not mine() and not leftovers(), 30, "no container and no channel folder left")
    finally:
        srv.stop()
    assert not mine() and not leftovers()


def _fuzz_value(rng: random.Random, depth: int = 0):
    kinds = ["int", "float", "str", "bool", "none"] + (["list", "dict"] if depth < 4 else [])
    kind = rng.choice(kinds)
    if kind == "int":
        return rng.choice([0, -1, 1, 2**63, -(2**70), rng.randint(-(10**6), 10**6)])
    if kind == "float":
        return rng.choice([0.5, -1e308, 1e308, float("nan"), float("inf")])
    if kind == "str":
        return "".join(rng.choice('ab{}[]"\\\x00\u2603 submitwrite') for _ in range(rng.randint(0, 30)))
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "none":
        return None
    if kind == "list":
        return [_fuzz_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {
        rng.choice(
            [
                "type",
                "data",
                "seed",
                "options",
                "action",
                "task_id",
                "tool_name",
                "arguments",
                "method",
                "params",
                "session_id",
                "x",
            ]
        ): _fuzz_value(rng, depth + 1)
        for _ in range(rng.randint(0, 5))
    }


def _fuzz_message(rng: random.Random) -> str | bytes:
    roll = rng.random()
    if roll < 0.1:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))
    if roll < 0.2:
        return json.dumps(_fuzz_value(rng))[: rng.randint(0, 80)]  # cut mid-document
    message = {"type": rng.choice(["reset", "step", "state", "mcp", "close", "nope", 3]), "data": _fuzz_value(rng)}
    if rng.random() < 0.5 and message["type"] == "step":
        message["data"] = {
            "type": rng.choice(["call_tool", "list_tools"]),
            "tool_name": rng.choice(["reset", "finish", "act", "x", 1]),
            "arguments": _fuzz_value(rng),
        }
    return json.dumps(message)


def test_a_fuzzed_request_stream_never_takes_the_server_down():
    rng = random.Random(20260)
    srv = start([TOY_ID], max_sessions=256, idle_timeout=30.0, max_request_bytes=64 * 1024)
    try:
        conn = ws(srv.url)
        for _ in range(600):
            message = _fuzz_message(rng)
            if b"close" in (message if isinstance(message, bytes) else message.encode()):
                message = message.replace("close", "clos") if isinstance(message, str) else message
            try:
                conn.send(message)
                answer = json.loads(conn.recv(timeout=20))
                assert answer.get("type") in ("observation", "state", "error", "mcp")
            except Exception:  # the server may end a session; a new one must open
                conn.close()
                conn = ws(srv.url)
        conn.close()
        for _ in range(200):
            path = rng.choice(["/reset", "/step", "/state", "/close", "/mcp", "/schema", "/ws", "/x"])
            body = _fuzz_message(rng)
            status, _ = http(srv.url + path, raw=body if isinstance(body, bytes) else body.encode())
            assert status < 500 or status == 503, (path, body)
        assert http(srv.url + "/health", token=None)[0] == 200
        with ws(srv.url) as conn:
            reset = rpc(conn, {"type": "reset", "data": {"seed": 0}})
            word = reset["data"]["observation"]["text"].split("'")[1]
            rpc(conn, {"type": "step", "data": {"action": f"write {word}"}})
            assert rpc(conn, {"type": "step", "data": {"action": "submit"}})["data"]["reward"] == 1.0
        wait_until(lambda: srv.table.find(lambda s: s.kind != "http") == [], 10, "websocket sessions closed")
    finally:
        srv.stop()
    assert not leftovers()


# ---------------------------------------------------------------- env calls that never return
def hanging_server(stubborn: bool, **config: object):
    endpoint = EnvEndpoint("agentgym-test/Hanging-v0", factory=lambda: HangingEnv(stubborn))
    return ServerThread(endpoints=[endpoint], token=TOKEN, config=ServeConfig(**config)).start()  # type: ignore[arg-type]


def test_a_hung_step_closes_its_session_and_the_client_gets_a_typed_error():
    """A step past ``call_timeout``: the client gets `RemoteCallTimeout` (an `InfrastructureError`)
    soon after the deadline, the server has closed that env, and the same `RemoteEnv` plays on
    after a reset. Twelve in a row (twice the worker threads) leave no thread behind."""
    srv = hanging_server(False, max_sessions=2, call_timeout=0.5)
    threads = threading.active_count()
    try:
        env = RemoteEnv(srv.url, token=TOKEN, step_timeout=30)
        for i in range(12):
            env.reset(seed=i)
            HangingEnv.closed.clear()
            started = time.monotonic()
            with pytest.raises(RemoteCallTimeout) as hung:
                env.step("hang")
            assert isinstance(hung.value, InfrastructureError) and "0.5 s" in str(hung.value)
            assert time.monotonic() - started < 0.5 + 3
            wait_until(lambda: len(HangingEnv.closed) == 1, 5, "the hung session's env closed")
            obs, _ = env.reset(seed=i)  # a new session on the server
            assert "Set" in obs["text"] and env.step("get alpha")[0]["text"]
        env.close()
        status, reset = http(srv.url + "/reset", {"seed": 0})
        status, answer = http(srv.url + "/step", {"session_id": reset["session_id"], "action": "hang"})
        assert status == 504 and answer["error"]["error_type"] == "CallTimeout" and answer["error"]["infrastructure"]
        assert http(srv.url + "/state", {"session_id": reset["session_id"]})[0] == 404  # closed
        wait_until(lambda: srv.table.hung == 0 and len(srv.table) == 0, 10, "no hung call, no session left")
        assert threading.active_count() <= threads + 6  # the pool's threads, not one per hang
    finally:
        srv.stop()


def test_calls_that_never_return_hold_their_slots_and_never_starve_the_server():
    """Steps that ignore close (threads Python cannot stop): each keeps its session slot until it
    returns, so threads stay bounded by --max-sessions, and once every slot is held new sessions
    are refused at once (typed) instead of queueing behind dead threads; when the calls return,
    the server serves again. Before, 7 such steps took every worker and no reset was ever served."""
    RELEASE.clear()
    srv = hanging_server(True, max_sessions=3, call_timeout=0.5)
    threads = threading.active_count()
    try:
        for i in range(10):
            env = RemoteEnv(srv.url, token=TOKEN, step_timeout=30)
            started = time.monotonic()
            try:
                env.reset(seed=i)
                with pytest.raises(RemoteCallTimeout):
                    env.step("hang")
            except ServerUnreachable as full:  # every slot held by a hung call
                assert i >= 3 and "full" in str(full) and "3 held by env calls past the call timeout" in str(full)
            assert time.monotonic() - started < 0.5 + 3
            env.close()
        assert srv.table.hung == 3 and len(srv.table) == 0
        assert threading.active_count() <= threads + 3 + 7  # hung calls + the pool, bounded
        assert http(srv.url + "/health", token=None)[0] == 200
        RELEASE.set()
        wait_until(lambda: srv.table.hung == 0, 10, "the hung calls returned")
        env = RemoteEnv(srv.url, token=TOKEN, step_timeout=30)
        env.reset(seed=0)
        assert env.step("get alpha")[0]["text"]
        env.close()
    finally:
        RELEASE.set()
        srv.stop()


def test_a_hung_env_build_is_a_typed_error_and_the_late_env_is_closed():
    """The factory itself hangs (the first build, the server's probe, does not): WebSocket and
    HTTP clients get `CallTimeout` errors, and each env built after its client was answered is
    closed by the thread that built it, since no session holds it."""
    RELEASE.clear()
    built: list[HangingEnv] = []

    def factory() -> HangingEnv:
        if built:
            RELEASE.wait(120)
        built.append(HangingEnv())
        return built[-1]

    srv = ServerThread(
        endpoints=[EnvEndpoint("agentgym-test/Hanging-v0", factory=factory)],
        token=TOKEN,
        config=ServeConfig(max_sessions=4, call_timeout=0.5),
    ).start()
    try:
        env = RemoteEnv(srv.url, token=TOKEN, step_timeout=30)
        with pytest.raises(RemoteCallTimeout):
            env.reset(seed=0)
        status, answer = http(srv.url + "/reset", {"seed": 0})
        assert status == 504 and answer["error"]["error_type"] == "CallTimeout"
        assert srv.table.hung == 2 and len(srv.table) == 0
        HangingEnv.closed.clear()
        RELEASE.set()
        wait_until(lambda: srv.table.hung == 0 and len(HangingEnv.closed) == 2, 10, "the late envs closed")
        assert sorted(map(id, HangingEnv.closed)) == sorted(map(id, built[1:3]))
        env.reset(seed=0)  # the factory answers again: so does the server
        env.close()
    finally:
        RELEASE.set()
        srv.stop()


def test_a_hung_mcp_tool_call_is_a_tool_error_and_the_next_reset_plays_on():
    pytest.importorskip("mcp")
    srv = hanging_server(False, max_sessions=2, call_timeout=0.5)

    async def play() -> None:
        http_client, client = await mcp_client(f"{srv.url}/mcp", TOKEN)
        async with http_client, client:
            await client.call_tool("reset", {"seed": 0})
            hung = await client.call_tool("act", {"action": "hang"})
            assert hung.is_error and hung.structured_content["error"]["error_type"] == "CallTimeout"
            assert hung.structured_content["error"]["infrastructure"] is True
            again = await client.call_tool("reset", {"seed": 0})  # a new env for the same MCP session
            assert not again.is_error and "Set" in again.content[0].text

    try:
        asyncio.run(play())
        wait_until(lambda: srv.table.hung == 0, 10, "the hung call returned once its env was closed")
    finally:
        srv.stop()


SERVE_A_HANGING_ENV = """
import sys
sys.path[:0] = sys.argv[1:]
import gymnasium as gym
from agentgym.serve.app import ServeConfig
from agentgym.serve.server import serve
gym.register("agentgym-test/Hanging-v0", entry_point="serve_helpers:HangingEnv", kwargs={"stubborn": True})
serve(["agentgym-test/Hanging-v0"], port=0, config=ServeConfig(call_timeout=0.5), log_level="info")
"""


def test_a_server_with_a_call_that_never_returns_still_exits_on_sigint():
    """The abandoned thread must not hold the process: a `ThreadPoolExecutor`'s workers are
    joined at interpreter exit, so before, the server lived until the hung call returned."""
    here = os.path.dirname(os.path.abspath(__file__))
    with server_process(["-c", SERVE_A_HANGING_ENV, here, os.path.join(ROOT, "tests")]) as (proc, port):
        remote = RemoteEnv(f"http://127.0.0.1:{port}", token=TOKEN, step_timeout=30)
        remote.reset(seed=0)
        with pytest.raises(RemoteCallTimeout):
            remote.step("hang")
        remote.close()
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=20)  # the hung call would return only after 120 s


def test_workers_replace_an_abandoned_thread_and_never_run_a_job_given_up_in_the_queue():
    from agentgym.serve.sessions import Workers

    workers, gate, ran = Workers(1), threading.Event(), []
    stuck = workers.submit(gate.wait, 30)
    queued = workers.submit(ran.append, "queued")
    wait_until(lambda: stuck.future.running(), 5, "the first job running")
    assert workers.abandon(queued) is False and queued.future.cancelled()  # never started: it never will
    assert workers.abandon(stuck) is True and workers.hung == 1
    assert workers.submit(ran.append, "after").future.result(timeout=5) is None  # a fresh thread serves
    gate.set()
    wait_until(lambda: workers.hung == 0, 5, "the abandoned call returned")
    assert ran == ["after"] and stuck.future.result(timeout=1) is True
    workers.shutdown()
