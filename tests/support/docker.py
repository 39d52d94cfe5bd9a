"""Docker for tests: skip locally when Docker is missing, fail under CI=true; kill one of our own sandboxes."""

from __future__ import annotations

import os
from typing import Any

import pytest

__all__ = ["IN_CI", "docker_ready", "require_docker", "kill_sandbox_container"]

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def docker_ready(image: str = "agentgym/base:latest") -> str | None:
    """None when the engine answers and ``image`` exists, else why not."""
    import docker

    from agentgym.errors import EngineUnreachable
    from agentgym.sandbox.docker import docker_client

    try:
        client = docker_client(timeout=5)
    except EngineUnreachable as exc:
        return str(exc)
    why = ""
    for _attempt in range(3):
        try:
            client.images.get(image)
            return None
        except docker.errors.ImageNotFound:
            return f"image {image} missing: run `agentgym setup`"
        except Exception as exc:  # a timeout or a dropped connection: ask again, then say what it was
            why = f"the engine did not answer about image {image}: {type(exc).__name__}: {exc}"
    return why


def require_docker(image: str = "agentgym/base:latest") -> None:
    """Skip (locally) or fail (in CI) when Docker or the image is not there."""
    why = docker_ready(image)
    if why is None:
        return
    if IN_CI:
        pytest.fail(f"CI=true requires the Docker backend: {why}")
    pytest.skip(why)


def kill_sandbox_container(sandbox: Any) -> str:
    """``docker kill`` the container of ``sandbox`` (a `DockerSandbox`), as an OOM kill, an engine restart
    or a lost node would end it, and return its id once the engine says it is no longer running.

    Only a container this process started is killed: its owner label must name this pid."""
    import time

    from agentgym.sandbox.docker import docker_client

    container_id = sandbox._container_id
    client = docker_client(timeout=10)
    labels = client.api.inspect_container(container_id)["Config"]["Labels"]
    if labels.get("io.agentgym.owner_pid") != str(os.getpid()):
        raise AssertionError(f"container {container_id[:12]} is not this process's (labels {labels})")
    client.api.kill(container_id)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if not client.api.inspect_container(container_id)["State"]["Running"]:
                return container_id
        except Exception:  # removed already (--rm): not running
            return container_id
        time.sleep(0.05)
    raise AssertionError(f"container {container_id[:12]} still runs 20 s after docker kill")
