"""A verifier harness run as a loaded function in a forked child: pipes only, the agent's ids, a clean environment."""

from __future__ import annotations

import os

import pytest

ECHO = """
import json, os, sys

def main():
    line = sys.stdin.buffer.readline()
    fds = sorted(int(n) for n in os.listdir("/proc/self/fd"))
    report = {"got": line.decode().strip(), "uid": os.getuid(), "euid": os.geteuid(), "fds": fds,
              "env": sorted(os.environ), "cwd": os.getcwd(), "sid": os.getsid(0) == os.getpid()}
    sys.stdout.buffer.write((json.dumps(report) + "\\n").encode())
    sys.stdout.buffer.flush()

def environ():
    return sorted(os.environ)

def string_hash():
    return hash("agentgym")
"""


def test_a_forked_harness_talks_and_keeps_nothing_of_the_server(fresh_sandbox, monkeypatch):
    import json

    monkeypatch.setenv("AGENTGYM_TEST_SECRET", "host-only")  # a local server inherits our environment
    fresh_sandbox.load_module("echo_harness", ECHO)
    with fresh_sandbox.harness("echo_harness", "main") as harness:
        line = harness.talk(b"hello\n", timeout=10)
    report = json.loads(line.text)
    assert report["got"] == "hello" and report["sid"]
    assert report["fds"][:3] == [0, 1, 2] and len(report["fds"]) <= 4  # + the fd listdir itself opened
    assert "AGENTGYM_TEST_SECRET" not in report["env"] and "PATH" in report["env"]
    assert os.path.realpath(report["cwd"]) == os.path.realpath(fresh_sandbox.workspace)
    forked = fresh_sandbox.fork_call("echo_harness", "environ")  # a test run: the same environment rule
    assert forked.value and "AGENTGYM_TEST_SECRET" not in forked.value
    if fresh_sandbox.backend == "docker" or os.geteuid() == 0:
        assert report["uid"] == report["euid"] == 65534


def test_a_harness_of_a_module_not_loaded_is_a_typed_error(fresh_sandbox):
    from agentgym.errors import SandboxOpError

    with pytest.raises(SandboxOpError, match="not loaded"):
        fresh_sandbox.harness("no_such_module", "main")
    assert fresh_sandbox.run("echo alive").text.strip() == "alive"


def test_every_step_server_has_one_string_hash_seed(fresh_sandbox):
    """Set iteration order in task code must not depend on which sandbox ran it (reports, verdicts)."""
    from agentgym.sandbox import make_sandbox

    other = make_sandbox(fresh_sandbox.backend)
    try:
        hashes = []
        for sandbox in (fresh_sandbox, other):
            sandbox.load_module("echo_harness", ECHO)
            hashes.append(sandbox.fork_call("echo_harness", "string_hash").value)
        assert hashes[0] == hashes[1] and isinstance(hashes[0], int)
    finally:
        other.close()


SPIN = """
import time

def spin():
    while True:
        pass

def nap():
    time.sleep(60)

def quick():
    return sum(range(1000))

def spin_main():
    import sys
    sys.stdin.buffer.readline()
    while True:
        pass
"""


def test_a_timeout_says_whether_the_run_was_computing_or_waiting(fresh_sandbox):
    """A looping run's timeout is the code's (cacheable at once); a waiting or starved one's may be the load's."""
    fresh_sandbox.load_module("spin", SPIN)
    looping = fresh_sandbox.fork_call("spin", "spin", timeout=1.0)
    waiting = fresh_sandbox.fork_call("spin", "nap", timeout=1.0)
    assert looping.timed_out and waiting.timed_out
    # a spinner gets a core's worth of its 1 s on an idle machine, a third of it at load 6 on two cores
    # (0.27 s measured) and more than the napper's nothing at any load; pytest-xdist runs two tests at once
    assert looping.busy_seconds is not None and looping.busy_seconds >= 0.2
    assert waiting.busy_seconds is not None and waiting.busy_seconds < 0.1
    finished = fresh_sandbox.fork_call("spin", "quick", timeout=5.0)
    assert finished.value == 499500 and not finished.timed_out and finished.busy_seconds is None
    with fresh_sandbox.harness("spin", "spin_main") as harness:
        line = harness.talk(b"go\n", timeout=1.0)
    assert line.timed_out and line.busy_seconds is not None and line.busy_seconds >= 0.2
