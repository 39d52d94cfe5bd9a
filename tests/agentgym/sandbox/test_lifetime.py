"""Sandbox lifetime: no container, process, fd or thread outlives its owner or its `close()`.

Also the typed failures at start (engine unreachable, image missing) and mid-episode (server
crash), each of which must leave nothing behind.
"""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import pytest

from agentgym.errors import EngineUnreachable, ImageMissing, SandboxCrashed, SandboxStartFailed, SandboxTimeout
from agentgym.sandbox import make_sandbox
from support.docker import require_docker
from support.procs import pid_alive as _pid_alive

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _container_exists(container_id: str) -> bool:
    import docker.errors

    from agentgym.sandbox.docker import docker_client

    try:
        docker_client().containers.get(container_id)
        return True
    except docker.errors.NotFound:
        return False


def _handle(sb) -> str:
    """The thing that must disappear: the container id, or the local server's pid."""
    return sb.container.id if sb.backend == "docker" else str(sb._proc.pid)


def _gone(backend: str, handle: str) -> bool:
    return not _container_exists(handle) if backend == "docker" else not _pid_alive(int(handle))


def _wait_gone(backend: str, handle: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _gone(backend, handle):
            return True
        time.sleep(0.2)
    return _gone(backend, handle)


OWNER = textwrap.dedent(
    """
    import sys, time, warnings
    warnings.simplefilter("ignore")
    from agentgym.sandbox import make_sandbox
    sb = make_sandbox(sys.argv[1])
    sb.ping()
    print(sb.container.id if sb.backend == "docker" else sb._proc.pid, flush=True)
    if sys.argv[2] == "wait":
        time.sleep(120)
    """
)


def _start_owner(backend: str, mode: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", OWNER, backend, mode], stdout=subprocess.PIPE, text=True, cwd=REPO)
    assert proc.stdout is not None
    handle = proc.stdout.readline().strip()
    assert handle, "the owner process did not start its sandbox"
    return proc, handle


def test_sigkilled_owner_leaves_nothing_after_ten_seconds(backend):
    proc, handle = _start_owner(backend, "wait")
    assert not _gone(backend, handle)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _wait_gone(backend, handle, 10), f"{backend} sandbox {handle} outlived its SIGKILLed owner by 10 s"


def _owner_folders(pid: int) -> list[str]:
    """The owner's local sandbox and channel folders (the watchdog finds them by these names)."""
    from agentgym.sandbox.watchdog import CHANNEL_PREFIX, LOCAL_PREFIX

    tmp = tempfile.gettempdir()
    return [f for prefix in (LOCAL_PREFIX, CHANNEL_PREFIX) for f in glob.glob(os.path.join(tmp, f"{prefix}{pid}-*"))]


def test_owner_killed_with_its_children_leaves_no_folder(backend):
    """Ray kills a worker's child processes with the worker: the watchdog, the owner's child, died with it,
    and each Ray worker of `baselines.budgetmix --executor ray` left its 4 local sandbox folders behind."""
    psutil = pytest.importorskip("psutil")
    proc, handle = _start_owner(backend, "wait")
    assert _owner_folders(proc.pid) or backend == "docker"
    for child in psutil.Process(proc.pid).children(recursive=True):
        child.kill()
    proc.kill()
    proc.wait()
    assert _wait_gone(backend, handle, 10)
    deadline = time.monotonic() + 10
    while _owner_folders(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _owner_folders(proc.pid), _owner_folders(proc.pid)


MID_COMMAND = textwrap.dedent(
    """
    import sys, warnings
    warnings.simplefilter("ignore")
    from agentgym.sandbox import make_sandbox
    sb = make_sandbox(sys.argv[1])
    print(sb.container.id if sb.backend == "docker" else sb._proc.pid, flush=True)
    sb.run("sleep 120", timeout=120)
    """
)


def test_sigkilled_owner_mid_command_leaves_nothing_within_seconds(backend):
    """The server notices its client is gone inside a wait, not after the command's own timeout."""
    proc = subprocess.Popen([sys.executable, "-c", MID_COMMAND, backend], stdout=subprocess.PIPE, text=True, cwd=REPO)
    handle = proc.stdout.readline().strip()
    time.sleep(1.0)  # the command is running
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _wait_gone(backend, handle, 5), f"{backend} sandbox {handle} outlived an owner killed mid-command"


DURING_START = textwrap.dedent(
    """
    import sys, time, warnings
    warnings.simplefilter("ignore")
    from agentgym.sandbox.docker import DockerSandbox, docker_client
    api = docker_client().api
    attach = api.attach_socket
    def stall(container, *a, **k):  # created, not started: auto-remove cannot fire
        print(container, flush=True)
        time.sleep(120)
    api.attach_socket = stall
    DockerSandbox("agentgym/base:latest")
    """
)


def test_owner_sigkilled_during_start_up_leaves_no_container_and_no_folder():
    import glob
    import tempfile

    require_docker()
    proc = subprocess.Popen([sys.executable, "-c", DURING_START], stdout=subprocess.PIPE, text=True, cwd=REPO)
    container = proc.stdout.readline().strip()
    assert container and _container_exists(container)
    folders = glob.glob(os.path.join(tempfile.gettempdir(), f"agentgym-chan-{proc.pid}-*"))
    assert folders
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _wait_gone("docker", container, 15), "a container created by an owner killed during start-up was left"
    assert not any(os.path.exists(f) for f in folders)


STOPPED_LOCAL = textwrap.dedent(
    """
    import os, signal, sys, time, warnings
    warnings.simplefilter("ignore")
    from agentgym.sandbox.local import LocalSandbox
    sb = LocalSandbox()
    os.kill(sb._proc.pid, signal.SIGSTOP)  # as an agent running as the server's user can
    print(sb._proc.pid, sb._root, flush=True)
    time.sleep(120)
    """
)


def test_owner_sigkilled_while_its_local_server_is_stopped_leaves_nothing():
    proc = subprocess.Popen([sys.executable, "-c", STOPPED_LOCAL], stdout=subprocess.PIPE, text=True, cwd=REPO)
    server, root = proc.stdout.readline().split()
    assert _pid_alive(int(server)) and os.path.isdir(root)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _wait_gone("local", server, 15), "a stopped local server outlived its SIGKILLed owner"
    deadline = time.monotonic() + 5
    while os.path.exists(root) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(root)


def test_owner_exiting_without_close_is_cleaned_at_exit(backend):
    proc, handle = _start_owner(backend, "exit")
    assert proc.wait(timeout=30) == 0
    assert _wait_gone(backend, handle, 10)


def test_context_manager_and_close_remove_the_sandbox(backend):
    with make_sandbox(backend) as sb:
        handle = _handle(sb)
        sb.ping()
    assert _wait_gone(backend, handle, 5)
    sb.close()  # idempotent


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


@pytest.mark.slow  # 200 and 15 cycles: 19-35 s
@pytest.mark.parametrize("backend_name,cycles", [("local", 200), ("docker", 15)])
def test_create_step_reset_close_cycles_leak_no_fds_or_threads(backend_name, cycles):
    """The docker SDK keeps a few connection pools (URLs name containers): warm them up first."""
    if backend_name == "docker":
        require_docker()

    def cycle():
        with make_sandbox(backend_name) as sb:
            sb.write_files({"a.txt": "x"})
            sb.snapshot()
            sb.run("echo hi > b.txt")
            sb.restore()
            sb.ping()

    for _ in range(8 if backend_name == "docker" else 1):
        cycle()  # warm up the client and its bounded set of connection pools
    fds, threads, py_threads = _fds(), _threads(), threading.active_count()
    for _ in range(cycles):
        cycle()
    assert _fds() <= fds, f"open fds grew from {fds} to {_fds()} over {cycles} cycles"
    assert _threads() <= threads and threading.active_count() <= py_threads


def test_server_crash_raises_sandbox_crashed_and_leaves_nothing(backend):
    sb = make_sandbox(backend)
    handle = _handle(sb)
    sb.load_module("crash", "import os\ndef die():\n    os._exit(3)\n")
    with pytest.raises(SandboxCrashed):
        sb.call("crash", "die")
    with pytest.raises(SandboxCrashed):
        sb.ping()
    assert _wait_gone(backend, handle, 5)
    sb.close()


def test_unanswered_request_raises_sandbox_timeout_and_leaves_nothing(backend):
    sb = make_sandbox(backend)
    handle = _handle(sb)
    sb.load_module("stuck", "import time\ndef hang():\n    time.sleep(60)\n")
    start = time.monotonic()
    with pytest.raises(SandboxTimeout):
        sb.call("stuck", "hang", timeout=0.5)
    assert time.monotonic() - start < 10
    with pytest.raises(SandboxCrashed):
        sb.ping()
    assert _wait_gone(backend, handle, 10)
    sb.close()


def _server_children() -> list[int]:
    """Live step-server processes started by this test process (local backend)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and b"agentgym_step_server" in cmdline:
            pids.append(int(name))
    return pids


def test_start_failure_is_typed_and_leaves_nothing(backend):
    import uuid

    tag = uuid.uuid4().hex
    before = _server_children()
    with pytest.raises(SandboxStartFailed):
        make_sandbox(backend, start_timeout=0.001, labels={"io.agentgym.test": tag})
    if backend == "local":
        assert _server_children() == before
        return
    from agentgym.sandbox.docker import docker_client

    deadline = time.monotonic() + 10
    while docker_client().containers.list(all=True, filters={"label": f"io.agentgym.test={tag}"}, sparse=True):
        assert time.monotonic() < deadline, "a container outlived its failed start"
        time.sleep(0.2)


def test_engine_unreachable_is_typed_and_names_the_fix(monkeypatch, tmp_path):
    from agentgym.sandbox import docker as docker_backend
    from agentgym.sandbox import resolve_backend

    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    monkeypatch.setattr(docker_backend, "_clients", {})
    start = time.monotonic()
    with pytest.raises(EngineUnreachable, match="agentgym setup"):
        docker_backend.DockerSandbox("agentgym/base:latest")
    assert time.monotonic() - start < 10
    # no silent fallback to the host: "auto" means Docker, and says how to get it or to opt out
    with pytest.raises(EngineUnreachable, match=r"agentgym setup.*backend='local'"):
        resolve_backend("auto")
    monkeypatch.setenv("AGENTGYM_BACKEND", "local")
    assert resolve_backend("auto") == "local"


def test_local_reset_and_close_kill_setsid_and_double_forked_processes():
    """The local server adopts orphans (subreaper), so escaped processes are found and killed."""
    sb = make_sandbox("local")
    try:
        sb.snapshot("s")
        out = sb.run(
            "setsid sh -c 'sleep 300 & echo $!'; setsid sh -c '(sleep 301 & echo $!) &'; sleep 0.3"
        ).text.split()
        pids = [int(p) for p in out]
        assert len(pids) == 2 and all(_pid_alive(p) for p in pids)
        sb.restore("s")
        deadline = time.monotonic() + 5
        while any(_pid_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_pid_alive(p) for p in pids)
        out = sb.run("setsid sh -c 'sleep 302 & echo $!'").text.split()
    finally:
        sb.close()
    pid = int(out[0])
    deadline = time.monotonic() + 5
    while _pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _pid_alive(pid)


def test_local_backend_started_as_root_runs_agent_code_as_nobody():
    """Never agent code as root on the host: commands (and forked test runs) run as uid 65534."""
    if os.geteuid() != 0:
        pytest.skip("only a root caller has a uid to drop to")
    sb = make_sandbox("local")
    try:
        out = sb.run("id -u; cat /etc/shadow; ls /root; kill -9 1").text
        assert out.startswith("65534\n") and out.count("Permission denied") == 2 and "not permitted" in out, out
        assert oct(os.stat(os.path.dirname(sb.workspace)).st_mode & 0o777) == "0o711"
    finally:
        sb.close()


def test_missing_image_is_typed_and_names_the_fix():
    require_docker()
    with pytest.raises(ImageMissing, match="agentgym setup"):
        make_sandbox("docker", image="agentgym/no-such-image:latest")


def test_gc_removes_containers_of_dead_owners_only():
    require_docker()
    from agentgym.sandbox.docker import gc

    dead = make_sandbox("docker", labels={"io.agentgym.owner_pid": "999999999"})
    alive = make_sandbox("docker")
    try:
        dead_id, alive_id = dead.container.id, alive.container.id
        removed = gc()
        assert dead_id[:12] in removed and alive_id[:12] not in removed
        assert _wait_gone("docker", dead_id, 5) and _container_exists(alive_id)
        alive.ping()
    finally:
        dead.close()
        alive.close()


def test_a_container_gone_between_list_and_inspect_is_left_out():
    """Another process's ``--rm`` container can end between the engine's list and the inspection of
    each entry; listing must not fail then (a two-worker test run did, in a leak check)."""
    require_docker()
    from agentgym.sandbox.docker import docker_client, list_managed

    client = docker_client()
    listed = client.api.containers

    def with_one_gone(*args, **kwargs):
        return [*listed(*args, **kwargs), {"Id": "0" * 64}]  # listed, then removed before its inspection

    with make_sandbox("docker") as sandbox:
        client.api.containers = with_one_gone
        try:
            ids = [c.id for c in list_managed(client)]
        finally:
            del client.api.containers
        assert sandbox.container.id in ids and "0" * 64 not in ids


def test_close_returns_once_the_container_is_gone_even_when_auto_remove_got_there_first():
    """``--rm`` may already be removing the container when close() asks to remove it (the engine answers
    409, removal in progress): close() must still return only once it is gone, or a check right after
    close still lists it (the registry's no-sandbox-left contract failed so on MiniWoB-v0 under load)."""
    require_docker()
    import docker.errors

    from agentgym.sandbox.docker import list_managed

    sandbox = make_sandbox("docker")
    container = sandbox.container
    cid, remove = container.id, container.remove

    def finish(**kwargs):
        try:
            remove(**kwargs)
        except docker.errors.NotFound:
            pass  # --rm was quicker still

    def in_progress(**kwargs):  # the engine's --rm finishes a moment later
        threading.Timer(0.5, finish, kwargs=kwargs).start()
        raise docker.errors.APIError("409 Client Error: removal of container is already in progress")

    container.remove = in_progress
    sandbox.close()
    assert cid not in {c.id for c in list_managed()}
