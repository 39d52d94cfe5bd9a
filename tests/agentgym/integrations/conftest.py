"""Every adapter test leaves no sandbox behind: trainers keep env instances and never close them, so
the tests close what they made, and this check says which test did not (later tests, the serve
suite's among them, count this process's leftovers)."""

from __future__ import annotations

import gc
import glob
import os
import tempfile

import pytest


def _sandboxes() -> set[str]:
    tmp, pid = tempfile.gettempdir(), os.getpid()
    return set(
        glob.glob(os.path.join(tmp, f"agentgym-local-{pid}-*")) + glob.glob(os.path.join(tmp, f"agentgym-chan-{pid}-*"))
    )


@pytest.fixture(autouse=True)
def no_sandbox_left_behind():
    before = _sandboxes()
    yield
    gc.collect()
    left = _sandboxes() - before
    assert not left, f"the test left {len(left)} sandbox(es) open: close the envs it made ({sorted(left)[:3]})"
