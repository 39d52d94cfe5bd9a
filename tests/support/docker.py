"""Docker availability for tests: skip locally when Docker is missing, fail under CI=true."""

from __future__ import annotations

import os

import pytest

__all__ = ["IN_CI", "docker_ready", "require_docker"]

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
