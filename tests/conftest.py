"""Shared fixtures. Docker tests are marked ``docker``; with CI=true a skipped one fails the run.

``AGENTGYM_CACHE_DIR`` (Coding-v0's disk result cache, the converted SmolLM2 weights) and
``SB3_LOGDIR`` (Stable-Baselines3's log folders) are in a folder of this test run, not the user's:
made in the main pytest process before pytest-xdist starts its workers, so the workers share it
(the cache takes concurrent writers; the weights are converted once, atomically), and removed when
the run ends.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from support.docker import IN_CI, docker_ready, require_docker

__all__ = ["IN_CI", "docker_ready", "require_docker", "backend", "fresh_sandbox"]

_RUN_CACHE = "_AGENTGYM_TEST_RUN_CACHE"  # set in the main process; workers inherit it


def pytest_configure(config: pytest.Config) -> None:
    if "PYTEST_XDIST_WORKER" in os.environ:
        return  # a worker: the main process made the folder and exported it
    folder = tempfile.mkdtemp(prefix="agentgym-test-cache-")
    os.environ["AGENTGYM_CACHE_DIR"] = os.environ[_RUN_CACHE] = folder
    # Stable-Baselines3 makes a /tmp/SB3-<time> folder for every model built without a log folder
    # (five a run, never removed); its documented override puts them in this run's folder
    os.environ.setdefault("SB3_LOGDIR", os.path.join(folder, "sb3"))


def pytest_unconfigure(config: pytest.Config) -> None:
    if "PYTEST_XDIST_WORKER" not in os.environ and os.environ.get(_RUN_CACHE):
        shutil.rmtree(os.environ.pop(_RUN_CACHE), ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist: tests marked ``engine_restart`` are left out (run them alone: ``pytest -m
    engine_restart tests``, as scripts/test.sh does after the parallel run), and files that hold a
    ``slow`` test run first, each file's tests kept together in their order (with ``--dist loadfile``
    the long files start while there are short ones left to fill the other worker, rather than one long
    file finishing alone at the end). A run without workers keeps every test and the collection order."""
    if not (getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput")):
        return
    # a test that restarts the Docker engine kills the containers every other worker holds (module
    # fixtures' sandboxes included): under xdist it is left out, and run alone afterwards
    alone = [item for item in items if item.get_closest_marker("engine_restart")]
    if alone:
        config.hook.pytest_deselected(items=alone)
        items[:] = [item for item in items if not item.get_closest_marker("engine_restart")]
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: each file's order stays


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
