"""What the Docker sandbox keeps the agent from doing. Docker only: the local backend does not isolate.

Each test attacks the container and then checks that the step server still answers.
"""

from __future__ import annotations

import time

import pytest

from agentgym.sandbox import make_sandbox
from support.docker import require_docker

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def sandbox():
    require_docker()
    with make_sandbox("docker", memory="256m", pids_limit=64, workspace_size="16m", tmp_size="8m") as sb:
        yield sb


def test_network_egress_fails(sandbox):
    probe = (
        "import socket\n"
        "try:\n"
        "    socket.create_connection(('192.0.2.1', 80), timeout=3)\n"
        "    print('connected')\n"
        "except OSError as exc:\n"
        "    print('refused', exc.errno)\n"
    )
    r = sandbox.run(["python3", "-c", probe], timeout=10)
    assert r.text.startswith("refused"), r.text
    assert sandbox.run("ls /sys/class/net").text.split() == ["lo"]


def test_runs_as_non_root_without_capabilities(sandbox):
    """Agent commands: not root, no capability they hold or can gain; the step server is another uid.

    The bounding set keeps the server's few capabilities (dropping them needs CAP_SETPCAP on every
    spawn), but with no_new_privs and empty permitted/inheritable/ambient sets nothing can raise them.
    """
    from agentgym.sandbox.docker import SERVER_CAPS

    r = sandbox.run("id -u; grep -E '^(CapInh|CapEff|CapPrm|CapAmb|CapBnd|NoNewPrivs)' /proc/self/status")
    lines = r.text.split("\n")
    assert lines[0] != "0" and int(lines[0]) != sandbox.info["uid"]
    fields = dict(line.split(":\t") for line in lines[1:] if line)
    assert all(int(fields[k], 16) == 0 for k in ("CapInh", "CapEff", "CapPrm", "CapAmb"))
    assert bin(int(fields["CapBnd"], 16)).count("1") == len(SERVER_CAPS)
    assert fields["NoNewPrivs"] == "1"


def test_writes_outside_the_workspace_are_denied(sandbox):
    for target in ("/etc/agentgym-probe", "/usr/bin/agentgym-probe", "/agentgym-probe", "/root/probe"):
        r = sandbox.run(f"echo x > {target}")
        assert r.exit_code != 0, target
        assert "Read-only file system" in r.text or "Permission denied" in r.text, r.text
    assert sandbox.run("echo x > /workspace/ok && echo y > /tmp/ok").ok


def test_disk_fill_is_capped(sandbox):
    r = sandbox.run("head -c 64m /dev/zero > fill.bin", timeout=30)
    assert r.exit_code != 0 and "No space left on device" in r.text
    size = int(sandbox.run("stat -c %s fill.bin").text)
    assert size <= 16 << 20
    r = sandbox.run("head -c 64m /dev/zero > /tmp/fill.bin", timeout=30)
    assert r.exit_code != 0
    sandbox.run("rm -f fill.bin /tmp/fill.bin")
    assert sandbox.run("echo ok > small.txt && cat small.txt").text == "ok\n"


def test_memory_bomb_is_killed_and_the_server_survives(sandbox):
    bomb = "x = []\nwhile True:\n    x.append(b'x' * (32 << 20))\n"
    start = time.monotonic()
    r = sandbox.run(["python3", "-c", bomb], timeout=60)
    assert r.exit_code == -9 and not r.timed_out, (r.exit_code, r.text[-300:])
    assert time.monotonic() - start < 30
    sandbox.ping()
    assert sandbox.run("echo alive").text == "alive\n"


def test_fork_bomb_is_held_by_the_pid_limit(sandbox):
    start = time.monotonic()
    r = sandbox.run(["bash", "-c", ":(){ :|:& };:"], timeout=3)
    assert time.monotonic() - start < 20
    del r  # it either times out or bash gives up on fork; either way the sandbox must answer
    t = time.perf_counter()
    sandbox.ping()
    assert time.perf_counter() - t < 5
    sandbox.kill_all()
    assert sandbox.run("echo alive").text == "alive\n"
    count = int(sandbox.run("ls -d /proc/[0-9]* | wc -l").text)
    assert count < 10, f"{count} processes left after kill_all"


def test_restore_kills_processes_that_escaped_their_group(sandbox):
    r = sandbox.run("setsid sleep 300 > /dev/null 2>&1 < /dev/null & sleep 0.3; echo ok", timeout=5)
    assert r.ok
    assert "sleep" in sandbox.run("cat /proc/[0-9]*/comm").text
    sandbox.snapshot("k")
    sandbox.restore("k")
    assert "sleep" not in sandbox.run("cat /proc/[0-9]*/comm").text
