"""The step server: one long-lived, stdlib-only process per sandbox.

It runs inside the container (or as a host subprocess for the local backend), reads framed
requests on stdin and writes framed replies on stdout, so a step costs a pipe round trip rather
than a `docker exec`. It exits when stdin closes, which is how a dead client takes its container
with it. This file is sent to the interpreter over stdin at start, so images need no copy of it.

Frame: ``MAGIC`` + 8-byte big-endian length + a JSON payload; binary data travels as base64.
The real stdout is kept apart from fd 1 so stray writes by children cannot corrupt the channel.
"""

import base64
import hashlib
import json
import os
import select
import signal
import socket
import shutil
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
CHILD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class Server:
    def __init__(self, workspace, container, limits):
        self.workspace = os.path.realpath(workspace)
        self.container = container
        self.limits = limits
        self.snapshots = {}
        self.modules = {}
        self.pgids = set()
        self.in_fd = os.dup(0)
        self.rbuf = bytearray()
        self.out_fd = os.dup(1)
        null_r = os.open(os.devnull, os.O_RDONLY)
        null_w = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null_r, 0)
        os.dup2(null_w, 1)
        os.close(null_r)
        os.close(null_w)
        self.my_pids = {os.getpid(), os.getppid(), 1}
        self.oom_fd = self.open_oom_toggle()

    def open_oom_toggle(self):
        """Children must be the OOM killer's first choice, never this server.

        An unprivileged process may raise its own oom_score_adj and lower it back to where it
        was, so the server raises it around each spawn and the child inherits the high value
        (a ``preexec_fn`` would do the same but costs milliseconds per command).
        """
        self.oom_base = b"0"
        try:
            fd = os.open("/proc/self/oom_score_adj", os.O_RDWR)
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
        """n bytes from the channel; a request usually arrives whole in one read."""
        buf = self.rbuf
        while len(buf) < n:
            chunk = os.read(self.in_fd, max(n - len(buf), 1 << 16))
            if not chunk:
                return None
            buf += chunk
        data = bytes(buf[:n])
        del buf[:n]
        return data

    def read_frame(self):
        head = self.read_exact(len(MAGIC) + HEADER.size)
        if head is None:
            return None
        if head[: len(MAGIC)] != MAGIC:
            raise SystemExit("agentgym step server: bad frame magic; closing")
        (size,) = HEADER.unpack(head[len(MAGIC):])
        body = self.read_exact(size)
        return None if body is None else json.loads(body)

    def write_frame(self, obj):
        body = json.dumps(obj, separators=(",", ":")).encode()
        data = MAGIC + HEADER.pack(len(body)) + body
        view = memoryview(data)
        while view:
            n = os.write(self.out_fd, view)
            view = view[n:]

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
        return "socket"

    def serve(self, channel=None):
        mode = self.connect_channel(channel) if channel else "stdio"
        self.write_frame({"ok": True, "result": {"ready": True, "pid": os.getpid(), "uid": os.getuid(),
                                                 "workspace": self.workspace, "channel": mode,
                                                 "python": sys.version.split()[0]}})
        while True:
            req = self.read_frame()
            if req is None:
                break
            op = req.get("op", "")
            handler = getattr(self, "op_" + op, None)
            try:
                if handler is None:
                    raise ValueError("unknown op %r" % op)
                reply = {"ok": True, "result": handler(**req.get("args", {}))}
            except Exception as exc:
                reply = {"ok": False, "error": type(exc).__name__, "message": str(exc),
                         "trace": traceback.format_exc(limit=4)}
            self.write_frame(reply)
        self.kill_children()

    # -------------------------------------------------------------- paths
    def path(self, rel):
        full = os.path.realpath(os.path.join(self.workspace, rel))
        if full != self.workspace and not full.startswith(self.workspace + os.sep):
            raise PermissionError("path %r is outside the workspace" % rel)
        return full

    # -------------------------------------------------------------- children
    def child_setup(self):
        """In a forked child (fork_call): own process group, first in line for the OOM killer."""
        os.setsid()
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")
        except OSError:
            pass

    def child_env(self, extra):
        env = {"PATH": CHILD_PATH, "HOME": "/tmp", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "TMPDIR": "/tmp"}
        if not self.container:
            env["TMPDIR"] = env["HOME"] = os.path.join(os.path.dirname(self.workspace), "tmp")
            env["PATH"] = os.path.dirname(sys.executable) + ":" + CHILD_PATH
        env.update(extra or {})
        return env

    def kill_group(self, pgid):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill_children(self):
        for pgid in list(self.pgids):
            self.kill_group(pgid)
        self.pgids.clear()
        if self.container:  # everything but init, us and our parent belongs to an agent
            for _ in range(50):  # again while something is left: a fork bomb forks during a pass
                killed = self.kill_strays()
                self.reap()
                if not killed:
                    break
        self.reap()

    def kill_strays(self):
        """SIGKILL every live process of our user but the server; returns how many."""
        me = os.getuid()
        killed = 0
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) in self.my_pids:
                continue
            try:
                if os.stat("/proc/" + name).st_uid != me:
                    continue
                with open("/proc/%s/stat" % name, "rb") as f:
                    if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                        continue  # already dead, waiting for init to reap it
                os.kill(int(name), signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError, FileNotFoundError, IndexError):
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
        """Read the child's pipes until it exits or the deadline passes; cap what is kept.

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
        return bufs, dropped, code, timed_out

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
        cwd = self.path(cwd)
        self.set_oom(b"1000")
        try:
            proc = subprocess.Popen(
                cmd, shell=isinstance(cmd, str), cwd=cwd, env=self.child_env(env),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                start_new_session=True, close_fds=True,
            )
        finally:
            self.set_oom(self.oom_base)
        self.pgids.add(proc.pid)
        fd = proc.stdout.fileno()
        out_fd = os.dup(fd)
        proc.stdout.close()
        proc.returncode = 0  # we reap it ourselves; stop Popen's __del__ from waiting
        bufs, dropped, code, timed_out = self.collect([out_fd], proc.pid, start + float(timeout), int(max_output))
        return {"exit_code": code, "output": self.render(bufs[out_fd], dropped[out_fd]),
                "truncated": bool(dropped[out_fd]), "timed_out": timed_out,
                "seconds": time.monotonic() - start}

    def op_read_file(self, path, max_bytes=None):
        with open(self.path(path), "rb") as f:
            data = f.read() if max_bytes is None else f.read(int(max_bytes))
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
                if (kind == "f" and fmt == stat.S_IFREG and stat.S_IMODE(st.st_mode) == mode
                        and st.st_size == len(data) and self.unchanged(name, rel, st, data)):
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
        entries, digest = self.snapshots[name]
        started = time.time_ns()
        try:
            found = self.restore_changed(name, entries)
        except OSError:  # something odd (a folder made unwritable...): start from empty
            self.clear_workspace()
            for entry in entries:
                self.write_entry(*entry)
            found = self.scan()
        self.remember(name, started, found)
        return digest

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
        exec(compile(source, "<agentgym:%s>" % name, "exec"), module.__dict__)
        self.modules[name] = module
        sys.modules[name] = module
        return sorted(k for k in module.__dict__ if not k.startswith("_"))

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
        """Run a loaded function in a forked child: a warm interpreter per run (e.g. test runs)."""
        fn = self.function(module, func)
        start = time.monotonic()
        out_r, out_w = os.pipe()
        val_r, val_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # child
            try:
                os.close(out_r)
                os.close(val_r)
                self.child_setup()
                os.dup2(out_w, 1)
                os.dup2(out_w, 2)
                sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
                sys.stderr = sys.stdout
                os.chdir(self.workspace)
                value = fn(**(kwargs or {}))
                payload = json.dumps({"value": value}).encode()
            except BaseException as exc:
                payload = json.dumps({"error": "%s: %s" % (type(exc).__name__, exc)}).encode()
            try:
                sys.stdout.flush()
                view = memoryview(payload)
                while view:
                    view = view[os.write(val_w, view):]
            finally:
                os._exit(0)
        os.close(out_w)
        os.close(val_w)
        self.pgids.add(pid)
        bufs, dropped, code, timed_out = self.collect([out_r, val_r], pid, start + float(timeout), int(max_output))
        raw = bytes(bufs[val_r])
        result = json.loads(raw) if raw and not dropped[val_r] else {"error": "no result (child died)"}
        return {"value": result.get("value"), "error": result.get("error"), "exit_code": code,
                "timed_out": timed_out, "output": self.render(bufs[out_r], dropped[out_r]),
                "truncated": bool(dropped[out_r]), "seconds": time.monotonic() - start}


def apply_limits(limits):
    """rlimits for the server and, by inheritance, every command (no per-spawn cost)."""
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))


def main(argv):
    config = json.loads(argv[0]) if argv else {}
    for entry in config.get("sys_path", []):
        if entry not in sys.path:
            sys.path.append(entry)
    workspace = config.get("workspace", os.getcwd())
    os.makedirs(workspace, exist_ok=True)
    os.chdir(workspace)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    apply_limits(config.get("limits", {}))
    Server(workspace, bool(config.get("container")), config.get("limits", {})).serve(config.get("channel"))


if __name__ == "__main__":
    main(sys.argv[1:])
