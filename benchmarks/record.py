"""Run one benchmark and keep its JSON output, with the machine, load and date, for the docs.

    python benchmarks/record.py envs-coding-docker -- python benchmarks/envs.py --env agentgym/Coding-v0 --json

runs the command after ``--`` (it must print one JSON object, last, on stdout) and
writes ``benchmarks/results/NAME.json``: the command, the date (UTC), the machine (CPU model,
cores, memory, OS, Python), the load average before and after, the wall time, and the
benchmark's own output under ``result``. The documentation's Performance page is generated from
these files at build time (``scripts/mkdocs_hooks.py``), so a figure there is always one a
command printed, next to where and when it ran.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> dict[str, object]:
    """What a reader needs to compare a figure: CPU, cores, memory, OS, Python."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory_gib = None
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        memory_gib = round(pages * size / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": memory_gib,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
    }


def load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def parse_json(stdout: str) -> object:
    """The JSON object a benchmark printed: all of stdout, or its last line, or the last block that
    starts a line with ``{`` (benchmarks print progress before it)."""
    try:
        return json.loads(stdout)
    except json.JSONDecodeError:
        pass
    lines = stdout.rstrip().splitlines()
    for start in range(len(lines) - 1, -1, -1):
        if lines[start].startswith("{"):
            try:
                return json.loads("\n".join(lines[start:]))
            except json.JSONDecodeError:
                continue
    raise ValueError("the command printed no JSON object")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], usage="record.py NAME [--title TEXT] -- COMMAND..."
    )
    parser.add_argument("name", help="file name under benchmarks/results/ (without .json)")
    parser.add_argument("--title", default="", help="the heading the docs show (default: the name)")
    if "--" not in argv:
        parser.parse_args(argv)  # --help answers here; anything else lacks the command
        parser.error("give the command to run after --")
    split = argv.index("--")
    args = parser.parse_args(argv[:split])
    command = argv[split + 1 :]
    before = load()
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        print(f"record.py: the command exited {proc.returncode}; nothing written", file=sys.stderr)
        return proc.returncode
    result = parse_json(proc.stdout)
    record = {
        "name": args.name,
        "title": args.title or args.name,
        "command": " ".join(command),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load_before": before,
        "load_after": load(),
        "wall_s": round(wall, 1),
        "result": result,
    }
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{args.name}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
