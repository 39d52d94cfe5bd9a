"""SWE-v0's in-sandbox test runner: outcomes and failure texts by node id, bad ids reported, output bounded.

A tiny fake library runs on the local backend (fast, no Docker): a passing test, a failing one, a
fixture that errors, a skip, a parametrized test selected by its function id, a test that prints a
megabyte, and ids that name nothing. One Docker test runs a real library from ``agentgym/swe``:
a passing test, then the same test after a bug is written into the workspace.
"""

from __future__ import annotations

import importlib.util
import os
import py_compile

import pytest

from agentgym.envs.swe.libraries import Library
from agentgym.envs.swe.sandboxing import configure_runner, open_library_sandbox, run_tests
from agentgym.sandbox import make_sandbox
from support.docker import require_docker

FAKE = Library(
    name="fakelib",
    version="0",
    filename="fakelib-0.tar.gz",
    sha256="0" * 64,
    license="MIT",
    packages=("fakelib",),
    keep=("src/fakelib", "tests"),
    tests=("tests",),
    license_files=(),
    python_path=("src",),
)
FILES = {
    "src/fakelib/__init__.py": "def add(a, b):\n    return a + b\n",
    "tests/test_fake.py": """\
import pytest
from fakelib import add

def test_add():
    assert add(1, 2) == 3

def test_broken():
    assert add(2, 2) == 5

@pytest.mark.parametrize("x", [1, 2])
def test_param(x):
    assert add(x, 0) == x

@pytest.fixture
def bad():
    raise RuntimeError("setup broke")

def test_setup_error(bad):
    pass

def test_skip():
    pytest.skip("not here")

def test_loud():
    print("x" * 10**6)
    assert False, "y" * 10**5
""",
}


@pytest.fixture(scope="module")
def sandbox():
    sb = make_sandbox("local")
    try:
        sb.write_files(FILES)
        configure_runner(sb, FAKE)
        yield sb
    finally:
        sb.close()


def test_the_whole_suite_reports_every_outcome_and_bounded_failures(sandbox):
    report = run_tests(sandbox, nonce="n-1", max_failure_chars=500)
    assert report["outcomes"] == {
        "tests/test_fake.py::test_add": "passed",
        "tests/test_fake.py::test_broken": "failed",
        "tests/test_fake.py::test_loud": "failed",
        "tests/test_fake.py::test_param[1]": "passed",
        "tests/test_fake.py::test_param[2]": "passed",
        "tests/test_fake.py::test_setup_error": "error",
        "tests/test_fake.py::test_skip": "skipped",
    }
    assert report["collected"] == 7 and report["nonce"] == "n-1"
    assert sorted(report["failures"]) == [
        "tests/test_fake.py::test_broken",
        "tests/test_fake.py::test_loud",
        "tests/test_fake.py::test_setup_error",
    ]
    assert "assert 4 == 5" in report["failures"]["tests/test_fake.py::test_broken"]
    assert "RuntimeError: setup broke" in report["failures"]["tests/test_fake.py::test_setup_error"]
    assert all(len(text) <= 500 for text in report["failures"].values())


def test_ids_select_tests_and_a_bad_id_is_reported_not_a_crash(sandbox):
    ids = [
        "tests/test_fake.py::test_add",
        "tests/test_fake.py::test_param",  # a function id selects its parametrizations, as on pytest's command line
        "tests/test_fake.py::test_nothing",
        "tests/missing.py::test_x",
        "../../etc/passwd::x",
    ]
    report = run_tests(sandbox, ids)
    assert report["outcomes"] == {
        "../../etc/passwd::x": "error",
        "tests/missing.py::test_x": "error",
        "tests/test_fake.py::test_add": "passed",
        "tests/test_fake.py::test_nothing": "error",
        "tests/test_fake.py::test_param[1]": "passed",
        "tests/test_fake.py::test_param[2]": "passed",
    }
    assert report["collected"] == 3
    assert all(text.startswith("not found") for text in report["failures"].values())
    assert run_tests(sandbox, files=["tests/test_fake.py"])["collected"] == 7


def test_each_run_imports_the_workspace_afresh(sandbox):
    sandbox.write_file("src/fakelib/__init__.py", "def add(a, b):\n    return a - b\n")
    try:
        report = run_tests(sandbox, ["tests/test_fake.py::test_add"])
        assert report["outcomes"] == {"tests/test_fake.py::test_add": "failed"}
        assert not [p for p in sandbox.list_files() if "__pycache__" in p]  # no stale bytecode left behind
    finally:
        sandbox.write_file("src/fakelib/__init__.py", FILES["src/fakelib/__init__.py"])
    assert run_tests(sandbox, ["tests/test_fake.py::test_add"])["outcomes"] == {
        "tests/test_fake.py::test_add": "passed"
    }


def test_bytecode_planted_beside_a_pristine_module_is_never_run(sandbox, tmp_path):
    """The attack: a .pyc of a wrong ``add`` carrying the pristine source's mtime and size, in the
    ``__pycache__`` Python would read it from; the test must still run the source."""
    pristine = FILES["src/fakelib/__init__.py"]
    evil = "def add(a, b):\n    return a * b\n"
    assert len(evil) == len(pristine)
    mtime = int(sandbox.run("stat -c %Y src/fakelib/__init__.py", timeout=10).text)
    (tmp_path / "evil.py").write_text(evil)
    os.utime(tmp_path / "evil.py", (mtime, mtime))
    cfile = importlib.util.cache_from_source("src/fakelib/__init__.py")
    py_compile.compile(str(tmp_path / "evil.py"), cfile=str(tmp_path / "evil.pyc"))
    sandbox.write_file(cfile, (tmp_path / "evil.pyc").read_bytes())
    assert run_tests(sandbox, ["tests/test_fake.py::test_add"])["outcomes"] == {
        "tests/test_fake.py::test_add": "passed"
    }


@pytest.mark.docker
def test_a_real_library_from_the_image_passes_then_fails_on_a_bug():
    require_docker("agentgym/swe:latest")
    test = "test_inflection.py::test_pluralize_singular[search-searches]"
    with open_library_sandbox("inflection") as sandbox:
        assert run_tests(sandbox, [test])["outcomes"] == {test: "passed"}
        source = sandbox.read_file("inflection/__init__.py").decode()
        sandbox.write_file(
            "inflection/__init__.py",
            source.replace("def pluralize(word: str) -> str:", "def _pluralize(word: str) -> str:"),
        )
        report = run_tests(sandbox, [test])
    assert report["outcomes"] == {test: "failed"}
    assert "AttributeError" in report["failures"][test] and "pluralize" in report["failures"][test]
