"""What every image pipeline shares: ids and tags, the up-to-date check, building into a temporary
tag that is checked in a sandbox before it is promoted, ``docker build`` with progress, cleanup.

The pipelines (`base_image`, `family_images`, `package_images`, `page_images`) each build one kind of
image with these; `agentgym.setup.images` gathers their public names.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentgym.sandbox.docker import DockerSandbox
from agentgym.setup.engine import Log, SetupFailed

__all__ = ["CONTEXT_LABEL", "WORK_ROOT", "image_id", "verify_image"]

CONTEXT_LABEL = "io.agentgym.context"
"""The label that records what an image was built from (a hash); equal means up to date."""
WORK_ROOT = "/var/cache/agentgym"


# ---------------------------------------------------------------------------- helpers
def image_id(client: Any, name: str) -> str | None:
    """The image's id, or None when it is not on the engine."""
    import docker.errors

    try:
        return str(client.images.get(name).id)
    except docker.errors.ImageNotFound:
        return None


def _temp_tag(final: str) -> str:
    return f"{_split_tag(final)[0]}:build-{os.getpid()}-{int(time.time())}"


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


def _docker_build(
    client: Any, context: str, tag: str, *, labels: dict[str, str], network_mode: str | None, log: Log
) -> None:
    last = ""
    kwargs: dict[str, Any] = {"network_mode": network_mode} if network_mode else {}
    try:
        for chunk in client.api.build(
            path=context, tag=tag, rm=True, forcerm=True, labels=labels, decode=True, **kwargs
        ):
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
