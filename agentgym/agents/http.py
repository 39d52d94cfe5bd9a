"""One bounded JSON POST for model endpoints: a total deadline, a body cap, no redirects.

``urllib`` bounds each socket read, not the request, so an endpoint that drips a byte a second
never times out; it follows redirects with the ``Authorization`` header, so a redirect to
another host receives the API key; and it reads bodies whole. `post_json` fixes all three:
a timer shuts the socket at the deadline whatever the server does, bodies stop at ``max_bytes``,
and a redirect is an error (the credential never leaves for another URL). Every failure is a
typed `ModelEndpointError` (an `InfrastructureError`: the harness retries, never scores it).
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.parse
from collections.abc import Mapping
from typing import Any

from agentgym.errors import ConfigError, InfrastructureError

__all__ = ["ModelEndpointError", "ModelEndpointTimeout", "ModelReplyError", "post_json", "loads_bounded"]


class ModelEndpointError(InfrastructureError):
    """The chat endpoint did not answer usably; not the agent's fault. Check --base-url and that the server runs.

    ``status`` is the HTTP status when the endpoint answered with one >= 300 (a redirect included).
    """

    def __init__(self, message: str = "", status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ModelEndpointTimeout(ModelEndpointError):
    """The endpoint did not deliver a whole reply within the request's total deadline."""


class ModelReplyError(ModelEndpointError):
    """The endpoint answered, but not with a usable reply (too large, not JSON, wrong fields)."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def loads_bounded(body: bytes, what: str) -> Any:
    """Parse JSON, turning every failure (bad syntax, nesting past the recursion limit, 5000-digit
    integers, NaN/Infinity) into a `ModelReplyError`."""
    try:
        return json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except RecursionError:
        raise ModelReplyError(f"{what}: the JSON is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError, int digit limit, NaN
        raise ModelReplyError(f"{what}: not valid JSON ({str(exc)[:120]})") from None


def post_json(
    url: str, payload: Mapping[str, Any], headers: Mapping[str, str], *, timeout: float, max_bytes: int
) -> Any:
    """POST ``payload`` as JSON and return the parsed reply, all within ``timeout`` seconds in total.

    Raises `ModelEndpointTimeout` past the deadline, `ModelEndpointError` with ``status`` on a status >= 300
    (redirects included: they are never followed), `ModelReplyError` for a body over
    ``max_bytes`` or one that is not JSON, `ModelEndpointError` when the host cannot be reached.
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"endpoint URL {url!r}: expected http://HOST[:PORT]/PATH or https://...")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    deadline = time.monotonic() + timeout
    conn = cls(parts.hostname, parts.port, timeout=timeout)
    # A socket timeout bounds each read; only shutting the socket bounds the whole request.
    fired = threading.Event()  # set when the timer shut the socket: whatever was read after is cut short
    timer = threading.Timer(timeout, _shut, (conn, fired))
    timer.daemon = True
    timer.start()
    try:
        conn.connect()
        if time.monotonic() >= deadline:  # the timer fired while connecting, before there was a socket to shut
            raise TimeoutError
        conn.request("POST", path, body=json.dumps(payload).encode(), headers={**headers, "Connection": "close"})
        resp = conn.getresponse()
        if fired.is_set():
            raise TimeoutError
        if resp.status >= 300:
            snippet = resp.read(200) if resp.status >= 400 else b""
            where = resp.getheader("Location", "")
            raise ModelEndpointError(
                f"HTTP {resp.status} from {url}"
                + (
                    f" (a redirect to {where[:200]!r}, not followed: pass the final address as --base-url)"
                    if where
                    else ""
                )
                + (f": {snippet!r}" if snippet else ""),
                resp.status,
            )
        declared = resp.getheader("Content-Length")
        if declared and declared.isdigit() and int(declared) > max_bytes:
            raise ModelReplyError(f"{url} announced a {declared}-byte reply, over the {max_bytes}-byte limit")
        body = bytearray()
        while True:
            chunk = resp.read1(65536) if hasattr(resp, "read1") else resp.read(65536)
            if not chunk:
                break
            body += chunk
            if len(body) > max_bytes:
                raise ModelReplyError(f"the reply from {url} exceeds {max_bytes} bytes")
            if time.monotonic() > deadline:
                raise TimeoutError
        if fired.is_set():  # a shut socket reads as a clean end: headers or body were cut at the deadline
            raise TimeoutError
    except (OSError, http.client.HTTPException, ValueError) as exc:
        if fired.is_set() or time.monotonic() >= deadline or isinstance(exc, TimeoutError):
            raise ModelEndpointTimeout(f"{url} did not deliver a reply within {timeout:g} s") from None
        raise ModelEndpointError(f"{url} unreachable: {type(exc).__name__}: {exc}") from None
    finally:
        timer.cancel()
        conn.close()
    return loads_bounded(bytes(body), f"the reply from {url}")


def _shut(conn: http.client.HTTPConnection, fired: threading.Event) -> None:
    fired.set()
    sock = conn.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
