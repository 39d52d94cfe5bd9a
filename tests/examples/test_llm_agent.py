"""examples/llm_agent.py against a fake OpenAI-compatible chat server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


class FakeChat(BaseHTTPRequestHandler):
    """Asks for help once, then finishes; records what the model was shown."""

    requests: list[dict] = []

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        content = "help" if turn == 0 else 'finish("I could not complete the request.")'
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}],
                           "usage": {"prompt_tokens": 10, "completion_tokens": 3}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    FakeChat.requests = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeChat)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_llm_agent_plays_an_episode_from_text_help_and_schemas(run_example, server):
    proc = run_example("llm_agent.py", "--base-url", server, "--model", "fake", "--budget", "6", "--backend", "local")
    assert "success=False" in proc.stdout and "turns=2" in proc.stdout
    first = FakeChat.requests[0]["messages"]
    system = next(m["content"] for m in first if m["role"] == "system")
    user = next(m["content"] for m in first if m["role"] == "user")
    assert '"parameters"' in system  # the tools as JSON schemas
    assert "[budget: 6 turns" in user  # the budget, stated in the observation text
    assert "admissible" not in user.lower()  # no menu: text, help and schemas only
