"""What each registered id is, read from the registry without starting a sandbox: ``agentgym list``.

`catalog()` describes every ``agentgym/*`` id (or those a pattern picks): its family, its tasks per
split, what an action looks like, the menu, and whether it needs Docker. Building a family env is
cheap (its sandbox starts at the first ``reset``), so the whole list takes about a second and never
touches a Docker engine. The reference pages of the documentation can be generated from the same
records (`EnvInfo.as_dict`).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, cast

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

from agentgym.core import AgentEnv
from agentgym.errors import UnknownEnvId
from agentgym.registration import ENTRY_POINT, register_envs, unknown_env_id

__all__ = ["EnvInfo", "catalog", "describe", "register", "table"]

SPLITS = ("train", "test", "heldout")
"""The split columns of the table, in this order; a family without one shows ``-``."""


@dataclass(frozen=True)
class EnvInfo:
    """One registered id. ``family`` is the family's short name (``coding``); ``fixed`` the arguments
    the id fixes on its family env (``{"tasks": ["click-button"]}`` for a MiniWoB task id)."""

    id: str
    family: str
    family_class: str
    tasks: dict[str, int]
    action_form: str
    menu: bool
    backends: tuple[str, ...]
    needs_docker: bool
    fixed: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "backends": list(self.backends)}


def describe(env_id: str) -> EnvInfo:
    """The `EnvInfo` of one registered agentgym id (`agentgym.errors.UnknownEnvId` for another)."""
    register_envs()
    try:
        spec = gym.spec(env_id)
    except gym.error.Error as exc:
        raise unknown_env_id(env_id, str(exc)) from exc
    if spec.entry_point != ENTRY_POINT:
        raise UnknownEnvId(f"{env_id!r} is registered, but not as an agentgym id (`agentgym list` shows those)")
    fixed = dict(spec.kwargs)
    entry = fixed.pop("family_entry_point")
    family = cast(type[AgentEnv], load_env_creator(entry))  # every agentgym/* entry names an AgentEnv family
    env = family(**fixed)  # no sandbox yet: the family's tasks and settings only
    try:
        tasks = {split: len(env.tasks.ids(split)) for split in env.tasks.splits}
    finally:
        env.close()
    backends = tuple(getattr(family, "backends", ("docker", "local")))
    return EnvInfo(
        id=env_id,
        family=str(getattr(family, "family", "") or family.__name__),
        family_class=entry,
        tasks=tasks,
        action_form=str(getattr(family, "action_form", "") or "text (send `help` for the grammar)"),
        menu=getattr(family, "_admissible", None) is not AgentEnv._admissible,
        backends=backends,
        needs_docker="local" not in backends,
        fixed=fixed,
    )


def catalog(pattern: str = "") -> list[EnvInfo]:
    """Every registered ``agentgym/*`` id whose id contains ``pattern`` (case-insensitive), family ids first."""
    register_envs()
    ids = [i for i in gym.registry if i.startswith("agentgym/") and pattern.lower() in i.lower()]
    return [describe(i) for i in ids]


def table(infos: Sequence[EnvInfo]) -> str:
    """A fixed-width table of ``infos``: one row per id."""
    header = ["ID", "FAMILY", *(s.upper() for s in SPLITS), "DOCKER", "ACTIONS"]
    rows = [
        [
            info.id,
            info.family,
            *(str(info.tasks[s]) if s in info.tasks else "-" for s in SPLITS),
            "required" if info.needs_docker else "optional",
            info.action_form + (" (+ menu)" if info.menu else ""),
        ]
        for info in infos
    ]
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header) - 1)]
    numeric = {2, 3, 4}
    lines = []
    for row in [header, *rows]:
        cells = [
            row[c].rjust(widths[c]) if c in numeric and row is not header else row[c].ljust(widths[c])
            for c in range(len(widths))
        ]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines)


def register(subparsers: Any) -> None:
    """Add ``list`` to the ``agentgym`` parser (`agentgym.cli`)."""
    p = subparsers.add_parser(
        "list",
        help="every registered env id: family, tasks per split, action form, Docker",
        description="List the registered agentgym ids: family, tasks per split, what an action looks like "
        "(+ menu: info['admissible_actions'] offers choices), and whether the id needs Docker (optional: the "
        "local backend runs it too). Reads the registry only; starts no sandbox.",
    )
    p.add_argument("pattern", nargs="?", default="", help="only ids containing this text (case-insensitive)")
    p.add_argument("--json", action="store_true", help="one JSON list of objects, for scripts")
    p.set_defaults(func=_cmd_list)


def _cmd_list(args: argparse.Namespace) -> int:
    infos = catalog(args.pattern)
    if args.json:
        print(json.dumps([info.as_dict() for info in infos], indent=1))
        return 0
    if not infos:
        print(f"no agentgym id contains {args.pattern!r}")
        return 1
    print(table(infos))
    print(f"\n{len(infos)} ids. `agentgym play ID` plays one episode; `help` in an episode shows the grammar.")
    return 0
