"""The `Sandbox` interface, implemented once over a byte channel to the step server.

Backends (docker, local) only start the server and move bytes; every operation, its framing,
its deadline and its typed failure live here, so both backends behave the same.
"""

from __future__ import annotations

import atexit
import base64
import hmac
import json
import os
import secrets
import select
import threading
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentgym.errors import (
    ProtocolError,
    SandboxClosed,
    SandboxCrashed,
    SandboxOpError,
    SandboxStartFailed,
    SandboxTimeout,
)

__all__ = [
    "Sandbox",
    "CommandResult",
    "ForkResult",
    "Harness",
    "HarnessLine",
    "SERVER_SOURCE",
    "BOOTSTRAP",
    "WORKSPACE",
    "MAX_REPLY",
    "write_all",
]

SERVER_SOURCE = (Path(__file__).with_name("server.py")).read_bytes()
# The interpreter reads the server's source, then its JSON config, from stdin: no image needs a copy
# of the server, and nothing secret (the channel token) ever sits in a command line.
BOOTSTRAP = (
    "import sys;r=sys.stdin.buffer;s=r.read(int(r.readline()));c=r.read(int(r.readline()));"
    "g={'__name__':'agentgym_step_server'};exec(compile(s,'agentgym/sandbox/server.py','exec'),g);g['main'](c)"
)
WORKSPACE = "/workspace"
AGENT_USER = (65534, 65534)  # uid, gid agent code runs as wherever we can choose (container, local as root)
SERVICE_USER = (65533, 65533)  # family services (a browser): neither the agent nor the server
# One string-hash seed for every step server: test runs and verifier harnesses are its forks, so a
# task whose code iterates a set of strings gets the same report and verdict in every sandbox.
SERVER_HASH_SEED = {"PYTHONHASHSEED": "0"}
MAGIC = b"\x00AG1"
_HEADER = len(MAGIC) + 8
_GRACE = 10.0  # seconds the server may take beyond a command's own timeout
MAX_REPLY = 256 << 20
"""Largest reply frame the client accepts; a bigger announced size is a `ProtocolError` at once."""

_QUIET_OPS = frozenset(
    {"ping", "read_file", "write_files", "list_files", "snapshot", "restore", "checksum", "load_module", "kill_all"}
)
"""Ops that start no agent process: after only these since the last restore, the next restore has
nothing to kill or wipe outside the workspace, so `Sandbox.restore` may hold it back."""

_LIVE: weakref.WeakSet[Sandbox] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for sandbox in list(_LIVE):
        sandbox.close()


def write_all(fd: int, data: bytes, deadline: float) -> None:
    """Write all of ``data`` to a non-blocking fd, waiting for room until ``deadline`` (then TimeoutError).

    Every send to the server goes through here, so a server that stopped reading (stopped, stuck,
    or a full pipe) costs at most the request's deadline, never a hang.
    """
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError from None
            select.select([], [fd], [], remaining)


@dataclass(frozen=True)
class CommandResult:
    """A finished command: merged stdout and stderr, capped with a visible marker."""

    exit_code: int
    output: bytes
    timed_out: bool
    truncated: bool
    seconds: float

    @property
    def text(self) -> str:
        return self.output.decode("utf-8", "replace")

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


@dataclass(frozen=True)
class ForkResult:
    """A function run in a forked warm interpreter: its return value and what it printed."""

    value: Any
    error: str | None
    exit_code: int
    timed_out: bool
    output: bytes
    truncated: bool
    seconds: float
    busy_seconds: float | None = None
    """CPU seconds the child had used when it ran out of time (None if it finished): computing or starved."""

    @property
    def text(self) -> str:
        return self.output.decode("utf-8", "replace")


class Sandbox(ABC):
    """A workspace with a step server: run commands, move files, call tools, snapshot, restore.

    Use as a context manager or call `close()` (idempotent; also run at interpreter exit).
    ``calls`` and ``seconds`` count round trips and their time, for cost accounting.

    Writes and restores may be held back (``defer=True``) until an operation needs the workspace:
    every other request sends them first, in order, so nothing that runs or reads in the sandbox
    can tell. An env whose outcomes come from a result cache then makes no round trip at all for an
    episode that never misses it (Coding-v0's menu episodes in training).
    """

    backend: str = ""

    def __init__(self, *, start_timeout: float = 60.0) -> None:
        self._buf = bytearray()
        self._lock = threading.Lock()
        self._closed = False
        self._broken: str | None = None
        self._next_id = 0
        self._abandoned: set[int] = set()
        self._token = ""
        self.calls = 0
        self.seconds = 0.0
        self.info: dict[str, Any] = {}
        self.start_timeout = start_timeout
        self._pending_restore: str | None = None  # held back by restore(defer=True)
        self._pending_writes: dict[str, tuple[bytes | str, int]] = {}  # by write_files(defer=True), after it
        self._ran = False  # an op that may start an agent process was sent since the last restore
        _LIVE.add(self)

    # ------------------------------------------------------------ backend hooks
    @abstractmethod
    def _send(self, data: bytes, deadline: float) -> None:
        """Write raw bytes to the server; raise TimeoutError if they are not all written by the deadline."""

    @abstractmethod
    def _recv(self, deadline: float) -> bytes:
        """Return the next bytes from the server's stdout (b"" at EOF); raise TimeoutError at the deadline."""

    @abstractmethod
    def _terminate(self) -> None:
        """Stop the server and release everything the backend holds; must not raise."""

    @property
    @abstractmethod
    def workspace(self) -> str:
        """The workspace path as the step server sees it."""

    # ------------------------------------------------------------ lifecycle
    def _handshake(self, config: dict[str, Any]) -> None:
        """Send the server's source and config, then wait for a ready frame that carries our token."""
        self._token = secrets.token_hex(16)
        payload = json.dumps({**config, "token": self._token}).encode()
        deadline = time.monotonic() + self.start_timeout
        try:
            self._send(
                str(len(SERVER_SOURCE)).encode() + b"\n" + SERVER_SOURCE + str(len(payload)).encode() + b"\n" + payload,
                deadline,
            )
            self.info = self._await_ready(deadline)
        except (SandboxCrashed, SandboxTimeout, OSError) as exc:
            raise SandboxStartFailed(f"the {self.backend} step server did not start: {exc}") from exc

    def _read_ready(self, deadline: float) -> dict[str, Any]:
        """The ready frame; only a peer that knows this sandbox's token is taken for its server."""
        info = self._read_reply(deadline, 0)
        if not isinstance(info, dict) or not hmac.compare_digest(str(info.pop("token", "")), self._token):
            raise ProtocolError("the peer on the channel is not this sandbox's step server (wrong token)")
        return info

    def _await_ready(self, deadline: float) -> dict[str, Any]:
        """The server's ready frame; backends whose server moves to another channel switch to it here."""
        return self._read_ready(deadline)

    def close(self) -> None:
        """Stop the server and remove the sandbox; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self._pending_restore, self._pending_writes = None, {}
        _LIVE.discard(self)
        self._terminate()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    # ------------------------------------------------------------ protocol
    def request(self, op: str, wait: float = 30.0, /, raw: bytes = b"", **args: Any) -> Any:
        """One round trip to the step server. Raises typed errors; a broken channel stays broken.

        ``raw`` bytes follow the frame and go, unread by the server, to the process the op names
        (a verifier's harness). Every frame carries an id: a reply to another id is a
        `ProtocolError`. A call interrupted while waiting (KeyboardInterrupt) leaves the channel
        usable: its late reply is recognised by its id and dropped. One interrupted while sending
        leaves a half-written frame, so the channel is closed and the sandbox must be replaced.
        """
        if self._closed:
            raise SandboxClosed(f"{op} on a closed {self.backend} sandbox")
        if self._broken:
            raise SandboxCrashed(f"the sandbox is unusable after an earlier failure: {self._broken}")
        if self._pending_restore is not None or self._pending_writes:
            self._flush()
        if op not in _QUIET_OPS:
            self._ran = True
        start = time.perf_counter()
        with self._lock:
            self._next_id += 1
            rid = self._next_id
            frame = {"id": rid, "op": op, "args": args}
            if raw:
                frame["raw"] = len(raw)
            body = json.dumps(frame, separators=(",", ":")).encode()
            deadline = time.monotonic() + wait
            sent = False
            try:
                self._send(MAGIC + len(body).to_bytes(8, "big") + body + raw, deadline)
                sent = True
                reply = self._read_reply(deadline, rid)
            except (SandboxCrashed, SandboxTimeout) as exc:
                self._break(str(exc))
                raise
            except TimeoutError:
                self._break(f"{op}: the request could not be sent in time")
                raise SandboxTimeout(
                    f"the {self.backend} step server did not take the {op} request in time (stopped or stuck)"
                ) from None
            except OSError as exc:
                self._break(f"{type(exc).__name__}: {exc}")
                raise SandboxCrashed(f"the {self.backend} step server's channel broke during {op}: {exc}") from exc
            except BaseException:
                if sent:
                    self._abandoned.add(rid)
                else:
                    self._break(f"{op} was interrupted while its request was being sent")
                raise
            finally:
                self.calls += 1
                self.seconds += time.perf_counter() - start
        return reply

    def agent_caused(self, exc: BaseException) -> bool:
        """Whether ``exc``, raised while running the agent's action, is the agent's doing.

        Backends override this; by default a failure is the infrastructure's (retried, never scored).
        """
        return False

    @property
    def broken(self) -> str | None:
        """Why the channel is unusable, or None while it works."""
        return self._broken

    def _break(self, why: str) -> None:
        self._broken = why
        self._terminate()

    def _read_reply(self, deadline: float, rid: int) -> Any:
        """The reply to request ``rid``; late replies to abandoned requests are dropped on the way."""
        while True:
            if len(self._buf) >= _HEADER:
                if self._buf[:4] != MAGIC:
                    raise ProtocolError(f"the step server sent a bad frame: {bytes(self._buf[:40])!r}")
                size = int.from_bytes(self._buf[4:_HEADER], "big")
                if size > MAX_REPLY:
                    raise ProtocolError(f"the step server announced a {size}-byte frame (limit {MAX_REPLY})")
                if len(self._buf) >= _HEADER + size:
                    body = bytes(self._buf[_HEADER : _HEADER + size])
                    del self._buf[: _HEADER + size]
                    try:
                        msg = json.loads(body)
                        got = msg["id"]
                    except (ValueError, TypeError, KeyError, RecursionError) as exc:
                        raise ProtocolError(
                            f"the step server sent an unreadable frame ({type(exc).__name__})"
                        ) from None
                    if got in self._abandoned:
                        self._abandoned.discard(got)
                        continue
                    if got != rid:
                        raise ProtocolError(f"a reply to request {got!r} arrived while waiting for request {rid}")
                    if not msg.get("ok"):
                        raise SandboxOpError(f"{msg.get('error')}: {msg.get('message')}")
                    return msg.get("result")
            try:
                chunk = self._recv(deadline)
            except TimeoutError:
                raise SandboxTimeout(f"the {self.backend} step server did not answer in time") from None
            if not chunk:
                raise SandboxCrashed(f"the {self.backend} step server exited (its channel closed)")
            self._buf += chunk

    # ------------------------------------------------------------ operations
    def ping(self) -> None:
        self.request("ping")

    def run(
        self,
        cmd: str | Sequence[str],
        *,
        timeout: float = 10.0,
        cwd: str = ".",
        env: Mapping[str, str] | None = None,
        max_output: int = 1 << 20,
    ) -> CommandResult:
        """Run a shell command (a ``str``) or an argv in the workspace.

        On timeout the command's whole process group is killed and ``timed_out`` is set; output
        past ``max_output`` bytes is dropped behind a visible marker. The sandbox keeps answering.
        """
        argv: str | list[str] = cmd if isinstance(cmd, str) else list(cmd)
        r = self.request(
            "exec", timeout + _GRACE, cmd=argv, timeout=timeout, cwd=cwd, env=dict(env or {}), max_output=max_output
        )
        return CommandResult(
            r["exit_code"], base64.b64decode(r["output"]), r["timed_out"], r["truncated"], r["seconds"]
        )

    def read_file(self, path: str, max_bytes: int | None = None) -> bytes:
        """Bytes of a workspace file (relative paths are under the workspace)."""
        return base64.b64decode(self.request("read_file", path=path, max_bytes=max_bytes))

    def write_files(self, files: Mapping[str, bytes | str], mode: int = 0o644, *, defer: bool = False) -> None:
        """Write several workspace files in one round trip, creating folders as needed.

        ``defer``: hold the write back until the next request needs the workspace (see the class);
        a refused write then fails that request. Defer only paths the caller knows are writable.
        """
        if defer:
            self._pending_writes.update({path: (data, mode) for path, data in files.items()})
            return
        self._send_writes({path: (data, mode) for path, data in files.items()})

    def _send_writes(self, files: Mapping[str, tuple[bytes | str, int]]) -> None:
        payload = {
            path: [base64.b64encode(data.encode() if isinstance(data, str) else data).decode(), mode]
            for path, (data, mode) in files.items()
        }
        self.request("write_files", files=payload)

    def _flush(self) -> None:
        """Send the held-back restore, then the held-back writes (`restore` and `write_files` with ``defer``).

        Should either be refused or interrupted, the workspace is no longer what its user was told
        (a test run on it would be cached under the wrong files), so the sandbox is broken: nothing
        runs on it again, and an env starts a new one at its next reset.
        """
        name, files = self._pending_restore, self._pending_writes
        self._pending_restore, self._pending_writes = None, {}
        try:
            if name is not None:
                self.restore(name)
            if files:
                self._send_writes(files)
        except BaseException as exc:
            if not self._broken:
                self._break(f"a held-back write or restore failed: {type(exc).__name__}: {exc}")
            if isinstance(exc, SandboxOpError):
                raise SandboxCrashed(f"the sandbox refused a held-back write or restore ({exc}); it is closed") from exc
            raise

    def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None:
        self.write_files({path: data}, mode)

    def list_files(self) -> list[str]:
        return list(self.request("list_files"))

    def snapshot(self, name: str = "initial") -> str:
        """Remember the workspace under ``name``; returns its checksum."""
        return str(self.request("snapshot", name=name))

    def restore(self, name: str = "initial", *, defer: bool = False) -> str | None:
        """Kill every process the agent started and put the workspace back as snapshotted; returns
        the snapshot's checksum.

        ``defer``: when no op that can start an agent process ran since the last restore (so there
        is nothing to kill), hold the restore back until the next request needs the workspace, drop
        the writes held back before it, and return None (see the class).
        """
        if defer and not self._ran:
            self._pending_restore, self._pending_writes = name, {}
            return None
        self._pending_restore, self._pending_writes = None, {}  # what this restore replaces anyway
        digest = str(self.request("restore", name=name))
        self._ran = False
        return digest

    def checksum(self) -> str:
        """SHA-256 over the workspace's paths, modes and contents."""
        return str(self.request("checksum"))

    def kill_all(self) -> None:
        self.request("kill_all")

    def load_module(self, name: str, source: str) -> list[str]:
        """Load family tool code into the server, for `call` and `fork_call`."""
        return list(self.request("load_module", name=name, source=source))

    def call(self, module: str, func: str, /, timeout: float = 30.0, **kwargs: Any) -> Any:
        """Call a loaded tool function in the server process (fast; for trusted family code)."""
        return self.request("call", timeout, module=module, func=func, kwargs=kwargs)

    def fork_call(
        self, module: str, func: str, /, timeout: float = 10.0, max_output: int = 1 << 20, **kwargs: Any
    ) -> ForkResult:
        """Call a loaded function in a forked child of the warm server (e.g. a test run)."""
        r = self.request(
            "fork_call",
            timeout + _GRACE,
            module=module,
            func=func,
            kwargs=kwargs,
            timeout=timeout,
            max_output=max_output,
        )
        return ForkResult(
            r["value"],
            r["error"],
            r["exit_code"],
            r["timed_out"],
            base64.b64decode(r["output"]),
            r["truncated"],
            r["seconds"],
            r.get("busy_seconds"),
        )

    def harness(self, module: str, func: str, /, *, env: Mapping[str, str] | None = None) -> Harness:
        """Start a verifier's untrusted side: ``func`` of a loaded ``module`` in a forked child of
        the warm server, as the agent, fed and read line by line (no interpreter start-up; the
        child keeps only its two pipes, as in `fork_call`).

        Every other agent process is killed first. What `Harness.talk` writes travels past the
        step server with ``splice``, so it never sits in the memory that later test runs fork from.
        """
        self.request("harness_start", module=module, func=func, env=dict(env or {}))
        return Harness(self)


@dataclass(frozen=True)
class HarnessLine:
    """One line the harness wrote, or why there is none (it exited, ran out of time, or flooded)."""

    text: str
    eof: bool
    timed_out: bool
    truncated: bool
    busy_seconds: float | None = None
    """On a timeout: the CPU seconds the harness had used (a replay that computes, or one starved by load)."""


class Harness:
    """The untrusted side of a verifier, running in the sandbox; see `Sandbox.harness`. Close it (or use ``with``)."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    def talk(self, data: bytes, *, timeout: float, max_bytes: int = 16 << 20) -> HarnessLine:
        """Write ``data`` (may be empty) to the harness's stdin, then read its next output line."""
        r = self.sandbox.request("harness_talk", timeout + _GRACE, raw=data, timeout=timeout, max_bytes=max_bytes)
        return HarnessLine(
            str(r["line"]), bool(r["eof"]), bool(r["timed_out"]), bool(r["truncated"]), r.get("busy_seconds")
        )

    def close(self) -> None:
        """Kill the harness and every other agent process."""
        if not self.sandbox.closed and not self.sandbox.broken:
            self.sandbox.request("harness_stop")

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
