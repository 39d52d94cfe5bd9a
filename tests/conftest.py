"""Shared fixtures. Docker tests are marked ``docker``; with CI=true a skipped one fails the run."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from support.docker import IN_CI, docker_ready, require_docker

__all__ = ["IN_CI", "docker_ready", "require_docker", "backend", "fresh_sandbox"]


@pytest.fixture(params=["local", "docker"])
def backend(request: pytest.FixtureRequest) -> str:
    """Runs a test on both sandbox backends."""
    if request.param == "docker":
        require_docker()
    return request.param


@pytest.fixture
def fresh_sandbox(backend: str):
    """A new sandbox of the base image on each backend, closed after the test."""
    from agentgym.sandbox import make_sandbox

    sandbox = make_sandbox(backend)
    yield sandbox
    sandbox.close()
