"""SWE-v0's task generation: the yield per library, modifier and tier, and what a validation costs.

    python benchmarks/swe_yield.py                  # Markdown tables from the committed yield.json
    python benchmarks/swe_yield.py --json           # per library: candidates, kept, median and p95 seconds
    python benchmarks/swe_yield.py --yield FILE     # another generation's yield.json

Reads ``envs/swe/data/tasks/yield.json``, which ``python -m agentgym.envs.swe.generate`` writes beside
the manifests: per library, how many candidates were validated in the sandbox, how many showed a
test going from pass to fail with another still passing (valid), how many survived deduplication
and made it into the manifest (kept), the time-outs, and every validation's seconds (writing the
buggy file, running the tests, writing the original back; from the cache, a validation keeps the
seconds it took when it ran). Median and p95 are over those seconds. The machine, its load and the
date belong with the figures: the generator's run is quoted with them in yield.json's
``wall_seconds`` and ``validations_run``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any

from agentgym.envs.swe.generate import yield_table

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "envs" / "swe" / "data" / "tasks" / "yield.json"


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q`` quantile (0 < q <= 1) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def per_library(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, row in sorted(data["libraries"].items()):
        times = row["seconds"]
        out[name] = {
            "candidates": row["candidates"],
            "valid": row["valid"],
            "kept": row["kept"],
            "timeouts": row["timeout"],
            "tasks": sum(row["tasks"].values()),
            "median_seconds": round(statistics.median(times), 3) if times else None,
            "p95_seconds": round(percentile(times, 0.95), 3) if times else None,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--yield", dest="path", type=Path, default=DEFAULT, help="a yield.json (default: committed)")
    parser.add_argument("--json", action="store_true", help="one JSON object: per library figures, totals")
    args = parser.parse_args(argv)
    if not args.path.is_file():
        print(f"{args.path} is missing: run `python -m agentgym.envs.swe.generate`", file=sys.stderr)
        return 1
    data = json.loads(args.path.read_text())
    rows = per_library(data)
    every = [s for row in data["libraries"].values() for s in row["seconds"]]
    totals = {
        "tasks": data["tasks"],
        "tiers": {t: row.get("kept", 0) for t, row in data["tiers"].items()},
        "median_seconds": round(statistics.median(every), 3) if every else None,
        "p95_seconds": round(percentile(every, 0.95), 3) if every else None,
        "validations": len(every),
        "wall_seconds": data.get("wall_seconds"),
    }
    if args.json:
        print(json.dumps({"libraries": rows, "totals": totals}, indent=1, sort_keys=True))
        return 0
    print(yield_table(data))
    print()
    print(
        f"{totals['tasks']} tasks; {totals['validations']} validations, median {totals['median_seconds']} s, "
        f"p95 {totals['p95_seconds']} s; generation wall time {totals['wall_seconds']} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
