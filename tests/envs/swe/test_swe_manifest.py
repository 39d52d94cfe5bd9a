"""The committed SWE-v0 manifests: well formed, and every bug rebuilds against the host copy of its library.

The manifests hold no library text (`agentgym.envs.swe.bugs`): a bug is rebuilt by re-running its
modifier on the file ``agentgym setup --only swe`` fetched and hash-checked. Without that host copy
the rebuild is skipped here with the command to run, and fails under CI=true, where setup has run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentgym.envs.swe.bugs import Bug, buggy_files
from agentgym.envs.swe.generate import TASKS_DIR, TIERS, dump_manifest
from agentgym.envs.swe.libraries import library
from agentgym.envs.swe.modifiers import MODIFIERS
from agentgym.errors import InfrastructureError
from support.docker import IN_CI

MANIFESTS = sorted(TASKS_DIR.glob("*.json")) if TASKS_DIR.is_dir() else []
MANIFESTS = [p for p in MANIFESTS if p.name != "yield.json"]


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


def test_the_manifests_are_committed():
    assert MANIFESTS, f"no manifest under {TASKS_DIR}: run `python -m agentgym.envs.swe.generate`"


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.stem)
def test_a_manifest_is_sorted_compact_and_well_formed(path: Path):
    data = _load(path)
    assert path.read_text() == dump_manifest(data)  # the generator's own bytes: sorted, one task a line
    lib = library(data["library"])
    assert data["version"] == lib.version
    ids = [t["id"] for t in data["tasks"]]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert len({t["patch_sha256"] for t in data["tasks"]}) == len(ids)
    for task in data["tasks"]:
        assert task["tier"] in TIERS and task["library"] == lib.name
        assert len(task["bugs"]) == (1 if task["tier"] == "one_bug" else 2)
        assert all(b["modifier"] in MODIFIERS for b in task["bugs"])
        assert task["FAIL_TO_PASS"] and task["PASS_TO_PASS_count"] > 0 and task["test_files"]
        assert set(task["failures"]) <= set(task["FAIL_TO_PASS"]) and len(task["failures"]) <= 3
        assert {t.split("::", 1)[0] for t in task["FAIL_TO_PASS"]} <= set(task["test_files"])
        if task["tier"] == "two_files":
            assert task["bugs"][0]["path"] != task["bugs"][1]["path"]
        if task["tier"] == "two_bugs":
            assert task["bugs"][0]["path"] == task["bugs"][1]["path"]


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.stem)
def test_every_bug_rebuilds_against_the_host_copy(path: Path):
    from agentgym.setup.swe_images import library_tree

    data = _load(path)
    try:
        root = library_tree(library(data["library"]))
    except InfrastructureError as exc:  # SetupFailed: the pinned archive is not on this machine
        if IN_CI:
            pytest.fail(f"CI=true requires the SWE-v0 libraries: {exc}")
        pytest.skip(str(exc))
    for task in data["tasks"]:
        files = buggy_files(data["library"], [Bug.from_json(b) for b in task["bugs"]], root)
        assert set(files) == {b["path"] for b in task["bugs"]}, task["id"]
        for rel, text in files.items():
            assert text != (root / rel).read_bytes().decode("utf-8", "surrogateescape"), task["id"]
