"""The docstring examples of the wrapper modules and the featurizer run as written."""

from __future__ import annotations

import doctest
import importlib
import subprocess
import sys

import pytest

MODULES = [
    "agentgym.features",
    "agentgym.wrappers.budget",
    "agentgym.wrappers.soft_budget",
    "agentgym.wrappers.faults",
    "agentgym.wrappers.labels",
    "agentgym.wrappers.rewards",
    "agentgym.wrappers.cost",
    "agentgym.wrappers.numeric",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_doctests_run_for_users_outside_the_test_tree(tmp_path):
    """Nothing they import lives under tests/: they pass from an empty folder, tests/ off the path."""
    code = (
        "import doctest, importlib, sys\n"
        "assert not any(p.rstrip('/').endswith('tests') for p in sys.path)\n"
        f"for name in {MODULES!r}:\n"
        "    r = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)\n"
        "    assert r.attempted and not r.failed, (name, r)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
