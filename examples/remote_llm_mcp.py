"""An LLM with tool calling plays an env served by ``agentgym serve``, through its MCP tools.

    agentgym serve agentgym/ToolUse-v0 --kwargs '{"budget": 12}' &
    export AGENTGYM_SERVE_TOKEN_FILE=...          # the path the server printed
    python examples/remote_llm_mcp.py --server http://127.0.0.1:8000 \\
        --base-url http://127.0.0.1:8001/v1 --model my-model

The loop is the one MCP hosts run: connect with the official ``mcp`` SDK client, call ``reset``,
list the tools (the family's own, or ``act`` for grammar families, plus ``finish``), hand them to
an OpenAI-compatible chat endpoint as ``tools``, and call whatever the model calls until the
episode ends. Each tool result's ``structuredContent`` carries the server's reward,
``terminated``, ``truncated`` and ``info``; the model never sees a way to set them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from typing import Any

from agentgym.agents.http import post_json
from agentgym.wire.auth import client_token

SYSTEM = (
    "You are an agent solving a task through tools, one tool call per turn. Call `finish` when done; "
    "work not finished before the turns run out scores zero."
)


def chat(base_url: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    """One chat-completions call with tools; returns the assistant message."""
    headers = {"Content-Type": "application/json"}
    if os.environ.get("OPENAI_API_KEY"):
        headers["Authorization"] = f"Bearer {os.environ['OPENAI_API_KEY']}"
    body = {"model": model, "messages": messages, "tools": tools, "temperature": 0.0}
    reply = post_json(base_url.rstrip("/") + "/chat/completions", body, headers, timeout=120, max_bytes=8 << 20)
    return reply["choices"][0]["message"]


async def play(server: str, base_url: str, model: str, seed: int, max_turns: int) -> dict[str, Any]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {client_token()}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=600) as http,
        Client(streamable_http_client(server.rstrip("/") + "/mcp", http_client=http)) as client,
    ):
        first = await client.call_tool("reset", {"seed": seed})
        print(first.content[0].text)
        tools = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description or "", "parameters": t.input_schema},
            }
            for t in (await client.list_tools()).tools
            if t.name != "reset"
        ]
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": first.content[0].text},
        ]
        outcome: dict[str, Any] = {"reward": 0.0, "terminated": False, "truncated": False}
        for _ in range(max_turns):
            message = chat(base_url, model, messages, tools)
            calls = message.get("tool_calls") or []
            messages.append({"role": "assistant", "content": message.get("content") or "", "tool_calls": calls[:1]})
            if not calls:  # the model wrote text instead of calling: tell it, as the env would
                messages.append({"role": "user", "content": "Call one of the tools."})
                continue
            call = calls[0]["function"]
            try:
                arguments = json.loads(call.get("arguments") or "{}")
            except ValueError:
                arguments = {}
            result = await client.call_tool(call["name"], arguments if isinstance(arguments, dict) else {})
            text = result.content[0].text if result.content else ""
            print(f"\n> {call['name']}({json.dumps(arguments)})\n{text[:2000]}")
            messages.append({"role": "tool", "tool_call_id": calls[0].get("id", "call"), "content": text})
            outcome = result.structured_content or outcome
            if outcome.get("terminated") or outcome.get("truncated"):
                break
        return outcome


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--server", required=True, help="the agentgym server (or http://host:port/<id>)")
    p.add_argument("--base-url", required=True, help="chat API root, e.g. http://127.0.0.1:8001/v1")
    p.add_argument("--model", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--max-turns", type=int, default=30, help="model calls at most (the server's budget may end it first)"
    )
    args = p.parse_args(argv)
    outcome = asyncio.run(play(args.server, args.base_url, args.model, args.seed, args.max_turns))
    info = outcome.get("info") or {}
    print(f"\nreward={outcome.get('reward')} success={info.get('success')} turns={info.get('turn')}")
    return outcome


if __name__ == "__main__":
    main()
