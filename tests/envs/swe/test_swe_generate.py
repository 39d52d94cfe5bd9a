"""SWE-v0's task generation on a fake three-function library, in local-backend sandboxes: a bug no test
catches is dropped, a caught one kept with its FAIL_TO_PASS and PASS_TO_PASS, duplicates removed, the
output deterministic (across worker counts too), a rerun served from the cache; `bugs.buggy_files`
rebuilds every recorded bug byte for byte and refuses a changed file or patch."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgym.envs.swe.bugs import Bug, BugMismatch, apply_bugs, buggy_files, sha256
from agentgym.envs.swe.generate import Target, ValidationCache, dump_manifest, generate
from agentgym.envs.swe.libraries import Library
from agentgym.envs.swe.modifiers import enumerate_modifications
from agentgym.envs.swe.sandboxing import configure_runner
from agentgym.sandbox import Sandbox, make_sandbox

FILES = {
    "fakelib/__init__.py": "from fakelib.core import clamp\nfrom fakelib.stats import mean, span\n",
    "fakelib/core.py": (
        "def clamp(value, low, high):\n"
        '    """Limit ``value`` to [low, high]."""\n'
        "    if value < low:\n"
        "        return low\n"
        "    if value > high:\n"
        "        return high\n"
        "    return value\n"
    ),
    "fakelib/stats.py": (
        "def mean(values):\n"
        "    total = 0\n"
        "    for v in values:\n"
        "        total += v\n"
        "    return total / len(values)\n"
        "\n"
        "\n"
        "def span(values):\n"
        "    low = min(values)\n"
        "    high = max(values)\n"
        "    return high - low\n"
    ),
    "tests/test_fake.py": (
        "from fakelib import clamp, mean, span\n"
        "\n"
        "\n"
        "def test_clamp_low():\n"
        "    assert clamp(-5, 0, 10) == 0\n"
        "\n"
        "\n"
        "def test_clamp_high():\n"
        "    assert clamp(50, 0, 10) == 10\n"
        "\n"
        "\n"
        "def test_clamp_inside():\n"
        "    assert clamp(5, 0, 10) == 5\n"
        "\n"
        "\n"
        "def test_mean():\n"
        "    assert mean([1, 2, 3]) == 2\n"
        "\n"
        "\n"
        "def test_span():\n"
        "    assert span([3, 9, 4]) == 6\n"
    ),
}
TESTS = ("test_clamp_low", "test_clamp_high", "test_clamp_inside", "test_mean", "test_span")
FAKE = Library(
    name="fakelib",
    version="1.0",
    filename="fakelib-1.0.tar.gz",
    sha256="0" * 64,
    license="MIT",
    packages=("fakelib",),
    keep=("fakelib", "tests"),
    tests=("tests",),
    license_files=(),
)


def _open_fake(name: str) -> Sandbox:
    """The fake library's tree in a local sandbox, the runner configured (what `open_library_sandbox` does)."""
    assert name == FAKE.name
    sandbox = make_sandbox("local")
    try:
        sandbox.write_files(FILES)
        configure_runner(sandbox, FAKE, deps_root="")
    except BaseException:
        sandbox.close()
        raise
    return sandbox


def _make_fake(tmp_path: Path) -> Target:
    """The fake library's host tree under ``tmp_path``, with its baseline (every test passes)."""
    root = tmp_path / "fakelib"
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    baseline = {"tests/test_fake.py": tuple(f"tests/test_fake.py::{name}" for name in TESTS)}
    return Target(FAKE.name, FAKE.version, root, FAKE.packages, FAKE.python_path, baseline, 0.5)


def _run(fake: Target, cache: ValidationCache, workers: int = 1) -> dict:
    return generate(
        [fake],
        seed=3,
        per_library=30,
        per_function=50,
        workers=workers,
        opener=_open_fake,
        cache=cache,
        progress=_quiet,
    )


class _quiet:
    def __init__(self, total: int, desc: str) -> None:
        pass

    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Target, dict, Path]:
    tmp = tmp_path_factory.mktemp("swe-generate")
    target = _make_fake(tmp)
    cache = tmp / "cache.jsonl"
    return target, _run(target, ValidationCache(cache)), cache


def test_caught_bugs_are_kept_with_fail_to_pass_and_pass_to_pass(first_run):
    target, result, _ = first_run
    tasks = result["manifests"]["fakelib"]["tasks"]
    assert tasks and {t["tier"] for t in tasks} == {"one_bug", "two_bugs", "two_files"}
    ids = set(target.baseline["tests/test_fake.py"])
    for task in tasks:
        assert task["FAIL_TO_PASS"] and set(task["FAIL_TO_PASS"]) <= ids
        assert task["PASS_TO_PASS_count"] == len(ids) - len(task["FAIL_TO_PASS"])
        assert task["test_files"] == ["tests/test_fake.py"] and task["whole_suite"]
        assert set(task["failures"]) == set(task["FAIL_TO_PASS"][:3])
        assert task["id"].startswith(f"swe/{task['tier']}/fakelib/")
        assert len(task["bugs"]) == (1 if task["tier"] == "one_bug" else 2)
    two_files = [t for t in tasks if t["tier"] == "two_files"]
    assert all(t["bugs"][0]["path"] != t["bugs"][1]["path"] for t in two_files)
    two_bugs = [t for t in tasks if t["tier"] == "two_bugs"]
    assert all(t["bugs"][0]["path"] == t["bugs"][1]["path"] for t in two_bugs)
    assert all(t["bugs"][0]["function"] != t["bugs"][1]["function"] for t in two_bugs)


def test_a_bug_no_test_catches_is_dropped(first_run):
    _, result, cache_path = first_run
    # `value <= low` returns `low` for `value == low` too: no test can tell
    (equivalent,) = [
        m
        for m in enumerate_modifications(FILES["fakelib/core.py"], "fakelib/core.py")
        if "if value <= low:" in m.text and m.modifier == "flip_comparison"
    ]
    assert all(t["bugs"][0]["patch_sha256"] != equivalent.patch_sha256 for t in result["manifests"]["fakelib"]["tasks"])
    row = result["yield"]["libraries"]["fakelib"]
    assert row["candidates"] > row["valid"] >= row["deduplicated"] >= row["kept"] > 0
    outcomes = ValidationCache(cache_path).entries.values()
    assert any(o.status == "ok" and not o.fail_to_pass for o in outcomes)


def test_duplicates_are_removed(first_run):
    _, result, _ = first_run
    tasks = result["manifests"]["fakelib"]["tasks"]
    signatures = [
        (tuple(sorted(f"{b['path']}:{b['function']}" for b in t["bugs"])), tuple(t["FAIL_TO_PASS"])) for t in tasks
    ]
    assert len(set(signatures)) == len(signatures)
    assert len({t["patch_sha256"] for t in tasks}) == len(tasks)
    row = result["yield"]["libraries"]["fakelib"]
    assert row["deduplicated"] < row["valid"]  # clamp's low branch fails the same test many ways


def test_a_rerun_is_served_from_the_cache_and_gives_the_same_bytes(first_run):
    target, result, cache_path = first_run
    again = _run(target, ValidationCache(cache_path))
    assert again["yield"]["validations_run"] == 0
    assert dump_manifest(again["manifests"]["fakelib"]) == dump_manifest(result["manifests"]["fakelib"])


@pytest.mark.slow
def test_two_worker_processes_give_the_same_tasks(first_run):
    target, result, _ = first_run
    parallel = _run(target, ValidationCache(None), workers=2)

    def strip(manifest: dict) -> list[dict]:
        return [{k: v for k, v in t.items() if k != "seconds"} for t in manifest["tasks"]]

    assert strip(parallel["manifests"]["fakelib"]) == strip(result["manifests"]["fakelib"])


def test_bugs_rebuild_byte_for_byte_and_refuse_a_changed_file_or_patch(first_run, tmp_path):
    target, result, _ = first_run
    for task in result["manifests"]["fakelib"]["tasks"]:
        bugs = [Bug.from_json(b) for b in task["bugs"]]
        rebuilt = buggy_files("fakelib", bugs, target.root)
        assert set(rebuilt) == {b.path for b in bugs}
        for path, text in rebuilt.items():
            mods = [
                m
                for m in enumerate_modifications(FILES[path], path)
                if any((m.function, m.modifier, m.site) == (b.function, b.modifier, b.site) for b in bugs)
            ]
            assert text == apply_bugs(FILES[path], mods) != FILES[path]
    bug = Bug.from_json(result["manifests"]["fakelib"]["tasks"][0]["bugs"][0])
    changed = tmp_path / "changed"
    for path, text in FILES.items():
        (changed / path).parent.mkdir(parents=True, exist_ok=True)
        (changed / path).write_text(text.replace("    ", "  ") if path == bug.path else text)
    with pytest.raises(BugMismatch, match="agentgym setup --only swe"):
        buggy_files("fakelib", [bug], changed)
    forged = Bug(**{**bug.to_json(), "patch_sha256": sha256("another patch")})
    with pytest.raises(BugMismatch, match="regenerate the manifest"):
        buggy_files("fakelib", [forged], target.root)
    with pytest.raises(BugMismatch, match="is missing"):
        buggy_files("fakelib", [bug], tmp_path / "nowhere")
