"""Package images: ``envs/<family>/<variant>.packages`` (Debian package names, one per line, ``a | b``
for alternatives) become the base plus those packages, e.g. ``agentgym/browser-chromium``.

The .deb set is resolved on the host from the machine's apt sources against the base image's own
dpkg status (so only what the base lacks is fetched), downloaded on the host, and installed with
``dpkg -i`` in a container with no network that is then committed: the .debs never become an
image layer. Hash-labelled and checked in a sandbox like the others.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

from agentgym.setup.base_image import BASE_IMAGE, _apt_proxy_env
from agentgym.setup.engine import SBIN_PATH, Log, SetupFailed, _stderr, run_step
from agentgym.setup.family_images import _envs_dirs, family_image
from agentgym.setup.imaging import (
    CONTEXT_LABEL,
    WORK_ROOT,
    _building,
    _remove_tree,
    _split_tag,
    _temp_tag,
    _up_to_date,
    image_id,
)

__all__ = ["package_images", "read_packages", "build_package_image", "build_package_images"]


PACKAGES_SUFFIX = ".packages"
_APT_OPTIONS = ("-o", "Debug::NoLocking=1", "-o", "APT::Install-Recommends=0", "-o", "APT::Install-Suggests=0")


def package_images(envs_dirs: list[Path] | None = None) -> dict[str, Path]:
    """image name (``<family>-<variant>``) -> its ``envs/<family>/<variant>.packages`` file."""
    out: dict[str, Path] = {}
    for envs in envs_dirs if envs_dirs is not None else _envs_dirs():
        for path in sorted(envs.glob("*/*" + PACKAGES_SUFFIX)):
            out.setdefault(f"{path.parent.name}-{path.name[: -len(PACKAGES_SUFFIX)]}", path)
    return out


def read_packages(path: Path) -> list[tuple[str, ...]]:
    """The packages a ``.packages`` file asks for: one tuple of alternatives per line (``#`` comments)."""
    out = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(tuple(a.strip() for a in line.split("|") if a.strip()))
    return out


def _apt_env() -> dict[str, str]:
    return {**os.environ, "DEBIAN_FRONTEND": "noninteractive", "PATH": SBIN_PATH}


def _apt_has(package: str) -> bool:
    try:
        out = subprocess.run(
            ["apt-cache", "policy", package], capture_output=True, text=True, timeout=60, env=_apt_env()
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    match = re.search(r"Candidate:\s*(\S+)", out)
    return bool(match and match.group(1) != "(none)")


def _choose(wanted: list[tuple[str, ...]], log: Log) -> list[str]:
    """The first available alternative of each line; ``apt-get update`` once if one is missing."""
    if shutil.which("apt-get", path=SBIN_PATH) is None:
        raise SetupFailed("package images need apt-get on this machine (a Debian or Ubuntu host)")
    for attempt in (0, 1):
        chosen = [next((p for p in alts if _apt_has(p)), None) for alts in wanted]
        if all(chosen) or attempt:
            break
        log("  a package is unknown to apt here; running apt-get update")
        code, tail = run_step(["apt-get", "update", "-q"], "apt-get update", log, env=_apt_env())
        if code != 0:
            raise SetupFailed(f"apt-get update failed (exit {code}):\n{tail}")
    missing = [" | ".join(alts) for alts, got in zip(wanted, chosen) if not got]
    if missing:
        raise SetupFailed(f"apt on this machine has no candidate for {', '.join(missing)}")
    return [p for p in chosen if p]


def _image_file(client: Any, image: str, path: str, dest: str) -> None:
    """Copy one file out of an image (without starting it)."""
    import io
    import tarfile

    container = client.api.create_container(image, command=["true"], network_disabled=True)
    try:
        stream, _ = client.api.get_archive(container["Id"], path)
        with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
            member = tar.getmembers()[0]
            data = tar.extractfile(member)
            assert data is not None
            Path(dest).write_bytes(data.read())
    finally:
        client.api.remove_container(container["Id"], force=True)


def _download_debs(client: Any, packages: list[str], work: str, log: Log) -> list[str]:
    """Every .deb that ``packages`` need beyond what the base image has, downloaded into ``work/debs``."""
    status = os.path.join(work, "status")
    _image_file(client, BASE_IMAGE, "/var/lib/dpkg/status", status)
    debs = os.path.join(work, "debs")
    os.makedirs(os.path.join(debs, "partial"))
    cmd = [
        "apt-get",
        "-q",
        "-y",
        *_APT_OPTIONS,
        "-o",
        f"Dir::State::status={status}",
        "-o",
        f"Dir::Cache::archives={debs}",
        "install",
        "--download-only",
        *packages,
    ]
    code, tail = run_step(cmd, "apt-get download", log, env={**_apt_env(), **_apt_proxy_env()})
    if code != 0:
        raise SetupFailed(f"apt-get could not download {' '.join(packages)} (exit {code}):\n{tail}")
    files = sorted(glob.glob(os.path.join(debs, "*.deb")))
    if not files:
        raise SetupFailed(f"apt-get downloaded no .deb for {' '.join(packages)}")
    return files


def _install_and_commit(
    client: Any, debs: str, packages: list[str], temp: str, labels: dict[str, str], log: Log
) -> None:
    """``dpkg -i`` the .debs in a container of the base with no network, then commit it as ``temp``."""
    # no fsync per file (a throwaway container; the commit is what persists), no docs or man pages
    dpkg = "dpkg --force-unsafe-io --path-exclude=/usr/share/doc/* --path-exclude=/usr/share/man/*"
    names = " ".join(packages)
    script = (
        "set -e; " + dpkg + " -i /debs/*.deb >/tmp/dpkg.log 2>&1 || { tail -30 /tmp/dpkg.log; exit 1; }; "
        f"dpkg-query -W {names} >/dev/null; rm -rf /tmp/* /var/log/dpkg.log /var/log/apt"
    )
    container = client.api.create_container(
        BASE_IMAGE,
        command=["sh", "-c", script],
        user="0:0",
        network_disabled=True,
        host_config=client.api.create_host_config(network_mode="none", binds={debs: {"bind": "/debs", "mode": "ro"}}),
    )
    cid = container["Id"]
    try:
        client.api.start(cid)
        code = client.api.wait(cid, timeout=1200).get("StatusCode", 1)
        if code != 0:
            out = client.api.logs(cid).decode(errors="replace")[-3000:]
            raise SetupFailed(f"installing {' '.join(packages)} in the image failed (exit {code}):\n{out}")
        repo, tag = _split_tag(temp)
        changes = ['CMD ["python3"]', "WORKDIR /workspace"] + [f"LABEL {k}={v}" for k, v in labels.items()]
        client.api.commit(cid, repository=repo, tag=tag, changes=changes)
    finally:
        client.api.remove_container(cid, force=True)


def build_package_image(client: Any, name: str, path: Path, *, rebuild: bool = False, log: Log = _stderr) -> bool:
    """Build ``agentgym/<name>:latest`` (the base plus ``path``'s packages) unless up to date. True when built."""
    tag = family_image(name)
    base_id = image_id(client, BASE_IMAGE) or ""
    digest = hashlib.sha256(base_id.encode() + b"\0" + path.read_bytes()).hexdigest()[:32]
    if not rebuild and _up_to_date(client, tag, digest, "package", log):
        return False
    start = time.monotonic()
    log(f"package image {tag}: building from {path.name}")
    packages = _choose(read_packages(path), log)
    os.makedirs(WORK_ROOT, exist_ok=True)
    work = tempfile.mkdtemp(prefix=f"{name}-", dir=WORK_ROOT)
    temp = _temp_tag(tag)
    try:
        with _building(client, temp, tag, log):
            files = _download_debs(client, packages, work, log)
            size = sum(os.path.getsize(f) for f in files) / 1e6
            log(
                f"  {len(files)} .deb files ({size:.0f} MB) for {' '.join(packages)} "
                f"in {time.monotonic() - start:.0f} s"
            )
            step = time.monotonic()
            family = path.parent.name
            _install_and_commit(
                client,
                os.path.join(work, "debs"),
                packages,
                temp,
                {CONTEXT_LABEL: digest, "org.agentgym.family": family},
                log,
            )
            log(f"  installed with no network in {time.monotonic() - step:.0f} s")
    finally:
        _remove_tree(work)
    log(f"package image {tag}: built in {time.monotonic() - start:.0f} s")
    return True


def build_package_images(
    client: Any, *, rebuild: bool = False, log: Log = _stderr, only: Collection[str] | None = None
) -> dict[str, bool]:
    """Build every ``envs/<family>/<variant>.packages`` image (those of the families in ``only``,
    if given); name -> whether it was (re)built."""
    return {
        name: build_package_image(client, name, path, rebuild=rebuild, log=log)
        for name, path in package_images().items()
        if only is None or path.parent.name in only
    }
