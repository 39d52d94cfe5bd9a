"""Unified diffs: make the menu's patches, parse the agent's, apply them to workspace text.

Applying is forgiving the way `patch` is: a hunk whose context matches a few lines away from
its stated line still applies (the nearest match wins), and the hunk header's line counts are
not trusted. A hunk whose context matches nowhere is a state mismatch: the agent patched code
that is not in the file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Hunk", "FilePatch", "PatchError", "PatchMismatch", "parse_patch", "apply_patch", "make_patch", "find_block"]

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
CONTEXT = 3


class PatchError(ValueError):
    """The text is not a unified diff (a grammar error)."""


class PatchMismatch(ValueError):
    """The diff is well formed but does not fit the current files (a state mismatch)."""


@dataclass(frozen=True)
class Hunk:
    start: int  # 1-based line in the old file the hunk claims to start at
    old: tuple[str, ...]  # context and removed lines, without newlines
    new: tuple[str, ...]  # context and added lines


@dataclass(frozen=True)
class FilePatch:
    path: str
    hunks: tuple[Hunk, ...]


def _strip_prefix(path: str) -> str:
    path = path.strip().split("\t")[0].strip()
    if path.startswith(("a/", "b/")):
        path = path[2:]
    return path.lstrip("./") if path.startswith("./") else path


def parse_patch(text: str) -> list[FilePatch]:
    """Parse a unified diff of one or more files; raise `PatchError` saying what is wrong."""
    lines = text.splitlines()
    patches: list[FilePatch] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("--- "):
            if lines[i].startswith("@@"):
                raise PatchError("a hunk (@@ ... @@) must follow a '--- a/FILE' and '+++ b/FILE' header")
            i += 1
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("+++ "):
            raise PatchError("a '--- a/FILE' line must be followed by a '+++ b/FILE' line")
        path = _strip_prefix(lines[i + 1][4:])
        if path == "/dev/null" or not path:
            raise PatchError("creating or deleting files is not supported: patch existing files only")
        i += 2
        hunks: list[Hunk] = []
        while i < len(lines) and lines[i].startswith("@@"):
            m = _HUNK.match(lines[i])
            if not m:
                raise PatchError(f"bad hunk header {lines[i]!r}; expected '@@ -START,COUNT +START,COUNT @@'")
            start = int(m.group(1))
            i += 1
            old: list[str] = []
            new: list[str] = []
            while i < len(lines) and not lines[i].startswith("@@"):
                line = lines[i]
                if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
                    break
                if line.startswith("\\"):  # "\ No newline at end of file"
                    i += 1
                    continue
                tag, body = (line[:1], line[1:]) if line else (" ", "")
                if tag == " ":
                    old.append(body)
                    new.append(body)
                elif tag == "-":
                    old.append(body)
                elif tag == "+":
                    new.append(body)
                else:
                    raise PatchError(f"hunk line {line!r} must start with ' ', '-' or '+'")
                i += 1
            while old and new and old[-1] == "" and new[-1] == "" and (len(old) > 1 or len(new) > 1):
                old.pop()  # trailing blank lines are usually an artefact of how the diff was typed
                new.pop()
            if old == new:
                raise PatchError("a hunk changes nothing: mark removed lines with '-' and added lines with '+'")
            hunks.append(Hunk(start, tuple(old), tuple(new)))
        if not hunks:
            raise PatchError(f"the diff for {path} has no hunks ('@@ -START,COUNT +START,COUNT @@')")
        patches.append(FilePatch(path, tuple(hunks)))
    if not patches:
        raise PatchError("no '--- a/FILE' / '+++ b/FILE' header found")
    return patches


def find_block(lines: Sequence[str], block: Sequence[str], near: int, lo: int = 0) -> int | None:
    """Index of the occurrence of ``block`` in ``lines`` (from ``lo``) nearest to index ``near``."""
    n = len(block)
    if n == 0:
        return max(lo, min(near, len(lines)))
    first = block[0]
    best: int | None = None
    for i in range(lo, len(lines) - n + 1):
        if lines[i] == first and list(lines[i : i + n]) == list(block):
            if best is None or abs(i - near) < abs(best - near):
                best = i
    return best


def apply_patch(files: Mapping[str, str | None], patches: list[FilePatch]) -> dict[str, str]:
    """New text of every patched file; raises `PatchMismatch` if a file or a hunk's context is missing."""
    out: dict[str, str] = {}
    for fp in patches:
        text = out.get(fp.path, files.get(fp.path))
        if text is None:
            raise PatchMismatch(f"{fp.path} does not exist in the repository")
        lines = text.splitlines()
        trailing = text.endswith("\n")
        lo = 0
        shift = 0
        for h in fp.hunks:
            at = find_block(lines, h.old, h.start - 1 + shift, lo)
            if at is None:
                shown = "\n".join(h.old[:6])
                raise PatchMismatch(
                    f"hunk @@ -{h.start} @@ of {fp.path} does not match the file; its context/removed "
                    f"lines were not found:\n{shown}"
                )
            lines[at : at + len(h.old)] = list(h.new)
            lo = at + len(h.new)
            shift += len(h.new) - len(h.old)
        out[fp.path] = "\n".join(lines) + ("\n" if trailing or not lines else "")
    return out


def make_patch(path: str, text: str, at: int, old: Sequence[str], new: Sequence[str]) -> str:
    """A one-hunk unified diff replacing lines ``at..at+len(old)`` (0-based) of ``text`` with ``new``."""
    lines = text.splitlines()
    old, new = list(old), list(new)
    while old and new and old[0] == new[0]:  # unchanged lines are context, not a -/+ pair
        old.pop(0)
        new.pop(0)
        at += 1
    while old and new and old[-1] == new[-1]:
        old.pop()
        new.pop()
    a = max(0, at - CONTEXT)
    b = min(len(lines), at + len(old) + CONTEXT)
    before, after = lines[a:at], lines[at + len(old) : b]
    n_old = len(before) + len(old) + len(after)
    n_new = len(before) + len(new) + len(after)
    start_old = a + 1 if n_old else a
    start_new = a + 1 if n_new else a
    body = [" " + s for s in before] + ["-" + s for s in old] + ["+" + s for s in new] + [" " + s for s in after]
    return "\n".join([f"--- a/{path}", f"+++ b/{path}", f"@@ -{start_old},{n_old} +{start_new},{n_new} @@", *body])
