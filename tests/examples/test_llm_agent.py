"""examples/llm_agent.py against a fake OpenAI-compatible chat server on 127.0.0.1."""

from __future__ import annotations

import pytest

from support.fake_chat import ScriptedChat, reply, serve


class FakeChat(ScriptedChat):
    """Asks for help once, then finishes; records what the model was shown."""

    requests: list[dict] = []

    def respond(self, body, turn):
        content = "help" if turn == 0 else 'finish("I could not complete the request.")'
        reply(self, content, {"prompt_tokens": 10, "completion_tokens": 3})


@pytest.fixture
def server():
    FakeChat.requests = []
    with serve(FakeChat) as url:
        yield url


def test_llm_agent_plays_an_episode_from_text_help_and_schemas(run_example, server):
    proc = run_example("llm_agent.py", "--base-url", server, "--model", "fake", "--budget", "6", "--backend", "local")
    assert "success=False" in proc.stdout and "turns=2" in proc.stdout
    first = FakeChat.requests[0]["messages"]
    system = next(m["content"] for m in first if m["role"] == "system")
    user = next(m["content"] for m in first if m["role"] == "user")
    assert "finish(answer, [value], [refused: boolean])" in system  # the tools, one line each (schemas: help)
    assert "[budget: 6 turns" in user  # the budget, stated in the observation text
    assert "admissible" not in user.lower()  # no menu: text, help and schemas only
