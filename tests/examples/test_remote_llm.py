"""examples/remote_llm_agent.py (WebSocket and plain HTTP) and examples/remote_llm_mcp.py (MCP
tools), each against a loopback ``agentgym serve`` and a fake OpenAI-compatible chat server."""

from __future__ import annotations

import json
import secrets
import warnings

import pytest

from support.fake_chat import ScriptedChat, reply, serve

pytest.importorskip("mcp")
from agentgym.serve.server import ServerThread

TOKEN = secrets.token_urlsafe(32)


class FakeChat(ScriptedChat):
    """Text replies: ``help`` once, then ``finish``; tool calls when the request offers tools."""

    requests: list[dict] = []

    def respond(self, body, turn):
        usage = {"prompt_tokens": 10, "completion_tokens": 3}
        if body.get("tools"):
            call = (
                {"name": "get_user", "arguments": json.dumps({"user_id": "nobody"})}
                if turn == 0
                else {"name": "finish", "arguments": json.dumps({"answer": "I could not complete the request."})}
            )
            reply(self, None, usage, [{"id": f"call{turn}", "type": "function", "function": call}])
            return
        reply(self, "help" if turn == 0 else 'finish("I could not complete the request.")', usage)


@pytest.fixture(scope="module")
def served():
    warnings.filterwarnings("ignore", message="agentgym local sandbox backend")
    with ServerThread(["agentgym/ToolUse-v0"], {"backend": "local", "budget": 6}, token=TOKEN) as srv:
        yield srv


@pytest.fixture
def chat(monkeypatch):
    monkeypatch.setenv("AGENTGYM_SERVE_TOKEN", TOKEN)
    FakeChat.requests = []
    with serve(FakeChat) as url:
        yield url


@pytest.mark.parametrize("transport", ["websocket", "http"])
def test_remote_llm_agent_plays_over_the_server(run_example, served, chat, transport):
    proc = run_example(
        "remote_llm_agent.py", "--server", served.url, "--base-url", chat, "--model", "fake", "--transport", transport
    )
    assert "reward=0.0 success=False turns=2" in proc.stdout and f"transport={transport}" in proc.stdout
    system = FakeChat.requests[0]["messages"][0]["content"]
    assert "finish(answer, [value], [refused: boolean])" in system  # the family's tools came through the server
    assert len(served.table) == 0


def test_remote_llm_mcp_plays_through_mcp_tools(run_example, served, chat):
    proc = run_example("remote_llm_mcp.py", "--server", served.url, "--base-url", chat, "--model", "fake")
    assert "> get_user(" in proc.stdout and "reward=0.0 success=False turns=2" in proc.stdout
    offered = {t["function"]["name"] for t in FakeChat.requests[0]["tools"]}
    assert {"get_user", "finish"} <= offered and "reset" not in offered
    assert FakeChat.requests[1]["messages"][-1]["role"] == "tool"
