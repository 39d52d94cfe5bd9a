"""SWE-v0's set-up cost and its libraries' test speed in the sandbox.

    python benchmarks/swe_setup.py [--repeats 3] [--only boltons,idna] [--no-cold | --cold-only] [--json out.json]

- **cold setup** (``--no-cold`` skips it): what ``agentgym setup --only swe`` costs on a machine
  that has only the base image: every pinned archive downloaded with pip (into a throwaway cache
  folder, ``--no-cache-dir``), hash-checked, extracted into host trees, and the image built under a
  throwaway tag (then removed) and checked in a sandbox. Reported per phase.
- **per library** (docker backend, the env's): starting a sandbox on ``agentgym/swe`` with the
  library copied into the workspace and the runner loaded (`open_library_sandbox`); the whole
  suite, ``--repeats`` times (the runner's own clock, fork + collect + run); and one test by its
  id, ten times (a step's cost when the agent runs one test). Median and p95 of each.

The load average is quoted, since this machine is shared.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from agentgym.envs.swe.libraries import LIBRARIES, library
from agentgym.envs.swe.sandboxing import open_library_sandbox, run_tests
from agentgym.sandbox.docker import docker_client
from agentgym.setup import swe_images


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def cold_setup() -> dict[str, float]:
    """Seconds per phase of a cold ``setup --only swe`` (throwaway cache folder and image tag)."""
    client = docker_client()
    tag = f"agentgym/swe-bench:cold-{os.getpid()}"
    quiet = lambda message: None  # noqa: E731
    phases: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="agentgym-swe-bench-") as cache_str:
        cache = Path(cache_str)
        start = time.perf_counter()
        swe_images.fetch_all(cache=cache, log=quiet)
        phases["download_s"] = time.perf_counter() - start
        start = time.perf_counter()
        swe_images.swe_trees(cache=cache, log=quiet)
        phases["extract_s"] = time.perf_counter() - start
        start = time.perf_counter()
        try:
            swe_images.build_swe_image(client, cache=cache, image=tag, rebuild=True, log=quiet)
            phases["build_and_check_s"] = time.perf_counter() - start
        finally:
            try:
                client.api.remove_image(tag, force=True)
            except Exception:
                pass
    phases["total_s"] = sum(phases.values())
    return phases


def per_library(name: str, repeats: int) -> dict[str, Any]:
    start = time.perf_counter()
    with open_library_sandbox(name) as sandbox:
        opened = time.perf_counter() - start
        sandbox.snapshot("pristine")
        suites, one, collected, test_id = [], [], 0, ""
        for i in range(repeats):
            if i:
                sandbox.restore("pristine")
            report = run_tests(sandbox, timeout=300)
            suites.append(report["seconds"])
            collected = report["collected"]
            test_id = test_id or next(k for k, v in sorted(report["outcomes"].items()) if v == "passed")
        for _ in range(10):
            t = time.perf_counter()
            run_tests(sandbox, [test_id])
            one.append(time.perf_counter() - t)
    return {
        "library": name,
        "collected": collected,
        "open_s": round(opened, 2),
        "suite_p50_s": round(statistics.median(suites), 2),
        "suite_p95_s": round(_pct(suites, 0.95), 2),
        "one_test_p50_s": round(statistics.median(one), 3),
        "one_test_p95_s": round(_pct(one, 0.95), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="whole-suite runs per library")
    parser.add_argument("--only", default="", help="these libraries only (comma-separated)")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold setup measurement")
    parser.add_argument("--cold-only", action="store_true", help="only the cold setup measurement")
    parser.add_argument("--json", default="", help="also write the results to this file")
    args = parser.parse_args()
    names = [library(n).name for n in args.only.split(",") if n.strip()] or [lib.name for lib in LIBRARIES]
    names = [] if args.cold_only else names
    result: dict[str, Any] = {"load_average_before": os.getloadavg()}
    if not args.no_cold:
        result["cold_setup"] = cold_setup()
        print("cold setup --only swe: " + ", ".join(f"{k} {v:.1f}" for k, v in result["cold_setup"].items()))
    print(f"{'library':16} {'tests':>6} {'open s':>7} {'suite p50':>9} {'p95':>6} {'1 test p50':>10} {'p95':>6}")
    rows = []
    for name in names:
        row = per_library(name, args.repeats)
        rows.append(row)
        print(
            f"{name:16} {row['collected']:6} {row['open_s']:7.2f} {row['suite_p50_s']:9.2f} {row['suite_p95_s']:6.2f} "
            f"{row['one_test_p50_s']:10.3f} {row['one_test_p95_s']:6.3f}",
            flush=True,
        )
    result["libraries"] = rows
    result["load_average_after"] = os.getloadavg()
    print(f"load average before {result['load_average_before']}, after {result['load_average_after']}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
