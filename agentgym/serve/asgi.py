"""Raw ASGI answers shared by the HTTP app and the MCP endpoint (given before any route runs)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["send_json"]


async def send_json(send: Any, status: int, payload: Any, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """A whole JSON response, straight to ASGI ``send``."""
    body = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
