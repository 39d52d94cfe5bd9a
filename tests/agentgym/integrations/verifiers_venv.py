"""The verifiers test's virtual environment: built once per lock file, kept, and reused by every later run.

verifiers 0.4 pins ``mcp==2.0.0`` (agentgym: ``mcp>=2.3``), so ``vf-eval`` runs from a venv of its own,
installed with ``--no-deps`` from `LOCK` (with uv about 20 s, with pip about 2 minutes; pip's own
resolution took 15-20). Stdlib only:
``scripts/test.sh`` runs this file during its set-up, alongside ``agentgym setup``, so the test finds the
venv ready::

    python tests/agentgym/integrations/verifiers_venv.py   # prints the venv's python

The folder is ``$AGENTGYM_TEST_VENVS/verifiers-<hash of the lock>`` (``scripts/test.sh`` sets it), else
``venvs/`` in agentgym's cache folder. The variable of its own matters: ``tests/baselines/conftest.py``
points ``AGENTGYM_CACHE_DIR`` at a folder of the session, which would rebuild the venv on every run.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

VERIFIERS = ["verifiers[openenv]==0.4.0", "openenv==0.4.1", "uv"]
"""openenv pinned: pip backtracks through its releases otherwise; uv runs verifiers' chat program."""
LOCK = Path(__file__).with_name("verifiers-lock.txt")
"""`VERIFIERS` resolved once: every package at its version, installed with ``--no-deps``."""
INSTALL = Path(__file__).resolve().parents[3] / "scripts" / "install.py"
"""The project's installer: uv with pip's settings, else pip (README commands (1) and (2) use it too)."""
DONE = ".agentgym-complete"
"""Written last, after pip succeeded: a build killed half-way is built again, not used."""


def venv_folder() -> Path:
    """Where the venv for this `LOCK` lives (built or not)."""
    root = os.environ.get("AGENTGYM_TEST_VENVS") or os.path.join(
        os.environ.get("AGENTGYM_CACHE_DIR")
        or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "agentgym"),
        "venvs",
    )
    return Path(root) / f"verifiers-{hashlib.sha256(LOCK.read_bytes()).hexdigest()[:12]}"


def build_venv(python: str) -> str:
    """The venv's python, building the venv first unless a complete one is there already."""
    folder = venv_folder()
    vpython = folder / "bin" / "python"
    if (folder / DONE).is_file():
        return str(vpython)
    folder.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([python, "-m", "venv", "--clear", str(folder)], check=True, timeout=120)
    pip = subprocess.run(  # uv where it works (scripts/install.py), else pip
        [str(vpython), str(INSTALL), "--no-deps", "-r", str(LOCK)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    if pip.returncode != 0:
        raise RuntimeError(f"installing {LOCK.name} into {folder} failed:\n{pip.stderr[-3000:]}")
    (folder / DONE).write_text("".join(VERIFIERS) + "\n")
    return str(vpython)


if __name__ == "__main__":
    print(build_venv(sys.executable))
