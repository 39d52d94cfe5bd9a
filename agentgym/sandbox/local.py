"""The local backend: the step server as a host subprocess in a temporary folder.

It exists for machines without a Docker engine. It limits memory, file size and processes with
rlimits, but it is not isolation: commands run with the host's network and filesystem, as the
calling user, or as ``nobody`` (65534) when started as root, never as root. It says so once per
process.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings

from agentgym.errors import SandboxCrashed, SandboxStartFailed, SandboxTimeout
from agentgym.sandbox.base import AGENT_USER, BOOTSTRAP, SERVER_HASH_SEED, SERVICE_USER, Sandbox, write_all
from agentgym.sandbox.watchdog import LOCAL_PREFIX, ensure_watchdog, process_start

__all__ = ["LocalSandbox", "LocalSandboxWarning"]


class LocalSandboxWarning(UserWarning):
    """The local backend does not isolate the agent from the host."""


_warned = False


class LocalSandbox(Sandbox):
    """A step server in a host subprocess; see the module docstring for what it does not do."""

    backend = "local"

    def __init__(
        self,
        *,
        memory_mb: int = 2048,
        file_mb: int = 256,
        max_processes: int = 512,
        start_timeout: float = 30.0,
        python: str = sys.executable,
        **_ignored: object,
    ) -> None:
        global _warned
        super().__init__(start_timeout=start_timeout)
        if not _warned:
            _warned = True
            warnings.warn(
                "agentgym local sandbox backend: commands run on the host without isolation "
                "(rlimits only). Run `agentgym setup` for the Docker backend.",
                LocalSandboxWarning,
                stacklevel=3,
            )
        ensure_watchdog(process_start(os.getpid()))  # ends the server if we die while it is stopped
        self._root = tempfile.mkdtemp(prefix=f"{LOCAL_PREFIX}{os.getpid()}-")  # the watchdog finds it by pid
        self._workspace = os.path.join(self._root, "workspace")
        as_root = os.geteuid() == 0
        for name, owner in (("workspace", AGENT_USER), ("tmp", AGENT_USER), ("service", SERVICE_USER)):
            os.makedirs(os.path.join(self._root, name), mode=0o700)
            if as_root:  # each folder its user's alone; the root folder only searchable
                os.chown(os.path.join(self._root, name), *owner)
        if as_root:
            os.chmod(self._root, 0o711)
        config = {
            "workspace": self._workspace,
            "container": False,
            "scratch": [os.path.join(self._root, "tmp")],  # the commands' TMPDIR and HOME
            "service_dir": os.path.join(self._root, "service"),
            # as root, agent code runs as nobody and services as their own uid, as in a container
            **({"agent": list(AGENT_USER), "service": list(SERVICE_USER)} if as_root else {}),
            # The server skips `site` (-S: half its start time on a machine with many .pth
            # hooks) but gets the host's import path, so loaded tool code can import pytest.
            "sys_path": [p for p in sys.path if p and os.path.isdir(p)],
            "limits": {
                "RLIMIT_AS": memory_mb << 20,
                "RLIMIT_FSIZE": file_mb << 20,
                "RLIMIT_NPROC": max_processes,
            },
        }
        try:
            self._err = open(os.open(os.path.join(self._root, "server.err"), os.O_WRONLY | os.O_CREAT, 0o600), "wb")
            self._proc = subprocess.Popen(
                [python, "-S", "-u", "-c", BOOTSTRAP],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._err,
                start_new_session=True,
                cwd=self._root,
                # not the host's environment: forked test runs and harnesses inherit the server's
                env={
                    "PATH": os.environ.get("PATH", os.defpath),
                    "LANG": "C.UTF-8",
                    "LC_ALL": "C.UTF-8",
                    **SERVER_HASH_SEED,
                },
            )
        except OSError as exc:
            shutil.rmtree(self._root, ignore_errors=True)
            raise SandboxStartFailed(f"could not start the local step server with {python}: {exc}") from exc
        with open(os.path.join(self._root, "server.pid"), "w") as f:
            f.write(str(self._proc.pid))
        self._out = self._proc.stdout.fileno()  # type: ignore[union-attr]
        self._in = self._proc.stdin.fileno()  # type: ignore[union-attr]
        os.set_blocking(self._in, False)  # sends wait with a deadline (write_all), never block
        self._poller = select.poll()
        self._poller.register(self._out, select.POLLIN)
        self._rbuf = bytearray(1 << 18)  # reused: os.read(fd, big) would allocate per call
        try:
            self._handshake(config)
        except BaseException:
            self.close()
            raise

    @property
    def workspace(self) -> str:
        return self._workspace

    def agent_caused(self, exc: BaseException) -> bool:
        """Agent commands run as our own user here and can kill or stop the server: any failure
        during an action is the agent's (no engine or outside party is involved)."""
        return isinstance(exc, (SandboxCrashed, SandboxTimeout))

    def _send(self, data: bytes, deadline: float) -> None:
        write_all(self._in, data, deadline)

    def _recv(self, deadline: float) -> bytes:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        if not self._poller.poll(remaining * 1000 + 1):
            raise TimeoutError
        n = os.readv(self._out, [self._rbuf])
        return bytes(memoryview(self._rbuf)[:n])

    def _terminate(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None:
            try:
                if proc.stdin:
                    proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            if proc.stdout:
                proc.stdout.close()
        err = getattr(self, "_err", None)
        if err is not None:
            err.close()
        root = getattr(self, "_root", None)
        if root:
            shutil.rmtree(root, ignore_errors=True)
