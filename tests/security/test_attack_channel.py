"""The host channel: only the real server is taken as the peer, replies match requests, sizes and waits are bounded."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time

import pytest

from agentgym.errors import ProtocolError, SandboxTimeout
from agentgym.sandbox.base import MAGIC
from agentgym.sandbox.docker import DockerSandbox
from agentgym.sandbox.local import LocalSandbox
from support.docker import require_docker


def _frame(obj_text: bytes) -> bytes:
    return MAGIC + len(obj_text).to_bytes(8, "big") + obj_text


def test_an_impostor_that_connects_first_is_not_taken_for_the_server(monkeypatch):
    require_docker()
    original = DockerSandbox._listen
    hits: list[bool] = []

    def listen_and_race(self):
        original(self)
        path = os.path.join(self._chan_dir, "s")

        def impostor():
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            body = b'{"ok":true,"id":0,"result":{"ready":true,"pid":4242,"uid":0,"workspace":"/x","channel":"socket"}}'
            s.sendall(_frame(body))
            hits.append(True)
            time.sleep(2)
            s.close()

        threading.Thread(target=impostor, daemon=True).start()
        time.sleep(0.1)  # the impostor is queued on the listener before the container starts

    monkeypatch.setattr(DockerSandbox, "_listen", listen_and_race)
    with DockerSandbox("agentgym/base:latest") as sandbox:
        assert hits and sandbox.info["pid"] != 4242
        assert sandbox.run(["echo", "real"]).text == "real\n"


def test_a_reply_to_another_request_is_a_protocol_error(fresh_sandbox):
    fresh_sandbox._buf += _frame(b'{"ok":true,"id":987654,"result":"forged"}')
    with pytest.raises(ProtocolError):
        fresh_sandbox.request("ping")


def test_an_oversized_frame_is_a_typed_error_without_waiting(fresh_sandbox):
    fresh_sandbox._buf += MAGIC + (1 << 40).to_bytes(8, "big")
    start = time.monotonic()
    with pytest.raises(ProtocolError):
        fresh_sandbox.request("ping", 20.0)
    assert time.monotonic() - start < 5


def test_an_interrupted_call_leaves_the_channel_usable(fresh_sandbox, monkeypatch):
    original = type(fresh_sandbox)._recv
    calls = []

    def interrupt_once(self, deadline):
        if not calls:
            calls.append(1)
            raise KeyboardInterrupt
        return original(self, deadline)

    monkeypatch.setattr(type(fresh_sandbox), "_recv", interrupt_once)
    with pytest.raises(KeyboardInterrupt):
        fresh_sandbox.run("sleep 0.3; echo first")
    assert fresh_sandbox.run(["echo", "second"]).text == "second\n"


def test_a_send_to_a_stopped_server_has_a_deadline():
    sandbox = LocalSandbox()
    try:
        os.kill(sandbox._proc.pid, signal.SIGSTOP)
        big = {"big.bin": b"x" * (8 << 20)}
        result: list[BaseException] = []

        def send():
            try:
                sandbox.request("write_files", 2.0, files={k: [v.hex(), 0o644] for k, v in big.items()})
            except BaseException as exc:  # the test inspects it
                result.append(exc)

        t = threading.Thread(target=send, daemon=True)
        t.start()
        t.join(10)
        assert not t.is_alive(), "the send blocked past its deadline"
        assert result and isinstance(result[0], SandboxTimeout), result
    finally:
        with contextlib.suppress(ProcessLookupError):  # a broken channel already ended the server
            os.kill(sandbox._proc.pid, signal.SIGCONT)
        sandbox.close()


def test_a_call_interrupted_while_sending_gets_a_fresh_sandbox_at_reset(monkeypatch):
    """A half-sent frame breaks the channel for good; the env replaces the sandbox at the next reset."""
    from agentgym.envs.coding import CodingEnv

    env = CodingEnv(split="test", backend="local")
    try:
        env.reset(seed=0)
        first = env.sandbox

        def interrupted(data, deadline):
            raise KeyboardInterrupt

        monkeypatch.setattr(first, "_send", interrupted)
        with pytest.raises(KeyboardInterrupt):
            env.step("run echo hi")
        assert first.broken
        env.reset(seed=0)
        assert env.sandbox is not first and "hi" in env.step("run echo hi")[0]["text"]
    finally:
        env.close()
