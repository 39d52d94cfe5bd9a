"""Family images: ``envs/<family>/Dockerfile``, built ``FROM agentgym/base:latest`` with no network.

Each is labelled with a hash of its build context and the base image's id, so an unchanged family
is skipped in a few milliseconds.
"""

from __future__ import annotations

import hashlib
import importlib.util
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

from agentgym.setup.base_image import BASE_IMAGE
from agentgym.setup.engine import Log, _stderr
from agentgym.setup.imaging import CONTEXT_LABEL, _docker_build, _up_to_date, image_id

__all__ = ["family_contexts", "family_image", "context_hash", "build_family", "build_families"]


# ---------------------------------------------------------------------------- family images
def _envs_dirs() -> list[Path]:
    spec = importlib.util.find_spec("agentgym.envs")
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(p) for p in spec.submodule_search_locations]


def family_contexts(envs_dirs: list[Path] | None = None) -> dict[str, Path]:
    """family name -> its build context (the folder holding ``envs/<family>/Dockerfile``)."""
    out: dict[str, Path] = {}
    for envs in envs_dirs if envs_dirs is not None else _envs_dirs():
        for dockerfile in sorted(envs.glob("*/Dockerfile")):
            out.setdefault(dockerfile.parent.name, dockerfile.parent)
    return out


def family_image(family: str) -> str:
    return f"agentgym/{family}:latest"


def context_hash(context: Path, base_id: str) -> str:
    """A hash of the build context's files (caches excluded) and the base image id."""
    h = hashlib.sha256(base_id.encode())
    for path in sorted(context.rglob("*")):
        rel = path.relative_to(context).as_posix()
        if path.is_dir() or "__pycache__" in rel or rel.endswith(".pyc") or ".pytest_cache" in rel:
            continue
        h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:32]


def build_family(client: Any, family: str, context: Path, *, rebuild: bool = False, log: Log = _stderr) -> bool:
    """Build ``agentgym/<family>:latest`` with no network unless it is up to date. True when built."""
    tag = family_image(family)
    base_id = image_id(client, BASE_IMAGE) or ""
    digest = context_hash(context, base_id)
    if not rebuild and _up_to_date(client, tag, digest, "family", log):
        return False
    start = time.monotonic()
    log(f"family image {tag}: building from {context}")
    _docker_build(client, str(context), tag, labels={CONTEXT_LABEL: digest}, network_mode="none", log=log)
    log(f"family image {tag}: built in {time.monotonic() - start:.1f} s")
    return True


def build_families(
    client: Any, *, rebuild: bool = False, log: Log = _stderr, only: Collection[str] | None = None
) -> dict[str, bool]:
    """Build every ``envs/<family>/Dockerfile`` (those of the families in ``only``, if given);
    family -> whether it was (re)built."""
    return {
        family: build_family(client, family, ctx, rebuild=rebuild, log=log)
        for family, ctx in family_contexts().items()
        if only is None or family in only
    }
