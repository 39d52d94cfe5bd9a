"""Attacks on `agentgym serve`: each is the smallest client behaviour that would break a guarantee
(no token, a wrong one, another session's id, oversized, malformed and slow requests, thousands
of sessions, a client that claims a reward, a token in the logs)."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import socket
import time

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from agentgym.wire.auth import Authenticator
from serve_helpers import OTHER_TOKEN, TOKEN, TOY_ID, healthy, http, rpc, start, ws


# ---------------------------------------------------------------- tokens
def test_no_token_and_wrong_tokens_are_refused_everywhere(small_server):
    url = small_server.url
    for token, headers in [
        (None, {}),
        ("wrong-" * 6, {}),
        (None, {"Authorization": "Bearer"}),
        (None, {"Authorization": "Basic " + base64.b64encode(b"agentgym:nope").decode()}),
        (None, {"Authorization": "Token " + TOKEN}),  # right token, unknown scheme
        (None, {"Authorization": "Bearer " + TOKEN[:-1]}),
    ]:
        for path, body in [
            ("/schema", None),
            ("/reset", {"seed": 0}),
            ("/step", {"action": "submit"}),
            ("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ]:
            status, payload = http(url + path, body, token=token, headers=headers)
            assert status == 401, (path, headers)
            assert TOKEN not in json.dumps(payload)
        with pytest.raises(InvalidStatus) as refused:
            ws(url, token=token, headers=headers or None)
        assert refused.value.response.status_code == 403
    assert len(small_server.table) == 0 and healthy(url)
    status, _ = http(
        url + "/schema",
        headers={"Authorization": "Basic " + base64.b64encode(f"anyone:{TOKEN}".encode()).decode()},
        token=None,
    )
    assert status == 200  # Basic with the token as password: what OpenEnv's clients send for user:token@host


def test_only_the_exact_health_paths_skip_the_token(small_server):
    url = small_server.url
    assert http(url + "/health", token=None)[0] == 200
    assert http(url + f"/{TOY_ID}/health", token=None)[0] == 200
    for path in ["/schema/health", "/reset/health", f"/{TOY_ID}/reset/health", "/x/health", "/mcp/health"]:
        status, _ = http(url + path, token=None)
        assert status == 401, path


def test_token_comparison_names_no_token_and_takes_every_token():
    auth = Authenticator([TOKEN, OTHER_TOKEN])
    assert auth.principal(f"Bearer {TOKEN}") == "token-0" and auth.principal(f"bearer {OTHER_TOKEN}") == "token-1"
    assert auth.principal(f"Bearer {TOKEN}x") is None and auth.principal("Bearer " + "a" * 10_000) is None
    assert TOKEN not in repr(auth.__dict__)  # only digests are kept


def test_the_token_is_never_logged(small_server, caplog):
    caplog.set_level(logging.DEBUG)
    http(small_server.url + "/schema", token=TOKEN[::-1])
    status, reset = http(small_server.url + "/reset", {"seed": 0})
    http(small_server.url + "/step", {"session_id": reset["session_id"], "action": TOKEN})
    http(small_server.url + "/close", {"session_id": reset["session_id"]})
    assert status == 200 and caplog.records  # the server did log
    assert all(TOKEN not in r.getMessage() and TOKEN[::-1] not in r.getMessage() for r in caplog.records)


# ---------------------------------------------------------------- sessions
def test_another_tokens_session_id_reads_as_unknown(small_server):
    url = small_server.url
    status, mine = http(url + "/reset", {"seed": 0})
    assert status == 200 and len(mine["session_id"]) >= 43  # 256 random bits
    for body in ({"session_id": mine["session_id"], "action": "submit"},):
        status, answer = http(url + "/step", body, token=OTHER_TOKEN)
        assert status == 404 and "unknown session" in answer["error"]["message"]
    status, _ = http(url + "/state", {"session_id": mine["session_id"]}, token=OTHER_TOKEN)
    assert status == 404
    status, _ = http(url + "/close", {"session_id": mine["session_id"]}, token=OTHER_TOKEN)
    assert status == 404
    status, _ = http(url + "/step", {"session_id": mine["session_id"][:-2] + "AA", "action": "submit"})
    assert status == 404
    status, state = http(url + "/state", {"session_id": mine["session_id"]})
    assert status == 200 and state["step_count"] == 0  # untouched by the other token's attempts
    http(url + "/close", {"session_id": mine["session_id"]})


def test_another_tokens_mcp_session_reads_as_unknown(small_server):
    import httpx2

    async def attack() -> None:
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        }
        async with httpx2.AsyncClient(timeout=20) as client:
            opened = await client.post(
                small_server.url + "/mcp", json=init, headers={**headers, "Authorization": f"Bearer {TOKEN}"}
            )
            sid = opened.headers["mcp-session-id"]
            stolen = await client.post(
                small_server.url + "/mcp",
                headers={
                    **headers,
                    "Authorization": f"Bearer {OTHER_TOKEN}",
                    "mcp-session-id": sid,
                    "mcp-protocol-version": "2025-06-18",
                },
                json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "reset", "arguments": {}}},
            )
            assert stolen.status_code == 404
            await client.delete(
                small_server.url + "/mcp",
                headers={**headers, "Authorization": f"Bearer {TOKEN}", "mcp-session-id": sid},
            )

    asyncio.run(attack())
    assert not small_server.table.find(lambda s: s.kind == "mcp")


def test_thousands_of_sessions_stop_at_the_limit_and_the_server_keeps_serving():
    """2,000 session attempts against a limit of 8: refused with CAPACITY_REACHED, never more than
    8 open, and a legitimate client is served once the flood ends."""
    small_server = start([TOY_ID], max_sessions=8, idle_timeout=60.0)
    try:
        flood(small_server)
    finally:
        small_server.stop()


def flood(small_server) -> None:
    url = small_server.url
    held = [ws(url) for _ in range(8)]
    refused = 0
    for i in range(2000):
        if i % 2:
            status, answer = http(url + "/reset", {})
            refused += status == 503 and answer["error"]["code"] == "CAPACITY_REACHED"
        else:
            with ws(url) as conn:
                answer = json.loads(conn.recv(timeout=10))
                refused += answer["data"]["code"] == "CAPACITY_REACHED"
        assert len(small_server.table) <= 8
    assert refused == 2000 and healthy(url)
    for conn in held:
        conn.close()
    deadline = time.monotonic() + 10
    while len(small_server.table) and time.monotonic() < deadline:
        time.sleep(0.02)
    with ws(url) as conn:
        assert rpc(conn, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"


# ---------------------------------------------------------------- requests
def test_oversized_requests_are_refused_and_nothing_breaks(small_server):
    url, limit = small_server.url, small_server.config.max_request_bytes
    status, _ = http(url + "/reset", raw=b'{"seed": 0, "pad": "' + b"x" * limit + b'"}')
    assert status == 413
    with ws(url) as conn:
        assert rpc(conn, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"
        conn.send(json.dumps({"type": "step", "data": {"action": "x" * (limit + 1)}}))
        with pytest.raises(ConnectionClosed) as closed:
            conn.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009  # message too big
    deadline = time.monotonic() + 10
    while len(small_server.table) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(small_server.table) == 0 and healthy(url)


MALFORMED = [
    "not json",
    "[]",
    "null",
    "1e999",
    '{"type": 5}',
    '{"type": "nope"}',
    '{"type": "reset", "data": []}',
    '{"type": "reset", "data": {"seed": -1}}',
    '{"type": "reset", "data": {"seed": 1.5}}',
    '{"type": "reset", "data": {"seed": true}}',
    '{"type": "reset", "data": {"options": "x"}}',
    '{"type": "reset", "data": {"options": {"task_id": 5}}}',
    '{"type": "step", "data": {}}',
    '{"type": "step", "data": {"type": "call_tool", "tool_name": 3}}',
    '{"type": "step", "data": {"type": "call_tool", "tool_name": "rm", "arguments": {}}}',
    '{"type": "mcp", "data": {"method": "tools/call", "params": []}}',
    '{"type": "mcp", "data": "x"}',
    "[" * 60_000,
    '{"a":' * 12_000,
    b"\xff\xfe binary",  # nesting past the parser depth, under the size cap
]


def test_malformed_messages_get_errors_and_the_session_survives(small_server):
    with ws(small_server.url) as conn:
        first = rpc(conn, {"type": "reset", "data": {"seed": 0}})
        word = first["data"]["observation"]["text"].split("'")[1]
        for message in MALFORMED:
            answer = rpc(conn, message)
            assert answer["type"] in ("error", "mcp"), message[:40]
            assert "Traceback" not in json.dumps(answer)
        assert rpc(conn, {"type": "step", "data": {"action": f"write {word}"}})["data"]["info"]["turn"] == 1
        done = rpc(conn, {"type": "step", "data": {"action": "submit"}})
        assert done["data"]["reward"] == 1.0 and done["data"]["done"] is True


def test_a_client_cannot_send_a_reward(small_server):
    """Reward, done and info fields in a step are ignored, and in a reset refused (an unknown reset
    option): only the server's verifier decides."""
    with ws(small_server.url) as conn:
        refused = rpc(conn, {"type": "reset", "data": {"seed": 0, "reward": 1.0}})
        assert refused["type"] == "error" and "unknown reset option 'reward'" in refused["data"]["message"]
        rpc(conn, {"type": "reset", "data": {"seed": 0}})
        answer = rpc(
            conn,
            {
                "type": "step",
                "data": {
                    "action": "submit",
                    "reward": 1.0,
                    "done": True,
                    "info": {"success": True},
                    "terminated": True,
                },
            },
        )
        assert answer["data"]["reward"] == 0.0 and answer["data"]["info"]["success"] is False
    status, reset = http(small_server.url + "/reset", {"seed": 0})
    status, step = http(
        small_server.url + "/step",
        {"session_id": reset["session_id"], "action": {"action": "write anything", "reward": 1.0}},
    )
    assert status == 200 and step["reward"] == 0.0 and step["done"] is False
    http(small_server.url + "/close", {"session_id": reset["session_id"]})


def test_slow_clients_are_cut_off_and_do_not_stall_others(small_server):
    """Sockets that stall mid-headers, mid-body, or hold a websocket silent: the others are served,
    a stalled body gets 408 within the request deadline, a silent session closes at the idle timeout."""
    host, port = "127.0.0.1", small_server.port
    stalled = []
    for _ in range(50):
        s = socket.create_connection((host, port), timeout=5)
        s.sendall(b"POST /reset HTTP/1.1\r\nHost: x\r\n")  # headers never finish
        stalled.append(s)
    body = socket.create_connection((host, port), timeout=10)
    body.sendall(
        f"POST /reset HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"se'.encode()
    )
    silent = ws(small_server.url)
    start = time.monotonic()
    assert http(small_server.url + "/schema")[0] == 200 and time.monotonic() - start < 2
    answer = body.recv(4096)
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:80]
    assert time.monotonic() - start < small_server.config.request_timeout + 3
    with pytest.raises(ConnectionClosed):
        silent.recv(timeout=small_server.config.idle_timeout + 5)
    for s in stalled + [body]:
        s.close()
    assert healthy(small_server.url)


def test_a_body_dripped_byte_by_byte_is_cut_off_at_the_request_deadline(small_server):
    """One byte just inside the deadline, again and again: the deadline is on the whole body,
    not on each chunk, so the request still ends with 408 soon after it."""
    deadline = small_server.config.request_timeout
    s = socket.create_connection(("127.0.0.1", small_server.port), timeout=deadline / 2)
    s.sendall(
        f"POST /reset HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{".encode()
    )
    start_at, answer = time.monotonic(), b""
    while not answer and time.monotonic() - start_at < deadline + 5:
        try:
            answer = s.recv(4096)
        except TimeoutError:
            s.sendall(b" ")  # one more byte, well within the deadline since the last one
    s.close()
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:80]
    assert time.monotonic() - start_at < deadline + 3
    assert healthy(small_server.url)


def test_routes_of_ids_not_served_do_not_exist(small_server):
    status, _ = http(small_server.url + "/agentgym/Coding-v0/schema")
    assert status == 404
    status, schema = http(small_server.url + f"/{TOY_ID}/schema")
    assert status == 200 and schema["env_id"] == TOY_ID


BODY_ROUTES = ["/reset", "/step", "/state", "/close", "/mcp", f"/{TOY_ID}/reset", f"/{TOY_ID}/step", f"/{TOY_ID}/mcp"]


def chunked(
    port: int, path: str, chunks: list[bytes], *, end: bool, token: str = TOKEN, timeout: float = 5.0
) -> tuple[bytes, float]:
    """POST ``chunks`` with chunked transfer encoding (no Content-Length); ``end=False`` never sends
    the last chunk, so only a server that answers without reading the whole body answers at all.
    Returns the answer's first bytes and the seconds it took."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    started = time.monotonic()
    try:
        s.sendall(
            f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            "Transfer-Encoding: chunked\r\n\r\n".encode()
        )
        for chunk in chunks:
            s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        if end:
            s.sendall(b"0\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:
            got = s.recv(4096)
            if not got:
                break
            answer += got
        return answer, time.monotonic() - started
    except OSError as exc:  # a timeout: the server waited for the rest of the body
        return repr(exc).encode(), time.monotonic() - started
    finally:
        s.close()


@pytest.mark.parametrize("path", BODY_ROUTES)
def test_an_oversized_chunked_body_is_refused_with_413_without_reading_it_all(small_server, path):
    """No Content-Length to check up front: the server must count the chunks and answer 413 once
    they pass the limit, not 422 or 500, and without waiting for the rest of a body (here it
    never ends); then it keeps serving."""
    limit = small_server.config.max_request_bytes
    over = [b"x" * 8192] * (limit // 8192 + 1)
    answer, took = chunked(small_server.port, path, over, end=False)
    assert answer.startswith(b"HTTP/1.1 413 "), (path, answer[:120])
    assert took < small_server.config.request_timeout, took  # answered at the limit, not at the read deadline
    status, reset = http(small_server.url + "/reset", {"seed": 0})
    assert status == 200 and healthy(small_server.url)
    http(small_server.url + "/close", {"session_id": reset["session_id"]})


def test_a_chunked_body_under_the_limit_is_served(small_server):
    answer, _ = chunked(small_server.port, "/reset", [b'{"seed"', b": 0}"], end=True)
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:120]
    deadline = time.monotonic() + 10
    while len(small_server.table) and time.monotonic() < deadline:  # its session ends at the 1 s idle timeout
        time.sleep(0.05)


# ---------------------------------------------------------------- browsers (cross-site requests)
EVIL = "http://evil.example"


def test_a_websocket_from_another_origin_is_refused_even_with_the_token(small_server):
    """Cross-site WebSocket hijacking: a page on another origin, in a browser that holds the token
    (a cached Basic login), opens /ws. Browsers always send Origin; non-browser clients send none."""
    url = small_server.url
    for origin in [EVIL, "null", "http://127.0.0.1", f"http://127.0.0.1:{small_server.port}", "http://localhost:3000"]:
        for headers in [
            {"Authorization": f"Bearer {TOKEN}", "Origin": origin},
            {"Authorization": "Basic " + base64.b64encode(f"agentgym:{TOKEN}".encode()).decode(), "Origin": origin},
        ]:
            with pytest.raises(InvalidStatus) as refused:
                ws(url, headers=headers)
            assert refused.value.response.status_code == 403, origin
        for path in ["/reset", f"/{TOY_ID}/reset", "/mcp", "/schema"]:  # a simple cross-site POST needs no preflight
            status, answer = http(url + path, {"seed": 0}, headers={"Origin": origin})
            assert status == 403 and "origin" in answer["error"], (path, origin)
    assert len(small_server.table) == 0 and small_server.table.opened == 0
    with ws(url) as conn:  # no Origin: a program, not a page
        assert rpc(conn, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"


def test_allowed_origins_are_served_and_only_they():
    srv = start([TOY_ID], allow_origins=("https://Trainer.example:8443/", "http://localhost:3000"))
    try:
        for origin in ["https://trainer.example:8443", "http://localhost:3000"]:
            with ws(srv.url, headers={"Authorization": f"Bearer {TOKEN}", "Origin": origin}) as conn:
                assert rpc(conn, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"
        for origin in [
            EVIL,
            "https://trainer.example",
            "http://trainer.example:8443",
            "http://localhost:3001",
            "https://trainer.example:8443.evil.example",
        ]:
            with pytest.raises(InvalidStatus) as refused:
                ws(srv.url, headers={"Authorization": f"Bearer {TOKEN}", "Origin": origin})
            assert refused.value.response.status_code == 403, origin
        with pytest.raises(InvalidStatus):  # an allowed origin still needs the token
            ws(srv.url, headers={"Origin": "http://localhost:3000"})
    finally:
        srv.stop()


@pytest.mark.parametrize("bad", ["trainer.example", "http://trainer.example/app", "*", "ftp://x", "http://"])
def test_an_allowed_origin_must_be_an_origin(bad):
    from agentgym.errors import ConfigError
    from agentgym.serve.app import ServeConfig

    with pytest.raises(ConfigError, match="origin"):
        ServeConfig(allow_origins=(bad,))


def test_the_cli_passes_allow_origin():
    import argparse

    from agentgym.serve import cli

    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    args = parser.parse_args(
        ["serve", TOY_ID, "--allow-origin", "http://localhost:3000", "--allow-origin", "https://trainer.example"]
    )
    assert args.allow_origin == ["http://localhost:3000", "https://trainer.example"]
    assert cli.config_from(args).allow_origins == ("http://localhost:3000", "https://trainer.example")
