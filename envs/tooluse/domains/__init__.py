"""The ToolUse domains: what a domain declares, and the registry of domains.

A domain is a module with a written policy, typed tool specs (rendered as OpenAI-style JSON
schemas by ``help``), request templates that build a seeded world plus the intents the verifier
checks, and the menu of candidate tool calls a small policy picks from.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Param", "ToolSpec", "Scenario", "Template", "Known", "DOMAINS", "render_call", "tool_schema"]


@dataclass(frozen=True)
class Param:
    """One tool argument: JSON type ``string``, ``integer`` or ``number``; ``enum`` limits strings."""

    name: str
    type: str
    description: str
    required: bool = True
    enum: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolSpec:
    """A typed tool. ``writes`` marks tools that change the database (they emit ``mutation``)."""

    name: str
    description: str
    params: tuple[Param, ...] = ()
    writes: bool = False

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


def tool_schema(spec: ToolSpec) -> dict[str, Any]:
    """The tool as an OpenAI-style function tool (``{"type": "function", "function": {...}}``)."""
    props: dict[str, Any] = {}
    for p in spec.params:
        prop: dict[str, Any] = {"type": p.type, "description": p.description}
        if p.enum:
            prop["enum"] = list(p.enum)
        props[p.name] = prop
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": {
                "type": "object",
                "properties": props,
                "required": [p.name for p in spec.params if p.required],
                "additionalProperties": False,
            },
        },
    }


def render_call(tool: str, args: Mapping[str, Any] | None = None) -> str:
    """The function-call form of an action, e.g. ``get_order(order_id="O1234")``."""
    inner = ", ".join(f"{k}={json.dumps(v)}" for k, v in (args or {}).items())
    return f"{tool}({inner})"


@dataclass
class Scenario:
    """What a template builds from a seed: the world, the request, and what success means.

    ``intents`` are declarative goals the sandbox's policy solver turns into expected writes;
    ``lookups`` are (action, record keys) pairs a careful agent reads before acting; ``hints``
    feed the menu with strings the request mentions (addresses, search queries, routes).
    """

    tables: dict[str, list[dict[str, Any]]]
    today: str
    request: str
    intents: list[dict[str, Any]]
    lookups: list[tuple[str, list[str]]]
    verify_action: str
    hints: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Template:
    """A request template; ``heldout`` templates only ever appear in the ``heldout`` split."""

    name: str
    domain: str
    tier: str  # "single" | "multi" | "refusal"
    build: Callable[[random.Random], Scenario]
    heldout: bool = False


@dataclass
class Known:
    """Entities the agent has seen in tool results this episode, for the admissible menu."""

    ids: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)

    def add(self, kind: str, ident: str, data: Mapping[str, Any]) -> None:
        self.ids.setdefault(kind, {}).setdefault(ident, {}).update(data)

    def of(self, kind: str) -> dict[str, dict[str, Any]]:
        return self.ids.get(kind, {})


# imported last: the domain modules import the types above
from agentgym.envs.tooluse.domains import retail, travel  # noqa: E402

DOMAINS: Mapping[str, Any] = {"retail": retail, "travel": travel}
"""Domain name -> module with NAME, ROLE, POLICY, TOOLS, TEMPLATES and menu()."""
