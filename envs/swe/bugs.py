"""A recorded bug, and the buggy files rebuilt from it: SWE-v0's tasks ship no library text.

The manifest (``data/tasks/<library>.json``) may not hold the libraries' source or full patches
(their licenses ask for the notice to travel with the code; and size), so a bug is recorded by
*how to make it again*: the file, the function, the modifier and its site index, plus the sha256
of the original file and of the patch. `buggy_files` re-runs the modifier
(`agentgym.envs.swe.modifiers.enumerate_modifications`) on the host copy of the library that
``agentgym setup`` fetched and hash-checked, and refuses (`BugMismatch`) anything that does not
give byte for byte the patch that was validated.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agentgym.envs.swe.modifiers import Modification, enumerate_modifications, unified_diff
from agentgym.errors import AgentGymError
from agentgym.source_edits import split_lines

__all__ = [
    "Bug",
    "BugMismatch",
    "apply_bugs",
    "buggy_files",
    "combined_patch",
    "find_modification",
    "read_source",
    "sha256",
]


class BugMismatch(AgentGymError):
    """A recorded bug cannot be rebuilt as it was validated: the library's files differ from the
    ones the manifest was generated on (re-run ``agentgym setup --only swe``), or the modifiers
    changed (re-run ``python -m agentgym.envs.swe.generate`` and commit the manifest)."""


def read_source(path: Path) -> str:
    """A file's text exactly (no newline translation; undecodable bytes kept as surrogates)."""
    return path.read_bytes().decode("utf-8", "surrogateescape")


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


@dataclass(frozen=True)
class Bug:
    """One modification, as the manifest records it (`Modification` without the text)."""

    path: str
    """The file, relative to the library's root (the sandbox's workspace)."""
    function: str
    modifier: str
    site: int
    source_sha256: str
    """sha256 of the original file."""
    patch_sha256: str
    """sha256 of the unified diff from the original file to the buggy one."""

    @property
    def key(self) -> str:
        return f"{self.path}:{self.function}/{self.modifier}@{self.site}"

    @classmethod
    def of(cls, mod: Modification) -> Bug:
        return cls(mod.path, mod.function, mod.modifier, mod.site, sha256(mod.original), mod.patch_sha256)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Bug:
        return cls(
            str(data["path"]),
            str(data["function"]),
            str(data["modifier"]),
            int(data["site"]),
            str(data["source_sha256"]),
            str(data["patch_sha256"]),
        )


@functools.lru_cache(maxsize=32)
def _sites(source: str, path: str) -> dict[tuple[str, str, int], Modification]:
    """Every modification of a file by (function, modifier, site): a file's bugs are rebuilt from one enumeration."""
    return {(m.function, m.modifier, m.site): m for m in enumerate_modifications(source, path)}


def find_modification(source: str, bug: Bug, library: str = "") -> Modification:
    """The modification ``bug`` names in ``source`` (the original file); `BugMismatch` if it is not the recorded one."""
    where = f"{library}: {bug.key}" if library else bug.key
    if sha256(source) != bug.source_sha256:
        raise BugMismatch(
            f"{where}: {bug.path} is not the file the bug was generated on (sha256 {sha256(source)[:12]}, recorded "
            f"{bug.source_sha256[:12]}); run `agentgym setup --only swe` to fetch the pinned library again"
        )
    mod = _sites(source, bug.path).get((bug.function, bug.modifier, bug.site))
    if mod is not None:
        if mod.patch_sha256 != bug.patch_sha256:
            raise BugMismatch(
                f"{where}: the modifier now makes another patch (sha256 {mod.patch_sha256[:12]}, recorded "
                f"{bug.patch_sha256[:12]}); regenerate the manifest: python -m agentgym.envs.swe.generate"
            )
        return mod
    raise BugMismatch(
        f"{where}: the modifiers no longer find this site; "
        "regenerate the manifest: python -m agentgym.envs.swe.generate"
    )


def apply_bugs(source: str, mods: Sequence[Modification]) -> str:
    """``source`` with every modification applied (all made from ``source``; their lines must not overlap)."""
    lines = split_lines(source)
    spans = sorted(mods, key=lambda m: m.first)
    for a, b in zip(spans, spans[1:]):
        if a.last >= b.first:
            raise ValueError(f"{a.key} and {b.key} edit overlapping lines ({a.first}-{a.last}, {b.first}-{b.last})")
    for mod in reversed(spans):
        if mod.original != source:
            raise ValueError(f"{mod.key} was not made from this source")
        lines[mod.first - 1 : mod.last] = list(mod.new_lines)
    return "".join(lines)


def combined_patch(originals: Mapping[str, str], mods: Iterable[Modification]) -> str:
    """One unified diff of every file ``mods`` touch (files sorted), from the originals to the buggy texts."""
    by_path: dict[str, list[Modification]] = {}
    for mod in mods:
        by_path.setdefault(mod.path, []).append(mod)
    return "".join(unified_diff(originals[p], apply_bugs(originals[p], ms), p) for p, ms in sorted(by_path.items()))


def buggy_files(library: str, bugs: Iterable[Bug], root: str | Path) -> dict[str, str]:
    """``{path: buggy text}`` for every file ``bugs`` touch, rebuilt from the library's tree at ``root``.

    ``root`` is the host copy of the library (`agentgym.setup.swe_images.swe_root` / library);
    raises `BugMismatch` when a file is missing or differs from the one the bug was made on.
    """
    root = Path(root)
    by_path: dict[str, list[Bug]] = {}
    for bug in bugs:
        by_path.setdefault(bug.path, []).append(bug)
    out = {}
    for path, group in sorted(by_path.items()):
        file = root / path
        if not file.is_file():
            raise BugMismatch(
                f"{library}: {path} is missing under {root}; run `agentgym setup --only swe` to fetch the library"
            )
        source = read_source(file)
        out[path] = apply_bugs(source, [find_modification(source, bug, library) for bug in group])
    return out
