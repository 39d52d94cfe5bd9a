"""Engine setup: stale daemon files, distribution detection, and the running-engine no-op."""

from __future__ import annotations

import os
import socket

import pytest

from agentgym.errors import EngineUnreachable
from agentgym.setup import engine


@pytest.fixture
def run_dir(tmp_path, monkeypatch):
    """Point the daemon's pid files and sockets at a temporary folder."""
    monkeypatch.setattr(engine, "PID_FILE", str(tmp_path / "docker.pid"))
    monkeypatch.setattr(engine, "DEFAULT_SOCKET", str(tmp_path / "docker.sock"))
    monkeypatch.setattr(engine, "CONTAINERD_PID", str(tmp_path / "containerd.pid"))
    monkeypatch.setattr(engine, "CONTAINERD_SOCKETS", (str(tmp_path / "containerd.sock"),))
    monkeypatch.setattr(engine, "_running", lambda name: [])  # no dockerd runs in this picture
    return tmp_path


def _dead_socket(path) -> None:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()  # the file stays, nobody listens


def test_stale_pid_files_and_sockets_are_removed(run_dir):
    (run_dir / "docker.pid").write_text("999999999\n")
    (run_dir / "containerd.pid").write_text(f"{os.getpid()}\n")  # a live pid, but not containerd
    _dead_socket(run_dir / "docker.sock")
    _dead_socket(run_dir / "containerd.sock")
    removed = engine.remove_stale_files(lambda m: None)
    assert sorted(os.path.basename(p) for p in removed) == [
        "containerd.pid",
        "containerd.sock",
        "docker.pid",
        "docker.sock",
    ]
    assert list(run_dir.iterdir()) == []


def test_live_sockets_are_kept(run_dir):
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(run_dir / "docker.sock"))
    listener.listen(1)
    try:
        assert engine.remove_stale_files(lambda m: None) == []
        assert (run_dir / "docker.sock").exists()
    finally:
        listener.close()


def test_is_debian_like_reads_os_release(tmp_path):
    (tmp_path / "deb").write_text("ID=debian\nVERSION_CODENAME=bookworm\n")
    (tmp_path / "ubu").write_text("ID=ubuntu\nID_LIKE=debian\n")
    (tmp_path / "mint").write_text('ID=linuxmint\nID_LIKE="ubuntu debian"\n')
    (tmp_path / "fed").write_text("ID=fedora\n")
    has_apt = engine.shutil.which("apt-get") is not None
    assert engine.is_debian_like(str(tmp_path / "deb")) is has_apt
    assert engine.is_debian_like(str(tmp_path / "ubu")) is has_apt
    assert engine.is_debian_like(str(tmp_path / "mint")) is has_apt
    assert engine.is_debian_like(str(tmp_path / "fed")) is False
    assert engine.is_debian_like(str(tmp_path / "missing")) is False


def test_unreachable_remote_engine_is_not_replaced(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCKER_HOST", "tcp://127.0.0.1:9")
    with pytest.raises(EngineUnreachable, match="DOCKER_HOST"):
        engine.ensure_engine(lambda m: None, timeout=1)


def test_running_engine_is_a_quick_no_op():
    status = engine.engine_status()
    if not status.ok:
        from support.docker import require_docker

        require_docker()
    lines: list[str] = []
    again = engine.ensure_engine(lines.append)
    assert again.ok and again.version == status.version
    assert lines == [f"engine: Docker {status.version} answers at {status.host}"]


@pytest.fixture
def no_engine(tmp_path, monkeypatch):
    """A machine where no engine answers yet and setup may start one (a fake dockerd)."""
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    monkeypatch.setattr(engine.os, "geteuid", lambda: 0)
    monkeypatch.setattr(engine, "_running", lambda name: [])
    monkeypatch.setattr(engine, "remove_stale_files", lambda log: [])
    monkeypatch.setattr(engine, "DOCKERD_LOG", str(tmp_path / "dockerd.log"))
    monkeypatch.setattr(engine, "_started", [])

    def fake_dockerd(script: str) -> None:
        path = tmp_path / "dockerd"
        path.write_text("#!/bin/sh\n" + script)
        path.chmod(0o755)
        monkeypatch.setattr(engine, "_find_dockerd", lambda: str(path))

    return fake_dockerd


def test_a_daemon_that_dies_at_start_is_reported_with_its_log(no_engine, monkeypatch):
    no_engine('echo "args: $*"; echo "failed to start daemon: no space left"; exit 1\n')
    monkeypatch.setattr(engine, "engine_status", lambda timeout=5: engine.EngineStatus(False, detail="down"))
    with pytest.raises(engine.SetupFailed, match="(?s)exited with status 1.*no space left"):
        engine.ensure_engine(lambda m: None, timeout=20)
    log = open(engine.DOCKERD_LOG).read()
    assert "args: --bridge=none --iptables=false --ip-masq=false" in log


def test_a_started_daemon_is_waited_for(no_engine, monkeypatch):
    no_engine("exec sleep 30\n")
    answers = iter([engine.EngineStatus(False, detail="down")] * 3)
    monkeypatch.setattr(
        engine,
        "engine_status",
        lambda timeout=5: next(answers, engine.EngineStatus(True, version="99.0", host="unix://x")),
    )
    lines: list[str] = []
    try:
        status = engine.ensure_engine(lines.append, timeout=20)
        assert status.ok and status.version == "99.0"
        assert engine._started and engine._started[0].poll() is None  # detached, still running
        assert any("starting" in line for line in lines) and "answers after" in lines[-1]
    finally:
        for proc in engine._started:
            proc.kill()
            proc.wait()


def test_run_step_reports_progress_while_silent_and_kills_at_its_timeout():
    lines: list[str] = []
    code, tail = engine.run_step(
        ["sh", "-c", "echo first; sleep 1.5; echo last; exit 3"], "demo", lines.append, heartbeat=0.5
    )
    assert code == 3 and tail == "first\nlast"
    assert any(line.startswith("  ... demo: ") and line.endswith("first") for line in lines)
    code, tail = engine.run_step(["sleep", "30"], "stuck", lines.append, heartbeat=0.3, timeout=1)
    assert code == -9 and "killed after 1 s" in tail
