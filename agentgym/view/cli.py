"""The ``view`` subcommand: write the page of one run (or two, side by side), optionally serve it.

``agentgym view RUN [RUN2] [--out PAGE.html] [--single-file] [--serve [--port N]]``. Without
``--serve`` the page opens from disk (``file://``) and needs nothing else; ``--serve`` answers on
loopback only, for runs whose chunk folder is too large to hand around as files.
"""

from __future__ import annotations

import argparse
import functools
import http.server
from pathlib import Path
from typing import Any

from agentgym.view.page import build_view

__all__ = ["register", "serve", "make_server"]


def register(subparsers: Any) -> None:
    """Add ``agentgym view`` to the ``agentgym`` command line."""
    p = subparsers.add_parser(
        "view",
        help="see what the agents did: a browser page of an evaluation run (or two, side by side)",
        description="Write one static page (no server, no network) of an evaluation folder (what `agentgym "
        "eval --out` writes), an agent folder of the BudgetMix experiment, or the experiment folder: the "
        "Pass@(K,T) heatmap, success against T, failure categories, recovery, cost and latency, and every "
        "episode turn by turn. Two folders are compared on the same tasks.",
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="evaluation or experiment folder; a second one to compare")
    p.add_argument("--out", default=None, help="the page to write (default RUN/view.html)")
    p.add_argument(
        "--single-file",
        action="store_true",
        help="inline every record in the page, however large (default: records go to a folder beside "
        "the page above 24 MB)",
    )
    p.add_argument("--serve", action="store_true", help="serve the page on 127.0.0.1 until interrupted")
    p.add_argument("--port", type=int, default=8765, help="port for --serve (default 8765; 0 picks a free one)")
    p.set_defaults(func=_cmd_view)


def _cmd_view(args: argparse.Namespace) -> int:
    if len(args.runs) > 2:
        print("agentgym view: give one run, or two to compare", flush=True)
        return 2
    out = build_view(args.runs, args.out, single_file=args.single_file)
    where = f" and {out.chunk_dir}" if out.chunk_dir else ""
    print(
        f"wrote {out.page}{where}: {out.runs} run(s), {out.episodes} episodes, "
        f"{out.size / 2**20:.1f} MB in {out.seconds:.1f} s"
    )
    if args.serve:
        serve(out.page, args.port)
    else:
        print(f"open it in a browser: {out.page.resolve().as_uri()}")
    return 0


def make_server(page: Path, port: int = 0) -> http.server.ThreadingHTTPServer:
    """A server of ``page``'s folder bound to 127.0.0.1 only (``port`` 0 picks a free one)."""
    handler = functools.partial(_QuietHandler, directory=str(page.parent.resolve()))
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def serve(page: Path, port: int) -> None:
    """Serve ``page``'s folder on 127.0.0.1:``port`` until interrupted (loopback only, read-only)."""
    with make_server(page, port) as server:
        print(f"serving on http://127.0.0.1:{server.server_address[1]}/{page.name} (Ctrl-C stops)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # one line per chunk is noise
        return
