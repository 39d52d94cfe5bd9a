"""Shared fixtures. Docker tests are marked ``docker``; with CI=true a skipped one fails the run."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
_THIS = sys.modules[__name__]


def pytest_collectstart(collector: pytest.Collector) -> None:
    """Keep `from conftest import require_docker` meaning this file.

    pytest imports every conftest.py under the one module name "conftest", so once a
    subfolder's conftest.py is loaded, test modules collected later would import that one.
    """
    if isinstance(collector, pytest.Module):
        sys.modules["conftest"] = _THIS


def docker_ready(image: str = "agentgym/base:latest") -> str | None:
    """None when the engine answers and ``image`` exists, else why not."""
    from agentgym.errors import EngineUnreachable
    from agentgym.sandbox.docker import docker_client

    try:
        client = docker_client(timeout=5)
    except EngineUnreachable as exc:
        return str(exc)
    try:
        client.images.get(image)
    except Exception:
        return f"image {image} missing: run `agentgym setup`"
    return None


def require_docker(image: str = "agentgym/base:latest") -> None:
    """Skip (locally) or fail (in CI) when Docker or the image is not there."""
    why = docker_ready(image)
    if why is None:
        return
    if IN_CI:
        pytest.fail(f"CI=true requires the Docker backend: {why}")
    pytest.skip(why)


@pytest.fixture(params=["local", "docker"])
def backend(request: pytest.FixtureRequest) -> str:
    """Runs a test on both sandbox backends."""
    if request.param == "docker":
        require_docker()
    return request.param
