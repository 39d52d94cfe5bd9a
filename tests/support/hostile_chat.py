"""Hostile OpenAI-compatible endpoints on loopback: slow drips, endless bodies, redirects that
fish for the API key, and malformed replies. Each handler is the smallest server behaviour that
broke the chat agent (see the robustness issue)."""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler

__all__ = ["SlowDrip", "SlowHeaders", "Endless", "HugeDeclared", "Redirect", "Recorder", "Canned"]


class _Quiet(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _drain(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))


class SlowDrip(_Quiet):
    """A valid status and headers, then the body one byte every 0.2 s for up to 40 s."""

    def do_POST(self):
        self._drain()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "200")
        self.end_headers()
        try:
            for _ in range(200):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:
            pass


class SlowHeaders(_Quiet):
    """The status line, then one header line every 0.2 s, forever (no body is ever reached)."""

    def do_POST(self):
        self._drain()
        try:
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            for i in range(200):
                self.wfile.write(b"X-Drip-%d: 1\r\n" % i)
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:
            pass


class Endless(_Quiet):
    """A chunked body that never ends, as fast as the client reads."""

    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self._drain()
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = b"[" * 65536
        try:
            for _ in range(100_000):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except OSError:
            pass


class HugeDeclared(_Quiet):
    """Announces a 10 GB reply."""

    def do_POST(self):
        self._drain()
        self.send_response(200)
        self.send_header("Content-Length", str(10 << 30))
        self.end_headers()
        try:
            self.wfile.write(b"{" * 1024)
        except OSError:
            pass


class Recorder(_Quiet):
    """Records every request's method, path and Authorization header in ``seen``."""

    seen: list[tuple[str, str, str | None]] = []

    def _record(self):
        type(self).seen.append((self.command, self.path, self.headers.get("Authorization")))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = _record


class Redirect(_Quiet):
    """Answers 302 to ``target`` (another host), where a client that follows it would send its key."""

    target = ""
    status = 302

    def do_POST(self):
        self._drain()
        self.send_response(self.status)
        self.send_header("Location", self.target)
        self.send_header("Content-Length", "0")
        self.end_headers()


class Canned(_Quiet):
    """Answers every request with ``body`` (bytes) as JSON."""

    body = b"{}"

    def do_POST(self):
        self._drain()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)
