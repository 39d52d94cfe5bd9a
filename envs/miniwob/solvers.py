"""Scripted solvers for MiniWoB++ pages, read from what the agent sees, and the random policy's menu."""

from __future__ import annotations

import re
from typing import Any

SOLVERS: dict = {}


def min_turns(page: str) -> int:
    return 1


def next_action(page: str, reply: dict[str, Any], memory: dict[str, Any]) -> str:
    solver = SOLVERS.get(page)
    return solver(reply, memory) if solver else ""


def menu(reply: dict[str, Any]) -> list[str]:
    out = []
    for ln in reply.get("lines", []):
        if ln["role"] in ("button", "link", "checkbox", "radio", "clickable"):
            out.append(f"click({ln['id']})")
    return out
