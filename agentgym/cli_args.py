"""Arguments several ``agentgym`` commands share, defined once so every command spells and checks them alike.

- `int_at_least`: the type of a whole-number option with a floor (a budget, a seed), whose error
  says what the number is.
- `add_backend_argument`: ``--backend {auto,docker,local}``, the sandbox backend: what ``backend=``
  means in `agentgym.make` and every env. ``agentgym eval`` once called it ``--sandbox``; that
  spelling is still read, with a notice on stderr and a `DeprecationWarning`.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from agentgym.sandbox import BACKENDS

__all__ = ["add_backend_argument", "int_at_least", "sandbox_backend"]

EXECUTORS = ("ray",)
"""Values that name where episodes run (``agentgym eval --executor``), not a sandbox: ``--backend ray``
was that once, and is refused with a message that says so."""


def int_at_least(low: int, what: str) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number ``>= low``; ``what`` names it in the error
    (``'0': the turn budget T is a whole number >= 1``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"{text!r}: {what} is a whole number >= {low}")
        return value

    return parse


def sandbox_backend(text: str) -> str:
    """``--backend``'s type: one of `agentgym.sandbox.BACKENDS`, with a message that says what to pass."""
    if text in BACKENDS:
        return text
    if text in EXECUTORS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is where episodes run: pass --executor {text}; --backend is the sandbox backend "
            f"({', '.join(BACKENDS)})"
        )
    raise argparse.ArgumentTypeError(f"{text!r}: the sandbox backend is one of {', '.join(BACKENDS)}")


class _DeprecatedSpelling(argparse.Action):
    """An old option name: stores into the new one's ``dest`` and says, once per use, what to write."""

    def __init__(self, option_strings: Sequence[str], dest: str, new: str = "", **kwargs: Any) -> None:
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: str | None = None
    ) -> None:
        message = f"{parser.prog}: {option} is deprecated, use {self.new} (same values)"
        print(message, file=sys.stderr)
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        setattr(namespace, self.dest, values)


def add_backend_argument(
    parser: argparse.ArgumentParser | Any,
    *,
    default: str | None = "auto",
    old_names: Sequence[str] = (),
    also: str = "",
) -> None:
    """Add ``--backend`` (the sandbox backend) to ``parser``; ``old_names`` are earlier spellings of it,
    still read with a deprecation notice and left out of ``--help``; ``also`` ends the help text."""
    default_text = f"default {default}" if default is not None else "default: the env's own, auto"
    parser.add_argument(
        "--backend",
        type=sandbox_backend,
        default=default,
        metavar="{" + ",".join(BACKENDS) + "}",
        help=f"sandbox backend: docker (isolated), local (a subprocess on this host, no isolation) or auto "
        f"($AGENTGYM_BACKEND when set, else docker) ({default_text}){also}",
    )
    for name in old_names:
        parser.add_argument(
            name,
            dest="backend",
            type=sandbox_backend,
            action=_DeprecatedSpelling,
            new="--backend",
            help=argparse.SUPPRESS,
        )
