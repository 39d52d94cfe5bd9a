"""An adversary for menus: can a policy that reads only the menu find the oracle's next action?

A menu that hands out the answer lets a menu policy learn *where the answer is* instead of how
to solve the task. This module plays the oracle through episodes, records every decision point
(the menu, the oracle's action, what the agent had observed), and tries menu-only rules a
policy could learn:

- **position**: always the k-th entry from the start or the end;
- **odd one out**: the only entry with some feature: its verb, its argument names, a word it
  holds, a word no observation so far held (the answer was computed, not read), the longest or
  the shortest entry, the only entry new since the previous menu (the last two also per verb:
  the only ``fill`` with an unseen word).

Rules are fitted on one half of the tasks (kept when they fire at least ``min_fires`` times and
are right at least ``precision`` of the time) and scored on the other half, as a learner would
generalise. `leaks` returns the rules that still find the oracle's action on the held-out half.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Point",
    "decision_points",
    "points_per_menu",
    "rule_picks",
    "fit_rules",
    "leaks",
    "position_hits",
    "STRUCTURAL",
]

_PLAN = (
    "ToolUse: once the customer is found, the only new listing call is theirs, and every careful agent lists "
    "their orders or bookings next: the plan, read off the observation (the id it just showed), not the answer"
)
STRUCTURAL: dict[str, str] = {"only:new:list_orders": _PLAN, "only:new:list_bookings": _PLAN}
"""Rules the adversary finds that follow the task's plan rather than its answer, each with why; a
menu passes when every rule the adversary finds is one of these."""

_WORD = re.compile(r"[A-Za-z0-9_$.@-]+")


@dataclass
class Point:
    """One decision point: the task, the menu, the oracle's next action, the words observed so far,
    and the previous menu of the episode."""

    task_id: str
    menu: list[str]
    oracle: str
    seen: frozenset[str]
    previous: tuple[str, ...]


def decision_points(
    env: Any, task_ids: Iterable[str], *, limit: int = 40, step: Callable[[Any, str], str] | None = None
) -> list[Point]:
    """Play the oracle through each task (``step(env, oracle_action)`` may choose what to play
    instead), recording every decision point."""
    return points_per_menu(env, task_ids, [None], limit=limit, step=step)[None]


def points_per_menu(
    env: Any,
    task_ids: Iterable[str],
    menus: Sequence[str | None],
    *,
    limit: int = 40,
    step: Callable[[Any, str], str] | None = None,
) -> dict[str | None, list[Point]]:
    """`decision_points` under each of the env's ``menus`` modes (None: its own) from one play of each
    task: a family that builds its menu on the host from the state (MiniWoB-v0) gives every mode's menu
    at the same decision point, so the pages are played once, not once per mode."""
    base = env.unwrapped
    own = getattr(base, "menu", None)
    points: dict[str | None, list[Point]] = {mode: [] for mode in menus}
    try:
        for tid in task_ids:
            obs, info = env.reset(seed=0, options={"task_id": tid})
            seen = set(_words(obs["text"]))
            previous: dict[str | None, tuple[str, ...]] = dict.fromkeys(menus, ())
            for _ in range(limit):
                ref = base.reference_action()
                shown = {mode: _menu_under(base, mode, own, info) for mode in menus}
                if not ref or not all(shown.values()):
                    break
                for mode, menu in shown.items():
                    points[mode].append(Point(tid, menu, ref, frozenset(seen), previous[mode]))
                    previous[mode] = tuple(menu)
                obs, _, terminated, truncated, info = env.step(step(env, ref) if step else ref)
                seen |= set(_words(obs["text"]))
                if terminated or truncated:
                    break
    finally:
        if own is not None:
            base.menu = own
    return points


def _menu_under(base: Any, mode: str | None, own: str | None, info: dict[str, Any]) -> list[str]:
    if mode is None or mode == own:
        return list(info["admissible_actions"])
    base.menu = mode
    try:
        return list(base.admissible_actions())
    finally:
        base.menu = own


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _verb(action: str) -> str:
    return action.split("(", 1)[0].strip() if "(" in action else action.split(None, 1)[0] if action.strip() else ""


def _features(action: str, point: Point) -> set[str]:
    body = action.split("(", 1)[1] if "(" in action else ""
    words = _words(body)
    verb = _verb(action)
    out = {f"verb:{verb}", "argnames:" + ",".join(re.findall(r"(\w+)=", body))}
    out |= {f"word:{w}" for w in words}
    if any(w not in point.seen for w in words):  # a text no observation held: computed, not read
        out |= {"unseen-word", f"unseen-word:{verb}"}
    if point.previous and action not in point.previous:
        out |= {"new", f"new:{verb}"}
    return out


def rule_picks(point: Point) -> dict[str, str]:
    """Rule name -> the entry it picks at this point (only the rules that fire here)."""
    menu = point.menu
    picks: dict[str, str] = {}
    for k in (0, 1, 2, -1, -2, -3):
        if -len(menu) <= k < len(menu):
            picks[f"position:{k}"] = menu[k]
    holders: dict[str, list[str]] = defaultdict(list)
    for entry in menu:
        for f in _features(entry, point):
            holders[f].append(entry)
    for f, entries in holders.items():
        if len(entries) == 1:
            picks[f"only:{f}"] = entries[0]
    lengths = sorted(menu, key=len)
    if len(menu) > 1 and len(lengths[-1]) > len(lengths[-2]):
        picks["longest"] = lengths[-1]
    if len(menu) > 1 and len(lengths[0]) < len(lengths[1]):
        picks["shortest"] = lengths[0]
    return picks


def _score(points: Sequence[Point]) -> dict[str, tuple[int, int]]:
    """Rule -> (fires, hits)."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for p in points:
        for rule, pick in rule_picks(p).items():
            out[rule][0] += 1
            out[rule][1] += int(pick == p.oracle)
    return {r: (f, h) for r, (f, h) in out.items()}


def fit_rules(points: Sequence[Point], *, min_fires: int = 5, precision: float = 0.9) -> list[str]:
    """The rules that fire at least ``min_fires`` times on ``points`` and pick the oracle's action at
    least ``precision`` of the time."""
    return sorted(r for r, (f, h) in _score(points).items() if f >= min_fires and h >= precision * f)


def leaks(points: Sequence[Point], *, min_fires: int = 5, precision: float = 0.9) -> dict[str, tuple[int, int]]:
    """Rules fitted on the even tasks that still pick the oracle's action at least ``precision`` of
    the time (over at least ``min_fires`` points) on the odd tasks: rule -> (fires, hits) there."""
    tasks = sorted({p.task_id for p in points})
    fit_half = set(tasks[0::2])
    fitted = fit_rules([p for p in points if p.task_id in fit_half], min_fires=min_fires, precision=precision)
    held = _score([p for p in points if p.task_id not in fit_half])
    return {
        r: held[r] for r in fitted if r in held and held[r][0] >= min_fires and held[r][1] >= precision * held[r][0]
    }


def position_hits(points: Sequence[Point]) -> dict[int, float]:
    """Position k -> the share of points where the k-th entry is the oracle's action."""
    out = {}
    for k in (0, 1, 2, -1, -2, -3):
        out[k] = sum(1 for p in points if -len(p.menu) <= k < len(p.menu) and p.menu[k] == p.oracle) / max(
            len(points), 1
        )
    return out
