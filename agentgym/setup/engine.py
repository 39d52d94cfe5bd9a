"""The Docker engine: check that one answers and, as root on Debian or Ubuntu, install and start it.

`ensure_engine` is idempotent: when an engine answers it only reports the version. Otherwise it
installs the distribution's ``docker.io`` if ``dockerd`` is missing, removes pid files and
sockets that a killed daemon left behind (only when no live daemon owns them), starts
``dockerd`` detached without a bridge network or iptables rules (sandboxes use no network),
and waits for it to answer.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentgym.errors import EngineUnreachable, InfrastructureError

__all__ = [
    "DOCKERD_ARGS",
    "DOCKERD_LOG",
    "EngineStatus",
    "SetupFailed",
    "Log",
    "apt_install",
    "engine_status",
    "ensure_engine",
    "is_debian_like",
    "run_step",
]

DOCKERD_ARGS = ("--bridge=none", "--iptables=false", "--ip-masq=false")
DOCKERD_LOG = "/var/log/agentgym-dockerd.log"
DEFAULT_SOCKET = "/var/run/docker.sock"
PID_FILE = "/var/run/docker.pid"
# dockerd starts its own containerd with state here; a killed daemon leaves these behind.
CONTAINERD_PID = "/var/run/docker/containerd/containerd.pid"
CONTAINERD_SOCKETS = ("/var/run/docker/containerd/containerd.sock", "/var/run/docker/containerd/containerd-debug.sock")
SBIN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_started: list[subprocess.Popen[bytes]] = []  # daemons we started; they outlive this process

Log = Callable[[str], None]


class SetupFailed(InfrastructureError):
    """A setup step (installing a package, starting the engine, building an image) failed."""


@dataclass(frozen=True)
class EngineStatus:
    """Whether a Docker engine answers, its version, and why not when it does not."""

    ok: bool
    version: str = ""
    host: str = ""
    detail: str = ""


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def engine_status(timeout: float = 5.0) -> EngineStatus:
    """Ping the engine named by ``DOCKER_HOST`` (default: the local socket) with a fresh client."""
    host = os.environ.get("DOCKER_HOST", f"unix://{DEFAULT_SOCKET}")
    try:
        import docker

        client = docker.from_env(timeout=max(1, int(timeout)))
        try:
            version = str(client.version().get("Version", "?"))
        finally:
            client.close()
    except Exception as exc:  # DockerException, requests errors, FileNotFoundError
        return EngineStatus(False, host=host, detail=f"{type(exc).__name__}: {exc}")
    return EngineStatus(True, version=version, host=host)


def is_debian_like(os_release: str = "/etc/os-release") -> bool:
    """True on Debian, Ubuntu and their derivatives (where apt-get and ``docker.io`` exist)."""
    try:
        with open(os_release) as f:
            fields = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
    except OSError:
        return False
    ids = (fields.get("ID", "") + " " + fields.get("ID_LIKE", "")).replace('"', "").split()
    return bool({"debian", "ubuntu"} & set(ids)) and shutil.which("apt-get") is not None


def run_step(
    cmd: Sequence[str],
    label: str,
    log: Log,
    *,
    env: dict[str, str] | None = None,
    timeout: float = 1800.0,
    heartbeat: float = 15.0,
) -> tuple[int, str]:
    """Run a long command, printing a progress line every ``heartbeat`` seconds (even when it is silent).

    Returns (exit status, the output's last 40 lines) so failures can quote what went wrong.
    """
    start = time.monotonic()
    proc = subprocess.Popen(
        list(cmd),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        text=True,
        errors="replace",
        bufsize=1,
    )
    tail: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.strip():
                tail.append(line.rstrip())
                del tail[:-40]

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    while True:
        try:
            code = proc.wait(timeout=heartbeat)
            break
        except subprocess.TimeoutExpired:
            elapsed = time.monotonic() - start
            if elapsed > timeout:
                proc.kill()
                code = proc.wait()
                tail.append(f"[agentgym: killed after {timeout:.0f} s]")
                break
            log(f"  ... {label}: {elapsed:.0f} s" + (f", {tail[-1][:100]}" if tail else ""))
    reader.join(timeout=5)
    return code, "\n".join(tail)


def apt_install(packages: Sequence[str], log: Log = _stderr) -> None:
    """Install Debian packages; runs ``apt-get update`` only when the install fails without it."""
    if os.geteuid() != 0:
        raise SetupFailed(f"installing {' '.join(packages)} needs root: run `sudo agentgym setup`")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive", "PATH": SBIN_PATH}
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages]
    start = time.monotonic()
    log(f"installing {' '.join(packages)} with apt-get")
    code, tail = run_step(install, "apt-get install", log, env=env)
    if code != 0:
        log("  apt-get install failed; running apt-get update and trying again")
        code, tail = run_step(["apt-get", "update", "-q"], "apt-get update", log, env=env)
        if code == 0:
            code, tail = run_step(install, "apt-get install", log, env=env)
    if code != 0:
        raise SetupFailed(f"apt-get could not install {' '.join(packages)} (exit {code}):\n{tail}")
    log(f"  installed {' '.join(packages)} in {time.monotonic() - start:.1f} s")


def _find_dockerd() -> str | None:
    return shutil.which("dockerd", path=SBIN_PATH + ":" + os.environ.get("PATH", ""))


def _process_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def _pid_from_file(path: str) -> int:
    try:
        with open(path) as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return 0


def _running(name: str) -> list[int]:
    """Pids of live processes called ``name``."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and _process_name(int(entry)) == name:
            pids.append(int(entry))
    return pids


def _socket_listens(path: str) -> bool:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(2)
    try:
        sock.connect(path)
        return True
    except OSError:
        return False
    finally:
        sock.close()


def remove_stale_files(log: Log = _stderr) -> list[str]:
    """Remove the daemon's pid file and sockets when no live process owns them."""
    removed = []
    pid = _pid_from_file(PID_FILE)
    if os.path.exists(PID_FILE) and not (pid and _process_name(pid) == "dockerd"):
        os.unlink(PID_FILE)
        removed.append(PID_FILE)
    if os.path.exists(DEFAULT_SOCKET) and not _running("dockerd") and not _socket_listens(DEFAULT_SOCKET):
        os.unlink(DEFAULT_SOCKET)
        removed.append(DEFAULT_SOCKET)
    cpid = _pid_from_file(CONTAINERD_PID)
    if os.path.exists(CONTAINERD_PID) and not (cpid and _process_name(cpid) == "containerd"):
        os.unlink(CONTAINERD_PID)
        removed.append(CONTAINERD_PID)
    for path in CONTAINERD_SOCKETS:
        if os.path.exists(path) and not _socket_listens(path):
            os.unlink(path)
            removed.append(path)
    for path in removed:
        log(f"  removed stale {path} (no live daemon owns it)")
    return removed


def _log_tail(path: str, lines: int = 15) -> str:
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def _wait_for_engine(timeout: float, proc: subprocess.Popen[bytes] | None = None) -> EngineStatus:
    deadline = time.monotonic() + timeout
    status = engine_status(timeout=3)
    while not status.ok and time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise SetupFailed(
                f"dockerd exited with status {proc.returncode} while starting; its log "
                f"({DOCKERD_LOG}) ends with:\n{_log_tail(DOCKERD_LOG)}"
            )
        time.sleep(0.5)
        status = engine_status(timeout=3)
    return status


def ensure_engine(log: Log = _stderr, *, timeout: float = 90.0, install: bool = True) -> EngineStatus:
    """Make sure a Docker engine answers; install and start one when allowed (see module doc)."""
    status = engine_status()
    if status.ok:
        log(f"engine: Docker {status.version} answers at {status.host}")
        return status
    host = os.environ.get("DOCKER_HOST", "")
    if host and host not in (f"unix://{DEFAULT_SOCKET}", "unix:///run/docker.sock"):
        raise EngineUnreachable(f"DOCKER_HOST={host} does not answer: {status.detail}; fix or unset DOCKER_HOST")
    if os.geteuid() != 0:
        raise EngineUnreachable(
            f"{status.detail}; starting an engine needs root: run `sudo agentgym setup`, or use backend='local'"
        )
    if _find_dockerd() is None:
        if not (install and is_debian_like()):
            raise EngineUnreachable(
                "dockerd is not installed and this is not a Debian/Ubuntu machine where setup can "
                "install it: install Docker, start it, then run `agentgym setup` again"
            )
        apt_install(["docker.io"], log)
    dockerd = _find_dockerd()
    if dockerd is None:
        raise SetupFailed("docker.io is installed but no dockerd is on the PATH")
    if _running("dockerd"):
        log("engine: a dockerd process is running but not answering yet; waiting for it")
        status = _wait_for_engine(timeout)
        if status.ok:
            log(f"engine: Docker {status.version} answers")
            return status
        raise EngineUnreachable(
            f"a dockerd process is running but does not answer after {timeout:.0f} s ({status.detail}); "
            f"look at its log, stop it, and run `agentgym setup` again"
        )
    remove_stale_files(log)
    start = time.monotonic()
    log(f"engine: starting {dockerd} {' '.join(DOCKERD_ARGS)} (log: {DOCKERD_LOG})")
    with open(DOCKERD_LOG, "ab") as out:
        proc = subprocess.Popen(
            [dockerd, *DOCKERD_ARGS],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            env={**os.environ, "PATH": SBIN_PATH},
        )
    _started.append(proc)
    status = _wait_for_engine(timeout, proc)
    if not status.ok:
        raise EngineUnreachable(
            f"dockerd started but did not answer within {timeout:.0f} s ({status.detail}); its log "
            f"({DOCKERD_LOG}) ends with:\n{_log_tail(DOCKERD_LOG)}"
        )
    log(f"engine: Docker {status.version} answers after {time.monotonic() - start:.1f} s")
    return status
