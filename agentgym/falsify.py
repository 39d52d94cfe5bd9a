"""Plausible wrong values for the ``wrong_value`` fault: the same format, other content.

A tool that answers in the right format with the wrong content is the failure only checking
catches (the agent cannot tell it from the format), so what these functions change keeps every
key, type, token shape and decimal count: an amount is shifted to another amount with the same
decimals, a date to another date in ISO form, a count to another count, a text field to the same
field's value in another record of the result. Draws come from the env's seeded generator (any
object with numpy's ``integers``), so the same seed falsifies the same value. Stdlib only; the
host calls it on a tool's result, nothing here runs in a sandbox.

- `wrong_json(obj, rng, pool)`: a copy of a decoded JSON result with one leaf changed, or None.
- `wrong_text(text, rng)`: ``text`` with one amount, date or count token changed, or None.
- `has_json_value(obj, pool)`, `has_text_value(text)`: whether those would change anything (no draw).
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

__all__ = ["wrong_json", "wrong_text", "has_json_value", "has_text_value", "shift_number", "shift_date"]

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TOKENS = (
    re.compile(r"\$\d+(?:\.\d+)?"),  # money, as pages and messages write it
    re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),  # ISO dates
    re.compile(r"(?<![\[\d.$/#-])\b\d+(?:\.\d+)?\b(?![\]\d/-])"),  # counts and amounts, not [ids] or paths
)


class _Rng(Protocol):
    def integers(self, low: int, high: int | None = None) -> Any: ...


def shift_number(value: int | float, rng: _Rng, decimals: int | None = None) -> int | float:
    """Another plausible number: moved by 5-30% (at least one unit of its last decimal), with the same
    type, number of decimals and number of digits before the point (a shape check cannot tell it),
    never negative when ``value`` is not, never ``value`` itself."""
    places = decimals if decimals is not None else (0 if isinstance(value, int) else _places(value))
    unit = 10.0**-places
    step = max(unit, abs(value) * int(rng.integers(5, 31)) / 100)
    first = -1 if int(rng.integers(2)) else 1
    candidates = [round(value + d * s, places) for s in (step, unit) for d in (first, -first)]
    moved = next((c for c in candidates if c != value and _same_form(c, value)), round(value + unit, places))
    return int(moved) if isinstance(value, int) else float(moved)


def _same_form(moved: float, value: float) -> bool:
    """Same sign (or both non-negative) and the same count of digits before the point."""
    return (moved < 0) == (value < 0) and len(str(int(abs(moved)))) == len(str(int(abs(value))))


def shift_date(text: str, rng: _Rng) -> str:
    """Another ISO date one to three days away, either way (a date off by a little, as a stale copy's)."""
    days = int(rng.integers(1, 4)) * (1 if int(rng.integers(2)) else -1)
    return (dt.date.fromisoformat(text) + dt.timedelta(days=days)).isoformat()


def _places(value: float) -> int:
    text = repr(float(value))
    return min(len(text.split(".")[1]), 2) if "." in text and "e" not in text else 2


def wrong_json(obj: Any, rng: _Rng, pool: Mapping[str, Sequence[str]] | None = None) -> Any | None:
    """A deep copy of ``obj`` with one leaf given a plausible wrong value, or None when it has none.

    Candidates: numbers (not booleans), ISO dates, text fields whose key holds another value in a
    sibling record of the same list, and text fields whose key ``pool`` lists other values for (the
    world's other records: field -> values). Keys, types and nesting stay as they are, so the
    result decodes to the same shape."""
    leaves: list[tuple[list[Any], str]] = []  # (path, how) for each leaf that can be falsified
    _collect(obj, [], leaves)
    pool = pool or {}
    seen = {tuple(path) for path, _ in leaves}
    _collect_pooled(obj, [], pool, seen, leaves)
    if not leaves:
        return None
    path, how = leaves[int(rng.integers(len(leaves)))]
    out = copy.deepcopy(obj)
    holder = out
    for key in path[:-1]:
        holder = holder[key]
    leaf = holder[path[-1]]
    if how == "number":
        holder[path[-1]] = shift_number(leaf, rng)
    elif how == "date":
        holder[path[-1]] = shift_date(leaf, rng)
    elif how == "pool":  # another record of the world, the same field
        others = sorted(set(pool[path[-1]]) - {leaf})
        holder[path[-1]] = others[int(rng.integers(len(others)))]
    else:  # another record's value of the same field
        siblings = _sibling_values(out, path)
        holder[path[-1]] = siblings[int(rng.integers(len(siblings)))]
    return out


def _collect_pooled(
    obj: Any, path: list[Any], pool: Mapping[str, Sequence[str]], seen: set[tuple[Any, ...]], leaves: list[Any]
) -> None:
    if isinstance(obj, dict):
        for key, value in obj.items():
            if isinstance(value, str) and not _DATE.match(value) and (*path, key) not in seen:
                if set(pool.get(key, ())) - {value}:
                    leaves.append(([*path, key], "pool"))
            else:
                _collect_pooled(value, [*path, key], pool, seen, leaves)
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            _collect_pooled(value, [*path, i], pool, seen, leaves)


def has_json_value(obj: Any, pool: Mapping[str, Sequence[str]] | None = None) -> bool:
    """Whether `wrong_json` finds a value to change in ``obj`` (no draw from any generator)."""
    leaves: list[tuple[list[Any], str]] = []
    _collect(obj, [], leaves)
    if not leaves:
        _collect_pooled(obj, [], pool or {}, set(), leaves)
    return bool(leaves)


def has_text_value(text: str) -> bool:
    """Whether `wrong_text` finds a value to change in ``text`` (no draw from any generator)."""
    return any(_valid(m.group()) for pattern in _TOKENS for m in pattern.finditer(text))


def _collect(obj: Any, path: list[Any], leaves: list[tuple[list[Any], str]]) -> None:
    if isinstance(obj, dict):
        for key, value in obj.items():
            _collect(value, [*path, key], leaves)
    elif isinstance(obj, list):
        records = [r for r in obj if isinstance(r, dict)]
        for i, value in enumerate(obj):
            _collect(value, [*path, i], leaves)
            if isinstance(value, dict):
                for key, field in value.items():
                    others = {r.get(key) for r in records if isinstance(r.get(key), str)} - {field}
                    if isinstance(field, str) and others and not _DATE.match(field):
                        leaves.append(([*path, i, key], "sibling"))
    elif isinstance(obj, bool) or obj is None:
        return
    elif isinstance(obj, (int, float)):
        leaves.append((path, "number"))
    elif isinstance(obj, str) and _DATE.match(obj):
        try:
            dt.date.fromisoformat(obj)
        except ValueError:
            return
        leaves.append((path, "date"))


def _sibling_values(obj: Any, path: list[Any]) -> list[str]:
    records = obj
    for key in path[:-2]:
        records = records[key]
    field, mine = path[-1], records[path[-2]][path[-1]]
    return sorted({r[field] for r in records if isinstance(r, dict) and isinstance(r.get(field), str)} - {mine})


def wrong_text(text: str, rng: _Rng) -> str | None:
    """``text`` with one amount (``$12.50``), ISO date or count changed to a plausible other one of
    the same shape, or None when it holds none. Element ids in brackets and path segments are left
    alone: a wrong value misleads, it does not break the page."""
    for pattern in _TOKENS:
        found = [m for m in pattern.finditer(text) if _valid(m.group())]
        if found:
            m = found[int(rng.integers(len(found)))]
            return text[: m.start()] + _wrong_token(m.group(), rng) + text[m.end() :]
    return None


def _valid(token: str) -> bool:
    if _DATE.match(token):
        try:
            dt.date.fromisoformat(token)
        except ValueError:
            return False
    return True


def _wrong_token(token: str, rng: _Rng) -> str:
    if _DATE.match(token):
        return shift_date(token, rng)
    money = token.startswith("$")
    digits = token[1:] if money else token
    places = len(digits.split(".")[1]) if "." in digits else 0
    value = float(digits) if places else int(digits)
    moved = shift_number(value, rng, places)
    shown = f"{moved:.{places}f}" if places else str(int(moved))
    return ("$" if money else "") + shown
