"""A client chooses one episode's budget and faults at reset, within the bounds the operator set
(``agentgym serve --client-budget LO-HI --client-faults KINDS``), over `RemoteEnv` (WebSocket),
plain HTTP and MCP; everything else is refused with a typed error naming the flag or the key."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor

import gymnasium as gym
import pytest

import agentgym
from agentgym.errors import ConfigError
from agentgym.registration import ENTRY_POINT
from agentgym.remote import RemoteEnv
from agentgym.sandbox.docker import docker_client
from agentgym.serve.app import ServeConfig
from agentgym.serve.cli import config_from, register
from agentgym.serve.server import ServerThread
from agentgym.serve.sessions import ClientBounds
from serve_helpers import TOKEN, http, mcp_client, rpc, ws
from support.docker import require_docker

KV_ID = "agentgym-test/KVServe-v0"
if KV_ID not in gym.registry:
    gym.register(
        KV_ID, entry_point=ENTRY_POINT, kwargs={"family_entry_point": "agentgym.testing.kv_env:ScriptedAgentEnv"}
    )


def serve(
    kwargs: dict | None = None, budget: tuple[int, int] | None = None, faults: tuple[str, ...] | None = None
) -> ServerThread:
    config = ServeConfig(client=ClientBounds(budget, faults))
    return ServerThread([KV_ID], kwargs or {}, token=TOKEN, config=config, mcp=True).start()


@pytest.fixture(scope="module")
def bounded():
    srv = serve({"budget": 4, "faults": "timeout@first=1"}, budget=(2, 6), faults=("tool_error", "timeout"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def fixed():
    srv = serve({"budget": 4})
    yield srv
    srv.stop()


def fault_kinds(info: dict) -> list[str]:
    return [e["fault"] for e in info["events"] if e["kind"] == "fault_injected"]


def test_remote_env_chooses_t_and_faults_and_goes_back_to_the_servers_own(bounded):
    env = RemoteEnv(bounded.url, token=TOKEN)
    try:
        assert env.observation_space["turns_left"].high.tolist() == [6]  # room for the client's largest T
        obs, info = env.reset(seed=0, options={"budget": 6, "faults": "tool_error@turn=1", "task_id": "kv/3"})
        assert info["budget"] == 6 and obs["turns_left"].tolist() == [6]
        obs, _, _, truncated, info = env.step("set alpha amber")
        assert fault_kinds(info) == ["tool_error"]
        for k in range(2, 7):
            obs, _, terminated, truncated, info = env.step("help")
            assert truncated == (k == 6) and not terminated
        assert info["budget_exhausted"]
        _, info = env.reset(seed=0, options={"task_id": "kv/3"})  # the server's own budget and faults again
        assert info["budget"] == 4
        assert fault_kinds(env.step("set alpha amber")[4]) == ["timeout"]
        _, info = env.reset(seed=0, options={"faults": "", "task_id": "kv/3"})  # no faults this episode
        assert fault_kinds(env.step("set alpha amber")[4]) == []
    finally:
        env.close()


def test_the_same_seed_and_options_play_the_same_remotely_and_in_process(bounded):
    options = {"budget": 3, "faults": "tool_error+timeout@p=0.5"}
    local = gym.make(KV_ID, budget=4, faults="timeout@first=1", max_budget=6)
    remote = RemoteEnv(bounded.url, token=TOKEN)
    try:
        for seed in range(3):
            a, b = local.reset(seed=seed, options=options), remote.reset(seed=seed, options=options)
            assert a[0]["text"] == b[0]["text"] and a[1]["budget"] == b[1]["budget"] == 3
            for _ in range(4):
                action = local.unwrapped.reference_action()
                sa, sb = local.step(action), remote.step(action)
                assert (sa[1], sa[2], sa[3], sa[4]["events"]) == (sb[1], sb[2], sb[3], sb[4]["events"])
                assert sa[0]["turns_left"].tolist() == sb[0]["turns_left"].tolist()
                if sa[2] or sa[3]:
                    break
    finally:
        local.close()
        remote.close()


@pytest.mark.parametrize(
    "options, match",
    [
        ({"budget": 7}, "--client-budget 2-6"),
        ({"budget": 1}, "--client-budget 2-6"),
        ({"budget": "3"}, "--client-budget 2-6"),
        ({"budget": {"soft": 9}}, "--client-budget 2-6"),
        ({"faults": "state_drift@turn=1"}, r"\['state_drift'\] are outside the server's --client-faults"),
        ({"faults": "tool_error+empty_output@p=0.5"}, r"\['empty_output'\]"),
        ({"faults": "tool_error@sometimes"}, "bad schedule"),
        ({"budjet": 3}, "unknown reset option 'budjet'"),
    ],
)
def test_out_of_bounds_and_unknown_options_are_refused(bounded, options, match):
    env = RemoteEnv(bounded.url, token=TOKEN)
    try:
        with pytest.raises(ConfigError, match=match):
            env.reset(seed=0, options=options)
        assert env.reset(seed=0)[1]["budget"] == 4  # the session goes on
    finally:
        env.close()


@pytest.mark.parametrize(
    "options, flag",
    [
        ({"budget": 3}, "--client-budget"),
        ({"faults": ""}, "--client-faults"),
        ({"budget": {"extra": 2}}, "--client-budget"),
    ],
)
def test_no_option_is_allowed_unless_the_operator_says_so(fixed, options, flag):
    env = RemoteEnv(fixed.url, token=TOKEN)
    try:
        with pytest.raises(ConfigError, match=f"does not let clients choose .*{flag}"):
            env.reset(seed=0, options=options)
        assert env.reset(seed=0, options={"budget": None})[1]["budget"] == 4
    finally:
        env.close()


def test_a_client_bound_alone_installs_a_turn_limit_of_hi():
    srv = serve({}, budget=(2, 5))
    try:
        env = RemoteEnv(srv.url, token=TOKEN)
        obs, info = env.reset(seed=0)
        assert info["budget"] == 5 and obs["turns_left"].tolist() == [5]
        assert env.reset(seed=0, options={"budget": 2})[1]["budget"] == 2
        env.close()
    finally:
        srv.stop()


def test_served_kwargs_make_room_for_the_clients_largest_t():
    bounds = ClientBounds((2, 32))
    assert bounds.served_kwargs({}) == {"budget": 32}
    assert bounds.served_kwargs({"budget": 8}) == {"budget": 8, "max_budget": 32}
    assert bounds.served_kwargs({"budget": {"uniform": [4, 64]}}) == {"budget": {"uniform": [4, 64]}}
    assert bounds.served_kwargs({"budget": {"soft": 8, "extra": 4}})["max_budget"] == 32
    assert ClientBounds(None, ("timeout",)).served_kwargs({"budget": 8}) == {"budget": 8}
    for bad in [(0, 4), (5, 4), (True, 4)]:
        with pytest.raises(ConfigError, match="--client-budget"):
            ClientBounds(bad)
    with pytest.raises(ConfigError, match="--client-faults"):
        ClientBounds(None, ("boom",))


def test_http_reset_body_carries_the_options(bounded):
    status, out = http(bounded.url + "/reset", {"seed": 1, "options": {"budget": 5, "task_id": "kv/3"}})
    assert status == 200 and out["info"]["budget"] == 5 and out["observation"]["turns_left"] == [5]
    http(bounded.url + "/close", {"session_id": out["session_id"]})
    status, out = http(bounded.url + "/reset", {"seed": 1, "options": {"budget": 60}})
    assert (
        status == 422 and out["error"]["error_type"] == "ConfigError" and "--client-budget" in out["error"]["message"]
    )


def test_mcp_reset_takes_budget_and_faults_where_allowed(bounded, fixed):
    conn = ws(bounded.url)
    try:
        tools = rpc(conn, {"type": "mcp", "data": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}})
        reset = next(t for t in tools["data"]["result"]["tools"] if t["name"] == "reset")
        assert (
            reset["inputSchema"]["properties"]["budget"]["maximum"] == 6
            and "faults" in reset["inputSchema"]["properties"]
        )
        out = rpc(
            conn,
            {
                "type": "mcp",
                "data": {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {"name": "reset", "arguments": {"seed": 0, "budget": 3, "faults": "tool_error@turn=1"}},
                },
            },
        )
        assert out["data"]["result"]["structuredContent"]["info"]["budget"] == 3
        out = rpc(
            conn,
            {
                "type": "mcp",
                "data": {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "tools/call",
                    "params": {"name": "reset", "arguments": {"budget": 30}},
                },
            },
        )
        assert "--client-budget" in out["data"]["error"]["message"]
    finally:
        conn.close()
    conn = ws(fixed.url)
    try:
        tools = rpc(conn, {"type": "mcp", "data": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}})
        reset = next(t for t in tools["data"]["result"]["tools"] if t["name"] == "reset")
        assert set(reset["inputSchema"]["properties"]) == {"seed", "task_id"}
    finally:
        conn.close()


def test_the_mcp_sdk_client_resets_with_a_budget(bounded):
    async def main() -> dict:
        client_http, client = await mcp_client(bounded.url + "/mcp", TOKEN)
        async with client_http, client:
            result = await client.call_tool("reset", {"seed": 0, "budget": 2})
            return result.structured_content

    out = asyncio.run(main())
    assert out["info"]["budget"] == 2 and out["observation"]["turns_left"] == [2]


def test_cli_flags_become_the_bounds():
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["serve", KV_ID, "--client-budget", "2-32", "--client-faults", "tool_error,timeout"])
    assert config_from(args).client == ClientBounds((2, 32), ("tool_error", "timeout"))
    args = parser.parse_args(["serve", KV_ID, "--client-budget", "8", "--client-faults", "all"])
    assert config_from(args).client == ClientBounds((8, 8), tuple(agentgym.core.FAULT_KINDS))
    assert config_from(parser.parse_args(["serve", KV_ID])).client == ClientBounds()
    for bad in (
        ["--client-budget", "0-4"],
        ["--client-budget", "9-4"],
        ["--client-budget", "x"],
        ["--client-faults", "boom"],
    ):
        with pytest.raises(SystemExit):
            parser.parse_args(["serve", KV_ID, *bad])
    assert json.loads(json.dumps(list(ClientBounds((2, 3)).budget))) == [2, 3]


@pytest.mark.slow
@pytest.mark.docker
def test_one_server_holds_32_docker_sessions_started_and_closed_in_parallel():
    """The 512-session figure is benchmarks/serve.py --concurrency; this keeps the path honest at 32:
    sessions reset at once (sandboxes started in the server's worker threads), each with its own T,
    then all closed at once, leaving no container of this process."""
    require_docker("agentgym/coding:latest")
    n = 32
    config = ServeConfig(client=ClientBounds((2, 32), ("tool_error",)))
    srv = ServerThread(["agentgym/Coding-v0"], {"backend": "docker"}, token=TOKEN, config=config, mcp=False).start()
    envs = [RemoteEnv(srv.url, token=TOKEN) for _ in range(n)]
    try:
        with ThreadPoolExecutor(16) as pool:
            infos = list(pool.map(lambda i: envs[i].reset(seed=i, options={"budget": 2 + i % 31})[1], range(n)))
            assert [info["budget"] for info in infos] == [2 + i % 31 for i in range(n)]
            assert len(srv.table) == n and len(managed()) == n
            steps = list(pool.map(lambda env: env.step("test")[4], envs))
            assert all(info["turns_left"] == info["budget"] - 1 for info in steps)
            list(pool.map(lambda env: env.close(), envs))
        deadline = time.monotonic() + 120
        while (managed() or len(srv.table)) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert managed() == [] and len(srv.table) == 0
    finally:
        for env in envs:
            env.close()
        srv.stop()


def managed() -> list[str]:
    """Containers this process's sandboxes started that still exist."""
    # the low-level listing: one call, no per-container inspect to race a removal
    return [
        c["Id"]
        for c in docker_client().api.containers(all=True, filters={"label": f"io.agentgym.owner_pid={os.getpid()}"})
    ]


def test_openenv_clients_send_the_options_beside_the_seed(bounded):
    """OpenEnv's clients send custom reset parameters as fields beside ``seed`` (``reset(**kwargs)``)."""
    conn = ws(bounded.url)
    try:
        out = rpc(conn, {"type": "reset", "data": {"seed": 0, "budget": 5, "faults": "", "task_id": "kv/3"}})
        assert out["data"]["info"]["budget"] == 5 and out["data"]["info"]["task_id"] == "kv/3"
        out = rpc(conn, {"type": "reset", "data": {"seed": 0, "budget": 5, "options": {"budget": 3}}})
        assert out["type"] == "error" and "given both" in out["data"]["message"]
        out = rpc(conn, {"type": "reset", "data": {"seed": 0, "budjet": 5}})
        assert out["type"] == "error" and "unknown reset option 'budjet'" in out["data"]["message"]
    finally:
        conn.close()
    status, out = http(bounded.url + "/reset", {"seed": 1, "budget": 3})
    assert status == 200 and out["info"]["budget"] == 3
    http(bounded.url + "/close", {"session_id": out["session_id"]})
