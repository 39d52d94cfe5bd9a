"""A text space that accepts any ``str`` up to a maximum length.

Gymnasium's `Text` admits only its charset (alphanumerics by default), which rejects most real
agent actions and tool outputs; agentgym's contract is "any string", so `contains` checks the
type and length only, while `sample` still draws printable garbage for `check_env` and fuzzing.
"""

from __future__ import annotations

import string
from typing import Any

from gymnasium import spaces

__all__ = ["AnyText"]

_SAMPLE_CHARSET = string.printable


class AnyText(spaces.Text):
    """Any Python ``str`` with ``min_length <= len(s) <= max_length``."""

    def __init__(self, max_length: int, *, min_length: int = 0, seed: Any = None) -> None:
        super().__init__(max_length, min_length=min_length, charset=_SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"AnyText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, AnyText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )
