"""The ``agentgym`` command line, run as users run it (``python -m agentgym`` in a subprocess)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import types

import pytest

from agentgym import cli
from support.docker import require_docker

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def agentgym(capfd):
    """Run ``agentgym ARGS`` in this process (a subprocess costs seconds of imports per call)."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        capfd.readouterr()
        try:
            code = cli.main(list(args))
        except SystemExit as exc:  # argparse's --help, --version and usage errors
            code = int(exc.code or 0)
        out, err = capfd.readouterr()
        return subprocess.CompletedProcess(list(args), code, out, err)

    return run


def test_python_m_agentgym_lists_the_commands():
    r = subprocess.run(
        [sys.executable, "-m", "agentgym", "--help"], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert r.returncode == 0
    for command in ("list", "play", "setup", "doctor", "sandbox", "eval", "serve"):
        assert command in r.stdout


def test_version_and_usage(agentgym):
    assert agentgym("--version").stdout.strip().startswith("agentgym ")
    assert agentgym().returncode == 2
    assert agentgym("sandbox", "run", "--backend", "nope", "--", "true").returncode == 2


def test_sandbox_run_prints_output_and_exits_with_the_status(agentgym):
    r = agentgym(
        "sandbox", "run", "--backend", "local", "--", "python3", "-c", "import sys; print('hello'); sys.exit(7)"
    )
    assert r.returncode == 7 and r.stdout == "hello\n"
    r = agentgym("sandbox", "run", "--backend", "local", "--timeout", "0.5", "--", "sleep 30")
    assert r.returncode == 124 and "timed out" in r.stderr
    assert agentgym("sandbox", "run", "--backend", "local").returncode == 2


def test_sandbox_run_on_docker_is_non_root(agentgym):
    require_docker()
    r = agentgym("sandbox", "run", "--backend", "docker", "--", "id", "-u")
    assert r.returncode == 0 and r.stdout.strip() == "65534"


def test_typed_errors_become_a_message_and_exit_1(agentgym):
    require_docker()
    r = agentgym("sandbox", "run", "--backend", "docker", "--image", "agentgym/no-such-image:latest", "--", "true")
    assert r.returncode == 1 and "ImageMissing" in r.stderr and "agentgym setup" in r.stderr
    assert "Traceback" not in r.stderr


def test_doctor_reports_backends_images_and_versions(agentgym):
    r = agentgym("doctor", "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["backends"]["local"]["ok"] is True
    assert set(report["versions"]) >= {"agentgym", "python", "gymnasium", "docker_engine"}
    if report["engine"]["ok"]:
        assert "agentgym/base:latest" in report["images"]
        assert report["backends"]["docker"]["ok"] is (report["images"]["agentgym/base:latest"] == "present")
        if report["backends"]["docker"]["ok"]:
            assert report["auto_backend"] == "docker"
    else:
        assert "agentgym setup" in report["backends"]["docker"]["detail"]
    text = agentgym("doctor")
    assert text.returncode == 0 and "backend local: works" in text.stdout


def test_setup_on_a_ready_machine_is_a_quick_no_op(agentgym):
    require_docker()
    r = agentgym("setup")
    assert r.returncode == 0, r.stderr
    assert "answers" in r.stderr and "base image agentgym/base:latest: present" in r.stderr


def test_sandbox_gc_runs(agentgym):
    require_docker()
    r = agentgym("sandbox", "gc")
    assert r.returncode == 0 and r.stdout.startswith("removed ")


def test_missing_command_module_is_skipped_but_broken_ones_are_not(monkeypatch, tmp_path):
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("agentgym.setup.commands", "agentgym.no_such_package.cli"))
    assert "doctor" in cli.build_parser().format_help()
    broken = tmp_path / "agentgym_broken_cmds.py"
    broken.write_text("import agentgym_dependency_that_is_missing\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("agentgym_broken_cmds",))
    with pytest.raises(ModuleNotFoundError, match="agentgym_dependency_that_is_missing"):
        cli.build_parser()


def test_registered_commands_get_their_exit_code(monkeypatch):
    module = types.ModuleType("agentgym_fake_cmds")

    def register(subparsers):
        p = subparsers.add_parser("fake")
        p.set_defaults(func=lambda args: 5)

    module.register = register  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agentgym_fake_cmds", module)
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("agentgym_fake_cmds",))
    assert cli.main(["fake"]) == 5


def test_pytest_is_a_runtime_dependency_for_the_local_backend():
    """A plain install (no extras) must run Coding-v0 on the local backend, which imports pytest."""
    import tomllib

    with open(os.path.join(REPO, "pyproject.toml"), "rb") as f:
        deps = tomllib.load(f)["project"]["dependencies"]
    assert any(d.split(">")[0].split("=")[0].strip() == "pytest" for d in deps)


def test_doctor_says_when_the_local_backend_lacks_a_module(agentgym, monkeypatch):
    from agentgym.setup import commands

    monkeypatch.setattr(commands, "LOCAL_BACKEND_NEEDS", ("pytest", "agentgym_no_such_module"))
    ok, detail = commands.check_backend("local", "unused")
    assert not ok and "agentgym_no_such_module" in detail and "pip install agentgym_no_such_module" in detail
    result = agentgym("doctor", "--json")
    local = json.loads(result.stdout)["backends"]["local"]
    assert local["ok"] is False and "agentgym_no_such_module" in local["detail"]
    monkeypatch.setattr(commands, "LOCAL_BACKEND_NEEDS", ("pytest",))
    assert commands.check_backend("local", "unused")[0]


def test_cache_info_and_clear(agentgym, tmp_path, monkeypatch):
    from agentgym.envs.coding.result_cache import DiskStore, TestRun

    monkeypatch.setenv("AGENTGYM_CACHE_DIR", str(tmp_path))
    store = DiskStore()
    for i in range(3):
        store.put(("k", i), "test", TestRun("ok", {"passed": True}, False, None))
    r = agentgym("cache", "info", "--json")
    info = json.loads(r.stdout)
    assert r.returncode == 0 and info["path"] == str(tmp_path) and info["entries"] == 3 and info["bytes"] > 0
    assert info["enabled"] is True
    assert "entries:  3" in agentgym("cache", "info").stdout
    r = agentgym("cache", "clear")
    assert r.returncode == 0 and "deleted 3 entries" in r.stdout
    assert json.loads(agentgym("cache", "info", "--json").stdout)["entries"] == 0
    assert store.get(("k", 0), "test") is None
    monkeypatch.setenv("AGENTGYM_DISK_CACHE", "0")
    assert "off" in agentgym("cache", "info").stdout
    assert agentgym("cache").returncode == 2  # an action is required


def _commands(parser, prefix=()):
    """Every (command path, parser) under ``parser``, nested subcommands included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name), sub
                yield from _commands(sub, (*prefix, name))


def test_every_command_names_the_sandbox_backend_backend():
    """One flag name, one definition: `agentgym.cli_args.add_backend_argument` (the old --sandbox is
    read, not shown)."""
    from agentgym.cli_args import sandbox_backend

    with_backend = []
    for path, parser in _commands(cli.build_parser()):
        shown = {s for a in parser._actions if a.help != argparse.SUPPRESS for s in a.option_strings}
        assert "--sandbox" not in shown, path
        for action in parser._actions:
            if action.dest == "backend" or "--backend" in action.option_strings:
                assert action.type is sandbox_backend, (path, action.option_strings)
                with_backend.append(" ".join(path))
    assert {"eval", "serve", "sandbox run", "play"} <= set(with_backend)
