"""Gymnasium registration of every agentgym environment id.

String entry points keep specs serialisable and imports lazy: importing agentgym does not import
any family until `gym.make` asks for it. Every id is registered with `agentgym.make`'s entry
point, which builds the family from ``ENV_IDS`` and stacks the wrappers its options ask for, so
``gym.make("agentgym/Coding-v0", budget=8, faults="tool_error@turn=1")`` works and ``env.spec``
rebuilds that stack; with no options it is the bare family env.
"""

from __future__ import annotations

import difflib

import gymnasium as gym

from agentgym.envs.bfcl.tasks import CATEGORIES, category_env_id
from agentgym.envs.miniwob.tasks import TASKS, task_env_id
from agentgym.envs.swe.tasks import libraries, library_env_id, library_is_heldout
from agentgym.errors import UnknownEnvId

__all__ = ["ENV_IDS", "ENTRY_POINT", "register_envs", "task_ids", "unknown_env_id"]

ENTRY_POINT = "agentgym.make:make_registered"
"""The gymnasium entry point of every agentgym id: it builds the family and stacks the wrappers."""

ENV_IDS = {
    "agentgym/Coding-v0": "agentgym.envs.coding:CodingEnv",
    "agentgym/ToolUse-v0": "agentgym.envs.tooluse:ToolUseEnv",
    "agentgym/Browser-v0": "agentgym.envs.browser:BrowserEnv",
    "agentgym/MiniWoB-v0": "agentgym.envs.miniwob:MiniWoBEnv",
    "agentgym/BFCL-v0": "agentgym.envs.bfcl:BFCLEnv",
    "agentgym/SWE-v0": "agentgym.envs.swe:SWEEnv",
}


def task_ids() -> dict[str, tuple[str, dict[str, list[str] | str]]]:
    """Ids that are a family id with one task fixed, where Gymnasium users expect one id per task:
    ``agentgym/MiniWoB-click-button-v0`` is ``agentgym/MiniWoB-v0`` with ``tasks=["click-button"]``,
    ``agentgym/BFCL-miss_func-v0`` is ``agentgym/BFCL-v0`` with ``categories=["miss_func"]``,
    ``agentgym/SWE-boltons-v0`` is ``agentgym/SWE-v0`` with ``libraries=["boltons"]``.
    id -> (family id, its fixed arguments). The contract suite covers the family id; these share its code."""

    ids: dict[str, tuple[str, dict[str, list[str] | str]]] = {
        task_env_id(page): ("agentgym/MiniWoB-v0", {"tasks": [page]}) for page in TASKS
    }
    ids.update({category_env_id(c): ("agentgym/BFCL-v0", {"categories": [c]}) for c in CATEGORIES})
    for lib in libraries():  # a held-out library's tasks are all in the heldout split: its id starts there
        fixed: dict[str, list[str] | str] = {"libraries": [lib]}
        if library_is_heldout(lib):
            fixed["split"] = "heldout"
        ids[library_env_id(lib)] = ("agentgym/SWE-v0", fixed)
    return ids


def register_envs() -> None:
    """Register the ids once per process (gymnasium warns on re-registration)."""
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(
                id=env_id,
                entry_point=ENTRY_POINT,
                kwargs={"family_entry_point": entry_point},
                disable_env_checker=False,
            )
    for env_id, (family_id, fixed) in task_ids().items():
        if env_id not in gym.registry:
            gym.register(
                id=env_id,
                entry_point=ENTRY_POINT,
                kwargs={"family_entry_point": ENV_IDS[family_id], **fixed},
                disable_env_checker=False,
            )


def unknown_env_id(env_id: str, detail: str = "") -> UnknownEnvId:
    """The error for an id gymnasium has no spec for: the registered ids whose names are closest to it
    (``Coding-v0`` finds ``agentgym/Coding-v0``), else gymnasium's ``detail``, and the command that
    lists them all."""
    register_envs()
    by_name: dict[str, list[str]] = {}
    for known in sorted(gym.registry):
        by_name.setdefault(known.rpartition("/")[2].lower(), []).append(known)
    names = difflib.get_close_matches(env_id.rpartition("/")[2].lower(), list(by_name), n=3, cutoff=0.6)
    guesses = [known for name in names for known in by_name[name]]
    why = f"did you mean {' or '.join(guesses)}?" if guesses else (detail or "no such id")
    return UnknownEnvId(f"unknown env id {env_id!r}: {why} (`agentgym list` shows every agentgym id)")
