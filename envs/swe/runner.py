"""The in-sandbox test runner of SWE-v0 (stdlib + pytest only; never imports agentgym).

Loaded once per sandbox into the warm step server (`Sandbox.load_module`), so pytest and its
built-in plugins are imported once; `configure` then records, in the server's memory where the
agent cannot write, how the sandbox's library runs its suite (its pytest arguments, its ``src``
folders, its package names). Every `run` happens in a forked child of that server
(`Sandbox.fork_call`, as the agent's user), which imports the library fresh from the workspace.

    run(root, ids=None, *, files=None, max_failure_chars=1500, nonce="") -> dict

runs pytest in ``root`` on the node ids ``ids`` (``None``: every test of ``files``, or the whole
suite) and returns ``{"outcomes": {nodeid: "passed" | "failed" | "error" | "skipped"}, "failures":
{nodeid: text}, "collected": int, "seconds": float, "cpu_seconds": float, "nonce": nonce,
"exit_code": int | None}`` (``seconds`` is wall time, ``cpu_seconds`` the CPU time it used).

- Node ids are pytest's, relative to ``root``, and the same on every run. An id selects what it
  selects on pytest's command line (a function id all its parametrizations, a class id its
  tests); outcomes are keyed by the tests that ran. ``collected`` counts them.
- An id that names nothing is reported as an ``"error"`` whose failure text starts with
  ``"not found"``, never a crash, and the others still run (pytest alone would refuse the whole
  command line). A test module that fails to import makes its ids (or, running files or the
  suite, its path) ``"error"`` with the import error; the other modules still run.
- ``"failed"`` is an assertion or exception in the test, ``"error"`` one in a fixture's setup or
  teardown, ``"skipped"`` a skip or an expected failure (xfail): neither shows the code works.
- Nothing pytest prints reaches the caller: outcomes and failure texts (``--tb=short``, memory
  addresses blanked, each capped at ``max_failure_chars`` keeping its head and its tail) are read
  from pytest's own reports. Should pytest itself refuse to start (a broken configuration file),
  the reason is under ``failures["<pytest>"]``.
- No bytecode is written into the workspace or read from it (a planted ``__pycache__`` is
  ignored), and the library's modules are imported afresh from ``root`` in every run.

A usage example (what `agentgym.envs.swe.sandboxing.open_library_sandbox` does)::

    sandbox = make_sandbox("docker", image="agentgym/swe:latest")
    sandbox.run(["cp", "-a", "/opt/swe/boltons/.", "/workspace/"], timeout=60)
    sandbox.load_module("agentgym_swe_runner", RUNNER_MODULE.source)
    sandbox.call("agentgym_swe_runner", "configure", tests=["tests"], packages=["boltons"])
    r = sandbox.fork_call("agentgym_swe_runner", "run", timeout=120, root="/workspace",
                          ids=["tests/test_strutils.py::test_strip_ansi"])
    r.value["outcomes"]  # {"tests/test_strutils.py::test_strip_ansi": "passed"}
"""

import ast
import hashlib
import importlib
import importlib.machinery
import io
import os
import pkgutil
import re
import sys
import time

os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # no third-party plugins: fast and deterministic

import _pytest
import pytest  # the warm import this module exists for

for _info in pkgutil.walk_packages(_pytest.__path__, "_pytest."):
    try:
        importlib.import_module(_info.name)
    except Exception:  # optional extras the runs never need
        pass

# The standard-library modules the pinned libraries and their tests import (an AST scan of their
# trees), warmed here once per sandbox: each run then skips importing them, and a run can import
# them where the interpreter's own files are root's alone (the local backend as root). Codecs too:
# pytest escapes parametrized ids with ``unicode_escape``.
for _name in (
    "argparse", "array", "ast", "asyncio", "base64", "binascii", "bisect", "calendar", "cmath", "codecs",
    "collections", "collections.abc", "concurrent.futures", "contextlib", "copy", "copyreg", "dataclasses",
    "datetime", "decimal", "difflib", "doctest", "enum", "errno", "fcntl", "fnmatch", "fractions", "functools",
    "getpass", "gettext", "glob", "gzip", "hashlib", "heapq", "html", "html.entities", "html.parser",
    "importlib.machinery", "importlib.metadata", "importlib.resources", "importlib.util", "inspect", "io",
    "itertools", "json", "keyword", "linecache", "logging", "math", "multiprocessing", "numbers", "operator",
    "pathlib", "pdb", "pickle", "pkgutil", "platform", "pprint", "queue", "random", "re", "reprlib", "resource",
    "runpy", "shlex", "shutil", "signal", "socket", "sqlite3", "stat", "statistics", "string", "struct",
    "subprocess", "sysconfig", "tarfile", "tempfile", "textwrap", "threading", "time", "timeit", "tomllib",
    "traceback", "tracemalloc", "types", "typing", "unicodedata", "unittest", "unittest.mock", "urllib.parse",
    "urllib.request", "uuid", "warnings", "weakref", "xml.etree.ElementTree", "xml.parsers.expat", "zipfile",
    "zlib", "zoneinfo",
):  # fmt: skip
    try:
        importlib.import_module(_name)
    except ImportError:
        pass
import encodings  # noqa: E402

for _info in pkgutil.iter_modules(encodings.__path__, "encodings."):
    try:
        importlib.import_module(_info.name)
    except Exception:  # a codec of another platform (mbcs)
        pass

import gc  # noqa: E402

gc.freeze()  # forked runs then skip scanning the warm interpreter's objects

# ---------------------------------------------------------------- the compile cache (`warm`)
from _pytest.assertion import rewrite as _rewrite  # noqa: E402

_CODE: dict = {}  # (kind, path, sha256 of the source) -> code object compiled in the server
_plain_source_to_code = importlib.machinery.SourceFileLoader.source_to_code
_plain_rewrite_test = _rewrite._rewrite_test


def _source_to_code(self, data, path, *, _optimize=-1):
    code = _CODE.get(("plain", path, hashlib.sha256(data).digest())) if _optimize == -1 else None
    return code if code is not None else _plain_source_to_code(self, data, path, _optimize=_optimize)


def _rewrite_test(fn, config):
    data = fn.read_bytes()
    code = _CODE.get(("rewritten", str(fn), hashlib.sha256(data).digest()))
    return (os.stat(fn), code) if code is not None else _plain_rewrite_test(fn, config)


importlib.machinery.SourceFileLoader.source_to_code = _source_to_code  # type: ignore[method-assign]
_rewrite._rewrite_test = _rewrite_test


def _looks_like_test(path):
    name = os.path.basename(path)
    parts = path.split(os.sep)
    return name == "conftest.py" or name.startswith("test") or name.endswith("_test.py") or "tests" in parts


def warm(root):
    """Compile every Python file under ``root`` once, here in the server (`Sandbox.call`), so
    forked runs take the code instead of compiling it (no bytecode is cached on disk: see `run`);
    test files are also compiled as pytest rewrites their assertions. The cache is keyed by each
    file's whole content, so an edited file misses it and is compiled afresh in the run: call it
    on the pristine tree, before the agent acts. The number of files compiled."""
    count = 0
    for folder, dirs, files in os.walk(os.path.abspath(root)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            try:
                with open(path, "rb") as f:
                    data = f.read()
                digest = hashlib.sha256(data).digest()
                _CODE[("plain", path, digest)] = compile(data, path, "exec", dont_inherit=True)
                if _looks_like_test(path):
                    tree = ast.parse(data, filename=path)
                    _rewrite.rewrite_asserts(tree, data, path, None)
                    _CODE[("rewritten", path, digest)] = compile(tree, path, "exec", dont_inherit=True)
            except (OSError, SyntaxError, ValueError, RecursionError):
                continue  # compiled (and its error reported) in the run, as without the cache
            count += 1
    gc.freeze()
    return count


_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
_BASE_ARGS = [
    "-q",
    "--tb=short",
    "--color=no",
    "-o",
    "console_output_style=classic",
    "--continue-on-collection-errors",  # a test module that fails to import fails its tests, not the run
    "-p",
    "no:cacheprovider",  # nothing written to the tree between runs
    "-p",
    "no:pastebin",
]
_SINK_CHARS = 1 << 16
_CONFIG: dict = {"tests": [], "args": [], "python_path": [], "extra_path": [], "packages": []}


def configure(tests=(), args=(), python_path=(), packages=(), extra_path=()):
    """Record the sandbox's library: its suite (``tests``, paths relative to the root), extra
    pytest ``args``, the folders put before the root on ``sys.path`` (``src``), the top-level
    ``packages`` it provides, and folders appended to ``sys.path`` after everything (its test
    dependencies, so nothing there shadows the workspace). Called in the server
    (`Sandbox.call`), so every forked run inherits it and nothing in the workspace can change it."""
    _CONFIG.update(
        tests=list(tests),
        args=list(args),
        python_path=list(python_path),
        packages=list(packages),
        extra_path=list(extra_path),
    )
    return dict(_CONFIG)


class _Sink(io.TextIOBase):
    """Stands in for stdout and stderr during a run: keeps the first 64 KiB, drops the rest."""

    def __init__(self):
        self.parts = []
        self.size = 0

    def writable(self):
        return True

    def write(self, text):
        if self.size < _SINK_CHARS:
            self.parts.append(text[: _SINK_CHARS - self.size])
            self.size += len(self.parts[-1])
        return len(text)

    def text(self):
        return "".join(self.parts)


class _Collector:
    """A pytest plugin: keeps only the wanted items, then every outcome and failure text."""

    def __init__(self, wanted):
        self.wanted = wanted  # set of node ids, or None for all
        self.outcomes = {}
        self.failures = {}
        self.collect_errors = {}
        self.collected = 0
        self.found = set()  # the wanted ids that selected at least one item

    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors[report.nodeid or "<collection>"] = report.longreprtext

    def pytest_collection_modifyitems(self, session, config, items):
        if self.wanted is not None:
            keep, drop = [], []
            for item in items:
                asked = _asked_by(item.nodeid, self.wanted)
                if asked:
                    self.found.update(asked)
                    keep.append(item)
                else:
                    drop.append(item)
            if drop:
                config.hook.pytest_deselected(items=drop)
            items[:] = keep
        self.collected = len(items)

    def pytest_runtest_logreport(self, report):
        nodeid = report.nodeid
        if report.when != "call" and report.outcome == "passed":
            return  # setup and teardown that went well say nothing
        previous = self.outcomes.get(nodeid)
        if previous in ("failed", "error"):
            return  # a teardown after a failure does not hide the failure
        if report.failed:
            outcome = "failed" if report.when == "call" else "error"
            self.failures[nodeid] = report.longreprtext
        elif report.skipped:
            outcome = "skipped"  # xfail included: an expected failure shows nothing about the code
        else:
            outcome = "passed"
        self.outcomes[nodeid] = outcome


def _cap(text, limit):
    """At most ``limit`` characters, the head and the tail (where the assertion is) kept."""
    text = _ADDRESS.sub("0x?", text)
    if len(text) <= limit:
        return text
    marker = f"\n... [{len(text) - limit} characters cut] ...\n"
    head = max(0, limit // 3 - len(marker))
    tail = max(0, limit - head - len(marker))
    return text[:head] + marker + text[len(text) - tail :]


def _asked_by(nodeid, wanted):
    """The wanted ids that select ``nodeid``: itself, or a prefix as pytest's command line reads
    one (a class or module id selects its tests, a function id all its parametrizations)."""
    asked = {nodeid} & wanted
    cut = len(nodeid)
    while True:
        cut = max(nodeid.rfind("::", 0, cut), nodeid.rfind("[", 0, cut))
        if cut <= 0:
            return asked
        if nodeid[:cut] in wanted:
            asked.add(nodeid[:cut])


def _cpu(times):
    """CPU seconds used (this process and its waited-for children): what a run costs whatever
    else the machine is doing, where its wall time depends on the neighbours."""
    return times.user + times.system + times.children_user + times.children_system


def _file_of(nodeid):
    return nodeid.split("::", 1)[0]


def _forget_library():
    """Drop the library's modules (if anything imported them) so this run imports the workspace's."""
    names = _CONFIG["packages"]
    for mod in [m for m in sys.modules if m.split(".", 1)[0] in names]:
        del sys.modules[mod]


def run(root, ids=None, *, files=None, max_failure_chars=1500, nonce=""):
    """Run the library's tests in ``root`` (see the module docstring); the report dict."""
    start, cpu_start = time.perf_counter(), os.times()
    # No bytecode written into the workspace, and none read from it: a .pyc is validated by the
    # source's mtime in seconds and its size, so an edit of the same size within the second of an
    # earlier run would run stale code, and a .pyc the agent planted beside a pristine file (its
    # mtime and size copied) would run instead of it. Under a pycache prefix Python looks for
    # bytecode only there (pytest's rewritten tests too), and below /dev/null nothing can exist.
    sys.dont_write_bytecode = True
    sys.pycache_prefix = "/dev/null/agentgym-no-bytecode"
    root = os.path.abspath(root)
    os.chdir(root)
    paths = [os.path.join(root, p) for p in _CONFIG["python_path"]]
    sys.path[:0] = paths + [root]
    sys.path.extend(_CONFIG["extra_path"])
    _forget_library()
    outcomes, failures = {}, {}
    wanted = None
    if ids is not None:
        wanted = set(ids)
        targets = []
        for nodeid in sorted(wanted):
            path = _file_of(nodeid)
            full = os.path.normpath(os.path.join(root, path))
            if not path or not (full == root or full.startswith(root + os.sep)) or not os.path.isfile(full):
                outcomes[nodeid] = "error"
                failures[nodeid] = f"not found: no test file {path!r} under the root"
            elif path not in targets:
                targets.append(path)
    elif files is not None:
        targets = []
        for path in files:
            full = os.path.normpath(os.path.join(root, path))
            if not (full == root or full.startswith(root + os.sep)) or not os.path.exists(full):
                outcomes[path] = "error"
                failures[path] = f"not found: no test file {path!r} under the root"
            elif path not in targets:
                targets.append(path)
    else:
        targets = list(_CONFIG["tests"])
    collector = _Collector(wanted)
    exit_code = None
    if targets or (ids is None and files is None):  # no suite configured: pytest's own testpaths
        args = list(_BASE_ARGS) + ["--rootdir", root] + list(_CONFIG["args"]) + targets
        out, err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = sink = _Sink()
        try:
            exit_code = int(pytest.main(args, plugins=[collector]))
        except SystemExit as exc:  # a conftest that exits: reported, not a crash
            exit_code = exc.code if isinstance(exc.code, int) else 1
        finally:
            sys.stdout, sys.stderr = out, err
        if exit_code in (3, 4) and not collector.outcomes:  # internal or usage error: say why
            failures["<pytest>"] = _cap(sink.text(), max_failure_chars)
    outcomes.update(collector.outcomes)
    for nodeid, text in collector.failures.items():
        failures[nodeid] = _cap(text, max_failure_chars)
    for where, text in collector.collect_errors.items():
        failures[where] = _cap(text, max_failure_chars)
        if not collector.outcomes.get(where):
            outcomes[where] = "error"
    if wanted is not None:  # ids that ran nowhere: their file's collection error, or not found
        for nodeid in sorted(wanted - collector.found - set(outcomes)):
            broken = collector.collect_errors.get(_file_of(nodeid))
            outcomes[nodeid] = "error"
            failures[nodeid] = _cap(broken, max_failure_chars) if broken else "not found: no such test was collected"
        for where in collector.collect_errors:  # only the ids asked for are reported
            if where not in wanted:
                outcomes.pop(where, None)
                failures.pop(where, None)
    return {
        "outcomes": dict(sorted(outcomes.items())),
        "failures": dict(sorted(failures.items())),
        "collected": collector.collected,
        "seconds": round(time.perf_counter() - start, 3),
        "cpu_seconds": round(_cpu(os.times()) - _cpu(cpu_start), 3),
        "nonce": nonce,
        "exit_code": exit_code,
    }
