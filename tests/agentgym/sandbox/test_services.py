"""Family services (a browser, a site server): they survive reset, the agent cannot touch them, close ends them."""

from __future__ import annotations

import os
import time

from support.procs import pid_alive

SERVICE = """
def start():
    proc = start_service(["sleep", "300"])
    return proc.pid

def alive(pid):
    import os
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False

def service_dir():
    return SERVICE_DIR
"""


def test_a_service_survives_restore_and_agent_signals_and_dies_with_the_sandbox(fresh_sandbox):
    fresh_sandbox.load_module("svc", SERVICE)
    fresh_sandbox.snapshot("s")
    pid = fresh_sandbox.call("svc", "start")
    fresh_sandbox.restore("s")
    assert fresh_sandbox.call("svc", "alive", pid=pid)
    if fresh_sandbox.backend == "docker" or os.geteuid() == 0:  # else the agent is the service's user too
        fresh_sandbox.run(f"kill -9 {pid}; kill -9 -1")
        assert fresh_sandbox.call("svc", "alive", pid=pid)
        assert "Permission denied" in fresh_sandbox.run(f"ls {fresh_sandbox.call('svc', 'service_dir')}").text
    fresh_sandbox.close()
    if fresh_sandbox.backend == "local":  # a container takes its services with it; a local server ends them
        deadline = time.monotonic() + 5
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not pid_alive(pid)
