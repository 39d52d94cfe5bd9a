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
so a cache that outlived a code change could not serve an old verdict), what ran (``"test"`` or
``"verify"``), the test runner, the timeout, the sandbox backend and its options (resource
limits can change an outcome), and the workspace digest. That is everything the outcome depends
on *while the workspace changed only through menu edits*: the corpus modules and their menu
mutants are pure functions, and reset leaves nothing behind. The env therefore stops using the
cache for the rest of an episode at the first ``run`` (a shell can change state the key does
not see), at the first free-text edit (``replace``, or a ``patch`` that is not a menu entry:
agent-written code can keep state between runs in files or ``/tmp``, or read a clock or a
random source, which the key cannot see), and never serves a verification then: the hidden
verification then runs for real after the last action, as without a cache. A run that timed out
is stored only once the same key has timed out twice (``timeout_repeats``): a single timeout
may be the machine's load.

- `DiskStore`: the persistent layer under a `ResultCache`, shared by processes and runs: one
  small JSON file per outcome in a content-addressed folder (default ``$XDG_CACHE_HOME/agentgym``
  or ``~/.cache/agentgym``; ``AGENTGYM_CACHE_DIR`` overrides it, ``AGENTGYM_DISK_CACHE=0`` turns it
  off). Its key is the memory key plus `CODE_DIGEST` (every source file of the family and of the
  sandbox, so a code change is a miss, never a stale hit) and `environment_id` (the image, or the
  host interpreter, that ran the code). A write goes to a temporary file in the same folder, then
  `os.replace`: readers see a whole entry or none. An entry whose JSON, inner key or checksum is
  wrong is a miss and is deleted. The folder is capped in bytes; the least recently used entries go
  first. Only outcomes a fresh run would give again are written: no timeout but one that computed
  through half its budget (the code's, not the load's), and no value that JSON would not give back
  unchanged. The folder is the host's, mode 0700: no sandbox mounts it, and as root the local
  backend runs agent code as another user who cannot open it.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import os
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import agentgym.repo as repo_pkg
import agentgym.sandbox as sandbox_pkg
from agentgym.envs.coding.verifier import Verdict
from agentgym.sandbox.docker import docker_client

__all__ = [
    "DiskStore",
    "ResultCache",
    "TestRun",
    "cache_key",
    "default_cache_dir",
    "disk_enabled",
    "environment_id",
    "process_cache",
    "task_digest",
    "workspace_digest",
]

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
    {'hits': 1, 'misses': 1, 'disk_hits': 0}
    """

    def __init__(self, max_entries: int = 50_000, timeout_repeats: int = 2, disk: DiskStore | None = None) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries!r}")
        if timeout_repeats < 1:
            raise ValueError(f"timeout_repeats must be >= 1, got {timeout_repeats!r}")
        self.max_entries = int(max_entries)
        self.timeout_repeats = int(timeout_repeats)
        self._entries: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._timeouts: dict[tuple[Any, ...], int] = {}
        self._lock = threading.Lock()
        self._counts = {kind: {"hits": 0, "misses": 0, "disk_hits": 0} for kind in KINDS}
        self.disk = disk

    def get(self, key: tuple[Any, ...], kind: str) -> Any | None:
        """The stored outcome (a copy of mutable parts), or None; counts a hit or a miss of ``kind``."""
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
                self._counts[kind]["hits"] += 1
        if value is None and self.disk is not None:
            value = self.disk.get(key, kind)  # outside the lock: a file read must not stall other envs
            if value is not None:
                with self._lock:
                    self._remember(key, value)
                    self._counts[kind]["hits"] += 1
                    self._counts[kind]["disk_hits"] += 1
        if value is None:
            with self._lock:
                self._counts[kind]["misses"] += 1
            return None
        return copy.deepcopy(value) if isinstance(value, TestRun) else value

    def put(
        self, key: tuple[Any, ...], kind: str, value: Any, *, timed_out: bool = False, cpu_bound: bool = False
    ) -> None:
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
            self._remember(key, stored)
        if self.disk is not None and (not timed_out or cpu_bound):
            # a timeout that merely repeated in this process may still be load: memory only
            self.disk.put(key, kind, stored)

    def _remember(self, key: tuple[Any, ...], value: Any) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def stats(self) -> dict[str, dict[str, int]]:
        """Hits (``disk_hits`` of them from the `DiskStore`) and misses per kind since creation (or `clear`)."""
        with self._lock:
            return {kind: dict(c) for kind, c in self._counts.items()}

    def clear(self) -> None:
        """Forget the entries in memory and the counts; the `DiskStore` keeps its entries."""
        with self._lock:
            self._entries.clear()
            self._timeouts.clear()
            for c in self._counts.values():
                c["hits"] = c["misses"] = c["disk_hits"] = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


_PROCESS_CACHE: ResultCache | None = None
_PROCESS_LOCK = threading.Lock()


def process_cache() -> ResultCache:
    """The one cache of this process, what ``CodingEnv(result_cache=True)`` uses: in memory, over the
    `DiskStore` at `default_cache_dir` unless ``AGENTGYM_DISK_CACHE=0``."""
    global _PROCESS_CACHE
    with _PROCESS_LOCK:
        if _PROCESS_CACHE is None:
            _PROCESS_CACHE = ResultCache(disk=DiskStore() if disk_enabled() else None)
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


def task_digest(meta: Mapping[str, Any]) -> str:
    """The hash of what decides a task's verdict beyond the workspace: hidden tests, reference
    modules, and the code that judges them (`CODE_DIGEST`: the runner, verifier and harness among
    the family's and the sandbox's sources)."""
    return _digest(
        {
            **{f"hidden/{k}": v for k, v in meta["hidden"].items()},
            **{f"reference/{k}": v for k, v in meta["reference"].items()},
            "visible": "\n".join(meta["visible_test_files"]),
            "judges": CODE_DIGEST,
        }
    )


def cache_key(
    task_id: str, task_hash: str, kind: str, runner: str, timeout: float, workspace: str, sandbox: str = ""
) -> tuple[Any, ...]:
    """``sandbox`` names the backend and its options (memory, processes...): limits can change an outcome."""
    return (task_id, task_hash, kind, runner, float(timeout), workspace, sandbox)


# ------------------------------------------------------------------------------------------ on disk
FORMAT = 1
"""The entry layout's version: part of every disk key, so a new layout never reads an old one."""


def _code_digest() -> str:
    """Every source file of the coding family, of the sandbox (runner, verifier, harness, env,
    tasks, the step server and its backends) and of the diffs and views it shares with SWE-v0:
    what turns a workspace into a stored outcome."""

    files = {}
    roots = (
        ("coding", Path(__file__).resolve().parent),
        ("sandbox", Path(sandbox_pkg.__file__).parent),
        ("repo", Path(repo_pkg.__file__).parent),
    )
    for label, root in roots:
        for path in sorted(root.rglob("*.py")):
            files[f"{label}/{path.relative_to(root)}"] = path.read_text("utf-8", "surrogateescape")
    return _digest({**files, "format": FORMAT})


CODE_DIGEST = _code_digest()


def disk_enabled() -> bool:
    """False when ``AGENTGYM_DISK_CACHE`` is ``0``, ``off``, ``false`` or ``no``."""
    return os.environ.get("AGENTGYM_DISK_CACHE", "1").strip().lower() not in ("0", "off", "false", "no")


def default_cache_dir() -> Path:
    """``AGENTGYM_CACHE_DIR``, else ``$XDG_CACHE_HOME/agentgym``, else ``~/.cache/agentgym``."""
    if os.environ.get("AGENTGYM_CACHE_DIR"):
        return Path(os.environ["AGENTGYM_CACHE_DIR"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "agentgym"


@functools.cache
def _image_id(image: str) -> str:
    return str(docker_client().images.get(image).id)


@functools.cache
def _host_python() -> str:
    try:
        from importlib.metadata import version

        pytest_version = version("pytest")
    except Exception:  # no pytest: the runner's own fallback runs
        pytest_version = "none"
    return f"{sys.executable}|{sys.version}|pytest {pytest_version}"


def environment_id(sandbox: Any) -> str:
    """What ran the code besides the sources: the Docker image's id (its Python, its packages), or the
    local backend's host interpreter and pytest. Part of the key, so a rebuilt image is a miss."""
    backend = getattr(sandbox, "backend", "")
    if backend == "docker":
        return f"docker:{_image_id(sandbox.image)}"
    return f"{backend}:{_host_python()}"


def _encode(value: Any) -> dict[str, Any]:
    if isinstance(value, TestRun):
        return {
            "type": "test",
            "text": value.text,
            "value": value.value,
            "timed_out": value.timed_out,
            "error": value.error,
        }
    if isinstance(value, Verdict):
        return {
            "type": "verdict",
            "passed": value.passed,
            "reason": value.reason,
            "operations": value.operations,
            "busy_seconds": value.busy_seconds,
        }
    raise TypeError(f"cannot store a {type(value).__name__}")


def _decode(data: dict[str, Any]) -> Any:
    if data["type"] == "test":
        return TestRun(data["text"], data["value"], bool(data["timed_out"]), data["error"])
    if data["type"] == "verdict":
        return Verdict(bool(data["passed"]), data["reason"], int(data["operations"]), data["busy_seconds"])
    raise ValueError(f"unknown entry type {data['type']!r}")


def _same(a: Any, b: Any) -> bool:
    """Equal, with the types JSON could have changed (tuple -> list, int keys -> str) checked too."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if dataclass_fields := getattr(a, "__dataclass_fields__", None):
        return all(_same(getattr(a, f), getattr(b, f)) for f in dataclass_fields)
    return a == b


class DiskStore:
    """Outcomes on disk, one JSON file each, shared by processes; see the module docstring.

    >>> import tempfile; store = DiskStore(tempfile.mkdtemp())
    >>> store.put(("k",), "test", TestRun("ok", {"passed": True}, False, None))
    True
    >>> store.get(("k",), "test").text
    'ok'
    """

    def __init__(self, root: str | Path | None = None, *, max_bytes: int | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()
        if max_bytes is None:
            max_bytes = int(float(os.environ.get("AGENTGYM_CACHE_MAX_MB", "1024")) * 2**20)
        if max_bytes < 4096:
            raise ValueError(f"max_bytes must be >= 4096, got {max_bytes!r}")
        self.max_bytes = int(max_bytes)
        self.entries = self.root / f"coding-v{FORMAT}"
        self._written = 0  # bytes written since the last size check
        self._lock = threading.Lock()
        self.errors = 0  # unreadable or corrupt entries met (each deleted)

    def _path(self, key: tuple[Any, ...], kind: str) -> tuple[list[Any], Path]:
        full = [FORMAT, CODE_DIGEST, kind, *key]
        name = hashlib.sha256(json.dumps(full).encode()).hexdigest()
        return full, self.entries / name[:2] / f"{name}.json"

    @staticmethod
    def _checksum(full: list[Any], value: dict[str, Any]) -> str:
        return hashlib.sha256(json.dumps([full, value], sort_keys=True).encode()).hexdigest()

    def get(self, key: tuple[Any, ...], kind: str) -> Any | None:
        """The stored outcome, or None; a corrupt entry (bad JSON, another key, wrong checksum) is deleted."""
        full, path = self._path(key, kind)
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        try:
            entry = json.loads(raw)
            if entry["key"] != full or entry["checksum"] != self._checksum(full, entry["value"]):
                raise ValueError("the entry's key or checksum does not match")
            value = _decode(entry["value"])
        except Exception:  # anything unreadable is a miss, and is replaced
            self.errors += 1
            path.unlink(missing_ok=True)
            return None
        try:
            os.utime(path)  # recently used: evicted last
        except OSError:
            pass
        return value

    def put(self, key: tuple[Any, ...], kind: str, value: Any) -> bool:
        """Write ``value`` atomically; False (nothing written) when JSON would not give it back unchanged."""
        full, path = self._path(key, kind)
        encoded = _encode(value)
        try:
            text = json.dumps(
                {"key": full, "value": encoded, "checksum": self._checksum(full, encoded)}, allow_nan=False
            )
            if not _same(_decode(json.loads(text)["value"]), value):
                return False
        except (TypeError, ValueError):
            return False
        data = text.encode()
        try:
            if not path.parent.is_dir():
                path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                os.chmod(self.root, 0o700)  # the host's alone, whatever the umask made of it
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")  # mode 0600
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            return False  # a full or read-only disk: the run goes on without storing
        with self._lock:
            self._written += len(data)
            check = self._written > self.max_bytes // 20
            if check:
                self._written = 0
        if check:
            self.evict()
        return True

    def _files(self) -> list[tuple[float, int, Path]]:
        out: list[tuple[float, int, Path]] = []
        if not self.root.is_dir():
            return out
        for path in self.root.rglob("*.json"):
            try:
                st = path.stat()
            except OSError:
                continue
            out.append((st.st_mtime, st.st_size, path))
        return out

    def evict(self) -> int:
        """Delete the least recently used entries until the folder is under 90% of ``max_bytes``; also
        temporary files a killed writer left (older than an hour). Returns the number deleted."""
        stale = time.time() - 3600
        for tmp in self.root.rglob(".tmp-*") if self.root.is_dir() else ():
            try:
                if tmp.stat().st_mtime < stale:
                    tmp.unlink()
            except OSError:
                pass
        files = sorted(self._files(), key=lambda f: f[0])
        total = sum(size for _, size, _ in files)
        deleted = 0
        for _, size, path in files:
            if total <= 0.9 * self.max_bytes:
                break
            path.unlink(missing_ok=True)
            total -= size
            deleted += 1
        return deleted

    def info(self) -> dict[str, Any]:
        """Where the store is, how many entries and bytes it holds, and its cap."""
        files = self._files()
        return {
            "path": str(self.root),
            "entries": len(files),
            "bytes": sum(size for _, size, _ in files),
            "max_bytes": self.max_bytes,
            "code_digest": CODE_DIGEST,
        }

    def clear(self) -> int:
        """Delete every entry (and leftover temporary file); returns the number of entries deleted."""
        files = self._files()
        for _, _, path in files:
            path.unlink(missing_ok=True)
        for tmp in self.root.rglob(".tmp-*") if self.root.is_dir() else ():
            tmp.unlink(missing_ok=True)
        return len(files)
