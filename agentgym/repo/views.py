"""How the code families show files: numbered lines, the lines an edit changed, a whole-file diff."""

from __future__ import annotations

import difflib
import functools

__all__ = ["render_view", "echo", "full_diff"]


def render_view(path: str, text: str, start: int | None, end: int | None) -> str | None:
    """``view``'s numbered lines of ``text`` (None: the range is outside it): one format for the
    true file and a ``wrong_value`` fault's stale copy."""
    lines = text.splitlines()
    first, last = (start or 1), (end if end is not None else len(lines))
    if start is not None and (first > len(lines) or last > len(lines)):
        return None
    width = len(str(max(last, 1)))
    body = "\n".join(f"{n:>{width}} | {lines[n - 1]}" for n in range(first, last + 1))
    return f"{path} (lines {first}-{last} of {len(lines)}):\n{body}"


@functools.lru_cache(maxsize=4096)
def echo(path: str, before: str, after: str, context: int = 2, limit: int = 40) -> str:
    """The edited lines as they now read, numbered, with a little context: no `view` needed after an edit.

    Cached: a menu patch on a state seen before gives the same echo, and the line diff behind it was
    about a fifth of the host's CPU per Coding-v0 step (benchmarks/coding_host.py)."""
    old, new = before.splitlines(), after.splitlines()
    spans: list[list[int]] = []
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        lo, hi = max(0, j1 - context), min(len(new), max(j2, j1 + 1) + context)
        if spans and lo <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], hi)
        else:
            spans.append([lo, hi])
    shown: list[str] = []
    width = len(str(len(new)))
    for lo, hi in spans:
        if shown:
            shown.append("...")
        shown += [f"{n + 1:>{width}} | {new[n]}" for n in range(lo, hi)]
    if not shown:
        return f"{path}: no line changed."
    more = len(shown) - limit
    body = "\n".join(shown[:limit]) + (f"\n[{more} more line(s); `view {path}` shows them]" if more > 0 else "")
    return f"{path} now reads:\n{body}"


def full_diff(path: str, current: str, original: str) -> str:
    """A unified diff that turns ``current`` into ``original`` (the oracle's last resort)."""
    lines = difflib.unified_diff(current.splitlines(), original.splitlines(), f"a/{path}", f"b/{path}", lineterm="")
    return "\n".join(lines)
