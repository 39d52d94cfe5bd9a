"""Reference clients drive `agentgym serve` unchanged: OpenEnv's ``GenericEnvClient`` (actions) and
``MCPToolClient`` (tool calls over ``/ws``), and the official ``mcp`` SDK client over ``/mcp``,
each playing an oracle episode on every registered id. The oracle's next action comes from a
local env of the same id and seed, stepped in lockstep (so the server's env is never asked)."""

from __future__ import annotations

import asyncio
from typing import Any

import gymnasium as gym
import pytest

from agentgym.llm.tools import action_call
from serve_helpers import IDS, OTHER_TOKEN, TOKEN, backend_for, mcp_client

openenv = pytest.importorskip("openenv.core")
mcp = pytest.importorskip("mcp")


def as_tool_call(action: str, tools: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The MCP tool call that stands for one oracle action, by the one tool surface every model path
    uses (`agentgym.llm.tools.action_call`): a family tool with named arguments, a Coding command as
    its tool, or ``act`` (another grammar)."""
    names = {t["name"] for t in tools}
    family = "coding" if {"view", "patch", "submit"} <= names else ""
    schemas = [{"name": t["name"], "parameters": t.get("inputSchema", {})} for t in tools if t["name"] != "reset"]
    return action_call(family, action, schemas)


def _listed(action: str, tools: list[dict[str, Any]]) -> bool:
    """Whether the tool the action calls is in ``tools`` (always, for a grammar family's ``act``)."""
    names = {t["name"] for t in tools}
    return "act" in names or as_tool_call(action, tools)[0] in names


def basic_url(url: str, token: str) -> str:
    return url.replace("http://", f"http://agentgym:{token}@")  # what OpenEnv's clients can send: HTTP Basic


@pytest.mark.parametrize("env_id", IDS)
def test_openenv_generic_client_plays_an_oracle_episode(url_of, env_id):
    from openenv.core.generic_client import GenericEnvClient

    local = gym.make(env_id, backend=backend_for(env_id))

    async def play() -> Any:
        async with GenericEnvClient(base_url=basic_url(url_of(env_id), TOKEN)) as env:
            result = await env.reset(seed=11)
            obs, _ = local.reset(seed=11)
            assert result.observation["text"] == obs["text"] and result.done is False
            for _ in range(60):
                action = local.unwrapped.reference_action()
                result = await env.step({"action": action})
                obs, reward, terminated, truncated, _ = local.step(action)
                assert result.observation["text"] == obs["text"] and result.reward == reward
                if result.done:
                    break
            state = await env.state()
            return result, state

    try:
        result, state = asyncio.run(play())
    finally:
        local.close()
    assert result.done and result.reward == 1.0
    assert state["env_id"] == env_id and state["done"] is True and state["step_count"] > 0


@pytest.mark.parametrize("env_id", IDS)
def test_openenv_mcp_tool_client_plays_an_oracle_episode(url_of, env_id):
    from openenv.core.env_server.mcp_types import CallToolAction
    from openenv.core.mcp_client import MCPToolClient

    local = gym.make(env_id, backend=backend_for(env_id))

    async def play() -> Any:
        async with MCPToolClient(base_url=basic_url(url_of(env_id), OTHER_TOKEN)) as env:
            await env.reset(seed=4)
            local.reset(seed=4)
            tools = [{"name": t.name, "inputSchema": t.input_schema} for t in await env.list_tools(use_cache=False)]
            assert "reset" in {t["name"] for t in tools}  # then the family's tools, as every model path has them
            for _ in range(60):
                action = local.unwrapped.reference_action()
                if not _listed(action, tools):  # the env's tools changed mid-episode (BFCL-v0's miss_func)
                    tools = [
                        {"name": t.name, "inputSchema": t.input_schema} for t in await env.list_tools(use_cache=False)
                    ]
                name, args = as_tool_call(action, tools)
                step = await env.step(CallToolAction(tool_name=name, arguments=args))
                obs, reward, terminated, truncated, _ = local.step(action)
                assert step.observation.result["data"] == obs["text"]
                if step.done:
                    return step

    try:
        step = asyncio.run(play())
    finally:
        local.close()
    assert step.done and step.reward == 1.0


@pytest.mark.parametrize("env_id", IDS)
def test_mcp_sdk_client_plays_an_oracle_episode(url_of, env_id):
    local = gym.make(env_id, backend=backend_for(env_id))

    async def play() -> Any:
        http, client = await mcp_client(f"{url_of(env_id)}/mcp", TOKEN)
        async with http, client:
            before = {t.name for t in (await client.list_tools()).tools}
            assert "reset" in before and len(before) >= 2  # before a reset: ``act``, or a grammar family's verbs
            result = await client.call_tool("reset", {"seed": 9})
            obs, _ = local.reset(seed=9)
            assert result.content[0].text == obs["text"] and not result.is_error
            tools = [{"name": t.name, "inputSchema": t.input_schema} for t in (await client.list_tools()).tools]
            family = local.unwrapped.tools()
            assert {t["function"]["name"] for t in family} <= {t["name"] for t in tools}
            for _ in range(60):
                action = local.unwrapped.reference_action()
                if not _listed(action, tools):  # the env's tools changed mid-episode (BFCL-v0's miss_func)
                    tools = [{"name": t.name, "inputSchema": t.input_schema} for t in (await client.list_tools()).tools]
                name, args = as_tool_call(action, tools)
                result = await client.call_tool(name, args)
                obs, reward, terminated, truncated, _ = local.step(action)
                assert result.content[0].text == obs["text"] and not result.is_error
                assert result.structured_content["reward"] == reward
                if terminated or truncated:
                    return result.structured_content

    try:
        final = asyncio.run(play())
    finally:
        local.close()
    assert final["reward"] == 1.0 and final["terminated"] is True and final["info"]["success"] is True


def test_mcp_bad_calls_are_tool_errors_and_the_session_ends_with_the_client(server):
    async def play() -> None:
        http, client = await mcp_client(f"{server.url}/agentgym/ToolUse-v0/mcp", TOKEN)
        async with http, client:
            early = await client.call_tool("finish", {"answer": "x"})
            assert early.is_error and "reset" in early.content[0].text
            await client.call_tool("reset", {"seed": 1})
            unknown = await client.call_tool("rm_rf", {})
            assert unknown.is_error and "unknown tool" in unknown.content[0].text
            bad = await client.call_tool("get_user", {"no_such_arg": 1})  # the env's grammar says why; a turn is spent
            assert not bad.is_error and bad.content[0].text.startswith("error")
            assert bad.structured_content["info"]["turn"] == 1 and bad.structured_content["reward"] == 0.0
            assert len(server.table.find(lambda s: s.kind == "mcp")) == 1
        for _ in range(100):
            if not server.table.find(lambda s: s.kind == "mcp"):
                return
            await asyncio.sleep(0.05)
        raise AssertionError("the MCP session's env outlived the client's DELETE")

    asyncio.run(play())
