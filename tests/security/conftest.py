"""Red-team fixtures: a Docker Coding-v0 env driven only through the public grammar, as an agent would.

Each test in this folder is the smallest agent behaviour that would break one guarantee of
docs/security.md (forge the verdict, read a hidden test, reach the step server, survive a reset,
confuse the channel). They run on the Docker backend: with CI=true a missing engine fails.
"""

from __future__ import annotations

import pytest

from agentgym.envs.coding import CodingEnv
from support.docker import require_docker

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def env():
    require_docker("agentgym/coding:latest")
    e = CodingEnv(split="test", backend="docker", test_timeout=3.0, shell_timeout=5.0)
    yield e
    e.close()
