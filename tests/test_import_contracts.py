"""The architecture's import rules (``.importlinter``, DESIGN 1) hold, and each one fails when broken.

``scripts/test.sh`` runs ``lint-imports`` before pytest; here every contract is broken once, in a
copy of the tree, by the smallest import that breaks it, so a contract that stopped checking
anything (a renamed module, a typo in the file) fails this test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

BREAKS = {
    "Families never import each other": ("envs/tooluse/_probe.py", "import agentgym.envs.coding\n", 1),
    "The kit, world kit, sandbox and wrappers never import": ("agentgym/world/_probe.py", "import agentgym.eval\n", 1),
    "The kit, world kit, sandbox and wrappers never import ": (
        "agentgym/wrappers/_probe.py",
        "import agentgym.view\n",
        1,
    ),
    "The client never imports the server": ("agentgym/wire/_probe.py", "from agentgym.serve import sessions\n", 1),
    "baselines runs one way": ("baselines/config.py", "\nimport baselines.policy.train\n", 1),
    # the report below the experiment: it may not reach back up for a task list or the job graph
    "baselines runs one way ": ("baselines/report/_probe.py", "import baselines.experiment.grid\n", 1),
    # the next two are also layer breaks (the layers imply them), so two contracts break at once
    "The menu policy never imports the report": (
        "baselines/policy/_probe.py",
        "import baselines.report.contrasts\n",
        2,
    ),
    "The language-model BudgetMix trainer is a command line": (
        "baselines/experiment/_probe.py",
        "import baselines.llm.budgetmix\n",
        2,
    ),
}
"""Contract -> (file, the import added to it, how many contracts that breaks). A name may end in spaces
to break one contract in two ways."""


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=root, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the packages and the contracts (symlinks kept: agentgym/envs -> ../envs)."""
    if not LINT_IMPORTS.exists():
        pytest.fail(f"{LINT_IMPORTS} missing: pip install -e '.[lint]' (scripts/test.sh installs it)")
    root = tmp_path_factory.mktemp("tree")
    ignore = shutil.ignore_patterns("__pycache__", "corpus", "data", "*.json")
    for folder in ("agentgym", "envs", "wrappers", "baselines"):
        shutil.copytree(ROOT / folder, root / folder, symlinks=True, ignore=ignore)
    shutil.copy(ROOT / ".importlinter", root / ".importlinter")
    return root


def test_every_family_is_in_the_families_contract() -> None:
    """A new family folder under envs/ is kept apart from the others as soon as it exists."""
    config = (ROOT / ".importlinter").read_text()
    listed = config.split("[importlinter:contract:families]")[1].split("[importlinter:contract:")[0]
    families = sorted(p.name for p in (ROOT / "envs").iterdir() if (p / "__init__.py").exists())
    missing = [f for f in families if f"agentgym.envs.{f}\n" not in listed]
    assert len(families) >= 5 and not missing, f"add {missing} to the families contract in .importlinter"


def test_the_tree_keeps_every_contract(tree: Path) -> None:
    run = _lint(tree)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "0 broken" in run.stdout


@pytest.mark.parametrize("contract", sorted(BREAKS))
def test_each_contract_fails_when_broken(tree: Path, contract: str) -> None:
    rel, line, count = BREAKS[contract]
    path = tree / rel
    before = path.read_text() if path.exists() else None
    path.write_text((before or "") + line)
    try:
        run = _lint(tree)
    finally:
        path.unlink() if before is None else path.write_text(before)
    assert run.returncode != 0, run.stdout[-3000:]
    broken = run.stdout.split("Broken contracts")[-1]
    assert contract.strip() in broken and f"{count} broken" in run.stdout, run.stdout[-3000:]
