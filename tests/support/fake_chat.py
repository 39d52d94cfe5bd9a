"""A fake OpenAI-compatible chat server on 127.0.0.1 for agent and example tests (loopback only)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def reply(
    handler: BaseHTTPRequestHandler, content: str | None, usage: dict[str, int], tool_calls: list[dict] | None = None
) -> None:
    """Answer a /chat/completions request with one assistant message (text, or tool calls)."""
    message: dict = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    data = json.dumps({"choices": [{"message": message}], "usage": usage}).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class ScriptedChat(BaseHTTPRequestHandler):
    """A chat endpoint that records each request body in ``requests`` and answers with
    ``respond(body, turn)``, ``turn`` counting the assistant messages the model was sent."""

    requests: list[dict] = []

    def do_POST(self) -> None:  # http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        self.respond(body, sum(1 for m in body["messages"] if m["role"] == "assistant"))

    def respond(self, body: dict, turn: int) -> None:
        raise NotImplementedError

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serve(handler_cls: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler_cls`` on a free loopback port; yields the API root URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler_cls)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()
