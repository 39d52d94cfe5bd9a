"""A text space that accepts any ``str`` up to a maximum length.

Gymnasium's `Text` admits only its charset (alphanumerics by default), which rejects most real
agent actions and tool outputs; agentgym's contract is "any string", so `contains` checks the
type and length only, while `sample` still draws printable garbage for `check_env` and fuzzing.

Gymnasium's `AsyncVectorEnv` (``shared_memory=True``, its default) stores `Text` as indices into
the charset, so any character outside it reads back as garbage (``'000...'``) with no error.
`AnyText` registers its own shared-memory layout: a length, then the Unicode code points, so text
observations round-trip exactly whichever way the vector env is built.
"""

from __future__ import annotations

import multiprocessing as mp
import string
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import shared_memory as _shm

__all__ = ["AnyText", "SharedTextBatch"]

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
            isinstance(other, AnyText) and self.min_length == other.min_length and self.max_length == other.max_length
        )


# Shared memory for AsyncVectorEnv: per env, one int32 length then max_length code points.
@_shm.create_shared_memory.register(AnyText)
def _create_shared_memory(space: AnyText, n: int = 1, ctx: ModuleType = mp) -> Any:
    return ctx.Array(np.dtype(np.int32).char, n * (space.max_length + 1))


@_shm.write_to_shared_memory.register(AnyText)
def _write_to_shared_memory(space: AnyText, index: int, value: str, shared_memory: Any) -> None:
    if not space.contains(value):
        raise ValueError(f"{value!r:.80} is not in {space!r}; it cannot go through shared memory")
    row = np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape(-1, space.max_length + 1)[index]
    codes = np.frombuffer(value.encode("utf-32-le", "surrogatepass"), dtype=np.int32)
    row[0] = len(codes)
    row[1 : 1 + len(codes)] = codes


class SharedTextBatch(Sequence[str]):
    """A live view of n texts in shared memory, decoded on access.

    `AsyncVectorEnv` reads its shared buffer once, at construction, and relies on the result
    being a view (numpy arrays are); a tuple of str would stay stale forever. ``deepcopy`` (what
    the vector env returns with its default ``copy=True``) gives a plain tuple of str.
    """

    def __init__(self, space: AnyText, shared_memory: Any, n: int) -> None:
        self._rows = np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape(n, space.max_length + 1)

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self)[index]
        row = self._rows[index]
        return row[1 : 1 + row[0]].tobytes().decode("utf-32-le", "surrogatepass")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __repr__(self) -> str:
        return repr(tuple(self))

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return tuple(self)


@_shm.read_from_shared_memory.register(AnyText)
def _read_from_shared_memory(space: AnyText, shared_memory: Any, n: int = 1) -> SharedTextBatch:
    return SharedTextBatch(space, shared_memory, n)
