"""The Docker backend's private channel: a unix socket in a read-only folder, removed once used."""

from __future__ import annotations

import os

import pytest

from agentgym.sandbox import make_sandbox
from support.docker import require_docker


@pytest.fixture
def docker_sandbox():
    require_docker()
    sb = make_sandbox("docker", image="agentgym/base:latest")
    yield sb
    sb.close()


def test_steps_travel_over_the_unix_socket(docker_sandbox):
    assert docker_sandbox.info["channel"] == "socket"
    assert docker_sandbox._direct is not None
    assert docker_sandbox.run("echo over the socket").text == "over the socket\n"


def test_channel_folder_is_gone_and_unwritable(monkeypatch):
    require_docker()
    from agentgym.sandbox.docker import DockerSandbox

    folders = []
    listen = DockerSandbox._listen

    def recording_listen(self):
        listen(self)
        folders.append(self._chan_dir)

    monkeypatch.setattr(DockerSandbox, "_listen", recording_listen)
    with make_sandbox("docker", image="agentgym/base:latest") as sb:
        assert len(folders) == 1 and not os.path.exists(folders[0])  # removed once connected
        r = sb.run("touch /run/agentgym/x || echo denied")
        assert "denied" in r.text


def test_stdio_fallback_when_the_server_cannot_connect(monkeypatch):
    """A server that cannot reach the socket answers on stdout; the sandbox works the same."""
    require_docker()
    from agentgym.sandbox.docker import DockerSandbox

    listen = DockerSandbox._listen

    def listen_unreachable(self):
        listen(self)
        os.chmod(os.path.join(self._chan_dir, "s"), 0o700)  # the server's user may not connect

    monkeypatch.setattr(DockerSandbox, "_listen", listen_unreachable)
    with make_sandbox("docker", image="agentgym/base:latest") as sb:
        assert sb.info["channel"].startswith("stdio")
        assert sb.run("echo over stdio").text == "over stdio\n"
        big = sb.run("head -c 3000000 /dev/zero | tr '\\0' a", max_output=4 << 20)
        assert len(big.output) == 3_000_000
