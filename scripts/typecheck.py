#!/usr/bin/env python3
"""The type check that scripts/test.sh runs before pytest: mypy on `agentgym` and `baselines`.

`agentgym` (its envs and wrappers included) must have no error at all. `baselines` may carry
the errors listed in `scripts/mypy-baseline.txt`, a list that only shrinks: an error that is
not in it fails the check, and so does an entry that no longer occurs (drop it with
``--update``, which only ever removes entries). Entries are ``path: [code] message`` without
line numbers, so moving code does not invalidate them.

    python scripts/typecheck.py            # the check (mypy's settings are in pyproject.toml)
    python scripts/typecheck.py --update   # drop fixed errors from the baseline
    mypy -p agentgym                       # the same errors, with line numbers
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "scripts" / "mypy-baseline.txt"
PACKAGES = ("agentgym", "baselines")
STRICT = ("agentgym/",)
"""Paths that may have no error, baseline or not."""
_ERROR = re.compile(r"^(?P<path>[^:]+):\d+(?::\d+)?: error: (?P<message>.*?)\s+\[(?P<code>[a-z-]+)\]$")


def entry(line: str) -> str | None:
    """The baseline entry of one line of mypy's output (None: not an error line)."""
    m = _ERROR.match(line)
    return f"{m['path']}: [{m['code']}] {m['message']}" if m else None


def unaccepted(found: Counter[str], baseline: Counter[str]) -> tuple[Counter[str], Counter[str]]:
    """(errors the check fails on: in agentgym/ at all, elsewhere beyond the baseline; baseline entries gone)."""
    bad = (found - baseline) | Counter({e: n for e, n in found.items() if e.startswith(STRICT)})
    return bad, baseline - found


def mypy_errors() -> tuple[Counter[str], list[str]]:
    """Run mypy once on every package: (entries counted, the raw error lines)."""
    cmd = [sys.executable, "-m", "mypy", *(a for p in PACKAGES for a in ("-p", p))]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    lines = [line for line in proc.stdout.splitlines() if entry(line)]
    entries = Counter(e for e in map(entry, lines) if e)
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and not entries):
        sys.exit(f"mypy did not run: {' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
    return entries, lines


def read_baseline() -> Counter[str]:
    if not BASELINE.exists():
        return Counter()
    return Counter(line for line in BASELINE.read_text().splitlines() if line.strip() and not line.startswith("#"))


def write_baseline(entries: Counter[str]) -> None:
    head = (
        "# Accepted mypy errors in baselines/ (scripts/typecheck.py): this list only shrinks.\n"
        "# One line per error, `path: [code] message`; see the lines with `mypy -p baselines`.\n"
    )
    BASELINE.write_text(head + "".join(f"{e}\n" for e in sorted(entries.elements())))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="drop entries that no longer occur from the baseline")
    args = parser.parse_args()
    found, lines = mypy_errors()
    baseline = read_baseline()
    bad, stale = unaccepted(found, baseline)
    if args.update:
        write_baseline(baseline & found)
        print(
            f"{BASELINE.relative_to(ROOT)}: {sum((baseline & found).values())} entries ({sum(stale.values())} dropped)"
        )
        stale = Counter()
    failed = False
    if bad:
        failed = True
        print("mypy: errors that are not in the baseline (agentgym/ may have none):")
        for line in lines:
            if entry(line) in bad:
                print("  " + line)
        print("Fix them (`mypy -p agentgym`, `mypy -p baselines` shows them with line numbers).")
    if stale:
        failed = True
        print(
            f"{BASELINE.relative_to(ROOT)} lists errors that are gone; drop them with "
            "`python scripts/typecheck.py --update`:"
        )
        for e in sorted(stale):
            print("  " + e)
    if not failed:
        print(
            f"mypy: no errors in agentgym, {sum(found.values())} accepted in baselines ({BASELINE.relative_to(ROOT)})"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
