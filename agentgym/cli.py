"""The ``agentgym`` command line: one parser, subcommands contributed by modules.

Each module in `COMMAND_MODULES` has ``register(subparsers)``, which adds its subcommands with
``set_defaults(func=fn)``; ``fn(args)`` returns the exit code. A module that is not part of
this install is skipped, but an import error inside an existing module is not hidden.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from agentgym import __version__
from agentgym.errors import AgentGymError

__all__ = ["COMMAND_MODULES", "build_parser", "main"]

COMMAND_MODULES = (
    "agentgym.catalog",
    "agentgym.play",
    "agentgym.setup.commands",
    "agentgym.eval.cli",
    "agentgym.view.cli",
    "agentgym.serve.cli",
    "agentgym.cache",
)


def _import_optional(name: str) -> ModuleType | None:
    """Import a command module; None only when that module (or its package) does not exist."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        parts = name.split(".")
        missing_self = {".".join(parts[:i]) for i in range(2, len(parts) + 1)}
        if exc.name in missing_self:
            return None
        raise


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentgym",
        description="Gymnasium environments for multi-turn agent tasks in hardened sandboxes.",
    )
    parser.add_argument("--version", action="version", version=f"agentgym {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = _import_optional(name)
        if module is not None:
            module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``agentgym`` command; returns its exit code (typed errors print their fix)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args) or 0)
    except AgentGymError as exc:
        print(f"agentgym {args.command}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("agentgym: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
