"""SWE-v0's pinned libraries and their committed baseline: permissive, licensed, enough of them usable.

The baseline files are data the generator and the env trust (which tests may become FAIL_TO_PASS
or PASS_TO_PASS), so their shape is checked here: one per library, sorted ids, and the two rules
of DESIGN.md section 17 (95% of the collected tests pass, the suite within a minute).
"""

from __future__ import annotations

import pytest

from agentgym.envs.swe import baseline
from agentgym.envs.swe.libraries import LIBRARIES, Library, library
from agentgym.errors import ConfigError


def test_every_pinned_library_is_permissive_and_keeps_its_license_and_code():
    for lib in LIBRARIES:
        assert lib.license in ("MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "ISC", "PSF-2.0")
        assert lib.license_files and all(f in lib.keep for f in lib.license_files), lib.name
        assert lib.source_roots, lib.name
    with pytest.raises(ConfigError, match="GPL"):
        Library("x", "1", "x-1.tar.gz", "0" * 64, "GPL-3.0-only", ("x",), ("x",), ("tests",), ("LICENSE",))
    with pytest.raises(ConfigError, match="choose from"):
        library("left-pad")


def test_source_files_are_told_from_tests_even_inside_the_package():
    toolz = library("toolz")  # its tests live in toolz/tests
    assert toolz.is_source("toolz/itertoolz.py") and toolz.is_source("tlz/__init__.py")
    assert not toolz.is_source("toolz/tests/test_itertoolz.py") and not toolz.is_source("pyproject.toml")
    assert library("cachetools").is_source("src/cachetools/func.py")
    assert not library("cachetools").is_source("tests/test_func.py")
    assert library("jsonpointer").is_source("jsonpointer.py") and not library("jsonpointer").is_source("tests.py")


def test_the_committed_baseline_covers_every_library_and_enough_are_usable():
    usable = []
    for lib in LIBRARIES:
        record = baseline.load_baseline(lib.name)
        assert record["version"] == lib.version
        assert record["passing"] == sorted(record["passing"])
        assert sum(len(ids) for ids in record["files"].values()) == len(record["passing"])
        assert not set(record["passing"]) & set(record["excluded"])
        rules = record["pass_rate"] >= baseline.MIN_PASS_RATE and record["cpu_seconds"] <= baseline.MAX_SECONDS
        assert record["usable"] == rules, lib.name
        usable += [lib.name] if record["usable"] else []
    assert len(usable) >= 10, usable
