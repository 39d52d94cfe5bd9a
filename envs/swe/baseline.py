"""The baseline: which tests of each library pass in the sandbox, reliably, and whether the library is used.

For each library the whole suite runs twice in a fresh sandbox on ``agentgym/swe`` (the workspace
restored to the pristine tree between the runs). A test that fails, errors, is skipped (xfail
included) or flips between the two runs is excluded, with the reason; the library is usable only
if at least `MIN_PASS_RATE` of its collected tests pass and its suite runs within `MAX_SECONDS`
there (DESIGN.md section 17). The time rule is read in CPU seconds (the sandbox has one CPU, so
that is its wall time on an idle machine): on a shared machine the wall time of the same suite
varied threefold with the neighbours' load, and whether a library is used must not. Bugs are
injected, and tasks judged, only against the passing tests.

The result is committed, one file per library, ``data/baseline/<name>.json``: sorted ids, so a
rerun on the same image differs only in its timings. Regenerate with::

    python -m agentgym.envs.swe.baseline [--only NAME[,NAME...]] [--backend docker]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentgym.envs.swe.libraries import LIBRARIES, Library, library
from agentgym.envs.swe.sandboxing import open_library_sandbox, run_tests
from agentgym.errors import ConfigError
from agentgym.setup.swe_images import library_tree

__all__ = ["MIN_PASS_RATE", "MAX_SECONDS", "BASELINE_DIR", "measure", "baseline_path", "load_baseline", "main"]

MIN_PASS_RATE = 0.95
MAX_SECONDS = 60.0
BASELINE_DIR = Path(__file__).with_name("data") / "baseline"
_RUN_TIMEOUT = 3 * MAX_SECONDS  # long enough to measure a suite that is too slow, not forever


def baseline_path(name: str) -> Path:
    return BASELINE_DIR / f"{name}.json"


def load_baseline(name: str) -> dict[str, Any]:
    """The committed baseline of the library ``name`` (see `measure` for its fields)."""
    path = baseline_path(name)
    if not path.is_file():
        raise ConfigError(
            f"no baseline for {name!r} at {path}: run `python -m agentgym.envs.swe.baseline --only {name}`"
        )
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _tree_bytes(lib: Library) -> int:
    return sum(p.stat().st_size for p in library_tree(lib).rglob("*") if p.is_file() and p.name != ".complete")


def measure(lib: Library, *, backend: str = "docker", runs: int = 2) -> dict[str, Any]:
    """Run ``lib``'s whole suite ``runs`` times in one fresh sandbox and return its baseline record."""
    reports = []
    with open_library_sandbox(lib.name, backend) as sandbox:
        sandbox.snapshot("pristine")
        for i in range(runs):
            if i:
                sandbox.restore("pristine")  # what the first run wrote cannot help the second
            reports.append(run_tests(sandbox, timeout=_RUN_TIMEOUT, max_failure_chars=300))
    ids = sorted(set().union(*(r["outcomes"] for r in reports)))
    excluded: dict[str, str] = {}
    passing = []
    for nodeid in ids:
        outcomes = [r["outcomes"].get(nodeid, "missing") for r in reports]
        if all(o == "passed" for o in outcomes):
            passing.append(nodeid)
            continue
        reason = outcomes[0] if len(set(outcomes)) == 1 else " then ".join(outcomes)
        if "passed" in outcomes:
            reason = f"flaky: {reason}"
        failure = next((r["failures"][nodeid] for r in reports if r["failures"].get(nodeid, "").strip()), "")
        excluded[nodeid] = f"{reason}: {failure.strip().splitlines()[-1][:200]}" if failure else reason
    collected = max(r["collected"] for r in reports)
    seconds = statistics.median(r["seconds"] for r in reports)
    cpu_seconds = statistics.median(r["cpu_seconds"] for r in reports)
    rate = len(passing) / collected if collected else 0.0
    why_not = []
    if rate < MIN_PASS_RATE:
        why_not.append(f"{rate:.1%} of {collected} collected tests pass (< {MIN_PASS_RATE:.0%})")
    if cpu_seconds > MAX_SECONDS:
        why_not.append(f"the suite takes {cpu_seconds:.1f} CPU seconds (> {MAX_SECONDS:.0f})")
    files: dict[str, list[str]] = {}
    for nodeid in passing:
        files.setdefault(nodeid.split("::", 1)[0], []).append(nodeid)
    return {
        "name": lib.name,
        "version": lib.version,
        "license": lib.license,
        "usable": not why_not,
        "why_unusable": "; ".join(why_not) or None,
        "collected": collected,
        "passing_count": len(passing),
        "excluded_count": len(excluded),
        "pass_rate": round(rate, 4),
        "seconds": round(seconds, 2),
        "run_seconds": [round(r["seconds"], 2) for r in reports],
        "cpu_seconds": round(cpu_seconds, 2),
        "load_average": round(os.getloadavg()[0], 1),
        "tree_bytes": _tree_bytes(lib),
        "backend": backend,
        "passing": passing,
        "excluded": excluded,
        "files": files,
    }


_HEADER = (
    f"{'library':16} {'version':9} {'license':13} {'coll.':>6} {'pass':>6} "
    f"{'excl.':>5} {'wall s':>7} {'CPU s':>7} {'MB':>6}  usable"
)


def _row(rec: dict[str, Any]) -> str:
    return (
        f"{rec['name']:16} {rec['version']:9} {rec['license']:13} {rec['collected']:6} {rec['passing_count']:6} "
        f"{rec['excluded_count']:5} {rec['seconds']:7.2f} {rec['cpu_seconds']:7.2f} {rec['tree_bytes'] / 1e6:6.2f}  "
        f"{'yes' if rec['usable'] else 'NO: ' + str(rec['why_unusable'])}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentgym.envs.swe.baseline", description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", metavar="NAME,...", help="these libraries only (default: every one)")
    parser.add_argument("--backend", default="docker", help="sandbox backend (default docker, as the env uses)")
    parser.add_argument("--runs", type=int, default=2, help="suite runs per library (a flip excludes a test)")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    libs = [library(n) for n in names] if names else list(LIBRARIES)
    BASELINE_DIR.mkdir(parents=True, exist_ok=True)
    print(_HEADER)
    for lib in libs:
        start = time.monotonic()
        rec = measure(lib, backend=args.backend, runs=args.runs)
        baseline_path(lib.name).write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n")
        print(_row(rec), f"({time.monotonic() - start:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
