"""examples/README.md indexes every script, and every script is smoke-tested here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def test_the_index_lists_every_script_and_nothing_else():
    scripts = {p.name for p in EXAMPLES.glob("*.py")}
    linked = set(re.findall(r"\]\(([\w.]+\.py)\)", (EXAMPLES / "README.md").read_text()))
    assert linked == scripts, f"not in examples/README.md: {scripts - linked}; no such script: {linked - scripts}"


def test_every_script_has_a_smoke_test():
    tests = "\n".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
    untested = [p.name for p in EXAMPLES.glob("*.py") if p.name not in tests]
    assert not untested, f"examples without a test in tests/examples/: {untested}"


def test_every_script_says_how_to_run_it():
    for path in EXAMPLES.glob("*.py"):
        head = path.read_text().split('"""')[1]
        assert f"examples/{path.name}" in head, f"{path.name}: its docstring shows no command line"
