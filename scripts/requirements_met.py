"""Exit 0 when this checkout is installed (editable) with every requirement of the given extras met.

    python scripts/requirements_met.py train        # what README command (1) needs

`scripts/main.sh` skips pip when this says so: pip's resolver takes 35-40 s on a machine where
everything is already installed (measured for ``pip install -e '.[all]'``). The check reads the
requirements from ``pyproject.toml`` as it is now (not from the installed metadata, which an older
install wrote), expands the extras' references to other extras, and also asks for torch 2.13.0,
the build ``scripts/main.sh`` pins. Anything it cannot tell (no ``packaging``, an unreadable
file) counts as not met, so pip runs.
"""

from __future__ import annotations

import json
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TORCH = "2.13.0"


def _requirement(text: str):  # packaging's Requirement (pip vendors it when it is not installed)
    try:
        from packaging.requirements import Requirement
    except ImportError:
        from pip._vendor.packaging.requirements import Requirement
    return Requirement(text)


def requirements(extras: list[str]) -> list[str]:
    """The base dependencies and those of ``extras``, with the extras' references to other extras of
    this distribution (``agentgym-budget[...]``) expanded."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    optional = project.get("optional-dependencies", {})
    out, todo, seen = list(project.get("dependencies", [])), list(extras), set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for text in optional[extra]:
            req = _requirement(text)
            if req.name == project["name"]:
                todo.extend(req.extras)
            else:
                out.append(text)
    return out


def distribution_name() -> str:
    """The distribution's name as ``pyproject.toml`` gives it (``agentgym-budget``; the import name is agentgym)."""
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"])


def installed_here() -> bool:
    """This checkout's distribution, under its current name, is an editable install of this very folder
    (an install made under an older name is not: pip must install the current one)."""
    try:
        dist = metadata.distribution(distribution_name())
        url = json.loads(dist.read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        return False
    return bool(url.get("dir_info", {}).get("editable")) and url.get("url", "").removeprefix("file://") == str(ROOT)


def unmet(extras: list[str]) -> list[str]:
    """The requirements not met (empty: all are)."""
    missing = []
    for text in [*requirements(extras), f"torch=={TORCH}"]:
        req = _requirement(text)
        if req.marker is not None and not req.marker.evaluate():
            continue
        try:
            version = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            missing.append(text)
            continue
        if not req.specifier.contains(version.split("+")[0], prereleases=True):
            missing.append(f"{text} (installed: {version})")
    return missing


def main(argv: list[str]) -> int:
    try:
        if not installed_here():
            print(f"{distribution_name()} is not installed from this checkout", file=sys.stderr)
            return 1
        missing = unmet(argv)
    except Exception as exc:  # anything unexpected: let pip decide
        print(f"cannot tell ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 1
    for text in missing:
        print(f"not met: {text}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
