"""The step server: one long-lived, stdlib-only process per sandbox.

It runs inside the container (or as a host subprocess for the local backend), reads framed
requests on stdin and writes framed replies on stdout, so a step costs a pipe round trip rather
than a `docker exec`. It exits when stdin closes, which is how a dead client takes its container
with it. This file is sent to the interpreter over stdin at start, so images need no copy of it.

Frame: ``MAGIC`` + 8-byte big-endian length + a JSON payload; binary data travels as base64.
Every request carries an ``id`` that its reply echoes. A request may be followed by ``raw`` bytes
that the server moves to an untrusted process with ``splice``, so they never enter this
process's memory (which forked test runs inherit). The real stdout is kept apart from fd 1 so
stray writes by children cannot corrupt the channel.

In a container the server runs as root with a handful of capabilities and does its everyday work
with the agent's effective uid; agent commands, test runs and verifier harnesses run with the
agent's real uid, so an agent can neither signal, trace nor read the server (docs/security.md).
"""

import base64
import contextlib
import hashlib
import json
import os
import select
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import time
import traceback
import types

MAGIC = b"\x00AG1"
HEADER = struct.Struct(">Q")
DEFAULT_MAX_OUTPUT = 1 << 20
MAX_REQUEST = 256 << 20  # a larger announced frame is a broken or hostile peer
CHILD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
SCRATCH_DIRS = ("/tmp", "/dev/shm", "/dev/mqueue")  # agent-writable outside the workspace (container)
PR_SET_DUMPABLE = 4


class Server:
    def __init__(self, workspace, container, limits, agent=None, scratch=(), service=None, service_dir=None):
        self.workspace = os.path.realpath(workspace)
        self.container = container
        self.limits = limits
        self.agent = tuple(agent) if agent else None  # (uid, gid) agent code runs as; None: same as ours
        self.scratch = tuple(scratch)  # folders emptied at every restore (tmp, HOME, shm)
        self.service = tuple(service) if service else None  # (uid, gid) family services run as
        self.service_dir = service_dir
        self.services = []  # long-lived processes of family code: they survive restore, not close
        self.snapshots = {}
        self.modules = {}
        self.pgids = set()
        self.harness = None
        self.raw_left = 0
        self.in_fd = os.dup(0)
        self.out_fd = os.dup(1)
        null_r = os.open(os.devnull, os.O_RDONLY)
        null_w = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null_r, 0)
        os.dup2(null_w, 1)
        os.close(null_r)
        os.close(null_w)
        self.oom_fd = self.open_oom_toggle()
        if not container:  # the agent's uid may be shared on a host: adopt every orphan instead, so
            set_child_subreaper()  # setsid and double forks stay findable as our descendants
        if self.agent:
            self.become_agent()

    # -------------------------------------------------------------- identity
    def become_agent(self):
        """Keep root as the real and saved uid (so we can kill, wipe and drop children to the agent)
        but work with the agent's effective ids: files we write are the agent's, paths we follow
        are checked with the agent's rights, and no process of the agent's uid may signal or
        trace us (the kernel compares against our real and saved uid, which are root)."""
        os.setgroups([])
        set_dumpable(False)
        os.setegid(self.agent[1])
        os.seteuid(self.agent[0])

    @contextlib.contextmanager
    def privileged(self):
        """Root's effective ids for a moment: killing the agent's processes, emptying what it made unreadable."""
        if not self.agent:
            yield
            return
        os.seteuid(0)
        os.setegid(0)
        try:
            yield
        finally:
            os.setegid(self.agent[1])
            os.seteuid(self.agent[0])

    def drop_to_agent(self):
        """In a child, before any agent code: the agent's real, effective and saved ids, no capabilities."""
        if self.agent:
            uid, gid = self.agent
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)

    def open_oom_toggle(self):
        """Children must be the OOM killer's first choice, never this server.

        An unprivileged process may raise its own oom_score_adj and lower it back to where it
        was, so the server raises it around each spawn and the child inherits the high value
        (a ``preexec_fn`` would do the same but costs milliseconds per command).
        """
        self.oom_base = b"0"
        try:
            fd = os.open("/proc/self/oom_score_adj", os.O_RDWR | os.O_CLOEXEC)
            self.oom_base = os.pread(fd, 16, 0).strip() or b"0"
            os.pwrite(fd, b"1000", 0)
            os.pwrite(fd, self.oom_base, 0)
            return fd
        except OSError:
            return None

    def set_oom(self, value):
        if self.oom_fd is not None:
            try:
                os.pwrite(self.oom_fd, value, 0)
            except OSError:
                pass

    # -------------------------------------------------------------- channel
    def read_exact(self, n):
        """Exactly n bytes from the channel, never more: bytes after a frame may be raw data that
        must reach its destination with ``splice`` instead of passing through this process."""
        buf = bytearray()
        while len(buf) < n:
            chunk = os.read(self.in_fd, n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return bytes(buf)

    def read_frame(self):
        head = self.read_exact(len(MAGIC) + HEADER.size)
        if head is None:
            return None
        if head[: len(MAGIC)] != MAGIC:
            raise SystemExit("agentgym step server: bad frame magic; closing")
        (size,) = HEADER.unpack(head[len(MAGIC) :])
        if size > MAX_REQUEST:
            raise SystemExit("agentgym step server: a %d-byte frame is over the limit; closing" % size)
        body = self.read_exact(size)
        return None if body is None else json.loads(body)

    def write_frame(self, obj):
        body = json.dumps(obj, separators=(",", ":")).encode()
        data = MAGIC + HEADER.pack(len(body)) + body
        view = memoryview(data)
        while view:
            n = os.write(self.out_fd, view)
            view = view[n:]

    def client_gone(self):
        """True once the client closed its end of the channel: stop everything and exit.

        Checked inside every wait (a command, a test run, a harness), so a client killed mid-call
        takes the sandbox with it within a fraction of a second, not after the command's timeout.
        """
        if getattr(self, "hup_fd", None) != self.in_fd:
            self.hup_fd, self.hup = self.in_fd, select.poll()
            self.hup.register(self.in_fd, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
        return bool(self.hup.poll(0))

    def exit_if_client_gone(self):
        if self.client_gone():
            self.kill_children()
            self.stop_services()
            os._exit(0)

    def connect_channel(self, path):
        """Move the protocol to a unix socket the client listens on, bypassing Docker's stdio proxy.

        The ready frame then goes over the socket; if connecting fails it goes to stdout and the
        protocol stays there. Either way, the channel closing means the client is gone.
        """
        try:
            chan = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            chan.connect(path)
        except OSError as exc:
            return "stdio (%s)" % exc
        os.close(self.in_fd)
        os.close(self.out_fd)
        self.chan = chan
        self.in_fd = self.out_fd = chan.fileno()
        os.set_inheritable(self.in_fd, False)
        return "socket"

    def serve(self, channel=None, token=""):
        mode = self.connect_channel(channel) if channel else "stdio"
        # The token proves to the client that this connection is its server, not a local impostor.
        self.write_frame(
            {
                "id": 0,
                "ok": True,
                "result": {
                    "ready": True,
                    "token": token,
                    "pid": os.getpid(),
                    "uid": os.getuid(),
                    "agent_uid": os.geteuid(),
                    "workspace": self.workspace,
                    "channel": mode,
                    "python": sys.version.split()[0],
                },
            }
        )
        token = None
        while True:
            req = self.read_frame()
            if req is None:
                break
            op = req.get("op", "")
            handler = getattr(self, "op_" + op, None)
            self.raw_left = int(req.get("raw") or 0)
            try:
                if handler is None:
                    raise ValueError("unknown op %r" % op)
                reply = {"id": req.get("id"), "ok": True, "result": handler(**req.get("args", {}))}
            except Exception as exc:
                reply = {
                    "id": req.get("id"),
                    "ok": False,
                    "error": type(exc).__name__,
                    "message": str(exc),
                    "trace": traceback.format_exc(limit=4),
                }
            if self.raw_left:
                self.discard_raw()
            self.write_frame(reply)
        self.kill_children()
        self.stop_services()

    # -------------------------------------------------------------- raw data, never in our memory
    def relay_raw(self, dest_fd, deadline):
        """Move this request's raw bytes from the channel to ``dest_fd`` (a pipe) with ``splice``."""
        poller = select.poll()
        while self.raw_left > 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            try:
                moved = os.splice(self.in_fd, dest_fd, self.raw_left, flags=os.SPLICE_F_NONBLOCK)
            except BlockingIOError:
                poller.register(self.in_fd, select.POLLIN)
                poller.register(dest_fd, select.POLLOUT)
                poller.poll(min(remaining, 0.05) * 1000)
                poller.unregister(self.in_fd)
                poller.unregister(dest_fd)
                continue
            except OSError:  # the destination is gone (EPIPE): the rest is discarded
                return False
            if moved == 0:
                raise SystemExit("agentgym step server: channel closed inside raw data")
            self.raw_left -= moved
        return True

    def discard_raw(self):
        """Drop raw bytes nobody took, keeping the channel in step, still without reading them here."""
        r, w = os.pipe()
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            while self.raw_left > 0:
                moved = os.splice(self.in_fd, w, min(self.raw_left, 1 << 16))
                if moved == 0:
                    raise SystemExit("agentgym step server: channel closed inside raw data")
                self.raw_left -= moved
                while moved:
                    moved -= os.splice(r, null, moved)
        finally:
            for fd in (r, w, null):
                os.close(fd)

    # -------------------------------------------------------------- paths
    def path(self, rel):
        full = os.path.realpath(os.path.join(self.workspace, rel))
        if full != self.workspace and not full.startswith(self.workspace + os.sep):
            raise PermissionError("path %r is outside the workspace" % rel)
        return full

    # -------------------------------------------------------------- children
    def child_setup(self):
        """In a forked child (fork_call): own process group, first in line for the OOM killer, agent's ids."""
        os.setsid()
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")
        except OSError:
            pass
        self.drop_to_agent()

    def child_env(self, extra):
        env = {
            "PATH": CHILD_PATH,
            "HOME": "/tmp",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "TMPDIR": "/tmp",
        }
        if not self.container:
            env["TMPDIR"] = env["HOME"] = os.path.join(os.path.dirname(self.workspace), "tmp")
            if not self.agent or others_can_run(sys.executable):  # else the system's python3
                env["PATH"] = os.path.dirname(sys.executable) + ":" + CHILD_PATH
        env.update(extra or {})
        return env

    def spawn(self, cmd, cwd, env, stdin, stdout, stderr):
        """A new command in its own session, as the agent, with only the given fds.

        Dropping to the agent's ids in the child (Popen's ``user=``/``group=``) costs a full fork
        of this interpreter instead of a vfork: about 2 ms more per command, measured; a second
        exec through ``setpriv`` to keep vfork cost more than that on this machine.
        """
        ids = {"user": self.agent[0], "group": self.agent[1]} if self.agent else {}
        self.set_oom(b"1000")
        try:
            proc = subprocess.Popen(
                cmd,
                shell=isinstance(cmd, str),
                cwd=cwd,
                env=self.child_env(env),
                stdin=stdin,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
                close_fds=True,
                **ids,
            )
        finally:
            self.set_oom(self.oom_base)
        self.pgids.add(proc.pid)
        return proc

    def start_service(self, cmd, pass_fds=(), env=None, stdout=None):
        """Start a family service (e.g. a browser) that survives `restore` and dies with the sandbox.

        Loaded family modules call this (it is in their globals). In a container the service runs
        as its own uid, so restores (which kill the agent's uid) leave it alone and the agent can
        neither signal nor trace it; its private folder is ``SERVICE_DIR`` (in globals too).
        """
        ids = {"user": self.service[0], "group": self.service[1]} if self.service else {}
        with self.privileged():  # its folder is the service user's alone; the child drops to that user
            proc = subprocess.Popen(
                cmd,
                cwd=self.service_dir or self.workspace,
                env=self.child_env(env),
                stdin=subprocess.DEVNULL,
                stdout=stdout or subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
                pass_fds=tuple(pass_fds),
                **ids,
            )
        self.services.append(proc)
        return proc

    def stop_services(self):
        with self.privileged():  # they run as their own uid
            for proc in self.services:
                self.kill_group(proc.pid)
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
        self.services = []

    def kill_group(self, pgid):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill_children(self):
        self.harness_close()
        for pgid in list(self.pgids):
            self.kill_group(pgid)
        self.pgids.clear()
        # every process of the agent's uid (container), or every descendant (local: we are their
        # subreaper), whatever group or session it moved to
        sweep = self.kill_agent_processes if self.container else self.kill_descendants
        any_killed = False
        with self.privileged():
            for _ in range(50):  # again while something is left: a fork bomb forks during a pass
                killed = sweep()
                any_killed = any_killed or bool(killed)
                self.reap()
                if not killed:
                    break
        self.reap()
        if any_killed and self.container:
            self.wait_reaped()

    def wait_reaped(self, timeout=1.0):
        """Wait (briefly) until init has reaped the agent's orphans we killed, so no dead process of
        the last episode is still listed in /proc when the next one starts."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and any(
            proc_status(name)[0] == self.agent[0] for name in os.listdir("/proc") if name.isdigit()
        ):
            time.sleep(0.005)

    def kill_descendants(self):
        """SIGKILL every live descendant of this server; returns how many."""
        if not self.services and not has_children():
            return 0  # orphans are re-parented to us (a subreaper): no child means no descendant
        parents = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % name, "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != b"Z":
                parents.setdefault(int(fields[1]), []).append(int(name))
        found, todo = [], [os.getpid()]
        keep = {proc.pid for proc in self.services}  # family services and their children survive
        while todo:
            for child in parents.get(todo.pop(), ()):
                if child in keep:
                    continue
                found.append(child)
                todo.append(child)
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        return len(found)

    def kill_agent_processes(self):
        """SIGKILL every process whose real uid is the agent's; returns how many were alive.

        A zombie leader whose other threads still run is alive (it can still write files), so only
        zombies with no thread left are skipped: they are dead, waiting for init to reap them.
        """
        killed = 0
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            uid, state, threads = proc_status(name)
            if uid != self.agent[0] or state == "Z" and threads <= 1:
                continue
            try:
                os.kill(int(name), signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        return killed

    def reap(self):
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return

    def collect(self, fds, pid, deadline, max_output):
        """Read the child's pipes until it exits or the deadline passes; cap what is kept. Returns
        (outputs, bytes dropped, exit code, timed out, CPU seconds it had used when it timed out).

        A pidfd wakes the loop the moment the child exits, even when a background child still
        holds the pipe (it then gets a short grace to flush, and the group is killed).
        """
        bufs = {fd: bytearray() for fd in fds}
        dropped = {fd: 0 for fd in fds}
        open_fds = list(fds)
        exited_at = None
        status = None
        pidfd = None
        try:
            pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pass
        while True:
            self.exit_if_client_gone()
            now = time.monotonic()
            if status is None:
                got, st = os.waitpid(pid, os.WNOHANG)
                if got:
                    status, exited_at = st, now
                    if pidfd is not None:
                        os.close(pidfd)
                        pidfd = None
            if status is not None and (not open_fds or now - exited_at > 0.2):
                break  # done; or a background child still holds the pipe: do not wait for it
            if now >= deadline:
                break
            watch = open_fds + ([pidfd] if pidfd is not None else [])
            if status is None and pidfd is None:
                wait = 0.01 if not open_fds else 0.05  # no pidfd: poll for the exit
            else:
                wait = 0.2
            wait = min(deadline - now, wait)
            if watch:
                ready = select.select(watch, [], [], wait)[0]
            else:
                time.sleep(wait)
                ready = []
            for fd in ready:
                if fd == pidfd:
                    continue
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    open_fds.remove(fd)
                    continue
                room = max_output - len(bufs[fd])
                if room > 0:
                    bufs[fd] += chunk[:room]
                dropped[fd] += max(0, len(chunk) - max(room, 0))
        if pidfd is not None:
            os.close(pidfd)
        timed_out = status is None
        busy = cpu_seconds(pid) if timed_out else None  # read before the kill: computing, or starved?
        self.kill_group(pid)
        if status is None:
            try:
                _, status = os.waitpid(pid, 0)
            except ChildProcessError:
                status = 0
        for fd in fds:
            os.close(fd)
        self.pgids.discard(pid)
        self.reap()
        code = os.waitstatus_to_exitcode(status) if not timed_out else -9
        return bufs, dropped, code, timed_out, busy

    @staticmethod
    def render(buf, dropped):
        data = bytes(buf)
        if dropped:
            data += b"\n[agentgym: output truncated, %d bytes omitted]\n" % dropped
        return base64.b64encode(data).decode()

    # -------------------------------------------------------------- ops
    def op_ping(self):
        return {"pid": os.getpid()}

    def op_exec(self, cmd, timeout=10.0, cwd=".", env=None, max_output=DEFAULT_MAX_OUTPUT):
        start = time.monotonic()
        proc = self.spawn(cmd, self.path(cwd), env, subprocess.DEVNULL, subprocess.PIPE, subprocess.STDOUT)
        fd = proc.stdout.fileno()
        out_fd = os.dup(fd)
        proc.stdout.close()
        proc.returncode = 0  # we reap it ourselves; stop Popen's __del__ from waiting
        bufs, dropped, code, timed_out, _ = self.collect([out_fd], proc.pid, start + float(timeout), int(max_output))
        return {
            "exit_code": code,
            "output": self.render(bufs[out_fd], dropped[out_fd]),
            "truncated": bool(dropped[out_fd]),
            "timed_out": timed_out,
            "seconds": time.monotonic() - start,
        }

    # -------------------------------------------------------------- untrusted harness (verifiers)
    def op_harness_start(self, module, func, env=None):
        """Start a verifier's untrusted side: a loaded function in a forked child of this warm
        server (`fork_harness`), as the agent, talked to line by line.

        Every other process of the agent is killed first: the episode is over, and nothing it left
        running may touch the workspace or the harness while it runs.
        """
        fn = self.function(module, func)
        self.kill_children()
        proc = self.fork_harness(fn, env)
        os.set_blocking(proc.stdout.fileno(), False)
        os.set_blocking(proc.stdin.fileno(), False)
        self.harness = (proc, bytearray())
        return {"pid": proc.pid}

    def fork_harness(self, fn, env):
        """``fn()`` in a forked child (`fork_agent`): stdin and stdout are its pipes, stderr
        /dev/null, the same environment as a spawned command."""
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        null = os.open(os.devnull, os.O_WRONLY)

        def body():
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            os.environ.clear()
            os.environ.update(self.child_env(env))
            fn()

        pid = self.fork_agent({0: in_r, 1: out_w, 2: null}, body)
        for fd in (in_r, out_w, null):
            os.close(fd)
        return ForkedChild(pid, in_w, out_r)

    def fork_agent(self, fds, body):
        """Fork a child for agent code: it keeps only ``fds`` (its fd number -> ours; everything
        else, the channel included, is closed), drops to the agent's ids in its own session, runs
        ``body()`` in the workspace and exits. Returns its pid."""
        pid = os.fork()
        if pid == 0:  # child
            try:
                for target, fd in fds.items():
                    os.dup2(fd, target)
                os.closerange(max(fds) + 1, 1 << 16)  # the channel, the OOM toggle, the other ends
                self.child_setup()
                os.chdir(self.workspace)
                body()
            finally:
                os._exit(0)
        self.pgids.add(pid)
        return pid

    def op_harness_talk(self, timeout=10.0, max_bytes=DEFAULT_MAX_OUTPUT):
        """Give the harness this request's raw bytes, then return its next line of output.

        ``eof`` when it exited or closed its output, ``timed_out`` past the deadline, ``truncated``
        when a line ran past ``max_bytes``; the caller decides what each means for the verdict.
        """
        if self.harness is None:
            raise RuntimeError("no harness is running")
        proc, buf = self.harness
        deadline = time.monotonic() + float(timeout)
        if self.raw_left and not self.relay_raw(proc.stdin.fileno(), deadline):
            return {
                "line": "",
                "eof": proc.poll() is not None,
                "timed_out": proc.poll() is None,
                "truncated": False,
                "busy_seconds": cpu_seconds(proc.pid),
            }
        fd = proc.stdout.fileno()
        while True:
            cut = buf.find(b"\n")
            if cut >= 0:
                line = bytes(buf[:cut])
                del buf[: cut + 1]
                return {"line": line.decode("utf-8", "replace"), "eof": False, "timed_out": False, "truncated": False}
            if len(buf) > int(max_bytes):
                return {"line": "", "eof": False, "timed_out": False, "truncated": True}
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return {
                    "line": "",
                    "eof": False,
                    "timed_out": True,
                    "truncated": False,
                    "busy_seconds": cpu_seconds(proc.pid),
                }
            self.exit_if_client_gone()
            if not select.select([fd], [], [], min(remaining, 0.2))[0]:
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                return {"line": "", "eof": True, "timed_out": False, "truncated": False}
            buf += chunk

    def op_harness_stop(self):
        self.kill_children()
        return True

    def harness_close(self):
        if self.harness is None:
            return
        proc, _ = self.harness
        self.harness = None
        self.kill_group(proc.pid)
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def op_read_file(self, path, max_bytes=None):
        """A regular file's bytes; a FIFO or device is refused at once (opening one could block us)."""
        fd = os.open(self.path(path), os.O_RDONLY | os.O_NONBLOCK)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError("%s is not a regular file" % path)
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read() if max_bytes is None else f.read(int(max_bytes))
        finally:
            os.close(fd)
        return base64.b64encode(data).decode()

    def op_write_files(self, files):
        for rel, (data, mode) in files.items():
            full = self.path(rel)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(base64.b64decode(data))
            os.chmod(full, mode)
        return len(files)

    def op_list_files(self):
        out = []
        for root, dirs, files in os.walk(self.workspace):
            dirs.sort()
            for name in sorted(files):
                out.append(os.path.relpath(os.path.join(root, name), self.workspace))
        return out

    def scan(self):
        """rel -> lstat of every entry under the workspace (symlinks not followed), parents first."""
        found = {}
        stack = [""]
        root = self.workspace + os.sep
        while stack:
            rel_dir = stack.pop()
            with os.scandir(root + rel_dir) as it:
                for entry in it:
                    rel = rel_dir + entry.name
                    st = entry.stat(follow_symlinks=False)
                    found[rel] = st
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(rel + os.sep)
        return found

    def tree(self):
        """(rel, kind, mode, data) for every folder, file and symlink; the snapshot format."""
        entries = []
        for rel, st in sorted(self.scan().items()):
            full = os.path.join(self.workspace, rel)
            if stat.S_ISDIR(st.st_mode):
                entries.append((rel, "d", stat.S_IMODE(st.st_mode), b""))
            elif stat.S_ISLNK(st.st_mode):
                entries.append((rel, "l", 0, os.readlink(full).encode()))
            elif stat.S_ISREG(st.st_mode):
                with open(full, "rb") as f:
                    entries.append((rel, "f", stat.S_IMODE(st.st_mode), f.read()))
        return entries

    def op_snapshot(self, name="initial"):
        started = time.time_ns()
        entries = self.tree()
        self.snapshots[name] = (entries, self.checksum(entries))
        self.remember(name, started, self.scan())
        return self.snapshots[name][1]

    # A restore rewrites only what changed since the last restore or snapshot. A file counts as
    # unchanged when its inode, size, mode, mtime and ctime are as recorded; ctime cannot be set
    # by the agent, and any write or chmod moves it. The kernel's file clock is coarse (a tick),
    # so a file whose recorded ctime falls within TICK_NS of the recording could still change
    # unseen in that same tick: such files are compared by content at the next restore instead.
    TICK_NS = 50_000_000

    @staticmethod
    def signature(st):
        return (st.st_ino, st.st_size, st.st_mode, st.st_mtime_ns, st.st_ctime_ns)

    def remember(self, name, started, found):
        self.sig_name = name
        self.sig_trust_before = started - self.TICK_NS
        self.sigs = {rel: self.signature(st) for rel, st in found.items() if stat.S_ISREG(st.st_mode)}

    def unchanged(self, name, rel, st, data):
        if getattr(self, "sig_name", None) == name:
            sig = self.sigs.get(rel)
            if sig == self.signature(st) and sig[4] < self.sig_trust_before:
                return True
        with open(self.workspace + os.sep + rel, "rb") as f:
            return f.read(len(data) + 1) == data

    def remove(self, full):
        if os.path.isdir(full) and not os.path.islink(full):
            shutil.rmtree(full, ignore_errors=True)
            if os.path.lexists(full):  # e.g. a folder the agent made read-only
                for root, dirs, _ in os.walk(full):
                    for d in dirs:
                        os.chmod(os.path.join(root, d), 0o700)
                os.chmod(full, 0o700)
                shutil.rmtree(full)
        else:
            os.unlink(full)

    def clear_workspace(self):
        for name in os.listdir(self.workspace):
            self.remove(os.path.join(self.workspace, name))

    def write_entry(self, rel, kind, mode, data):
        full = self.workspace + os.sep + rel
        if kind == "d":
            os.makedirs(full, exist_ok=True)
            os.chmod(full, mode)
        elif kind == "l":
            os.symlink(data.decode(), full)
        else:
            with open(full, "wb") as f:
                f.write(data)
            os.chmod(full, mode)

    def restore_changed(self, name, entries):
        """Make the workspace equal ``entries``, touching only what differs; returns the new scan."""
        current = self.scan()
        root = self.workspace + os.sep
        wanted = {entry[0] for entry in entries}
        gone = [rel for rel in current if rel not in wanted]
        for rel in sorted(gone, key=len, reverse=True):  # children before their folders
            if os.path.lexists(root + rel):
                self.remove(root + rel)
        for rel in gone:
            del current[rel]
        replaced = []  # folders removed below: their old children are gone too
        rewritten = []
        for rel, kind, mode, data in entries:
            full = root + rel
            st = current.get(rel)
            if st is not None and replaced and any(rel.startswith(d) for d in replaced):
                st = None
            if st is not None:
                fmt = stat.S_IFMT(st.st_mode)
                if kind == "d" and fmt == stat.S_IFDIR:
                    if stat.S_IMODE(st.st_mode) != mode:
                        os.chmod(full, mode)
                        rewritten.append(rel)
                    continue
                if kind == "l" and fmt == stat.S_IFLNK and os.readlink(full).encode() == data:
                    continue
                if (
                    kind == "f"
                    and fmt == stat.S_IFREG
                    and stat.S_IMODE(st.st_mode) == mode
                    and st.st_size == len(data)
                    and self.unchanged(name, rel, st, data)
                ):
                    continue
                if fmt == stat.S_IFDIR:
                    replaced.append(rel + os.sep)
                self.remove(full)
            self.write_entry(rel, kind, mode, data)
            rewritten.append(rel)
        for rel in rewritten:
            current[rel] = os.lstat(root + rel)
        return current

    def op_restore(self, name="initial", kill=True):
        if name not in self.snapshots:
            raise KeyError("no snapshot named %r" % name)
        if kill:
            self.kill_children()
            self.wipe_scratch()
        entries, digest = self.snapshots[name]
        started = time.time_ns()
        try:
            found = self.restore_changed(name, entries)
        except OSError:  # something odd (a folder made unreadable or unwritable...): start from empty
            with self.privileged():
                self.clear_workspace()
            for entry in entries:
                self.write_entry(*entry)
            found = self.scan()
        self.remember(name, started, found)
        return digest

    def wipe_scratch(self):
        """Empty every place outside the workspace where the agent could leave something for the next episode."""
        with self.privileged():
            for folder in self.scratch:
                try:
                    names = os.listdir(folder)
                except OSError:
                    continue
                for name in names:
                    try:
                        self.remove(os.path.join(folder, name))
                    except OSError:
                        pass
        if self.agent and self.container:  # on a host, other programs may run as that uid
            remove_sysv_ipc(self.agent[0])

    @staticmethod
    def checksum(entries):
        h = hashlib.sha256()
        for rel, kind, mode, data in sorted(entries):
            h.update(("%s\0%s\0%o\0%d\0" % (rel, kind, mode, len(data))).encode())
            h.update(data)
        return h.hexdigest()

    def op_checksum(self):
        return self.checksum(self.tree())

    def op_kill_all(self):
        self.kill_children()
        return True

    def op_load_module(self, name, source):
        module = types.ModuleType(name)
        module.__dict__["WORKSPACE"] = self.workspace
        module.__dict__["SERVICE_DIR"] = self.service_dir
        module.__dict__["start_service"] = self.start_service
        # On a host the interpreter's own files may be root's alone (a Python under /root): family
        # code is ours, so it imports with root's rights there, before any agent code runs.
        parent, _, child = name.rpartition(".")
        package = self.package(parent) if parent else None
        with contextlib.nullcontext() if self.container else self.privileged():
            exec(compile(source, "<agentgym:%s>" % name, "exec"), module.__dict__)
        self.modules[name] = module
        sys.modules[name] = module
        if package is not None:
            setattr(package, child, module)
        return sorted(k for k in module.__dict__ if not k.startswith("_"))

    def package(self, name):
        """An empty package ``name`` (and its parents), so family code shipped under its real dotted
        name (``agentgym.answers``) imports its siblings as on the host: ``from agentgym import answers``."""
        found = sys.modules.get(name)
        if found is not None:
            return found
        pkg = types.ModuleType(name)
        pkg.__path__ = []  # a package whose modules all arrive through load_module; nothing is read from disk
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(self.package(parent), child, pkg)
        sys.modules[name] = pkg
        return pkg

    def function(self, module, func):
        if module not in self.modules:
            raise KeyError("module %r is not loaded" % module)
        return getattr(self.modules[module], func)

    def op_call(self, module, func, kwargs=None):
        cwd = os.getcwd()
        os.chdir(self.workspace)
        try:
            return self.function(module, func)(**(kwargs or {}))
        finally:
            os.chdir(cwd)

    def op_fork_call(self, module, func, kwargs=None, timeout=10.0, max_output=DEFAULT_MAX_OUTPUT):
        """Run a loaded function in a forked child: a warm interpreter per run (e.g. test runs).

        The child keeps only its two pipes (as fds 1-2 and 3), drops to the agent's ids and runs
        in its own session, so code it imports can neither write on the channel nor signal us.
        """
        fn = self.function(module, func)
        start = time.monotonic()
        out_r, out_w = os.pipe()
        val_r, val_w = os.pipe()

        def body():  # output on fds 1-2, the JSON result on fd 3
            try:
                sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
                sys.stderr = sys.stdout
                payload = json.dumps({"value": fn(**(kwargs or {}))}).encode()
            except BaseException as exc:
                payload = json.dumps({"error": "%s: %s" % (type(exc).__name__, exc)}).encode()
            sys.stdout.flush()
            view = memoryview(payload)
            while view:
                view = view[os.write(3, view) :]

        pid = self.fork_agent({1: out_w, 2: out_w, 3: val_w}, body)
        os.close(out_w)
        os.close(val_w)
        bufs, dropped, code, timed_out, busy = self.collect(
            [out_r, val_r], pid, start + float(timeout), int(max_output)
        )
        raw = bytes(bufs[val_r])
        try:
            result = json.loads(raw) if raw and not dropped[val_r] else {"error": "no result (child died)"}
        except ValueError:
            result = {"error": "unreadable result"}
        if not isinstance(result, dict):
            result = {"error": "unreadable result"}
        return {
            "value": result.get("value"),
            "error": result.get("error"),
            "exit_code": code,
            "timed_out": timed_out,
            "busy_seconds": busy,
            "output": self.render(bufs[out_r], dropped[out_r]),
            "truncated": bool(dropped[out_r]),
            "seconds": time.monotonic() - start,
        }


class ForkedChild:
    """A forked harness, with what the harness ops use of a `subprocess.Popen`."""

    def __init__(self, pid, stdin_fd, stdout_fd):
        self.pid = pid
        self.stdin = os.fdopen(stdin_fd, "wb", buffering=0)
        self.stdout = os.fdopen(stdout_fd, "rb", buffering=0)
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped by a sweep: it is gone
                self.returncode = -1
            else:
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout=None):
        deadline = time.monotonic() + (timeout if timeout is not None else 1e9)
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired("harness", timeout)
            time.sleep(0.002)
        return self.returncode


def cpu_seconds(pid):
    """CPU seconds a process and its reaped children have used (from /proc), or None once it is gone.

    Read when a run meets its deadline: a run that was computing all along loops (its timeout is
    the code's), one that got little CPU was starved by the machine's load."""
    try:
        with open("/proc/%s/stat" % pid, "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def proc_status(pid):
    """(real uid, state letter, thread count) of a process from /proc; (None, "", 0) once it is gone."""
    try:
        with open("/proc/%s/status" % pid, "rb") as f:
            fields = dict(line.split(b":", 1) for line in f.read().splitlines() if b":" in line)
        return int(fields[b"Uid"].split()[0]), fields[b"State"].strip()[:1].decode(), int(fields[b"Threads"])
    except (OSError, KeyError, ValueError, IndexError):
        return None, "", 0


def set_dumpable(flag):
    """prctl(PR_SET_DUMPABLE): a non-dumpable process cannot be traced or read through /proc by others."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, int(flag), 0, 0, 0)
    except (OSError, AttributeError, ImportError):
        pass


def others_can_run(path):
    """Whether a user with no special rights can execute ``path`` (every folder above it searchable)."""
    path = os.path.realpath(path)
    try:
        if os.stat(path).st_mode & 0o005 != 0o005:
            return False
        parent = os.path.dirname(path)
        while True:
            if not os.stat(parent).st_mode & 0o001:
                return False
            if parent == os.path.dirname(parent):
                return True
            parent = os.path.dirname(parent)
    except OSError:
        return False


def has_children():
    """Whether this process has a child, live or zombie, without reaping one: the kernel's own
    answer, so a host-wide scan of /proc (milliseconds on a busy host) is skipped when there is none."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


def set_child_subreaper():
    """prctl(PR_SET_CHILD_SUBREAPER): orphaned descendants are re-parented to us, not to init."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
    except (OSError, AttributeError, ImportError):
        pass


def remove_sysv_ipc(uid):
    """Remove the System V shared memory, queues and semaphores a uid left (they outlive processes)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
    except (OSError, ImportError):
        return
    for kind, rmid in (("shm", libc.shmctl), ("msg", libc.msgctl), ("sem", libc.semctl)):
        try:
            with open("/proc/sysvipc/" + kind) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            uid_col = {"shm": 7, "msg": 7, "sem": 4}[kind]
            if len(cols) > uid_col and cols[uid_col] == str(uid):
                if kind == "sem":
                    rmid(int(cols[1]), 0, 0)  # IPC_RMID = 0
                else:
                    rmid(int(cols[1]), 0, None)


def apply_limits(limits):
    """rlimits for the server and, by inheritance, every command (no per-spawn cost)."""
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))


def main(config):
    """``config``: JSON bytes sent after the source on stdin (never argv: agents can read /proc/*/cmdline)."""
    config = json.loads(config)
    for entry in config.get("sys_path", []):
        if entry not in sys.path:
            sys.path.append(entry)
    workspace = config.get("workspace", os.getcwd())
    os.makedirs(workspace, exist_ok=True)
    os.chdir(workspace)
    # A harness that closes its stdin must cost an EPIPE, not the server (children get SIG_DFL back).
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    apply_limits(config.get("limits", {}))
    server = Server(
        workspace,
        bool(config.get("container")),
        config.get("limits", {}),
        config.get("agent"),
        config.get("scratch", ()),
        config.get("service"),
        config.get("service_dir"),
    )
    server.serve(config.get("channel"), config.get("token", ""))
