"""A per-process watchdog that removes this process's sandboxes once it is dead.

Cleanup must not depend on anyone's cooperation: a process SIGKILLed while a container is being
created (before it runs, so ``auto_remove`` never fires) or before it deletes its channel folder
leaves both behind. The first Docker sandbox of a process starts one small detached Python
process (its own session, so a Ctrl-C or a group kill of the owner does not take it) that checks
every half second whether its owner still lives; when the owner is gone it removes the
containers labelled with the owner's pid and start time and the owner's ``agentgym-chan-<pid>-*``
folders, then exits. It holds no resources meanwhile (the docker SDK is imported only then). It
forks itself off its first process, so it is not the owner's child: Ray kills a worker's children
with the worker, and the watchdog of each Ray worker died with it, leaving its sandboxes' folders.
Local sandboxes are covered too: a local server the agent stopped (SIGSTOP) never reads the end
of its input, so the watchdog SIGKILLs the process group named in each of the owner's
``agentgym-local-<pid>-*`` folders and removes the folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading

__all__ = ["ensure_watchdog", "process_start", "CHANNEL_PREFIX", "LOCAL_PREFIX"]

CHANNEL_PREFIX = "agentgym-chan-"
LOCAL_PREFIX = "agentgym-local-"
_started: set[int] = set()
_lock = threading.Lock()

_SOURCE = r"""
import glob, os, shutil, sys, time
pid, start, tmp = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if os.fork():  # detach: no longer the owner's child, so whatever kills the owner's children spares it
    os._exit(0)
def alive():
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[19] == start
    except (OSError, IndexError):
        return False
while alive():
    time.sleep(0.5)
for folder in glob.glob(os.path.join(tmp, "agentgym-chan-%d-*" % pid)):
    shutil.rmtree(folder, ignore_errors=True)
for folder in glob.glob(os.path.join(tmp, "agentgym-local-%d-*" % pid)):
    try:  # wake it: it then sees its client gone and kills what it started; else kill it
        with open(os.path.join(folder, "server.pid")) as f:
            server = int(f.read())
        os.kill(server, 18)  # SIGCONT
        for _ in range(40):
            if not os.path.exists("/proc/%d" % server) or open("/proc/%d/stat" % server).read().rsplit(")", 1)[1].split()[0] == "Z":
                break
            time.sleep(0.05)
        else:
            os.killpg(server, 9)
    except (OSError, ValueError):
        pass
    shutil.rmtree(folder, ignore_errors=True)
try:
    import docker
    client = docker.from_env(timeout=30)
    flt = {"label": ["io.agentgym.managed=true", "io.agentgym.owner_pid=%d" % pid, "io.agentgym.owner_start=" + start]}
    for container in client.containers.list(all=True, filters=flt, sparse=True):  # no inspect: one gone meanwhile cannot fail the rest
        try:
            container.remove(force=True)
        except Exception:
            pass
except Exception:
    pass
"""  # noqa: E501


def ensure_watchdog(owner_start: str) -> None:
    """Start this process's watchdog once (again in a forked child, which is another owner)."""
    pid = os.getpid()
    with _lock:
        if pid in _started:
            return
        proc = subprocess.Popen(
            [sys.executable, "-I", "-c", _SOURCE, str(pid), owner_start, tempfile.gettempdir()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
            env={"PATH": os.environ.get("PATH", ""), **_docker_env()},
        )
        try:
            proc.wait(timeout=10)  # it forks the watchdog off and exits at once
        except subprocess.TimeoutExpired:
            proc.returncode = 0  # never seen; no "still running" warning, no reaping at exit
        _started.add(pid)


def process_start(pid: int) -> str:
    """The process's start time in clock ticks, so a reused pid is not taken for its owner."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def _docker_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith("DOCKER_")}
