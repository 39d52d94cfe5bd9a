"""The in-sandbox test runner's compile cache (`runner.warm`): reused only for byte-identical files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).with_name("fixtures")
RUNNER = Path(__file__).resolve().parents[3] / "envs" / "coding" / "runner.py"

# Runs in a subprocess: the runner sets process-wide state (plugin autoload off, gc.freeze) that
# must not leak into this pytest session. It counts the runner's own compiles of test files.
SCRIPT = r"""
import contextlib, importlib.util, io, json, os, sys
spec = importlib.util.spec_from_file_location("runner", sys.argv[1])
runner = importlib.util.module_from_spec(spec); spec.loader.exec_module(runner)
os.chdir(sys.argv[2])
compiled = []
plan = runner._plan
runner._plan = lambda path, source: compiled.append(path) or plan(path, source)
def run():
    del compiled[:]
    for name in [m for m in sys.modules if m in ("clamp_utils", "test_clamp_utils")]:
        del sys.modules[name]
    out = io.StringIO()  # stdout and stderr together, as a forked run's output
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        value = runner.run_visible(["test_clamp_utils.py"])
    return {"report": out.getvalue(), "value": value, "compiled": list(compiled)}
steps = {"cold": run()}
runner.warm({"test_clamp_utils.py": open("test_clamp_utils.py").read()})
steps["warm"] = run()
with open("test_clamp_utils.py", "a") as f:
    f.write("\n\ndef test_added_by_the_agent():\n    assert clamp(5, 0, 3) == 4\n")
steps["edited"] = run()
print(json.dumps(steps))
"""


def _run(tmp_path: Path, break_module: bool, test_suffix: str = "") -> dict:
    for name in ("clamp_utils.py", "test_clamp_utils.py"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    if test_suffix:
        with (tmp_path / "test_clamp_utils.py").open("a") as f:
            f.write(test_suffix)
    if break_module:  # a bug, so the report carries assertion-rewritten failure messages
        source = (tmp_path / "clamp_utils.py").read_text()
        (tmp_path / "clamp_utils.py").write_text(source + "\n\ndef clamp(x, lo, hi):\n    return x\n")
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(RUNNER), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout)


def test_a_warmed_test_file_gives_the_cold_report_without_recompiling(tmp_path):
    for break_module in (False, True):
        steps = _run(tmp_path, break_module)
        assert steps["cold"]["compiled"] == ["test_clamp_utils.py"]
        assert steps["warm"]["compiled"] == []  # compiled once, in the step server
        assert steps["warm"]["report"] == steps["cold"]["report"]
        assert steps["warm"]["value"] == steps["cold"]["value"]
        assert steps["cold"]["value"]["passed"] is (not break_module)
        if break_module:
            assert "assert " in steps["cold"]["report"] and "FAILED" in steps["cold"]["report"]


def test_an_edited_test_file_is_compiled_again_not_served_from_the_cache(tmp_path):
    """Attack: the agent edits a warmed test file; the run must execute the edited file."""
    steps = _run(tmp_path, break_module=False)
    edited = steps["edited"]
    assert edited["compiled"] == ["test_clamp_utils.py"]
    assert "test_added_by_the_agent FAILED" in edited["report"]
    assert edited["value"]["passed"] is False


def test_a_test_file_that_warns_as_it_compiles_is_not_kept_compiled(tmp_path):
    """Its warnings belong in each run's output, as in a run that compiles the file itself."""
    steps = _run(
        tmp_path, break_module=False, test_suffix="\n\ndef test_tuple():\n    assert (clamp(1, 0, 2), 'always true')\n"
    )
    assert steps["warm"]["compiled"] == ["test_clamp_utils.py"]
    assert steps["warm"]["report"] == steps["cold"]["report"] and steps["warm"]["value"] == steps["cold"]["value"]
