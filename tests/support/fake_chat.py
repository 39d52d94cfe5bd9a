"""A fake OpenAI-compatible chat server on 127.0.0.1 for agent and example tests (loopback only)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def reply(handler: BaseHTTPRequestHandler, content: str, usage: dict[str, int]) -> None:
    """Answer a /chat/completions request with one assistant message."""
    data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}], "usage": usage}).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


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
