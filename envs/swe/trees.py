"""The host's copy of each library (laid out by ``agentgym setup --only swe``) and its baseline.

The env writes a library's tree into the sandbox's workspace from here (the image holds no library
source, so nothing in the sandbox shows the agent the code as it was before the bug), reads the
pristine text of a file for the verdict's rule and the oracle, and lists the tree for the statement.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from pathlib import Path

from agentgym.envs.swe.libraries import library
from agentgym.setup.swe_images import library_tree

__all__ = ["definitions", "files", "text", "source_paths", "listing", "baseline", "baseline_tests", "BASELINE_DIR"]

BASELINE_DIR = Path(__file__).with_name("data") / "baseline"
_LISTING_DEPTH = 2
_DEFINITION = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", re.M)


@functools.cache
def files(name: str) -> dict[str, bytes]:
    """Every file of the library's tree, by path relative to its root (what the workspace starts as)."""
    root = library_tree(library(name))
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and p.name != ".complete"
    }


def text(name: str, path: str) -> str:
    """The pristine text of one file of the library."""
    return files(name)[path].decode("utf-8")


@functools.cache
def source_paths(name: str) -> tuple[str, ...]:
    """The library's own source files (`Library.is_source`: its packages' modules, tests excluded): what
    a fix may change and the verdict carries over."""
    lib = library(name)
    return tuple(sorted(path for path in files(name) if lib.is_source(path)))


@functools.cache
def definitions(name: str) -> frozenset[str]:
    """Every function and class name the library's sources define (``def NAME`` / ``class NAME``)."""
    found: set[str] = set()
    for path in source_paths(name):
        found.update(_DEFINITION.findall(files(name)[path].decode("utf-8", "replace")))
    return frozenset(found)


@functools.cache
def listing(name: str) -> str:
    """The tree as the statement shows it: folders to depth 2 with their files, deeper folders as counts."""
    tree: dict[str, list[str]] = {}
    for path in files(name):
        parts = path.split("/")
        folder = "/".join(parts[: min(len(parts) - 1, _LISTING_DEPTH)])
        shown = "/".join(parts[min(len(parts) - 1, _LISTING_DEPTH) :])
        tree.setdefault(folder, []).append(shown)
    lines = []
    for folder in sorted(tree):
        names = tree[folder]
        direct = sorted(n for n in names if "/" not in n)
        deeper: dict[str, int] = {}
        for n in names:
            if "/" in n:
                deeper[n.split("/", 1)[0]] = deeper.get(n.split("/", 1)[0], 0) + 1
        entries = direct + [f"{d}/ ({c} files)" for d, c in sorted(deeper.items())]
        lines.append(f"{folder or '.'}/: {', '.join(entries)}")
    return "\n".join(lines)


@functools.cache
def baseline(name: str) -> dict:
    """The library's baseline (``data/baseline/<name>.json``): its passing, non-flaky tests per file."""
    return json.loads((BASELINE_DIR / f"{name}.json").read_text())


def baseline_tests(name: str, test_files: Sequence[str]) -> list[str]:
    """The baseline-passing tests of ``test_files``, in order."""
    per_file = baseline(name)["files"]
    return [t for f in test_files for t in per_file.get(f, [])]
