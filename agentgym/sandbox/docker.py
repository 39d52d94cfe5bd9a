"""The Docker backend: one hardened container per sandbox, its step server on a private channel.

The container runs with no network, no new privileges, a read-only root, size-capped tmpfs
workspace and /tmp, and pid, memory and CPU limits, under ``--init`` with logging off. Agent
code runs as an unprivileged user with no capabilities; the step server runs as root with only
the capabilities it needs to stay apart from it (set uid/gid for children, kill the agent's
processes, empty what the agent made unreadable) and is not dumpable, so the agent can neither
signal, trace nor read it. The server boots over the attached stdio (stdin attached once,
``stdin_once``), then connects to a unix socket this process listens on in a folder the
container sees read-only, so steps skip dockerd's stdio proxy; the folder is deleted as soon
as the server has connected, and only a peer that echoes this sandbox's secret token is taken
for the server. When the owning process dies, its end of the socket (and the
attach connection) closes, the server reads EOF and exits, and ``auto_remove`` deletes the
container. Labels name the owner so `gc` can remove leftovers of dead owners.
"""

from __future__ import annotations

import os
import select
import shutil
import socket
import tempfile
import threading
import time
from typing import Any

from agentgym.errors import EngineUnreachable, ImageMissing, InfrastructureError, SandboxStartFailed, SandboxTimeout
from agentgym.sandbox.base import AGENT_USER, BOOTSTRAP, SERVER_HASH_SEED, SERVICE_USER, WORKSPACE, Sandbox, write_all
from agentgym.sandbox.watchdog import CHANNEL_PREFIX, ensure_watchdog, process_start

__all__ = ["DockerSandbox", "docker_client", "engine_available", "LABEL", "owner_labels", "list_managed", "gc"]

LABEL = "io.agentgym.managed"
_STDOUT = 1
_RECV_SIZE = 1 << 18
_CHANNEL_DIR = "/run/agentgym"
# What the root step server keeps; everything else is dropped. Agent processes run as ``user``
# with none at all (a setuid to a non-zero uid clears them, no-new-privileges stops regaining them).
SERVER_CAPS = ["SETUID", "SETGID", "KILL", "DAC_OVERRIDE", "FOWNER"]
SCRATCH = ["/tmp", "/dev/shm", "/dev/mqueue"]
SERVICE_DIR = "/var/agentgym-service"  # their private writable folder, which resets leave alone
_NUM_POOLS = 6
_API_TIMEOUT = 120
_clients: dict[int, Any] = {}
_clients_lock = threading.Lock()


def docker_client(timeout: float = 10.0) -> Any:
    """A docker SDK client for this process (clients are not fork-safe, so one per pid).

    ``timeout`` bounds the first ping only; later API calls get a generous timeout, because
    creating a container on a busy machine can take seconds.
    """
    import docker
    from docker.utils import kwargs_from_env

    pid = os.getpid()
    with _clients_lock:
        client = _clients.get(pid)
        if client is None:
            try:
                # The SDK keeps one connection pool per URL, and URLs name containers, so
                # each sandbox adds pools; a small num_pools keeps the open sockets bounded.
                client = docker.DockerClient(timeout=_API_TIMEOUT, num_pools=_NUM_POOLS, **kwargs_from_env())
                client.api.timeout = max(1, int(timeout))
                client.ping()
                client.api.timeout = _API_TIMEOUT
            except Exception as exc:  # DockerException, requests errors, FileNotFoundError
                raise EngineUnreachable(f"{type(exc).__name__}: {exc}") from None
            _clients[pid] = client
    return client


def engine_available() -> bool:
    try:
        docker_client(timeout=3)
    except EngineUnreachable:
        return False
    return True


def owner_labels() -> dict[str, str]:
    return {
        LABEL: "true",
        "io.agentgym.owner_pid": str(os.getpid()),
        "io.agentgym.owner_host": socket.gethostname(),
        "io.agentgym.owner_start": process_start(os.getpid()),
    }


def _owner_alive(labels: dict[str, str]) -> bool:
    if labels.get("io.agentgym.owner_host") != socket.gethostname():
        return True  # another machine's container: not ours to judge
    try:
        pid = int(labels.get("io.agentgym.owner_pid", "0"))
    except ValueError:
        return False
    if pid <= 0 or not os.path.exists(f"/proc/{pid}"):
        return False
    start = labels.get("io.agentgym.owner_start", "")
    return not start or process_start(pid) == start


REMOVE_WAIT_S = 10.0
"""How long close() waits for a container the engine is already removing (``--rm``)."""


def _wait_gone(container: Any, seconds: float) -> None:
    """Return once the engine no longer knows ``container`` (or after ``seconds``): a closed sandbox is
    not listed any more, and a check right after close() sees it gone."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            container.reload()
        except Exception:  # NotFound: gone; or the engine went away, and nothing is left to wait for
            return
        time.sleep(0.05)


def list_managed(client: Any = None) -> list[Any]:
    """Every container agentgym started on this engine, running or not. One removed between the engine's
    list and its inspection (another process's ``--rm`` container ending) is left out rather than failing
    the call."""
    client = client or docker_client()
    return list(client.containers.list(all=True, filters={"label": f"{LABEL}=true"}, ignore_removed=True))


def gc(*, everything: bool = False, client: Any = None) -> list[str]:
    """Remove agentgym containers whose owner process is gone (all of them with ``everything``)."""
    removed = []
    for container in list_managed(client):
        if everything or not _owner_alive(container.labels):
            try:
                container.remove(force=True)
                removed.append(container.short_id)
            except Exception:
                pass  # already gone (auto-remove raced us)
    return removed


class DockerSandbox(Sandbox):
    """A hardened container running the step server; see the module docstring."""

    backend = "docker"

    def __init__(
        self,
        image: str,
        *,
        memory: str = "1g",
        cpus: float = 1.0,
        pids_limit: int = 256,
        workspace_size: str = "256m",
        tmp_size: str = "128m",
        user: str = "{}:{}".format(*AGENT_USER),  # the agent's uid:gid; the step server itself runs as root
        start_timeout: float = 60.0,
        labels: dict[str, str] | None = None,
        **_ignored: object,
    ) -> None:
        import docker.errors

        super().__init__(start_timeout=start_timeout)
        try:
            agent = [int(part) for part in str(user).split(":")]
            if len(agent) != 2 or 0 in agent:
                raise ValueError
        except ValueError:
            raise SandboxStartFailed(f"user={user!r}: give the agent's numeric 'uid:gid', neither of them 0") from None
        self.image = image
        self.container: Any = None
        self._container_id = ""
        self._running_when_broken = False
        self._sock: Any = None
        self._direct: socket.socket | None = None
        self._pending = bytearray()
        client = docker_client()
        ensure_watchdog(process_start(os.getpid()))
        try:
            self._listen()
            api = client.api
            host_config = api.create_host_config(
                network_mode="none",
                cap_drop=["ALL"],
                cap_add=SERVER_CAPS,
                security_opt=["no-new-privileges"],
                read_only=True,
                tmpfs={
                    WORKSPACE: f"rw,exec,nosuid,nodev,size={workspace_size},mode=1777",
                    "/tmp": f"rw,nosuid,nodev,size={tmp_size},mode=1777",
                    SERVICE_DIR: (
                        f"rw,nosuid,nodev,size={tmp_size},mode=0700,uid={SERVICE_USER[0]},gid={SERVICE_USER[1]}"
                    ),
                },
                pids_limit=pids_limit,
                mem_limit=memory,
                memswap_limit=memory,
                nano_cpus=int(cpus * 1e9),
                init=True,
                log_config={"type": "none", "config": {}},
                auto_remove=True,
                # read-only: the server only connects to our socket, so it can write nothing here
                binds={self._chan_dir: {"bind": _CHANNEL_DIR, "mode": "ro"}},
            )
            config = {
                "workspace": WORKSPACE,
                "container": True,
                "channel": f"{_CHANNEL_DIR}/s",
                "agent": agent,
                "scratch": SCRATCH,
                "service": list(SERVICE_USER),
                "service_dir": SERVICE_DIR,
            }
            created = api.create_container(
                image,
                # -s -P: no user site, no workspace on the path (as -I), but the environment is read
                # (it is ours alone): the one hash seed must reach the server and its forks
                command=["python3", "-u", "-s", "-P", "-c", BOOTSTRAP],
                stdin_open=True,
                detach=False,  # with stdin_open this sets StdinOnce: EOF on our socket stops the server
                user="0:0",
                working_dir=WORKSPACE,
                environment={"HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1", **SERVER_HASH_SEED},
                labels={**owner_labels(), **(labels or {})},
                host_config=host_config,
            )
            self.container = client.containers.prepare_model({"Id": created["Id"]})
            self._container_id = created["Id"]
            sock = client.api.attach_socket(self.container.id, params={"stdin": 1, "stdout": 1, "stream": 1})
            self._sock = getattr(sock, "_sock", sock)
            self._sock_owner = sock  # keeps the HTTP response (and so the socket) alive
            # Non-blocking, with our own poll for deadlines (write_all for sends, poll before recv):
            # a socket timeout would cost two fcntl calls per settimeout and an extra poll per call.
            self._sock.setblocking(False)
            self._poller = select.poll()
            self._poller.register(self._sock.fileno(), select.POLLIN)
            self._rbuf = bytearray(_RECV_SIZE)
            self._rview = memoryview(self._rbuf)
            self.container.start()
        except docker.errors.ImageNotFound:  # create_container's 404 "No such image"
            self.close()
            raise ImageMissing(image) from None
        except Exception as exc:
            self.close()
            raise SandboxStartFailed(f"could not start a container from {image!r}: {exc}") from exc
        try:
            self._handshake(config)
        except BaseException:
            self.close()
            raise

    @property
    def workspace(self) -> str:
        return WORKSPACE

    def agent_caused(self, exc: BaseException) -> bool:
        """A server that is still running but missed its deadline was wedged by the agent's action.

        The agent cannot signal the root server, so a server that *died* (container gone, engine
        down) is the infrastructure's failure; one whose container still runs but did not answer
        was kept busy by what the agent asked of it.
        """
        return isinstance(exc, SandboxTimeout) and self._running_when_broken

    def _break(self, why: str) -> None:
        self._running_when_broken = self._container_running()  # asked before the container is removed
        super()._break(why)

    def _container_running(self) -> bool:
        try:
            state = docker_client(timeout=5).api.inspect_container(self._container_id)["State"]
        except Exception:  # engine down or container removed: not the agent
            return False
        return bool(state.get("Running"))

    def _listen(self) -> None:
        """A unix socket in a folder the container sees read-only: the step server connects to it.

        Traffic then skips dockerd's attach proxy (one process hop and its CPU per message); the
        attached stdio stays as the boot channel and the fallback when connecting fails.
        """
        self._chan_dir = tempfile.mkdtemp(prefix=f"{CHANNEL_PREFIX}{os.getpid()}-")  # the watchdog finds it by pid
        os.chmod(self._chan_dir, 0o711)
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        path = os.path.join(self._chan_dir, "s")
        self._listener.bind(path)
        os.chmod(path, 0o777)  # the server runs as an unprivileged user
        self._listener.listen(8)

    def _await_ready(self, deadline: float) -> dict[str, Any]:
        """Accept the server's connection and check its token, or notice it answered on stdout instead.

        Anyone on the host may connect to the listening socket; a connection whose first frame
        does not carry this sandbox's token is closed and the wait goes on.
        """
        poller = select.poll()
        poller.register(self._listener.fileno(), select.POLLIN)
        poller.register(self._sock.fileno(), select.POLLIN)
        try:
            while (remaining := deadline - time.monotonic()) > 0:
                events = dict(poller.poll(remaining * 1000))
                if self._listener.fileno() in events:
                    conn, _ = self._listener.accept()
                    conn.setblocking(False)
                    self._direct, self._buf = conn, bytearray()
                    self._poller = select.poll()
                    self._poller.register(conn.fileno(), select.POLLIN)
                    try:
                        return self._read_ready(min(deadline, time.monotonic() + 5.0))
                    except InfrastructureError:
                        conn.close()  # not our server: keep waiting for it
                        self._direct, self._buf = None, bytearray()
                        self._poller = select.poll()
                        self._poller.register(self._sock.fileno(), select.POLLIN)
                        continue
                if self._sock.fileno() in events:
                    return self._read_ready(deadline)  # the server stayed on stdio (or died)
            return self._read_ready(deadline)  # raises SandboxTimeout
        finally:
            self._close_listener()

    def _close_listener(self) -> None:
        # each is set by _listen and gone once closed (so closing twice is harmless)
        listener = getattr(self, "_listener", None)
        if listener is not None:
            listener.close()
            del self._listener
        if getattr(self, "_chan_dir", None):
            shutil.rmtree(self._chan_dir, ignore_errors=True)
            del self._chan_dir

    def _send(self, data: bytes, deadline: float) -> None:
        write_all((self._direct or self._sock).fileno(), data, deadline)

    def _recv(self, deadline: float) -> bytes:
        """Next payload bytes: straight from the unix socket, or out of Docker's stdio frames."""
        if self._direct is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._poller.poll(remaining * 1000 + 1):
                raise TimeoutError
            try:
                n = self._direct.recv_into(self._rbuf)
            except BlockingIOError:
                return self._recv(deadline)
            return bytes(self._rview[:n])
        pending = self._pending
        while True:
            out = b""
            while len(pending) >= 8:
                size = int.from_bytes(pending[4:8], "big")
                if len(pending) < 8 + size:
                    break
                if pending[0] == _STDOUT:
                    out += pending[8 : 8 + size]
                del pending[: 8 + size]
            if out:
                return out
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            if not self._poller.poll(remaining * 1000 + 1):
                continue
            try:
                n = self._sock.recv_into(self._rbuf)
            except BlockingIOError:
                continue
            if not n:
                return b""
            pending += self._rview[:n]

    def _terminate(self) -> None:
        self._close_listener()
        direct = getattr(self, "_direct", None)
        if direct is not None:
            try:
                direct.close()
            except OSError:
                pass
            self._direct = None
        sock = getattr(self, "_sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                sock.close()
            except OSError:
                pass
            self._sock = None
        owner = getattr(self, "_sock_owner", None)
        if owner is not None:
            # The socket's fd is released only once the SocketIO (makefile) and the HTTP
            # response that wrap it are closed too; without this every sandbox leaks two fds.
            for obj in (owner, getattr(owner, "_response", None)):
                try:
                    if obj is not None:
                        obj.close()
                except Exception:
                    pass
            self._sock_owner = None
        container = getattr(self, "container", None)
        if container is not None:
            try:
                container.remove(force=True)
            except Exception:  # auto_remove got there first: gone, or going (409, removal in progress)
                _wait_gone(container, REMOVE_WAIT_S)
            self.container = None
