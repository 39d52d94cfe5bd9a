"""The ToolUse domains: what a domain declares, and the registry of domains.

A domain is a module with a written policy, typed tool specs (`agentgym.actions.ToolSpec`,
rendered as OpenAI-style JSON schemas by ``help``), request templates that build a seeded world
plus the intents the verifier checks, and the menu of candidate tool calls a small policy picks
from.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Scenario", "Template", "Known", "DOMAINS"]


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
