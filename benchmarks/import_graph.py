"""The project's import graph, read from the source: cycles and imports inside function bodies.

Counts what the import contracts (``.importlinter``, run by ``scripts/test.sh``) do not: a cycle
closed by an import inside a function body or under ``if TYPE_CHECKING:`` is invisible to a
module-level checker but still a cycle. Every import is an edge here, wherever it sits.

    python benchmarks/import_graph.py            # summary
    python benchmarks/import_graph.py --json     # figures only
    python benchmarks/import_graph.py --list     # every function-level project import

``agentgym.envs`` and ``agentgym.wrappers`` are read from the top-level ``envs/`` and
``wrappers/`` folders (the package holds symlinks to them; older commits mapped them in setup.py).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"agentgym": "agentgym", "agentgym.envs": "envs", "agentgym.wrappers": "wrappers", "baselines": "baselines"}
SKIP_PARTS = {"corpus", "data", "site", "__pycache__"}  # Coding's corpus and other data are not modules


def modules(root: Path = ROOT) -> dict[str, Path]:
    """dotted name -> file, for every module of the project's packages."""
    found: dict[str, Path] = {}
    for package, folder in PACKAGES.items():
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base)
            if SKIP_PARTS & set(rel.parts) or (package == "agentgym" and rel.parts[0] in ("envs", "wrappers")):
                continue
            parts = [package, *rel.with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The longest known module that ``name`` is or lies in (``a.b.func`` -> ``a.b``)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


class _Imports(ast.NodeVisitor):
    """Every import of one module: (target, where) with where in {"module", "function", "type_checking"}."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module, self.is_package = module, is_package
        self.found: list[tuple[str, str, int]] = []
        self._where = ["module"]

    def _base(self, level: int) -> str:
        parts = self.module.split(".")
        if not self.is_package:
            parts = parts[:-1]
        return ".".join(parts[: len(parts) - level + 1]) if level else ""

    def visit_FunctionDef(self, node: ast.AST) -> None:
        self._where.append("function")
        self.generic_visit(node)
        self._where.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        test = ast.unparse(node.test)
        if test in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            self._where.append("type_checking")
            for child in node.body:
                self.visit(child)
            self._where.pop()
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.found.append((alias.name, self._where[-1], node.lineno))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = self._base(node.level) if node.level else ""
        mod = ".".join(p for p in (base, node.module or "") if p)
        for alias in node.names:
            self.found.append((f"{mod}.{alias.name}", self._where[-1], node.lineno))


def edges(known: dict[str, Path]) -> list[tuple[str, str, str, int]]:
    """(importer, imported, where, line) for every import of a project module by a project module."""
    out = []
    for name, path in known.items():
        visitor = _Imports(name, path.name == "__init__.py")
        visitor.visit(ast.parse(path.read_text(), str(path)))
        for target, where, line in visitor.found:
            if (resolved := _resolve(target, known)) and resolved != name:
                out.append((name, resolved, where, line))
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    sys.setrecursionlimit(10_000)

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _is_package_parent(importer: str, imported: str) -> bool:
    """``a.b`` importing ``a`` (its own package's __init__) is how Python loads it, not a layering edge."""
    return importer.startswith(imported + ".")


def report(root: Path = ROOT) -> dict:
    known = modules(root)
    all_edges = edges(known)
    graph: dict[str, set[str]] = defaultdict(set)
    for importer, imported, _, _ in all_edges:
        if not _is_package_parent(importer, imported):
            graph[importer].add(imported)
    function_level = [e for e in all_edges if e[2] == "function"]
    return {
        "modules": len(known),
        "imports": len(all_edges),
        "cycles": cycles(graph),
        "function_level_imports": {
            "agentgym": sum(1 for e in function_level if e[0].startswith("agentgym")),
            "baselines": sum(1 for e in function_level if e[0].startswith("baselines")),
        },
        "type_checking_imports": sum(1 for e in all_edges if e[2] == "type_checking"),
        "function_level": [f"{known[e[0]].relative_to(root)}:{e[3]} {e[0]} -> {e[1]}" for e in function_level],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="a checkout to read (default: this one)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--list", action="store_true", help="list every function-level project import")
    args = parser.parse_args()
    figures = report(args.root)
    listing = figures.pop("function_level")
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    print(f"{figures['modules']} modules, {figures['imports']} project imports")
    print(f"cycles: {len(figures['cycles'])}")
    for component in figures["cycles"]:
        print("  " + " <-> ".join(component))
    fl = figures["function_level_imports"]
    print(f"project imports inside function bodies: agentgym {fl['agentgym']}, baselines {fl['baselines']}")
    print(f"project imports under TYPE_CHECKING: {figures['type_checking_imports']}")
    if args.list:
        print("\n".join(listing))


if __name__ == "__main__":
    main()
