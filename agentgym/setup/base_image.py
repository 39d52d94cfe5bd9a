"""The base image: Debian bootstrapped offline from the machine's own package mirror, or a named image.

No image registry is reachable on the machines this project targets, so the base image is
bootstrapped from the machine's own Debian/Ubuntu package mirror (``mmdebstrap --variant=minbase``,
else ``debootstrap``; the suite and mirror read from the apt sources) and ``docker import``-ed.
It is built under a temporary tag, checked by starting a real sandbox on it, and only then
tagged ``agentgym/base:latest``, so a failed or interrupted rebuild never breaks the image
other processes use. Where a registry is reachable, ``base_image="python:3.11-slim"`` builds
the base from that image instead.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentgym.setup.engine import SBIN_PATH, Log, SetupFailed, _stderr, apt_install, run_step
from agentgym.setup.imaging import (
    WORK_ROOT,
    _building,
    _docker_build,
    _remove_tree,
    _split_tag,
    _temp_tag,
    _umount_below,
    image_id,
)

__all__ = ["BASE_IMAGE", "BASE_PACKAGES", "AptSource", "apt_sources", "pick_source", "build_base"]

BASE_IMAGE = "agentgym/base:latest"
# What task code may rely on inside every sandbox, beyond Debian's essential packages.
BASE_PACKAGES = ("python3", "python3-pytest", "patch", "procps")
IMPORT_CHANGES = ["WORKDIR /workspace", "ENV LANG=C.UTF-8", 'CMD ["python3"]']
BASE_DOCKERFILE = """\
FROM {image}
USER root
RUN mkdir -p /workspace && chown 65534:65534 /workspace && chmod 1777 /workspace
RUN python3 -c "import pytest" 2>/dev/null || python3 -m pip install --no-cache-dir pytest
WORKDIR /workspace
"""


# ---------------------------------------------------------------------------- apt sources
@dataclass(frozen=True)
class AptSource:
    """One ``deb`` entry of the machine's apt configuration."""

    uri: str
    suite: str
    components: tuple[str, ...] = ("main",)
    keyring: str = ""
    options: dict[str, str] = field(default_factory=dict)


def _deb822_paragraphs(text: str) -> Iterator[dict[str, str]]:
    fields: dict[str, str] = {}
    key = ""
    for raw in text.splitlines() + [""]:
        if raw.startswith("#"):
            continue
        if not raw.strip():
            if fields:
                yield fields
            fields, key = {}, ""
        elif raw[0] in " \t" and key:
            fields[key] += "\n" + raw.strip()
        elif ":" in raw:
            key, value = raw.split(":", 1)
            key = key.strip().lower()
            fields[key] = value.strip()


def apt_sources(root: str = "/") -> list[AptSource]:
    """Every enabled binary (``deb``) source in ``sources.list`` and ``sources.list.d/*.sources``."""
    out: list[AptSource] = []
    etc = os.path.join(root, "etc/apt")
    for path in sorted(glob.glob(os.path.join(etc, "sources.list.d", "*.sources"))):
        try:
            text = Path(path).read_text(errors="replace")
        except OSError:
            continue
        for para in _deb822_paragraphs(text):
            if "deb" not in para.get("types", "").split() or para.get("enabled", "yes").lower() == "no":
                continue
            keyring = para.get("signed-by", "")
            keyring = keyring if keyring.startswith("/") and "\n" not in keyring else ""
            for uri in para.get("uris", "").split():
                for suite in para.get("suites", "").split():
                    comps = tuple(para.get("components", "main").split()) or ("main",)
                    out.append(AptSource(uri, suite, comps, keyring))
    lists = [os.path.join(etc, "sources.list")] + sorted(glob.glob(os.path.join(etc, "sources.list.d", "*.list")))
    for path in lists:
        try:
            lines = Path(path).read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            line = line.split("#", 1)[0].strip()
            options: dict[str, str] = {}
            match = re.match(r"^deb\s+\[([^\]]*)\]\s+(.*)$", line)
            if match:
                options = dict(o.split("=", 1) for o in match.group(1).split() if "=" in o)
                rest = match.group(2).split()
            elif line.startswith("deb "):
                rest = line.split()[1:]
            else:
                continue
            if len(rest) >= 2:
                keyring = options.get("signed-by", "")
                out.append(AptSource(rest[0], rest[1], tuple(rest[2:]) or ("main",), keyring, options))
    return out


def _os_release(root: str = "/") -> dict[str, str]:
    try:
        text = Path(os.path.join(root, "etc/os-release")).read_text()
    except OSError:
        return {}
    return {k: v.strip('"') for k, v in (line.split("=", 1) for line in text.splitlines() if "=" in line)}


def pick_source(sources: list[AptSource], codename: str = "") -> AptSource:
    """The main archive of this release: suite == the release codename, not -security/-updates."""
    candidates = [s for s in sources if s.uri.startswith(("http://", "https://", "file:/", "ftp://"))]
    for wanted in [codename] if codename else []:
        for source in candidates:
            if source.suite == wanted:
                return source
    for source in candidates:
        if "-" not in source.suite and "/" not in source.suite:
            return source
    raise SetupFailed(
        "found no Debian/Ubuntu release archive in /etc/apt/sources.list or /etc/apt/sources.list.d/; "
        "add one, or pass --base-image NAME where a registry is reachable"
    )


def _apt_proxy_env() -> dict[str, str]:
    """apt's configured proxy as the environment variables debootstrap's downloader honours."""
    env: dict[str, str] = {}
    for scheme in ("http", "https"):
        try:
            out = subprocess.run(
                ["apt-config", "shell", "P", f"Acquire::{scheme}::Proxy"], capture_output=True, text=True, timeout=10
            ).stdout
        except (OSError, subprocess.TimeoutExpired):
            continue
        match = re.search(r"P='([^']+)'", out)
        if match and match.group(1).upper() != "DIRECT":
            env[f"{scheme}_proxy"] = match.group(1)
    return env


# ---------------------------------------------------------------------------- base image
MERGED_USR_HOOK = "/usr/share/mmdebstrap/hooks/merged-usr"
"""mmdebstrap's hook that merges /usr as debootstrap does, with ``usr-is-merged``: without it apt
satisfies ``usrmerge | usr-is-merged`` with usrmerge, and perl comes with it (47 MB more)."""


def _bootstrap_command(tool: str, target: str, packages: tuple[str, ...]) -> list[str]:
    """``tool`` (mmdebstrap or debootstrap) building a minbase system with ``packages`` into ``target``
    from the machine's own apt source."""
    release = _os_release()
    source = pick_source(apt_sources(), release.get("VERSION_CODENAME", "") or release.get("UBUNTU_CODENAME", ""))
    cmd = [tool, "--variant=minbase", "--include=" + ",".join(packages)]
    if tool == "mmdebstrap":
        cmd.append("--mode=root")
        if os.path.isdir(MERGED_USR_HOOK):
            cmd.append("--hook-dir=" + MERGED_USR_HOOK)
    if len(source.components) > 1:
        cmd.append("--components=" + ",".join(source.components))
    if source.keyring and os.path.exists(source.keyring):
        cmd.append("--keyring=" + source.keyring)
    return cmd + [source.suite, target, source.uri]


def _bootstrap(target: str, packages: tuple[str, ...], log: Log) -> None:
    """The rootfs, with mmdebstrap (apt and dpkg do the work: 22-25 s on the 2-core machine, 27 s of CPU,
    against debootstrap's 49 s and 56 s), else debootstrap, where mmdebstrap cannot be installed or fails.
    On Debian 12 both install the same packages but five backports that Python 3.11 does not use
    (python3-tomli, -exceptiongroup, -importlib-metadata, -typing-extensions, -zipp), which debootstrap
    takes as the first of each dependency's alternatives."""
    env = {**os.environ, "PATH": SBIN_PATH, "DEBIAN_FRONTEND": "noninteractive", **_apt_proxy_env()}
    tools = ["mmdebstrap", "debootstrap"]
    if os.environ.get("AGENTGYM_BOOTSTRAP") in tools:  # a test or a user may insist on one
        tools = [os.environ["AGENTGYM_BOOTSTRAP"]]
    failures = []
    for tool in tools:
        if shutil.which(tool, path=SBIN_PATH) is None:
            try:
                apt_install([tool], log)
            except SetupFailed as exc:
                failures.append(f"{tool}: {exc}")
                continue
        cmd = _bootstrap_command(tool, target, packages)
        log(f"  {tool} {cmd[-3]} from the apt source {cmd[-1]} (a minute or less)")
        code, tail = run_step(cmd, tool, log, env=env)
        if code == 0:
            return
        failures.append(f"{tool} failed (exit {code}):\n{tail}")
        _remove_tree(target)  # unmounts what the tool left mounted, then removes
    raise SetupFailed("could not bootstrap the base system:\n" + "\n".join(failures))


def _import_rootfs(client: Any, rootfs: str, tag: str) -> None:
    repo, name = _split_tag(tag)
    tar = subprocess.Popen(
        ["tar", "--numeric-owner", "-C", rootfs, "-cf", "-", "."], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert tar.stdout is not None
    try:
        client.api.import_image_from_stream(tar.stdout, repository=repo, tag=name, changes=IMPORT_CHANGES)
    finally:
        tar.stdout.close()
        err = tar.communicate()[1]
    if tar.returncode != 0:
        raise SetupFailed(
            f"tar of the base rootfs failed (exit {tar.returncode}): {err.decode(errors='replace')[-500:]}"
        )
    if image_id(client, tag) is None:
        raise SetupFailed(f"docker import did not produce {tag}")


def _bootstrap_image(client: Any, temp: str, packages: tuple[str, ...], log: Log) -> None:
    if os.geteuid() != 0:
        raise SetupFailed(
            "building the base image offline needs root (mmdebstrap or debootstrap): run `sudo agentgym setup`, "
            "or pass --base-image NAME where a registry is reachable"
        )
    os.makedirs(WORK_ROOT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="base-", dir=WORK_ROOT)
    rootfs = os.path.join(work, "rootfs")
    try:
        start = time.monotonic()
        _bootstrap(rootfs, packages, log)
        log(f"  bootstrapped in {time.monotonic() - start:.0f} s")
        _umount_below(rootfs)
        workspace = os.path.join(rootfs, "workspace")
        os.makedirs(workspace, exist_ok=True)
        os.chown(workspace, 65534, 65534)
        os.chmod(workspace, 0o1777)  # Docker's tmpfs mount takes the mode of the image's folder
        for pattern in ("var/cache/apt/archives/*.deb", "var/lib/apt/lists/*_*", "var/log/*.log"):
            for path in glob.glob(os.path.join(rootfs, pattern)):
                os.unlink(path)
        start = time.monotonic()
        log("  docker import of the rootfs")
        _import_rootfs(client, rootfs, temp)
        log(f"  imported in {time.monotonic() - start:.0f} s")
    finally:
        _remove_tree(work)


def _build_from(client: Any, base_image: str, temp: str, log: Log) -> None:
    with tempfile.TemporaryDirectory(prefix="agentgym-base-") as ctx:
        Path(ctx, "Dockerfile").write_text(BASE_DOCKERFILE.format(image=base_image))
        log(f"  docker build FROM {base_image} (pulls it when missing)")
        _docker_build(client, ctx, temp, labels={}, network_mode=None, log=log)


def build_base(
    client: Any,
    *,
    tag: str = BASE_IMAGE,
    rebuild: bool = False,
    base_image: str | None = None,
    packages: tuple[str, ...] = BASE_PACKAGES,
    log: Log = _stderr,
) -> bool:
    """Build the base image unless it exists (``rebuild`` forces). Returns True when it was built."""
    if not rebuild and image_id(client, tag):
        log(f"base image {tag}: present (--rebuild rebuilds it)")
        return False
    start = time.monotonic()
    temp = _temp_tag(tag)
    log(f"base image {tag}: building" + (f" from {base_image}" if base_image else " offline"))
    with _building(client, temp, tag, log):
        if base_image:
            _build_from(client, base_image, temp, log)
        else:
            _bootstrap_image(client, temp, packages, log)
    log(f"base image {tag}: built in {time.monotonic() - start:.0f} s")
    return True
