"""``agentgym serve``: the command (registered in `agentgym.cli.COMMAND_MODULES`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from agentgym.cli_args import add_backend_argument
from agentgym.core import FAULT_KINDS
from agentgym.errors import ConfigError

__all__ = ["register"]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "serve",
        help="serve envs over OpenEnv's HTTP/WebSocket protocol and MCP",
        description="Serve agentgym ids to remote clients: OpenEnv's /reset /step /state /ws, MCP at /mcp, "
        "and agentgym.remote.RemoteEnv / gym.make(id, remote=URL). A token is always required "
        "(--token-file, $AGENTGYM_SERVE_TOKEN_FILE or $AGENTGYM_SERVE_TOKEN; otherwise one is "
        "generated into a private file whose path is printed). See docs/serve.md.",
    )
    p.add_argument("env_ids", nargs="+", metavar="ID", help="ids to serve; the first also at the root URL")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback only)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument(
        "--kwargs",
        default="{}",
        metavar="JSON",
        help='env kwargs and agentgym.make options for every session, e.g. \'{"budget": 8, "split": "test"}\'',
    )
    add_backend_argument(p, default=None, also="; the same as --kwargs backend")
    p.add_argument(
        "--budget",
        type=int,
        default=None,
        help="turn budget T (TurnLimit); same as kwargs budget. With --client-budget, the T of a reset "
        "that chooses none",
    )
    p.add_argument(
        "--client-budget",
        type=_budget_range,
        default=None,
        metavar="LO-HI",
        help="let clients choose T in [LO, HI] per episode (reset options budget); without --budget, a "
        "reset that chooses none gets T = HI. By default clients cannot choose",
    )
    p.add_argument(
        "--client-faults",
        type=_fault_kinds,
        default=None,
        metavar="KIND[,KIND...]",
        help="let clients choose a fault plan per episode (reset options faults) using these kinds "
        "(or 'all'); it replaces the served faults for that episode. By default clients cannot",
    )
    p.add_argument("--token-file", default=None, help="file with the accepted token(s), one per line")
    p.add_argument(
        "--max-sessions",
        type=int,
        default=512,
        help="open sessions at once (default 512; a Docker-backed Coding-v0 session holds about 24 MiB)",
    )
    p.add_argument("--idle-timeout", type=float, default=300.0, help="close a session idle this many seconds")
    p.add_argument("--max-request-bytes", type=int, default=1 << 20, help="largest request body or message")
    p.add_argument(
        "--call-timeout",
        type=float,
        default=600.0,
        help="deadline of one env build, reset or step; past it the session and its sandbox are closed",
    )
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a browser origin (http(s)://host[:port]) whose pages may call the server; repeatable. "
        "By default any request with an Origin header (only browsers send one) is refused",
    )
    p.add_argument("--no-mcp", action="store_true", help="do not serve /mcp")
    p.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    p.set_defaults(func=run)


def _budget_range(text: str) -> tuple[int, int]:
    """``--client-budget``: ``LO-HI`` or one T."""
    lo, sep, hi = text.strip().partition("-")
    try:
        bounds = (int(lo), int(hi)) if sep else (int(lo), int(lo))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected LO-HI, e.g. 2-32") from None
    if not 1 <= bounds[0] <= bounds[1]:
        raise argparse.ArgumentTypeError(f"{text!r}: expected 1 <= LO <= HI")
    return bounds


def _fault_kinds(text: str) -> tuple[str, ...]:
    """``--client-faults``: comma-separated kinds, or ``all``."""
    kinds = tuple(dict.fromkeys(k.strip() for k in text.split(",") if k.strip()))
    if kinds == ("all",):
        return tuple(FAULT_KINDS)
    bad = [k for k in kinds if k not in FAULT_KINDS]
    if bad or not kinds:
        raise argparse.ArgumentTypeError(f"{text!r}: fault kinds are {', '.join(FAULT_KINDS)} (or 'all')")
    return kinds


def config_from(args: argparse.Namespace) -> Any:
    """The `ServeConfig` the flags describe."""
    from agentgym.serve.app import ServeConfig
    from agentgym.serve.sessions import ClientBounds

    return ServeConfig(
        max_sessions=args.max_sessions,
        idle_timeout=args.idle_timeout,
        max_request_bytes=args.max_request_bytes,
        call_timeout=args.call_timeout,
        client=ClientBounds(args.client_budget, args.client_faults),
        allow_origins=tuple(args.allow_origin),
    )


def run(args: argparse.Namespace) -> int:
    from agentgym.serve.server import serve

    try:
        kwargs = json.loads(args.kwargs)
    except ValueError as exc:
        raise ConfigError(f"--kwargs {args.kwargs!r} is not JSON: {exc}") from None
    if not isinstance(kwargs, dict):
        raise ConfigError(f"--kwargs must be a JSON object, got {args.kwargs!r}")
    if args.backend is not None:
        kwargs["backend"] = args.backend
    if args.budget is not None:
        kwargs["budget"] = args.budget
    return serve(
        args.env_ids,
        kwargs=kwargs,
        host=args.host,
        port=args.port,
        config=config_from(args),
        token_file=args.token_file,
        mcp=not args.no_mcp,
        log_level=args.log_level,
    )
