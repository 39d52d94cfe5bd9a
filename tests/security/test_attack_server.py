"""The step server is out of the agent's reach: other uid, not traceable, not killable, no channel fd."""

from __future__ import annotations

import pytest

from support.attacks import append_to_module, oracle_episode, shell, unfixed_task


def test_agent_commands_run_as_another_uid_than_the_server(env):
    env.reset(options={"task_id": unfixed_task().task_id})
    out = shell(env, "id -u")
    agent_uid = int(out.split()[0])
    assert agent_uid != env.sandbox.info["uid"] and agent_uid != 0


_PTRACE = r"""python3 - <<'EOF'
import ctypes, os
pid = int(os.environ.get("SERVER_PID", "0"))
libc = ctypes.CDLL(None, use_errno=True)
print("ptrace", libc.ptrace(16, pid, None, None), ctypes.get_errno())  # PTRACE_ATTACH
for name in ("environ", "mem", "maps"):
    try:
        with open("/proc/%d/%s" % (pid, name), "rb") as f:
            f.read(64)
        print("read", name, "ok")
    except OSError as exc:
        print("read", name, "denied", exc.errno)
EOF"""


def test_agent_cannot_trace_or_read_the_server(env):
    env.reset(options={"task_id": unfixed_task().task_id})
    out = shell(env, f"SERVER_PID={env.sandbox.info['pid']} " + _PTRACE)
    assert "ptrace -1" in out, out
    assert "ok" not in out.replace("[exit code 0]", ""), out


@pytest.mark.parametrize(
    "command", ["kill -9 1", "kill -9 -1", "kill -STOP {pid}", "kill -9 {pid}", "kill -STOP -1; sleep 0.2; kill -9 -1"]
)
def test_signals_from_the_agent_do_not_take_the_server_down(env, command):
    task = unfixed_task()
    env.reset(options={"task_id": task.task_id})
    obs, _, _, _, _ = env.step("run " + command.format(pid=env.sandbox.info["pid"]))  # must not raise
    env.sandbox.ping()
    assert "hello" in shell(env, "echo hello")
    assert oracle_episode(env, task.task_id) == 1.0


_LIST_FDS = r"""
import os as _o
with open("fds.txt", "w") as _f:
    for _fd in sorted(int(x) for x in _o.listdir("/proc/self/fd")):
        try:
            _f.write("%d %s\n" % (_fd, _o.readlink("/proc/self/fd/%d" % _fd)))
        except OSError:
            pass
"""


def test_forked_test_runs_hold_no_channel_socket(env):
    task = unfixed_task()
    env.reset(options={"task_id": task.task_id})
    append_to_module(env, task, _LIST_FDS)
    env.step("test")
    fds = env.sandbox.read_file("fds.txt").decode()
    assert fds and "socket:" not in fds, fds
