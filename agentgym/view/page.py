"""Writing the page: one HTML file with its script, style and data inlined, or, for large runs,
the HTML file and a folder of record chunks next to it that the page loads as it needs them.

Nothing is fetched from a network: the script and the style are this package's ``static/`` files,
inlined; the charts are SVG the script draws. Chunks in a folder are ``<script>`` files (a page
opened from disk may load scripts beside it, but ``fetch`` of a ``file:`` URL is refused).
"""

from __future__ import annotations

import html
import json
import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from agentgym.view.digest import digest_run
from agentgym.view.episodes import episode_chunks, episode_index
from agentgym.view.runs import Run, load_runs
from agentgym.wrappers.labels import CATEGORIES

__all__ = ["ViewOutput", "build_view", "write_page", "INLINE_LIMIT", "CATEGORY_REASONS"]

INLINE_LIMIT = 24 * 2**20
"""Record bytes up to which the page is one file; above it, chunks go to a folder beside it."""

CATEGORY_REASONS = {
    "success": "the verifier passed",
    "answer_contradicts_state": "the work was right, but the final message contradicts it (claims it was not done, "
    "refuses, or states the wrong value)",
    "timeout": "the turn budget ran out before the agent submitted (a budget-induced failure)",
    "tool_call_error": "an action was malformed or a tool call failed, and that tool never succeeded afterwards",
    "state_misidentification": "the agent acted on a state that was not the current one (a state_mismatch event)",
    "missing_verification": "the agent submitted without checking its work after its last change",
    "planning_mistake": "tools worked and the state was read right, but the plan was wrong",
}
"""Why the verdict is what it is, per failure category (the labeler's rules, `agentgym.wrappers.labels`)."""


@dataclass(frozen=True)
class ViewOutput:
    """What `build_view` wrote: the page, the chunk folder (None when inlined) and its size."""

    page: Path
    chunk_dir: Path | None
    episodes: int
    runs: int
    size: int
    """Bytes of the page and its chunks."""
    seconds: float


def _static(name: str) -> str:
    return resources.files("agentgym.view").joinpath("static", name).read_text(encoding="utf-8")


def _script_json(element_id: str, data: Any) -> str:
    text = json.dumps(data, separators=(",", ":"), default=str).replace("<", "\\u003c")
    return f'<script type="application/json" id="{element_id}">{text}</script>\n'


def write_page(runs: Sequence[Run], out: Path, *, single_file: bool = False, title: str = "") -> ViewOutput:
    """Write the page for ``runs`` to ``out`` (an ``.html`` path); see the module docstring."""
    started = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    digests = [digest_run(run) for run in runs]
    index = episode_index(runs)
    chunks = episode_chunks(runs)
    inline = single_file or sum(len(c) for c in chunks) <= INLINE_LIMIT
    chunk_dir = out.with_name(out.stem + "_files")
    if chunk_dir.exists():
        shutil.rmtree(chunk_dir)
    page_title = title or (runs[0].label if len(runs) == 1 else f"{len(runs)} runs")
    meta = {
        "title": page_title,
        "chunks": len(chunks),
        "inline": inline,
        "dir": chunk_dir.name,
        "reasons": CATEGORY_REASONS,
        "categories": list(CATEGORIES),
    }
    parts = [
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        f"<title>agentgym view: {html.escape(page_title)}</title>\n",
        f"<style>\n{_static('view.css')}</style>\n</head><body>\n",
        _static("view.html"),
        _script_json("ag-meta", meta),
        _script_json("ag-digests", digests),
        _script_json("ag-index", index),
    ]
    if inline:
        parts += [f'<script type="application/json" id="ag-chunk-{i}">{c}</script>\n' for i, c in enumerate(chunks)]
    else:
        chunk_dir.mkdir()
        for i, c in enumerate(chunks):
            (chunk_dir / f"chunk-{i}.js").write_text(f"agentgymChunk({i},{c});\n", encoding="utf-8")
    parts.append(f"<script>\n{_static('view.js')}</script>\n</body></html>\n")
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text("".join(parts), encoding="utf-8")
    os.replace(tmp, out)
    size = out.stat().st_size + (sum(p.stat().st_size for p in chunk_dir.iterdir()) if not inline else 0)
    return ViewOutput(
        page=out,
        chunk_dir=None if inline else chunk_dir,
        episodes=sum(len(r.records) for r in runs),
        runs=len(runs),
        size=size,
        seconds=time.perf_counter() - started,
    )


def build_view(
    paths: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str] | None = None, *, single_file: bool = False
) -> ViewOutput:
    """Read the runs at ``paths`` (one, or two to set side by side) and write their page.

    ``out`` defaults to ``view.html`` in the first path. Raises `agentgym.errors.ConfigError` when a
    path holds no records (the message says which command writes them).
    """
    runs = load_runs(paths)
    target = Path(out) if out is not None else Path(paths[0]) / "view.html"
    if target.suffix != ".html":
        target = target / "view.html"
    title = " vs ".join(Path(p).resolve().name for p in paths)
    return write_page(runs, target, single_file=single_file, title=title)
