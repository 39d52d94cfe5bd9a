"""The docstring examples of the wrapper modules and the featurizer run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "agentgym.features",
    "agentgym.wrappers.budget",
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
