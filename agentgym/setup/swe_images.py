"""The SWE image: real open-source libraries (SWE-v0), fetched pinned and hash-checked.

Nothing of the libraries is committed here. `agentgym setup` (``--only swe``) downloads each
pinned archive of `agentgym.envs.swe.libraries.LIBRARIES` with the machine's own ``pip``
(``--no-deps``; ``--no-binary :all:`` for a source distribution), checks its sha256 (`fetch`
deletes and refuses any other file), copies the paths the library keeps into a host tree
(`extract_library`: regular files and folders only, no absolute path, no ``..``, no link) and
builds ``agentgym/swe`` ``FROM`` the base image with no network. The image holds **no library
source**: the pristine code of a library is the answer to every task made from it, so it exists only
on the host, and a sandbox's workspace is written from the host copy (`agentgym.envs.swe.trees`).
The image holds the test dependencies, if any library needs one, read-only under ``/opt/swe/_deps``,
and drops the one library Debian's pytest brings along (``python3-more-itertools``, which pytest
never imports); its build fails if any library's package can be imported in it. The image is
labelled with a hash of every pin, the base image and the Dockerfile, so an unchanged setup is
skipped in milliseconds.

The host trees stay in the download cache (`swe_root`, one folder per library, each written to a
temporary folder and renamed into place with a ``.complete`` marker holding its archive's hash):
every sandbox's workspace is written from there, and the task generator reads the sources there.

Layout (``<root>`` is `swe_root` on the host; only ``_deps`` is also in the image, under ``/opt/swe``)::

    <root>/<name>/       the library's package, tests, test configuration and LICENSE, as shipped
    <root>/_deps/        pure-Python test dependencies, unpacked wheels (only if a library has any)
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Collection, Iterator
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

from agentgym.envs.swe.libraries import IMAGE_ROOT, LIBRARIES, Library, TestDependency
from agentgym.setup.base_image import BASE_IMAGE
from agentgym.setup.engine import Log, SetupFailed, _stderr
from agentgym.setup.imaging import CONTEXT_LABEL, _building, _docker_build, _temp_tag, _up_to_date, image_id
from agentgym.setup.page_images import Pinned, cache_dir, fetch

__all__ = [
    "SWE_IMAGE",
    "IMAGE_ROOT",
    "DEPS",
    "fetch_archive",
    "extract_library",
    "extract_wheel",
    "swe_root",
    "swe_trees",
    "pinned_archives",
    "fetch_all",
    "library_tree",
    "swe_image_digest",
    "build_swe_image",
    "build_swe_images",
]

SWE_IMAGE = "agentgym/swe:latest"
DEPS = "_deps"
"""The folder beside the libraries that holds their test dependencies (unpacked wheels)."""
_COMPLETE = ".complete"
_MAX_MEMBER = 32 << 20  # no single file of these libraries comes near; a bigger one is refused
DOCKERFILE = """\
FROM {base}
COPY swe {root}
LABEL org.agentgym.family="swe" org.agentgym.source="{sources}"
RUN chmod -R a+rX,go-w {root} && rm -rf /usr/lib/python3/dist-packages/more_itertools \\
    /usr/lib/python3/dist-packages/more_itertools-* && python3 -c "{check}"
"""


# ---------------------------------------------------------------------------- download
def _pip_download_archive(source: Pinned, dest: Path, log: Log) -> None:
    """``pip download NAME==VERSION --no-deps`` of the exact kind of archive pinned (sdist or wheel)."""
    kind = ["--only-binary=:all:"] if source.filename.endswith(".whl") else ["--no-binary=:all:"]
    cmd = [sys.executable, "-m", "pip", "download", f"{source.name}=={source.version}", "--no-deps", *kind]
    cmd += ["--disable-pip-version-check", "--no-cache-dir", "--dest", str(dest)]
    log(f"  pip download {source.name}=={source.version} --no-deps {kind[0]}")
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        raise SetupFailed(
            f"pip download {source.name}=={source.version} took over 300 s; is the package index "
            "reachable (pip's index settings)? Then run `agentgym setup --only swe` again"
        ) from None
    if done.returncode != 0:
        raise SetupFailed(
            f"pip download {source.name}=={source.version} failed (exit {done.returncode}); run "
            f"`agentgym setup --only swe` again once the package index answers:\n{(done.stderr or done.stdout)[-1500:]}"
        )


def fetch_archive(source: Library | TestDependency, *, cache: Path | None = None, log: Log = _stderr) -> Path:
    """The pinned archive of a library (or a test dependency's wheel), downloaded when missing and
    hash-checked every time (`fetch`)."""
    return fetch(source, cache=cache, log=log, download=_pip_download_archive)


# ---------------------------------------------------------------------------- extraction
def _safe(name: str, archive: Path) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or "\\" in name or not name:
        raise SetupFailed(f"{archive.name} holds an unsafe path {name!r}: refused (nothing of it was used)")
    return path


def _members(archive: Path) -> Iterator[tuple[PurePosixPath, str, int, Any]]:
    """(path, kind, size, handle) of every member, kind "file", "dir" or "other" (a link, a device:
    never written; refused where it would be kept). Every path is checked, kept or not."""
    if archive.name.endswith(".whl"):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                kind = "dir" if info.is_dir() else "other" if stat.S_ISLNK(info.external_attr >> 16) else "file"
                path = _safe(info.filename.rstrip("/") or info.filename, archive)
                yield path, kind, info.file_size, (zf, info)
        return
    with tarfile.open(archive, "r:gz") as tf:
        for member in tf:
            kind = "file" if member.isfile() else "dir" if member.isdir() else "other"
            yield _safe(member.name, archive), kind, member.size, (tf, member)


def _read(handle: Any) -> bytes:
    container, member = handle
    if isinstance(container, zipfile.ZipFile):
        return container.read(member)
    stream: BinaryIO | None = container.extractfile(member)
    assert stream is not None  # a regular file
    return stream.read()


def _under(path: PurePosixPath, prefixes: Collection[str]) -> bool:
    text = path.as_posix()
    return any(text == p or text.startswith(p.rstrip("/") + "/") for p in prefixes)


def _write(dest: Path, rel: PurePosixPath, data: bytes) -> None:
    target = dest.joinpath(*rel.parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    target.chmod(0o644)


def extract_library(lib: Library, archive: Path, dest: Path) -> int:
    """Copy what ``lib`` keeps of ``archive`` into ``dest`` (see `Library.keep` and `Library.drop`);
    the number of files. Every member is checked, kept or not, so a hostile archive is refused whole."""
    count = 0
    kept: set[str] = set()
    for path, kind, size, handle in _members(archive):
        if lib.top:
            if path.parts[0] != lib.top:
                raise SetupFailed(f"{archive.name} holds {path.as_posix()!r} outside its folder {lib.top}/: refused")
            path = PurePosixPath(*path.parts[1:]) if len(path.parts) > 1 else PurePosixPath(".")
        if kind == "dir" or not _under(path, lib.keep) or _under(path, lib.drop):
            continue
        if "__pycache__" in path.parts or path.suffix in (".pyc", ".pyo", ".so", ".pyd"):
            continue
        if kind != "file":
            raise SetupFailed(
                f"{archive.name} holds {path.as_posix()!r}, a link or device where files are kept: refused"
            )
        if size > _MAX_MEMBER:
            raise SetupFailed(f"{archive.name}: {path.as_posix()} is {size} bytes, over {_MAX_MEMBER}: refused")
        _write(dest, path, _read(handle))
        kept.add(path.as_posix())
        count += 1
    missing = [p for p in lib.keep if not any(k == p or k.startswith(p + "/") for k in kept)]
    if missing:
        raise SetupFailed(f"{archive.name} lacks {missing}, which {lib.name}'s pin keeps: the pin is wrong")
    return count


def extract_wheel(wheel: Path, dest: Path) -> int:
    """Unpack a pure-Python wheel (every member, safely) into ``dest``; the number of files."""
    count = 0
    for path, kind, size, handle in _members(wheel):
        if kind == "dir":
            continue
        if kind != "file":
            raise SetupFailed(f"{wheel.name} holds {path.as_posix()!r}, a link: refused")
        if size > _MAX_MEMBER:
            raise SetupFailed(f"{wheel.name}: {path.as_posix()} is {size} bytes, over {_MAX_MEMBER}: refused")
        _write(dest, path, _read(handle))
        count += 1
    return count


# ---------------------------------------------------------------------------- host trees
def swe_root(cache: Path | None = None) -> Path:
    """Where the host trees live: ``<download cache>/swe`` (``/opt/swe``'s twin)."""
    return (cache if cache is not None else cache_dir()) / "swe"


def _marker(sources: Collection[Library | TestDependency]) -> str:
    """What a complete tree records: each archive's pin and a hash of the whole pin, so a change of
    what is kept (not only of the archive) extracts the tree again."""
    return "".join(
        f"{s.name}=={s.version} {s.sha256} {hashlib.sha256(repr(s).encode()).hexdigest()[:16]}\n" for s in sources
    )


def _materialise(folder: Path, marker: str, fill: Any) -> Path:
    """``folder`` holding what ``fill(temp)`` writes, swapped in whole with ``.complete`` = ``marker``."""
    if (folder / _COMPLETE).is_file() and (folder / _COMPLETE).read_text() == marker:
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    old = None
    try:
        fill(temp)
        (temp / _COMPLETE).write_text(marker)
        os.chmod(temp, 0o755)
        if folder.exists():  # an older pin's tree (or a half one from before markers): set aside
            old = Path(tempfile.mkdtemp(prefix=f".{folder.name}-old-", dir=folder.parent))
            folder.rename(old / "tree")
        try:
            temp.rename(folder)
        except OSError:  # another process put it in place first
            if not ((folder / _COMPLETE).is_file() and (folder / _COMPLETE).read_text() == marker):
                raise
    finally:
        for leftover in (temp, old):
            if leftover is not None and leftover.exists():
                shutil.rmtree(leftover, ignore_errors=True)
    return folder


def library_tree(lib: Library, *, cache: Path | None = None, log: Log | None = None, download: bool = False) -> Path:
    """The host copy of ``lib``'s workspace tree, extracted once from its hash-checked archive.

    Without the archive it raises `SetupFailed` saying to run ``agentgym setup --only swe``,
    unless ``download`` (setup itself) lets `fetch_archive` download it.
    """
    folder = cache if cache is not None else cache_dir()
    tree = swe_root(folder) / lib.name
    marker = _marker([lib])
    if (tree / _COMPLETE).is_file() and (tree / _COMPLETE).read_text() == marker:
        return tree
    if not download and not (folder / lib.filename).exists():
        raise SetupFailed(
            f"the SWE-v0 library {lib.name} {lib.version} is not on this machine ({folder / lib.filename} "
            "is missing): run `agentgym setup --only swe` (it downloads the pinned archives and checks their hashes)"
        )
    archive = fetch_archive(lib, cache=folder, log=log or _stderr)
    return _materialise(tree, marker, lambda temp: extract_library(lib, archive, temp))


def _deps_tree(cache: Path, log: Log | None, download: bool) -> Path | None:
    deps = [d for d in pinned_archives() if isinstance(d, TestDependency)]
    if not deps:
        return None
    for dep in deps:
        if not download and not (cache / dep.filename).exists():
            raise SetupFailed(f"{cache / dep.filename} is missing: run `agentgym setup --only swe`")
    wheels = [fetch_archive(dep, cache=cache, log=log or _stderr) for dep in deps]

    def fill(temp: Path) -> None:
        for wheel in wheels:
            extract_wheel(wheel, temp)

    return _materialise(swe_root(cache) / DEPS, _marker(deps), fill)


def pinned_archives() -> list[Library | TestDependency]:
    """Every archive the image is built from: the libraries', then their test dependencies'."""
    return [*LIBRARIES, *sorted({d for lib in LIBRARIES for d in lib.deps}, key=lambda d: d.name)]


def fetch_all(*, cache: Path | None = None, log: Log | None = None) -> list[Path]:
    """Every pinned archive in the cache, the missing ones downloaded, each hash-checked. One at a
    time: pip builds each sdist's metadata in its own build environment, which is CPU work, and on
    2 busy cores four at a time took 164 s where one at a time took 131 and 152 s."""
    folder = cache if cache is not None else cache_dir()
    return [fetch_archive(source, cache=folder, log=log or _stderr) for source in pinned_archives()]


def swe_trees(*, cache: Path | None = None, log: Log | None = None, download: bool = False) -> Path:
    """Every library's host tree (and the test dependencies'), under `swe_root`; that folder."""
    folder = cache if cache is not None else cache_dir()
    if download:
        fetch_all(cache=folder, log=log)
    for lib in LIBRARIES:
        library_tree(lib, cache=folder, log=log, download=download)
    _deps_tree(folder, log, download)
    return swe_root(folder)


# ---------------------------------------------------------------------------- image
def _dockerfile() -> str:
    # no library may be importable in the image: its pristine code would be every task's answer
    packages = sorted({p for lib in LIBRARIES for p in lib.packages})
    check = (
        "import importlib.util as u, sys; import pytest; "
        f"found = [p for p in {packages!r} if u.find_spec(p)]; "
        "sys.exit('library code in the image: %s' % found if found else 0)"
    ).replace('"', "'")
    sources = " ".join(f"{lib.name}=={lib.version}" for lib in LIBRARIES)
    return DOCKERFILE.format(base=BASE_IMAGE, root=IMAGE_ROOT, sources=sources, check=check)


def swe_image_digest(base_id: str) -> str:
    """What the image's ``CONTEXT_LABEL`` records: every pin (what is kept of it included), the
    base image and the Dockerfile."""
    pins = "\0".join(repr(lib) for lib in LIBRARIES)
    return hashlib.sha256(f"{pins}\0{base_id}\0{_dockerfile()}".encode()).hexdigest()[:32]


def build_swe_image(
    client: Any,
    *,
    rebuild: bool = False,
    cache: Path | None = None,
    image: str = SWE_IMAGE,
    log: Log = _stderr,
) -> bool:
    """Build ``image`` (the base plus the test dependencies, no library source) unless up to date; True when built.
    The host trees are made either way (the local backend and the generator read them)."""
    base_id = image_id(client, BASE_IMAGE)
    if base_id is None:
        raise SetupFailed(f"{image} builds FROM {BASE_IMAGE}, which is missing: run `agentgym setup`")
    digest = swe_image_digest(base_id)
    if not rebuild and _up_to_date(client, image, digest, "swe", log):
        swe_trees(cache=cache, log=log, download=True)
        return False
    start = time.monotonic()
    log(f"swe image {image}: building from {len(LIBRARIES)} libraries")
    root = swe_trees(cache=cache, log=log, download=True)
    temp = _temp_tag(image)
    with tempfile.TemporaryDirectory(prefix="agentgym-swe-") as ctx:
        Path(ctx, "swe").mkdir()
        if (root / DEPS).is_dir():  # the test dependencies only: no library source enters the image
            shutil.copytree(root / DEPS, Path(ctx, "swe", DEPS), ignore=shutil.ignore_patterns(_COMPLETE))
        Path(ctx, "Dockerfile").write_text(_dockerfile())
        files = sum(1 for p in Path(ctx, "swe").rglob("*") if p.is_file())
        log(f"  {len(LIBRARIES)} hash-checked libraries on the host; {files} test-dependency files in the image")
        with _building(client, temp, image, log):
            _docker_build(client, ctx, temp, labels={CONTEXT_LABEL: digest}, network_mode="none", log=log)
    log(f"swe image {image}: built in {time.monotonic() - start:.1f} s")
    return True


def build_swe_images(
    client: Any, *, rebuild: bool = False, log: Log = _stderr, only: Collection[str] | None = None
) -> dict[str, bool]:
    """Build the SWE image (none when ``only`` leaves out ``swe``); image -> whether it was (re)built."""
    if only is not None and "swe" not in only:
        return {}
    return {SWE_IMAGE: build_swe_image(client, rebuild=rebuild, log=log)}
