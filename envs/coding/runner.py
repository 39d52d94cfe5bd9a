"""The in-sandbox test runner of the coding family (stdlib + pytest only; never imports agentgym).

`CodingEnv` loads this source into the sandbox's step server with `Sandbox.load_module`, so
pytest and its built-in plugins are imported once per sandbox; every visible test run then
happens in a forked copy of that warm interpreter (`Sandbox.fork_call`, as the agent's user),
which imports the agent's code fresh from the workspace. The report is rendered here from
pytest's own reports, so it holds no timings or temporary paths and the same code gives
the same text on every run.
"""

import ast
import importlib
import io
import os
import re
import sys
import tempfile
import traceback
import types
import warnings

os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # no third-party plugins: fast and deterministic

# Import all of pytest now, so a forked run only parses its config; and a forked run cannot import
# more on a host whose interpreter only root may read (the local backend as root: docs/security.md).
import pkgutil

import _pytest
import pytest  # warm import: the reason this module exists

for _info in pkgutil.walk_packages(_pytest.__path__, "_pytest."):
    try:
        importlib.import_module(_info.name)
    except Exception:  # optional extras (e.g. a missing third-party helper): the run never needs them
        pass

# Standard-library modules task code commonly imports (every one the corpus uses, and more): warm
# here for speed, and importable from a forked run on a host whose stdlib is root's alone.
for _name in (
    "bisect",
    "collections",
    "copy",
    "dataclasses",
    "datetime",
    "decimal",
    "enum",
    "fractions",
    "functools",
    "heapq",
    "itertools",
    "json",
    "math",
    "operator",
    "random",
    "re",
    "statistics",
    "string",
    "textwrap",
    "typing",
):
    importlib.import_module(_name)

import gc  # noqa: E402
import inspect  # noqa: E402

inspect.getmodule(compile("", "<warm>", "exec"))  # fills inspect's module-by-file cache once, not per failure
gc.freeze()  # forked runs then skip scanning the warm interpreter's objects in pytest's gc.collect

_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
# Plugins a bug-fixing run never needs cost start-up time; "-s" because the report is built
# from pytest's own reports (sys.stdout is swapped out during the run anyway).
_PYTEST_ARGS = ["-q", "-s", "--tb=short", "--color=no", "-o", "console_output_style=classic", "--import-mode=prepend"]
for _plugin in (
    "cacheprovider",
    "stepwise",
    "junitxml",
    "doctest",
    "pastebin",
    "nose",
    "legacypath",
    "setuponly",
    "setupplan",
    "debugging",
    "faulthandler",
    "unraisableexception",
    "threadexception",
):
    _PYTEST_ARGS += ["-p", "no:" + _plugin]


class _Collector:
    """A pytest plugin that keeps every test's outcome and failure text."""

    def __init__(self):
        self.outcomes = {}
        self.failures = {}
        self.collect_errors = {}

    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors[report.nodeid or "<collection>"] = report.longreprtext

    def pytest_runtest_logreport(self, report):
        path, _, rest = report.nodeid.partition("::")
        # hidden files live outside the rootdir, where pytest leaves the node id's path empty
        nodeid = os.path.basename(path or report.location[0]) + "::" + rest
        if report.when == "call" or report.outcome != "passed":
            prev = self.outcomes.get(nodeid)
            if prev in ("failed", "error"):
                return
            outcome = report.outcome
            if report.when != "call" and report.failed:
                outcome = "error"
            self.outcomes[nodeid] = outcome
            if report.failed:
                self.failures[nodeid] = report.longreprtext


def _run_pytest(paths, workspace, select=None):
    """Run pytest on ``paths`` silently; return the collector. ``select`` keeps only those node ids."""
    collector = _Collector()
    args = list(_PYTEST_ARGS) + ["--rootdir", workspace, "--confcutdir", workspace]
    args += list(select) if select is not None else list(paths)
    out, err = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = io.StringIO()
    try:
        code = pytest.main(args, plugins=[collector])
    finally:
        sys.stdout, sys.stderr = out, err
    collector.exit_code = int(code)
    return collector


class _Lite:
    """The `_Collector` shape, filled by calling plain test functions directly."""

    def __init__(self):
        self.outcomes = {}
        self.failures = {}
        self.collect_errors = {}


_WARM: dict = {}  # (path, source bytes) -> plan entry, compiled in the step server from the task's own files
_WARM_MAX = 512


def _plan(path, source):
    """A test file's assertion-rewritten code and plain test names; None if it needs pytest.

    Rewriting the assertions is most of a small run's cost (pytest's rewriter walks every assert),
    so `warm` does it once per test file in the step server and forked runs reuse it.
    """
    from _pytest.assertion.rewrite import rewrite_asserts

    tree = ast.parse(source, path)  # SyntaxError: the caller lets pytest word it
    tests = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            return None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            if (
                node.args.args
                or node.args.posonlyargs
                or node.args.kwonlyargs
                or node.decorator_list
                or isinstance(node, ast.AsyncFunctionDef)
            ):
                return None
            tests.append(node.name)
    if "pytestmark" in source.decode("utf-8", "replace"):
        return None
    rewrite_asserts(tree, source, path, None)
    return compile(tree, path, "exec"), tests


def warm(files):
    """Compile ``files`` ({path: text}, the task's own test files as the host wrote them) in this
    process, so that forked runs whose file still holds exactly this text skip the rewrite.

    Called in the step server (`Sandbox.call`), never in a process that runs agent code: what it
    compiles comes from the host, and a run uses it only for byte-identical file content.
    """
    for path, text in files.items():
        source = text.encode("utf-8")
        if (path, source) in _WARM:
            continue
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                entry = _plan(path, source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # the forked run words the error as usual
        if not caught:  # a file that warns as it compiles is compiled by each run, which shows the warning
            if len(_WARM) >= _WARM_MAX:
                del _WARM[next(iter(_WARM))]
            _WARM[(path, source)] = entry
    return len(_WARM)


def _lite(test_files, workspace):
    """Run plain test functions without a pytest session; None if a file needs pytest (fixtures, marks, classes)."""
    run = _Lite()
    plan = []
    for path in test_files:
        try:
            with open(path, "rb") as f:
                source = f.read()
            entry = _WARM[(path, source)] if (path, source) in _WARM else _plan(path, source)
        except SyntaxError:
            return None  # let pytest word the collection error
        except OSError as exc:
            run.collect_errors[path] = "%s: %s" % (type(exc).__name__, exc)
            continue
        if entry is None:
            return None
        plan.append((path,) + entry)
    for path, code, tests in plan:
        module = types.ModuleType(os.path.basename(path)[:-3])
        module.__file__ = os.path.join(workspace, path)
        sys.modules[module.__name__] = module
        try:
            exec(code, module.__dict__)
        except BaseException:
            run.collect_errors[path] = _short_tb(sys.exc_info(), 0)
            continue
        for name in tests:
            nodeid = "%s::%s" % (path, name)
            try:
                module.__dict__[name]()
                run.outcomes[nodeid] = "passed"
            except BaseException as exc:
                if type(exc).__name__ == "Skipped":
                    run.outcomes[nodeid] = "skipped"
                    continue
                run.outcomes[nodeid] = "failed"
                run.failures[nodeid] = _short_tb(sys.exc_info(), 1)
    return run


def _short_tb(exc_info, skip):
    """A traceback in pytest's ``--tb=short`` shape: one ``file:line: in func`` and source line per frame."""
    etype, value, tb = exc_info
    frames = traceback.extract_tb(tb)[skip:]
    frames = [
        f
        for f in frames
        if not f.filename.startswith(("<agentgym", "<frozen"))
        and "_pytest" not in f.filename
        and "pluggy" not in f.filename
    ] or frames
    lines = []
    for f in frames:
        lines.append("%s:%d: in %s" % (f.filename, f.lineno, f.name))
        if f.line:
            lines.append("    " + f.line)
    message = str(value)
    head = (
        "%s.%s" % (etype.__module__, etype.__qualname__)
        if etype.__module__ not in ("builtins", "__main__")
        else etype.__qualname__
    )
    for part in ("%s: %s" % (head, message) if message else head).splitlines() or [head]:
        lines.append("E   " + part)
    return "\n".join(lines)


def _scrub(text, workspace, tmp):
    for root in (tmp, workspace):
        if root:
            text = text.replace(root + os.sep, "").replace(root, ".")
    return _ADDRESS.sub("0x?", text)


def _render(collector, workspace):
    """The report the agent sees: one line per test, then the failure details, then counts."""
    lines = []
    for nodeid, text in sorted(collector.collect_errors.items()):
        lines.append("ERROR collecting %s" % nodeid)
        lines.append(_scrub(text, workspace, None).rstrip())
    for nodeid, outcome in collector.outcomes.items():
        lines.append("%s %s" % (nodeid, outcome.upper()))
    for nodeid, text in collector.failures.items():
        lines.append("_" * 20 + " %s " % nodeid.split("::")[-1] + "_" * 20)
        lines.append(_scrub(text, workspace, None).rstrip())
    counts = {}
    for outcome in collector.outcomes.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    summary = ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items())) or "no tests ran"
    if collector.collect_errors:
        summary += ", %d collection error%s" % (
            len(collector.collect_errors),
            "s" * (len(collector.collect_errors) > 1),
        )
    lines.append("== %s ==" % summary)
    return "\n".join(lines)


def _prepare(workspace):
    sys.dont_write_bytecode = True
    if workspace not in sys.path:
        sys.path.insert(0, workspace)


def run_visible(test_files, runner="auto"):
    """Run the visible tests, printing their report; return whether they passed and their counts.

    ``runner``: ``"pytest"`` always starts a pytest session; ``"auto"`` calls plain test functions
    directly with pytest's assertion rewriting (same verdicts and assertion messages, a tenth of
    the start-up cost) and falls back to pytest for anything else. The hidden tests never come
    here: this runs agent code, and they must not be in any process that does (docs/security.md).
    """
    workspace = os.getcwd()
    _prepare(workspace)
    visible = _lite(test_files, workspace) if runner == "auto" else None
    if visible is None:
        visible = _run_pytest(test_files, workspace)
    print(_render(visible, workspace))
    passed = (
        bool(visible.outcomes)
        and not visible.collect_errors
        and all(o in ("passed", "skipped") for o in visible.outcomes.values())
    )
    return {"passed": passed, "counts": _counts(visible)}


def run_hidden(hidden):
    """Every hidden test under pytest, for `build_tasks` on the host (finding which mutants the tests
    catch). Never used in a sandbox: the env's verifier is `agentgym.envs.coding.verifier`."""
    workspace = os.getcwd()
    _prepare(workspace)
    tmp = tempfile.mkdtemp(prefix="hidden-")
    names = _write_hidden(tmp, hidden)
    run = _run_pytest(sorted(names.values()), workspace)
    ok = bool(run.outcomes) and not run.collect_errors and all(o == "passed" for o in run.outcomes.values())
    return {
        "passed": ok,
        "counts": _counts(run),
        "collection_errors": len(run.collect_errors),
        "failed": sorted(k.split("::", 1)[1] for k, o in run.outcomes.items() if o != "passed"),
    }


def _write_hidden(tmp, hidden):
    """Write hidden test files outside the workspace, named apart from the visible ones."""
    names = {}
    for name, source in sorted(hidden.items()):
        path = os.path.join(tmp, "hidden_" + name)
        with open(path, "w") as f:
            f.write(source)
        names[name] = path
    return names


def _counts(collector):
    counts = {}
    for outcome in collector.outcomes.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    counts["collection_errors"] = len(collector.collect_errors)
    return counts


def read_files(paths, max_bytes=1 << 20, max_total=8 << 20):
    """Current text of workspace files, read in the server: one round trip, bounded, never blocking.

    Each path maps to its text, None when it does not exist, or ``{"error": why}`` when it is not
    something the env may read back: not a regular file (a FIFO or device would block or never
    end; a symlink could lead out of the workspace), over ``max_bytes``, or past ``max_total``
    for this call. Whatever the agent writes, a step costs the host at most ``max_total`` bytes.
    """
    import stat as st

    out = {}
    total = 0
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
        except FileNotFoundError:
            out[path] = None
            continue
        except OSError as exc:
            out[path] = {"error": "cannot be read (%s)" % (os.strerror(exc.errno) if exc.errno else exc)}
            continue
        try:
            info = os.fstat(fd)
            if not st.S_ISREG(info.st_mode):
                out[path] = {"error": "is not a regular file"}
            elif info.st_size > max_bytes or total + info.st_size > max_total:
                out[path] = {
                    "error": "is %d bytes, over the %d-byte limit the env reads back"
                    % (info.st_size, max_bytes if info.st_size > max_bytes else max_total - total)
                }
            else:
                data = os.read(fd, max_bytes + 1)
                total += len(data)
                out[path] = data[:max_bytes].decode("utf-8", "replace")
        finally:
            os.close(fd)
    return out
