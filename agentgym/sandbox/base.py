"""The `Sandbox` interface, implemented once over a byte channel to the step server.

Backends (docker, local) only start the server and move bytes; every operation, its framing,
its deadline and its typed failure live here, so both backends behave the same.
"""

from __future__ import annotations

import atexit
import base64
import json
import threading
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentgym.errors import SandboxClosed, SandboxCrashed, SandboxOpError, SandboxStartFailed, SandboxTimeout

__all__ = ["Sandbox", "CommandResult", "ForkResult", "SERVER_SOURCE", "BOOTSTRAP", "WORKSPACE"]

SERVER_SOURCE = (Path(__file__).with_name("server.py")).read_bytes()
# The interpreter reads the server's source from stdin, so no image needs a copy of it.
BOOTSTRAP = (
    "import sys;n=int(sys.stdin.buffer.readline());g={'__name__':'agentgym_step_server'};"
    "exec(compile(sys.stdin.buffer.read(n),'agentgym/sandbox/server.py','exec'),g);g['main'](sys.argv[1:])"
)
WORKSPACE = "/workspace"
MAGIC = b"\x00AG1"
_HEADER = len(MAGIC) + 8
_GRACE = 10.0  # seconds the server may take beyond a command's own timeout

_LIVE: "weakref.WeakSet[Sandbox]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for sandbox in list(_LIVE):
        sandbox.close()


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

    @property
    def text(self) -> str:
        return self.output.decode("utf-8", "replace")


class Sandbox(ABC):
    """A workspace with a step server: run commands, move files, call tools, snapshot, restore.

    Use as a context manager or call `close()` (idempotent; also run at interpreter exit).
    ``calls`` and ``seconds`` count round trips and their time, for cost accounting.
    """

    backend: str = ""

    def __init__(self, *, start_timeout: float = 60.0) -> None:
        self._buf = bytearray()
        self._lock = threading.Lock()
        self._closed = False
        self._broken: str | None = None
        self.calls = 0
        self.seconds = 0.0
        self.info: dict[str, Any] = {}
        self.start_timeout = start_timeout
        _LIVE.add(self)

    # ------------------------------------------------------------ backend hooks
    @abstractmethod
    def _send(self, data: bytes) -> None:
        """Write raw bytes to the server's stdin."""

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
    def _handshake(self) -> None:
        """Send the server's source, then wait for its ready frame."""
        self._send(str(len(SERVER_SOURCE)).encode() + b"\n" + SERVER_SOURCE)
        deadline = time.monotonic() + self.start_timeout
        try:
            self._await_channel(deadline)
            self.info = self._read_reply(deadline)
        except (SandboxCrashed, SandboxTimeout) as exc:
            raise SandboxStartFailed(f"the {self.backend} step server did not start: {exc}") from exc

    def _await_channel(self, deadline: float) -> None:
        """Backends whose server moves to another channel after booting switch to it here."""

    def close(self) -> None:
        """Stop the server and remove the sandbox; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        _LIVE.discard(self)
        self._terminate()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    # ------------------------------------------------------------ protocol
    def request(self, op: str, wait: float = 30.0, /, **args: Any) -> Any:
        """One round trip to the step server. Raises typed errors; a broken channel stays broken."""
        if self._closed:
            raise SandboxClosed(f"{op} on a closed {self.backend} sandbox")
        if self._broken:
            raise SandboxCrashed(f"the sandbox is unusable after an earlier failure: {self._broken}")
        body = json.dumps({"op": op, "args": args}, separators=(",", ":")).encode()
        start = time.perf_counter()
        with self._lock:
            try:
                self._send(MAGIC + len(body).to_bytes(8, "big") + body)
                reply = self._read_reply(time.monotonic() + wait)
            except (SandboxCrashed, SandboxTimeout) as exc:
                self._broken = str(exc)
                self._terminate()
                raise
            except OSError as exc:
                self._broken = f"{type(exc).__name__}: {exc}"
                self._terminate()
                raise SandboxCrashed(f"the {self.backend} step server's channel broke during {op}: {exc}") from exc
            finally:
                self.calls += 1
                self.seconds += time.perf_counter() - start
        return reply

    def _read_reply(self, deadline: float) -> Any:
        while True:
            if len(self._buf) >= _HEADER:
                if self._buf[:4] != MAGIC:
                    raise SandboxCrashed(f"the step server sent a bad frame: {bytes(self._buf[:40])!r}")
                size = int.from_bytes(self._buf[4:_HEADER], "big")
                if len(self._buf) >= _HEADER + size:
                    body = bytes(self._buf[_HEADER : _HEADER + size])
                    del self._buf[: _HEADER + size]
                    msg = json.loads(body)
                    if not msg["ok"]:
                        raise SandboxOpError(f"{msg['error']}: {msg['message']}")
                    return msg["result"]
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
        return CommandResult(r["exit_code"], base64.b64decode(r["output"]), r["timed_out"], r["truncated"], r["seconds"])

    def read_file(self, path: str, max_bytes: int | None = None) -> bytes:
        """Bytes of a workspace file (relative paths are under the workspace)."""
        return base64.b64decode(self.request("read_file", path=path, max_bytes=max_bytes))

    def write_files(self, files: Mapping[str, bytes | str], mode: int = 0o644) -> None:
        """Write several workspace files in one round trip, creating folders as needed."""
        payload = {
            path: [base64.b64encode(data.encode() if isinstance(data, str) else data).decode(), mode]
            for path, data in files.items()
        }
        self.request("write_files", files=payload)

    def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None:
        self.write_files({path: data}, mode)

    def list_files(self) -> list[str]:
        return list(self.request("list_files"))

    def snapshot(self, name: str = "initial") -> str:
        """Remember the workspace under ``name``; returns its checksum."""
        return str(self.request("snapshot", name=name))

    def restore(self, name: str = "initial") -> str:
        """Kill every process the agent started and put the workspace back as snapshotted."""
        return str(self.request("restore", name=name))

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
            "fork_call", timeout + _GRACE, module=module, func=func, kwargs=kwargs, timeout=timeout,
            max_output=max_output,
        )
        return ForkResult(
            r["value"], r["error"], r["exit_code"], r["timed_out"], base64.b64decode(r["output"]), r["truncated"],
            r["seconds"],
        )
