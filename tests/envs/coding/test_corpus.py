"""Checks the Coding-v0 source corpus: shape of every module and test file, and that all tests pass.

The corpus (envs/coding/corpus/) is data, not a package: pairs of ``<name>.py`` and
``test_<name>.py`` that the coding family copies into the sandbox and mutates.
"""

from __future__ import annotations

import ast
import importlib.resources
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

MIN_MODULES = 40
MIN_LINES, MAX_LINES = 20, 150
MIN_TESTS = 10
# Modules must be deterministic and self-contained: no clock, randomness, I/O or processes.
FORBIDDEN_IMPORTS = {
    "random",
    "secrets",
    "uuid",
    "time",
    "os",
    "sys",
    "io",
    "pathlib",
    "shutil",
    "tempfile",
    "socket",
    "subprocess",
    "threading",
    "multiprocessing",
    "asyncio",
    "urllib",
    "http",
}


def corpus_dir() -> Path:
    """The installed corpus folder, falling back to the checkout's copy."""
    try:
        root = Path(str(importlib.resources.files("agentgym.envs.coding") / "corpus"))
    except (ModuleNotFoundError, TypeError):
        root = Path(__file__).resolve().parents[3] / "envs" / "coding" / "corpus"
    return root


CORPUS = corpus_dir()
MODULES = sorted(p.stem for p in CORPUS.glob("*.py") if not p.name.startswith("test_"))


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _test_names(tree: ast.Module) -> list[str]:
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]


def _visible(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "VISIBLE" for t in node.targets):
            return list(ast.literal_eval(node.value))
    return []


def _public_definitions(tree: ast.Module) -> list[ast.AST]:
    """Top-level public functions and classes, and the public methods of those classes."""
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            found.append(node)
            if isinstance(node, ast.ClassDef):
                found.extend(m for m in node.body if isinstance(m, ast.FunctionDef) and not m.name.startswith("_"))
    return found


def _imported_roots(tree: ast.Module) -> set[str]:
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_corpus_is_data_not_a_package():
    assert CORPUS.is_dir(), f"corpus missing at {CORPUS}"
    assert not (CORPUS / "__init__.py").exists()


def test_enough_distinct_modules():
    assert len(MODULES) >= MIN_MODULES, f"only {len(MODULES)} corpus modules"
    files = {p.name for p in CORPUS.glob("*.py")}
    for name in MODULES:
        assert f"test_{name}.py" in files, f"{name}.py has no test file"
    for path in CORPUS.glob("test_*.py"):
        assert path.name[len("test_") :] in files, f"{path.name} has no module"


def test_module_names_do_not_shadow_stdlib_or_pytest():
    for name in MODULES:
        assert name.isidentifier() and name == name.lower(), name
        assert name not in sys.stdlib_module_names, f"{name} shadows a stdlib module"
        assert name not in {"pytest", "_pytest", "conftest", "pluggy", "test", "tests"}, name


@pytest.mark.parametrize("name", MODULES)
def test_module_shape(name: str):
    path = CORPUS / f"{name}.py"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert MIN_LINES <= len(lines) <= MAX_LINES, f"{name}.py has {len(lines)} lines"
    tree = _tree(path)
    assert ast.get_docstring(tree), f"{name}.py has no module docstring"
    for node in _public_definitions(tree):
        assert ast.get_docstring(node), f"{name}.py: {node.name} has no docstring"
    roots = _imported_roots(tree)
    assert roots <= set(sys.stdlib_module_names), f"{name}.py imports non-stdlib {roots}"
    assert not roots & FORBIDDEN_IMPORTS, f"{name}.py imports {roots & FORBIDDEN_IMPORTS}"
    assert not roots & set(MODULES), f"{name}.py imports another corpus module"


@pytest.mark.parametrize("name", MODULES)
def test_test_file_shape(name: str):
    tree = _tree(CORPUS / f"test_{name}.py")
    tests = _test_names(tree)
    assert len(tests) >= MIN_TESTS, f"test_{name}.py has {len(tests)} tests"
    assert len(set(tests)) == len(tests), f"test_{name}.py defines a test twice"
    visible = _visible(tree)
    assert visible, f"test_{name}.py has no VISIBLE list"
    assert set(visible) <= set(tests), f"VISIBLE names unknown tests: {set(visible) - set(tests)}"
    assert len(visible) < len(tests), "hidden tests must be more than the visible ones"
    roots = _imported_roots(tree)
    allowed = set(sys.stdlib_module_names) | {"pytest", name}
    assert roots <= allowed, f"test_{name}.py imports {roots - allowed}"


def test_all_corpus_tests_pass(tmp_path: Path):
    """One pytest run over a copy of the corpus: everything passes, fast, and silently."""
    work = tmp_path / "corpus"
    shutil.copytree(CORPUS, work, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (work / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    expected = sum(len(_test_names(_tree(CORPUS / f"test_{n}.py"))) for n in MODULES)
    report = tmp_path / "report.xml"
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rP", f"--junitxml={report}", "."],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},  # corpus tests need no plugins
    )
    elapsed = time.perf_counter() - started
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert f"{expected} passed" in proc.stdout, proc.stdout[-2000:]
    assert "Captured stdout" not in proc.stdout and "Captured stderr" not in proc.stdout, "a corpus test prints"
    assert elapsed < 30, f"corpus tests took {elapsed:.1f} s"
    per_file: dict[str, float] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        per_file[case.get("classname", "")] = per_file.get(case.get("classname", ""), 0.0) + float(case.get("time", 0))
    slow = {k: round(v, 3) for k, v in per_file.items() if v > 0.5}
    assert not slow, f"corpus test files slower than 0.5 s: {slow}"
