"""What ``agentgym view`` costs on a large run: building the page, and a real browser opening it.

    python benchmarks/view_load.py RUN                  # e.g. an experiment folder; a table
    python benchmarks/view_load.py RUN --json           # one JSON object
    python benchmarks/view_load.py RUN --builds 3 --loads 20 --opens 20

- **build**: ``agentgym view RUN`` in a fresh process, ``--builds`` times: wall seconds and the
  process's peak resident memory; the page's size and its chunk folder's.
- **load**: headless Chromium (`agentgym.testing.browser.Chromium`) opens the page from disk
  ``--loads`` times (a fresh tab each time): seconds to the load event, then to the page's
  ``data-ready`` mark (every chart and the first page of the episode list drawn), and the JS heap
  afterwards.
- **filter and open**: in the loaded page, filtering to the failures at the smallest T, then opening
  ``--opens`` episodes drawn at random (each from a chunk not loaded before, so the chunk's script is
  read and parsed each time): seconds from the click to the verdict being drawn.

Medians and p95 side by side, with the machine's load average (the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agentgym.testing.browser import Chromium

FILTER_FAILURES_AT_SMALLEST_T = """(function () {
  var o = document.getElementById('f-outcome'); o.value = 'fail'; o.dispatchEvent(new Event('change'));
  var t = document.getElementById('f-T'); t.value = t.options[1].value; t.dispatchEvent(new Event('change'));
  return document.querySelectorAll('#episode-list tbody tr').length;
})()"""


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def _stats(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "p95": _pct(values, 95), "n": len(values)}


def build(run: str, out: Path) -> dict[str, float]:
    """One build in a child process: its wall time and peak RSS (MiB)."""
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(
        [sys.executable, "-m", "agentgym", "view", run, "--out", str(out)], check=True, stdout=subprocess.DEVNULL
    )
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"seconds": seconds, "peak_mib": max(peak, before) / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("--builds", type=int, default=3)
    parser.add_argument("--loads", type=int, default=20)
    parser.add_argument("--opens", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="view-bench-"))
    page = tmp / "view.html"
    builds = [build(args.run, page) for _ in range(args.builds)]
    chunk_dir = page.with_name("view_files")
    chunk_bytes = sum(p.stat().st_size for p in chunk_dir.iterdir()) if chunk_dir.exists() else 0
    loads, ready, heaps, opens = [], [], [], []
    shown = 0
    with Chromium() as browser:
        url = page.resolve().as_uri()
        for _ in range(args.loads):
            browser.call("Page.navigate", {"url": "about:blank"})
            start = time.perf_counter()
            loads.append(browser.open(url))
            browser.wait_for("document.body.dataset.ready === '1'", timeout=120)
            ready.append(time.perf_counter() - start)
            browser.call("HeapProfiler.collectGarbage")
            heaps.append(browser.metrics()["JSHeapUsedSize"] / 2**20)
        shown = int(browser.evaluate(FILTER_FAILURES_AT_SMALLEST_T))
        total = int(browser.evaluate("document.getElementById('ep-count').textContent.split(' of ')[1].split(' ')[0]"))
        chunk = int(browser.evaluate("JSON.parse(document.getElementById('ag-index').textContent).chunk"))
        rng = random.Random(0)
        seen: set[int] = set()
        while len(opens) < args.opens and len(seen) < (total + chunk - 1) // chunk:
            i = rng.randrange(total)
            if i // chunk in seen:
                continue
            seen.add(i // chunk)
            browser.evaluate("document.getElementById('episode').innerHTML = ''")
            start = time.perf_counter()
            browser.evaluate(
                "(function(){var tb=document.querySelector('#episode-list tbody');"
                f"tb.innerHTML='<tr data-ep=\"{i}\"><td>x</td></tr>';tb.firstChild.click();}})()"
            )
            browser.wait_for("document.querySelector('#episode .verdict') !== null", timeout=60)
            opens.append(time.perf_counter() - start)
        errors = list(browser.errors)
    result: dict[str, Any] = {
        "run": args.run,
        "episodes": total,
        "page_mib": page.stat().st_size / 2**20,
        "chunks_mib": chunk_bytes / 2**20,
        "build_seconds": _stats([b["seconds"] for b in builds]),
        "build_peak_mib": _stats([b["peak_mib"] for b in builds]),
        "load_event_seconds": _stats(loads),
        "ready_seconds": _stats(ready),
        "js_heap_mib": _stats(heaps),
        "open_episode_seconds": _stats(opens),
        "failures_at_smallest_t_first_page": shown,
        "console_errors": errors,
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{result['episodes']} episodes; page {result['page_mib']:.1f} MiB, chunks {result['chunks_mib']:.1f} MiB")
    for key in (
        "build_seconds",
        "build_peak_mib",
        "load_event_seconds",
        "ready_seconds",
        "js_heap_mib",
        "open_episode_seconds",
    ):
        s = result[key]
        print(f"  {key:<22} median {s['median']:8.3f}   p95 {s['p95']:8.3f}   (n={s['n']})")
    print(f"  console errors: {errors or 'none'}; load average {result['load_average']}")


if __name__ == "__main__":
    main()
