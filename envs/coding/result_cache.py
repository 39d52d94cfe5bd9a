"""An opt-in result cache for Coding-v0's two deterministic, expensive runs: the visible tests and
the hidden verification.

- `ResultCache`: a thread-safe, bounded (LRU) map from `cache_key` to a stored outcome, with hit
  and miss counters per kind. One object can be shared by many envs (the trainer steps envs in
  threads); ``CodingEnv(result_cache=True)`` uses one per process (`process_cache`).
- `TestRun`: what a visible test run returned (text, value, timed out, error), from which the env
  rebuilds the step exactly as it does after a real run. A verification stores the
  `agentgym.envs.coding.verifier.Verdict` itself.
- `workspace_digest`: the hash of the exact content of every workspace file the env tracks.

What the key covers (`cache_key`): the task (its id and a digest of its hidden tests and
reference modules, and of the code that judges them: the runner, the verifier and its harness,
so a cache that outlived a code change could not serve an old verdict), what ran (``"test"`` or ``"verify"``), the test runner, the timeout, the
sandbox backend and its options (resource limits can change an outcome), and the workspace
digest. That is everything the outcome depends on *while the workspace changed only
through menu edits*: the corpus modules and their menu mutants are pure functions, and reset
leaves nothing behind. The env therefore stops using the cache for the rest of an episode at the
first ``run`` (a shell can change state the key does not see), at the first free-text edit
(``replace``, or a ``patch`` that is not a menu entry: agent-written code can keep state between
runs in files or ``/tmp``, or read a clock or a random source, which the key cannot see), and
never serves a verification then: the hidden verification then runs for real after the last
action, as without a cache. A run that timed out is stored only once the same key has timed out
twice (``timeout_repeats``): a single timeout may be the machine's load.
"""

from __future__ import annotations

import copy
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ResultCache", "TestRun", "cache_key", "process_cache", "task_digest", "workspace_digest"]

KINDS = ("test", "verify")


@dataclass(frozen=True)
class TestRun:
    """A visible test run as the sandbox returned it (``value`` is the runner's dict)."""

    __test__ = False  # not a pytest class

    text: str
    value: Any
    timed_out: bool
    error: str | None


class ResultCache:
    """Outcomes of visible test runs and verifications keyed by `cache_key`; thread-safe, LRU-bounded.

    >>> cache = ResultCache(max_entries=2)
    >>> cache.put(("k",), "verify", True); cache.get(("k",), "verify"), cache.get(("x",), "verify")
    (True, None)
    >>> cache.stats()["verify"]
    {'hits': 1, 'misses': 1}
    """

    def __init__(self, max_entries: int = 50_000, timeout_repeats: int = 2) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries!r}")
        if timeout_repeats < 1:
            raise ValueError(f"timeout_repeats must be >= 1, got {timeout_repeats!r}")
        self.max_entries = int(max_entries)
        self.timeout_repeats = int(timeout_repeats)
        self._entries: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._timeouts: dict[tuple[Any, ...], int] = {}
        self._lock = threading.Lock()
        self._counts = {kind: {"hits": 0, "misses": 0} for kind in KINDS}

    def get(self, key: tuple[Any, ...], kind: str) -> Any | None:
        """The stored outcome (a copy of mutable parts), or None; counts a hit or a miss of ``kind``."""
        with self._lock:
            value = self._entries.get(key)
            if value is None:
                self._counts[kind]["misses"] += 1
                return None
            self._entries.move_to_end(key)
            self._counts[kind]["hits"] += 1
        return copy.deepcopy(value) if isinstance(value, TestRun) else value

    def put(self, key: tuple[Any, ...], kind: str, value: Any, *, timed_out: bool = False, cpu_bound: bool = False) -> None:
        """Store ``value`` under ``key``. A run that timed out is stored only once the same key has
        timed out ``timeout_repeats`` times: one timeout may be the machine's load, a repeated one
        is the code (a looping decoy), which would otherwise cost the whole timeout on every visit.
        ``cpu_bound``: the run had computed for at least half its timeout when it was stopped, so
        the timeout is the code's, not the load's: stored at once."""
        if kind not in KINDS:
            raise ValueError(f"kind={kind!r}; choose from {KINDS}")
        stored = copy.deepcopy(value) if isinstance(value, TestRun) else value
        with self._lock:
            if timed_out and not cpu_bound:
                strikes = self._timeouts[key] = self._timeouts.get(key, 0) + 1
                if len(self._timeouts) > self.max_entries:
                    self._timeouts.pop(next(iter(self._timeouts)))
                if strikes < self.timeout_repeats:
                    return
            self._entries[key] = stored
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def stats(self) -> dict[str, dict[str, int]]:
        """Hits and misses per kind since creation (or `clear`)."""
        with self._lock:
            return {kind: dict(c) for kind, c in self._counts.items()}

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._timeouts.clear()
            for c in self._counts.values():
                c["hits"] = c["misses"] = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


_PROCESS_CACHE: ResultCache | None = None
_PROCESS_LOCK = threading.Lock()


def process_cache() -> ResultCache:
    """The one cache of this process, what ``CodingEnv(result_cache=True)`` uses."""
    global _PROCESS_CACHE
    with _PROCESS_LOCK:
        if _PROCESS_CACHE is None:
            _PROCESS_CACHE = ResultCache()
        return _PROCESS_CACHE


def _digest(items: Mapping[str, Any]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for name in sorted(items):
        text = items[name]
        data = b"\x00missing" if text is None else str(text).encode("utf-8", "surrogatepass")
        h.update(name.encode("utf-8", "surrogatepass") + b"\x00" + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def workspace_digest(files: Mapping[str, str | None]) -> str:
    """The hash of every tracked workspace file's exact content (None: the file does not exist)."""
    return _digest(files)


_JUDGES = ("runner.py", "verifier.py", "harness.py")
JUDGES_DIGEST = _digest({name: (Path(__file__).with_name(name)).read_text() for name in _JUDGES})
"""The code that turns a workspace into an outcome (test runner, verifier, harness), hashed once."""


def task_digest(meta: Mapping[str, Any]) -> str:
    """The hash of what decides a task's verdict beyond the workspace: hidden tests, reference
    modules, and the code that judges them (`JUDGES_DIGEST`)."""
    return _digest({**{f"hidden/{k}": v for k, v in meta["hidden"].items()},
                    **{f"reference/{k}": v for k, v in meta["reference"].items()},
                    "visible": "\n".join(meta["visible_test_files"]), "judges": JUDGES_DIGEST})


def cache_key(task_id: str, task_hash: str, kind: str, runner: str, timeout: float, workspace: str,
              sandbox: str = "") -> tuple[Any, ...]:
    """``sandbox`` names the backend and its options (memory, processes...): limits can change an outcome."""
    return (task_id, task_hash, kind, runner, float(timeout), workspace, sandbox)
