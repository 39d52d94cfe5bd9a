"""Menu modes: whether a family's menu may hold the oracle's next action.

A family's menu (`agentgym.core.AgentEnv.admissible_actions`) is what a small policy chooses
from. By default (``menu="oracle"``) the stateful families put the oracle's next action at the
menu's head, so a random menu policy can finish a task and the menu is never a dead end. For
*training* a menu policy that is a leak: the policy can learn to spot the action that is always
there (the only refusal that gives reasons, the only ``fill`` with a computed text) rather than
to solve the task. ``menu="no-oracle"`` builds the menu from what the agent has seen only:

- the family's candidate generator (calls on the records the agent has seen, the page's
  elements), the answers every task offers (done, a plain refusal, the amounts seen), never
  `reference_action`;
- capped at `agentgym.core.MAX_MENU` and ordered by a stable hash of (task, turn, action), not
  by the generator's "most useful first" order nor alphabetically (where verbs sort, and the
  step every task takes second sits last), so neither what is cut nor where an entry stands
  says anything about the answer. The same state gives the same menu.

The oracle's next action is then in the menu only when the generator makes it, as it makes the
alternatives; when it is not, the menu policy cannot take it (a tool-use amount it would have to
compute, a text a page asks to be worked out). A family that supports the mode lists it in
its ``menu_modes``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agentgym.core import MAX_MENU
from agentgym.errors import ConfigError
from agentgym.tasks import stable_hash

__all__ = ["MENU_MODES", "ORACLE", "NO_ORACLE", "check_menu_mode", "open_menu"]

ORACLE = "oracle"
"""The default: the menu's head holds the oracle's next action (a random policy can finish)."""
NO_ORACLE = "no-oracle"
"""The menu is built from what the agent has seen; the oracle is never consulted."""
MENU_MODES = (ORACLE, NO_ORACLE)


def check_menu_mode(env: str, menu: str, supported: Sequence[str]) -> str:
    """``menu`` when ``env`` supports it, else a `ConfigError` naming the modes it has."""
    if menu not in supported:
        raise ConfigError(
            f"{env}: menu={menu!r}; this family's menu modes: {list(supported)} "
            f"({NO_ORACLE!r}: a menu built without the oracle, for training menu policies)"
        )
    return menu


def open_menu(key: str, *groups: Iterable[str], limit: int | None = None) -> list[str]:
    """A no-oracle menu: the candidates of ``groups`` (blanks and repeats dropped) in the order of a
    stable hash of ``key`` (the task and turn) and each action, the first ``limit`` (default
    `agentgym.core.MAX_MENU`) kept. Which are kept, and where each stands, depend on the set of
    candidates alone, not on the order the family listed them in."""
    cap = MAX_MENU if limit is None else int(limit)
    menu = dict.fromkeys(a for group in groups for a in group if a)
    return sorted(menu, key=lambda a: (stable_hash(f"{key}\n{a}"), a))[:cap]
