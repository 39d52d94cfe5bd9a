"""Who pays for a dead sandbox: the agent when its own action killed or wedged it, nobody otherwise."""

from __future__ import annotations

import os
import signal

import pytest

import agentgym
from agentgym.errors import InfrastructureError
from support.docker import require_docker


def test_a_local_server_that_dies_during_the_agents_action_is_scored_and_reset_recovers(monkeypatch):
    """Locally no engine or outside party is involved: a server lost mid-action is the agent's failure."""
    env = agentgym.make("agentgym/Coding-v0", backend="local", split="test", labels=True)
    try:
        env.reset(seed=0)
        sandbox = env.unwrapped.sandbox
        real_request = type(sandbox).request

        def die(self, op, wait=30.0, /, raw=b"", **args):
            if op == "exec":  # what an agent running as the server's own user can do: kill it
                os.kill(self._proc.pid, signal.SIGKILL)
            return real_request(self, op, wait, raw=raw, **args)

        monkeypatch.setattr(type(sandbox), "request", die)
        obs, reward, terminated, truncated, info = env.step("run echo hi")
        monkeypatch.undo()
        assert terminated and reward == 0.0 and info["success"] is False and info["sandbox_crashed"] is True
        assert info["failure_category"] == "tool_call_error" and "sandbox_crashed" in info["failure_flags"]
        assert obs["text"].startswith("error: the sandbox stopped answering")
        env.reset(seed=0)  # a fresh sandbox
        assert env.unwrapped.sandbox is not sandbox and "hi" in env.step("run echo hi")[0]["text"]
    finally:
        env.close()


def test_the_local_agent_kills_the_server_only_when_it_runs_as_the_servers_user():
    """Started as root, the local backend runs agent code as nobody: the server is out of its reach."""
    env = agentgym.make("agentgym/Coding-v0", backend="local", split="test", labels=True)
    try:
        env.reset(seed=0)
        obs, reward, terminated, _, info = env.step("run id -u; kill -9 $PPID; sleep 1")  # PPID: the step server
        if os.geteuid() == 0:
            assert obs["text"].startswith("65534\n") and "Operation not permitted" in obs["text"] and not terminated
            assert "hi" in env.step("run echo hi")[0]["text"]  # the same server still answers
        else:
            assert terminated and reward == 0.0 and info["sandbox_crashed"] is True
    finally:
        env.close()


def test_a_server_wedged_by_the_agents_action_is_scored_on_docker(monkeypatch):
    require_docker("agentgym/coding:latest")
    env = agentgym.make("agentgym/Coding-v0", backend="docker", split="test")
    try:
        env.reset(seed=0)
        sandbox = env.unwrapped.sandbox
        real_request = type(sandbox).request

        def wedge(self, op, wait=30.0, /, raw=b"", **args):
            if op == "exec":  # the server is kept busy past the host's deadline by this command
                return real_request(self, "exec", 0.5, cmd="sleep 3", timeout=10)
            return real_request(self, op, wait, raw=raw, **args)

        monkeypatch.setattr(type(sandbox), "request", wedge)
        _, reward, terminated, _, info = env.step("run echo hi")
        monkeypatch.undo()
        assert terminated and reward == 0.0 and info["sandbox_crashed"] is True
        env.reset(seed=0)
        assert env.unwrapped.sandbox is not sandbox and "hi" in env.step("run echo hi")[0]["text"]
    finally:
        env.close()


def test_a_container_removed_from_outside_is_infrastructure_and_reset_recovers():
    require_docker("agentgym/coding:latest")
    env = agentgym.make("agentgym/Coding-v0", backend="docker", split="test")
    try:
        env.reset(seed=0)
        env.unwrapped.sandbox.container.remove(force=True)
        with pytest.raises(InfrastructureError):
            env.step("run echo hi")
        env.reset(seed=0)
        assert "hi" in env.step("run echo hi")[0]["text"]
    finally:
        env.close()


@pytest.mark.engine_restart  # kills every container of the engine: other tests' too (tests/conftest.py)
def test_an_engine_restart_mid_episode_is_infrastructure_and_reset_recovers():
    """dockerd goes away mid-episode: the step raises InfrastructureError (kept out of scores), and
    once the engine is back the next reset() works, within a bounded wait."""
    import os
    import signal
    import time

    from agentgym.setup import engine

    require_docker("agentgym/coding:latest")
    if os.geteuid() != 0 or not engine._running("dockerd"):
        pytest.skip("restarting the engine needs root and a local dockerd (CI has both)")
    env = agentgym.make("agentgym/Coding-v0", backend="docker", split="test")
    try:
        env.reset(seed=0)
        for pid in engine._running("dockerd"):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 60
        while engine._running("dockerd") and time.monotonic() < deadline:
            time.sleep(0.2)
        with pytest.raises(InfrastructureError):
            env.step("run echo hi")
        engine.ensure_engine(install=False, timeout=90)
        start = time.monotonic()
        env.reset(seed=0)
        assert time.monotonic() - start < 60
        assert "hi" in env.step("run echo hi")[0]["text"]
    finally:
        env.close()
        engine.ensure_engine(install=False, timeout=90)  # whatever happened, leave an engine for later tests
