"""The in-sandbox test runner of SWE-v0 (stdlib + pytest only; never imports agentgym).

Loaded once per sandbox into the warm step server (`Sandbox.load_module`), so pytest and its
built-in plugins are imported once; `configure` then records, in the server's memory where the
agent cannot write, how the sandbox's library runs its suite (its pytest arguments, its ``src``
folders, its package names). Every `run` happens in a forked child of that server
(`Sandbox.fork_call`, as the agent's user), which imports the library fresh from the workspace.

    run(root, ids=None, *, files=None, max_failure_chars=1500, nonce="") -> dict

runs pytest in ``root`` on the node ids ``ids`` (``None``: every test of ``files``, or the whole
suite) and returns ``{"outcomes": {nodeid: "passed" | "failed" | "error" | "skipped"}, "failures":
{nodeid: text}, "collected": int, "seconds": float, "nonce": nonce}``. Node ids are pytest's,
relative to ``root``, and the same on every run. An id that names no test is reported as an
``"error"`` with the reason, never a crash, and the others still run (pytest alone would refuse
the whole command line). Nothing pytest prints reaches the caller: outcomes and failure texts
(``--tb=short``, each capped at ``max_failure_chars``) are read from pytest's own reports.

A usage example (what `agentgym.envs.swe.sandboxing.open_library_sandbox` does)::

    sandbox = make_sandbox("docker", image="agentgym/swe:latest")
    sandbox.run(["cp", "-a", "/opt/swe/boltons/.", "/workspace/"], timeout=60)
    sandbox.load_module("agentgym_swe_runner", RUNNER_MODULE.source)
    sandbox.call("agentgym_swe_runner", "configure", tests=["tests"], packages=["boltons"])
    r = sandbox.fork_call("agentgym_swe_runner", "run", timeout=120, root="/workspace",
                          ids=["tests/test_strutils.py::test_strip_ansi"])
    r.value["outcomes"]  # {"tests/test_strutils.py::test_strip_ansi": "passed"}
"""

import importlib
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

# Standard-library modules the libraries and their tests import: warm here, once per sandbox.
for _name in (
    "argparse",
    "ast",
    "bisect",
    "calendar",
    "codecs",
    "collections",
    "collections.abc",
    "contextlib",
    "copy",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "doctest",
    "enum",
    "fractions",
    "functools",
    "heapq",
    "inspect",
    "itertools",
    "json",
    "locale",
    "math",
    "numbers",
    "operator",
    "pickle",
    "random",
    "statistics",
    "string",
    "struct",
    "tempfile",
    "textwrap",
    "threading",
    "typing",
    "unicodedata",
    "unittest",
    "unittest.mock",
    "warnings",
    "weakref",
):
    try:
        importlib.import_module(_name)
    except ImportError:
        pass

import gc  # noqa: E402

gc.freeze()  # forked runs then skip scanning the warm interpreter's objects

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


def _file_of(nodeid):
    return nodeid.split("::", 1)[0]


def _forget_library():
    """Drop the library's modules (if anything imported them) so this run imports the workspace's."""
    names = _CONFIG["packages"]
    for mod in [m for m in sys.modules if m.split(".", 1)[0] in names]:
        del sys.modules[mod]


def run(root, ids=None, *, files=None, max_failure_chars=1500, nonce=""):
    """Run the library's tests in ``root`` (see the module docstring); the report dict."""
    start = time.perf_counter()
    # No __pycache__ in the workspace: a .pyc is validated by the source's mtime in seconds and its
    # size, so an edit of the same size within the second of an earlier run would run stale code.
    sys.dont_write_bytecode = True
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
        "nonce": nonce,
        "exit_code": exit_code,
    }
