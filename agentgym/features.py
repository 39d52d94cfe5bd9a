"""Hashing featurizer: fixed-size numeric vectors from observation and action text.

`hash_tokens` is shared by `agentgym.wrappers.NumericView` and the torch baseline, so a policy
trained on one sees the same features through the other. Tokens are lower-cased words, numbers
and single punctuation marks, plus adjacent-token bigrams; each token is hashed with a
process-independent hash (Python's `hash` is salted per process) into one of ``dim`` buckets
with a hash-derived sign, and the vector is L2-normalised.

>>> v = hash_tokens("def add(a, b): return a + b", 64)
>>> v.shape, v.dtype, round(float((v ** 2).sum()), 5)
((64,), dtype('float32'), 1.0)
>>> bool((hash_tokens("same text", 64) == hash_tokens("same text", 64)).all())
True
>>> float(abs(hash_tokens("", 8)).sum())
0.0
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from agentgym.errors import ConfigError
from agentgym.tasks import stable_hash

__all__ = ["tokens", "hash_tokens"]

_TOKEN = re.compile(r"[A-Za-z_]+|\d+|[^\sA-Za-z_\d]")


def tokens(text: str) -> list[str]:
    """The word, number and punctuation tokens of ``text`` followed by its bigrams."""
    words = _TOKEN.findall(text.lower())
    return words + [f"{a} {b}" for a, b in zip(words, words[1:])]


@lru_cache(maxsize=262_144)
def _token_hash(token: str) -> int:
    # tokens repeat across steps and episodes (menus, tool output); sha256 per token is the cost
    return stable_hash(token)


def hash_tokens(text: str, dim: int) -> np.ndarray:
    """A ``float32`` vector of length ``dim``: signed hashed token counts, L2-normalised.

    Empty text gives the zero vector. The result is deterministic across processes and machines
    (and a fresh array: texts repeat, so results are cached and copied out).
    """
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
        raise ConfigError(f"hash_tokens dim={dim!r}; expected a positive int such as 256")
    text, dim = str(text), int(dim)
    # short texts (menu entries, tool messages) repeat; long ones would make the cache heavy
    return (_cached_hash_tokens(text, dim) if len(text) <= 1024 else _hash_tokens(text, dim)).copy()


@lru_cache(maxsize=16_384)
def _cached_hash_tokens(text: str, dim: int) -> np.ndarray:
    return _hash_tokens(text, dim)


def _hash_tokens(text: str, dim: int) -> np.ndarray:
    toks = tokens(text)
    # one vectorised pass: each token's bucket gets +1 or -1 (a hash bit), summed by bincount;
    # the counts are small integers, so this equals adding them one at a time
    hashes = np.fromiter(map(_token_hash, toks), dtype=np.uint64, count=len(toks))
    signs = np.where((hashes >> np.uint64(32)) & np.uint64(1), 1.0, -1.0)
    vec = np.bincount((hashes % np.uint64(dim)).astype(np.intp), weights=signs, minlength=dim).astype(np.float32)
    norm = float(np.sqrt(np.dot(vec, vec)))
    if norm > 0:
        vec /= norm
    vec.setflags(write=False)
    return vec
