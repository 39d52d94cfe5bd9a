"""Sandbox images: the base image, built offline, and one image per environment family.

No image registry is reachable on the machines this project targets, so the base image is
bootstrapped from the machine's own Debian/Ubuntu package mirror (``debootstrap
--variant=minbase``, the suite and mirror read from the apt sources) and ``docker import``-ed.
It is built under a temporary tag, checked by starting a real sandbox on it, and only then
tagged ``agentgym/base:latest``, so a failed or interrupted rebuild never breaks the image
other processes use. Where a registry is reachable, ``base_image="python:3.11-slim"`` builds
the base from that image instead.

Family images (``envs/<family>/Dockerfile``, ``FROM agentgym/base:latest``) are built with the
network disabled and labelled with a hash of their build context and base image, so an
unchanged family is skipped in a few milliseconds.

Package images (``envs/<family>/<variant>.packages``: Debian package names, one per line,
``a | b`` for alternatives) are the base plus those packages, e.g. ``agentgym/browser-chromium``.
The .deb set is resolved on the host from the machine's apt sources against the base image's
own dpkg status (so only what the base lacks is fetched), downloaded on the host, and installed
with ``dpkg -i`` in a container with no network that is then committed: the .debs never become
an image layer. Hash-labelled and checked in a sandbox like the others.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import importlib.util
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

__all__ = [
    "BASE_IMAGE",
    "BASE_PACKAGES",
    "CONTEXT_LABEL",
    "AptSource",
    "apt_sources",
    "pick_source",
    "family_contexts",
    "family_image",
    "context_hash",
    "image_id",
    "build_base",
    "build_family",
    "build_families",
    "package_images",
    "read_packages",
    "build_package_image",
    "build_package_images",
    "verify_image",
]

BASE_IMAGE = "agentgym/base:latest"
# What task code may rely on inside every sandbox, beyond Debian's essential packages.
BASE_PACKAGES = ("python3", "python3-pytest", "patch", "procps")
CONTEXT_LABEL = "io.agentgym.context"
WORK_ROOT = "/var/cache/agentgym"
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
    for wanted in ([codename] if codename else []):
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


# ---------------------------------------------------------------------------- helpers
def image_id(client: Any, name: str) -> str | None:
    """The image's id, or None when it is not on the engine."""
    import docker.errors

    try:
        return str(client.images.get(name).id)
    except docker.errors.ImageNotFound:
        return None


def _temp_tag(final: str) -> str:
    repo = final.rsplit(":", 1)[0] if ":" in final.rsplit("/", 1)[-1] else final
    return f"{repo}:build-{os.getpid()}-{int(time.time())}"


def _split_tag(name: str) -> tuple[str, str]:
    if ":" in name.rsplit("/", 1)[-1]:
        repo, tag = name.rsplit(":", 1)
        return repo, tag
    return name, "latest"


def _up_to_date(client: Any, tag: str, digest: str, kind: str, log: Log) -> bool:
    """Whether ``tag`` was built from exactly this input (its ``CONTEXT_LABEL`` is ``digest``)."""
    try:
        current = client.images.get(tag).labels.get(CONTEXT_LABEL) == digest
    except Exception:  # missing, or an engine hiccup: build it
        return False
    if current:
        log(f"{kind} image {tag}: up to date")
    return current


@contextlib.contextmanager
def _building(client: Any, temp: str, final: str, log: Log) -> Iterator[None]:
    """Build into ``temp``; on success check it in a sandbox and promote it to ``final``, on any
    failure remove the half-built ``temp`` (so an interrupted setup leaves no stray image)."""
    try:
        yield
        log(f"  checking the new image in a sandbox: python {verify_image(temp)}")
        _promote(client, temp, final, log)
    except BaseException:
        if image_id(client, temp):
            try:
                client.api.remove_image(temp, force=True)
            except Exception:
                pass
        raise


def _promote(client: Any, temp: str, final: str, log: Log) -> None:
    """Point ``final`` at the image ``temp`` names (one atomic tag move), then drop ``temp``."""
    old = image_id(client, final)
    repo, tag = _split_tag(final)
    client.api.tag(temp, repo, tag, force=True)
    client.api.remove_image(temp)  # only untags: ``final`` still names the image
    if old and old != image_id(client, final):
        try:  # the previous image, unless a container or a family image still uses it
            client.api.remove_image(old)
        except Exception as exc:
            if image_id(client, old):
                log(f"  kept the previous image {old[7:19]}: {exc}")


def verify_image(image: str) -> str:
    """Start a real sandbox on ``image`` and check python3, pytest and a writable workspace."""
    from agentgym.sandbox.docker import DockerSandbox

    probe = "import pytest, sys, os; open('probe', 'w').write('ok'); print(sys.version.split()[0], os.getuid())"
    try:
        with DockerSandbox(image, start_timeout=60) as sandbox:
            result = sandbox.run(["python3", "-c", probe], timeout=30)
    except Exception as exc:
        raise SetupFailed(f"the new image {image} does not start a working sandbox: {exc}") from exc
    if not result.ok:
        raise SetupFailed(f"the new image {image} fails its check (exit {result.exit_code}): {result.text[-500:]}")
    return result.text.strip()


def _umount_below(path: str) -> None:
    """Unmount whatever debootstrap left mounted in the target, deepest first."""
    real = os.path.realpath(path)
    try:
        mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()]
    except OSError:
        return
    for mount in sorted((m for m in mounts if m == real or m.startswith(real + "/")), key=len, reverse=True):
        subprocess.run(["umount", "-l", mount], capture_output=True)


def _remove_tree(path: str) -> None:
    _umount_below(path)
    subprocess.run(["rm", "-rf", "--one-file-system", path], capture_output=True)


# ---------------------------------------------------------------------------- base image
def _debootstrap(target: str, packages: tuple[str, ...], log: Log) -> None:
    if shutil.which("debootstrap", path=SBIN_PATH) is None:
        apt_install(["debootstrap"], log)
    release = _os_release()
    source = pick_source(apt_sources(), release.get("VERSION_CODENAME", "") or release.get("UBUNTU_CODENAME", ""))
    cmd = ["debootstrap", "--variant=minbase", "--include=" + ",".join(packages)]
    if len(source.components) > 1:
        cmd.append("--components=" + ",".join(source.components))
    if source.keyring and os.path.exists(source.keyring):
        cmd.append("--keyring=" + source.keyring)
    cmd += [source.suite, target, source.uri]
    log(f"  debootstrap {source.suite} from the apt source {source.uri} (about a minute or two)")
    env = {**os.environ, "PATH": SBIN_PATH, "DEBIAN_FRONTEND": "noninteractive", **_apt_proxy_env()}
    code, tail = run_step(cmd, "debootstrap", log, env=env)
    if code != 0:
        raise SetupFailed(f"debootstrap failed (exit {code}):\n{tail}")


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
        raise SetupFailed(f"tar of the base rootfs failed (exit {tar.returncode}): {err.decode(errors='replace')[-500:]}")
    if image_id(client, tag) is None:
        raise SetupFailed(f"docker import did not produce {tag}")


def _bootstrap_image(client: Any, temp: str, packages: tuple[str, ...], log: Log) -> None:
    if os.geteuid() != 0:
        raise SetupFailed(
            "building the base image offline needs root (debootstrap): run `sudo agentgym setup`, "
            "or pass --base-image NAME where a registry is reachable"
        )
    os.makedirs(WORK_ROOT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="base-", dir=WORK_ROOT)
    rootfs = os.path.join(work, "rootfs")
    try:
        start = time.monotonic()
        _debootstrap(rootfs, packages, log)
        log(f"  debootstrap finished in {time.monotonic() - start:.0f} s")
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


def _docker_build(client: Any, context: str, tag: str, *, labels: dict[str, str], network_mode: str | None,
                  log: Log) -> None:
    last = ""
    kwargs: dict[str, Any] = {"network_mode": network_mode} if network_mode else {}
    try:
        for chunk in client.api.build(path=context, tag=tag, rm=True, forcerm=True, labels=labels, decode=True,
                                      **kwargs):
            if "error" in chunk:
                raise SetupFailed(f"docker build of {tag} failed: {chunk['error'].strip()}\n{last}")
            text = str(chunk.get("stream", "")).strip()
            if text.startswith("Step "):
                log(f"  {text[:120]}")
            if text:
                last = text
    except SetupFailed:
        raise
    except Exception as exc:
        raise SetupFailed(f"docker build of {tag} failed: {exc}") from exc


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


def build_families(client: Any, *, rebuild: bool = False, log: Log = _stderr) -> dict[str, bool]:
    """Build every ``envs/<family>/Dockerfile``; family -> whether it was (re)built."""
    return {family: build_family(client, family, ctx, rebuild=rebuild, log=log)
            for family, ctx in family_contexts().items()}



# ---------------------------------------------------------------------------- package images
PACKAGES_SUFFIX = ".packages"
_APT_OPTIONS = ("-o", "Debug::NoLocking=1", "-o", "APT::Install-Recommends=0", "-o", "APT::Install-Suggests=0")


def package_images(envs_dirs: list[Path] | None = None) -> dict[str, Path]:
    """image name (``<family>-<variant>``) -> its ``envs/<family>/<variant>.packages`` file."""
    out: dict[str, Path] = {}
    for envs in envs_dirs if envs_dirs is not None else _envs_dirs():
        for path in sorted(envs.glob("*/*" + PACKAGES_SUFFIX)):
            out.setdefault(f"{path.parent.name}-{path.name[:-len(PACKAGES_SUFFIX)]}", path)
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
        out = subprocess.run(["apt-cache", "policy", package], capture_output=True, text=True, timeout=60,
                             env=_apt_env()).stdout
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
    cmd = ["apt-get", "-q", "-y", *_APT_OPTIONS, "-o", f"Dir::State::status={status}", "-o",
           f"Dir::Cache::archives={debs}", "install", "--download-only", *packages]
    code, tail = run_step(cmd, "apt-get download", log, env={**_apt_env(), **_apt_proxy_env()})
    if code != 0:
        raise SetupFailed(f"apt-get could not download {' '.join(packages)} (exit {code}):\n{tail}")
    files = sorted(glob.glob(os.path.join(debs, "*.deb")))
    if not files:
        raise SetupFailed(f"apt-get downloaded no .deb for {' '.join(packages)}")
    return files


def _install_and_commit(client: Any, debs: str, packages: list[str], temp: str, labels: dict[str, str],
                        log: Log) -> None:
    """``dpkg -i`` the .debs in a container of the base with no network, then commit it as ``temp``."""
    # no fsync per file (a throwaway container; the commit is what persists), no docs or man pages
    dpkg = "dpkg --force-unsafe-io --path-exclude=/usr/share/doc/* --path-exclude=/usr/share/man/*"
    script = ("set -e; " + dpkg + " -i /debs/*.deb >/tmp/dpkg.log 2>&1 || { tail -30 /tmp/dpkg.log; exit 1; }; "
              "dpkg-query -W %s >/dev/null; rm -rf /tmp/* /var/log/dpkg.log /var/log/apt" % " ".join(packages))
    container = client.api.create_container(
        BASE_IMAGE, command=["sh", "-c", script], user="0:0", network_disabled=True,
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
            log(f"  {len(files)} .deb files ({size:.0f} MB) for {' '.join(packages)} in {time.monotonic() - start:.0f} s")
            step = time.monotonic()
            family = path.parent.name
            _install_and_commit(client, os.path.join(work, "debs"), packages, temp,
                                {CONTEXT_LABEL: digest, "org.agentgym.family": family}, log)
            log(f"  installed with no network in {time.monotonic() - step:.0f} s")
    finally:
        _remove_tree(work)
    log(f"package image {tag}: built in {time.monotonic() - start:.0f} s")
    return True


def build_package_images(client: Any, *, rebuild: bool = False, log: Log = _stderr) -> dict[str, bool]:
    """Build every ``envs/<family>/<variant>.packages`` image; name -> whether it was (re)built."""
    return {name: build_package_image(client, name, path, rebuild=rebuild, log=log)
            for name, path in package_images().items()}
