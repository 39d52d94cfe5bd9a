"""How far a reader of the trainer jumps: walk the calls from ``baselines.budgetmix:main`` statically.

    python benchmarks/trainer_walk.py                    # the working tree
    python benchmarks/trainer_walk.py --rev 43a25f5      # a commit (files read with `git show`)
    python benchmarks/trainer_walk.py --rev 43a25f5 --compare   # that commit beside the working tree
    python benchmarks/trainer_walk.py --json --trail     # machine-readable, with the whole route

A reader who starts at ``main`` and reads each function the first time it is called, in the
order the calls appear in the source, depth-first, moves from file to file. This script follows
that route with `ast`, never importing the code: it resolves names bound by ``import`` /
``from baselines... import`` (module level or inside a function) to their ``def`` or ``class``
in ``baselines/*.py`` (re-exports followed), calls on ``self``, and method calls on a variable,
attribute or parameter whose class it can tell (``x = Cls(...)``, ``self.x = Cls(...)``,
``x: Cls``, ``x = f(...)`` or ``x, y = f(...)`` with ``f`` annotated to return ``Cls`` or
``tuple[Cls, ...]``, ``x = [Cls(...) ...]`` for ``x[i].m()``); a class call reads its
``__init__``, calling an instance reads ``__call__`` or ``forward``. Calls into other packages
(torch, numpy, agentgym) are not followed: the measure is about the trainer's own modules.

Reported: ``files`` (distinct files read), ``visits`` (calls that take the reader into another
file; calls from one function into one file, one after another, are one visit), ``returns``
(visits to a file the reader had read and left, and that holds no function still being read:
the jumping back that CleanRL's single-file ``ppo.py`` avoids), ``caller_returns`` (a callee in
another file done, the reader goes back to its caller's file to read on), ``all_returns`` (the two
together: every move back to a file already read), visits and returns per file, and the length in
lines of the longest functions on the route. ``--trail`` prints the route indented by call depth,
``<< back`` at each return.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "baselines"


@dataclass
class Module:
    """One parsed ``baselines`` module: its top-level definitions and every name its imports bind."""

    name: str
    path: str
    defs: dict[str, ast.AST] = field(default_factory=dict)
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    """local name -> (module, attribute) for ``from module import attribute``; (module, None) for a module"""


class Source:
    """Reads ``baselines/*.py`` from the working tree or from a git revision."""

    def __init__(self, root: Path, rev: str | None) -> None:
        self.root, self.rev = root, rev
        self._modules: dict[str, Module | None] = {}

    def _text(self, rel: str) -> str | None:
        if self.rev is None:
            path = self.root / rel
            return path.read_text() if path.is_file() else None
        proc = subprocess.run(
            ["git", "-C", str(self.root), "show", f"{self.rev}:{rel}"], capture_output=True, text=True
        )
        return proc.stdout if proc.returncode == 0 else None

    def module(self, name: str) -> Module | None:
        if name not in self._modules:
            self._modules[name] = self._parse(name)
        return self._modules[name]

    def _parse(self, name: str) -> Module | None:
        if name != PACKAGE and not name.startswith(PACKAGE + "."):
            return None
        rel = name.replace(".", "/") + ".py"
        text = self._text(rel)
        if text is None:
            return None
        tree = ast.parse(text)
        mod = Module(name, rel)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                mod.defs[node.name] = node
        for node in ast.walk(tree):  # function-local imports too: the trainer imports lazily
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    if self._text(sub.replace(".", "/") + ".py") is not None:
                        mod.imports[alias.asname or alias.name] = (sub, None)  # `from baselines import provenance`
                    else:
                        mod.imports[alias.asname or alias.name] = (node.module, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    mod.imports[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0],
                        None,
                    )
        return mod

    def resolve(self, module: str, name: str, depth: int = 0) -> tuple[Module, ast.AST] | None:
        """The definition ``name`` refers to in ``module``, following re-exports."""
        mod = self.module(module)
        if mod is None or depth > 8:
            return None
        if name in mod.defs:
            return mod, mod.defs[name]
        if name in mod.imports:
            target, attr = mod.imports[name]
            if attr is not None:
                return self.resolve(target, attr, depth + 1)
        return None


@dataclass
class Func:
    """A function on the route: where it is defined, and the class it belongs to (for ``self``)."""

    module: Module
    node: ast.FunctionDef | ast.AsyncFunctionDef
    cls: ast.ClassDef | None = None

    @property
    def key(self) -> tuple[str, str]:
        return self.module.path, (f"{self.cls.name}." if self.cls else "") + self.node.name

    @property
    def lines(self) -> int:
        return (self.node.end_lineno or self.node.lineno) - self.node.lineno + 1


class Walker:
    """Depth-first, in source order, each function read once: the route a reader takes."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.seen: set[tuple[str, str]] = set()
        self.route: list[Func] = []
        self.marks: list[str] = []
        """per function on the route, its line of the trail: indented by call depth, ``<<`` where it jumps back"""
        self.stack: list[_Frame] = []
        self.here: str | None = None  # the file being read now
        self.caller_returns = 0
        """the functions being read, caller first"""
        self.parents: dict[tuple[str, str], tuple[str, str] | None] = {}
        """each function read, by key: the function whose call took the reader there (None: the start)"""
        self.reading: list[Func] = []
        self.visits: list[tuple[str, bool]] = []
        """each call that crosses into another file: (file, whether it jumps back to a file read and left)"""

    # ---- classes and methods
    def _class(self, module: Module, expr: ast.expr | None) -> tuple[Module, ast.ClassDef] | None:
        """The ``baselines`` class an expression names (``Cls``, ``mod.Cls``, ``Cls | None``, ``"Cls"``)."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            try:
                expr = ast.parse(expr.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(expr, ast.BinOp):  # Cls | None
            return self._class(module, expr.left) or self._class(module, expr.right)
        target = self._target(module, expr) if expr is not None else None
        if target and isinstance(target[1], ast.ClassDef):
            return target  # type: ignore[return-value]
        return None

    def _target(self, module: Module, expr: ast.expr) -> tuple[Module, ast.AST] | None:
        if isinstance(expr, ast.Name):
            return self.source.resolve(module.name, expr.id)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            bound = module.imports.get(expr.value.id)
            if bound and bound[1] is None:
                return self.source.resolve(bound[0], expr.attr)
        return None

    def _method(self, module: Module, cls: ast.ClassDef, name: str, depth: int = 0) -> Func | None:
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return Func(module, node, cls)
        for base in cls.bases if depth < 8 else []:
            found = self._class(module, base)
            if found:
                hit = self._method(found[0], found[1], name, depth + 1)
                if hit:
                    return hit
        return None

    def _attr_types(self, module: Module, cls: ast.ClassDef) -> dict[str, tuple[Module, ast.ClassDef]]:
        """``self.x``'s class, from ``self.x = Cls(...)``, ``self.x: Cls`` or ``self.x = param`` with ``param: Cls``."""
        out: dict[str, tuple[Module, ast.ClassDef]] = {}
        for fn in cls.body:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            params = self._param_types(module, fn)
            for node in ast.walk(fn):
                targets, value = [], None
                if isinstance(node, ast.Assign):
                    targets, value = node.targets, node.value
                elif isinstance(node, ast.AnnAssign):
                    targets, value = [node.target], node.value
                    found = self._class(module, node.annotation)
                    if found and _self_attr(node.target):
                        out[_self_attr(node.target)] = found  # type: ignore[index]
                for t in targets:
                    name = _self_attr(t)
                    if not name or value is None:
                        continue
                    found = self._value_class(module, value, params)
                    if found:
                        out[name] = found
        return out

    def _param_types(
        self, module: Module, fn: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> dict[str, tuple[Module, ast.ClassDef]]:
        out = {}
        for arg in fn.args.args + fn.args.kwonlyargs:
            found = self._class(module, arg.annotation)
            if found:
                out[arg.arg] = found
        return out

    def _value_class(
        self, module: Module, value: ast.expr, known: dict[str, Any]
    ) -> tuple[Module, ast.ClassDef] | None:
        if isinstance(value, ast.Call):
            found = self._class(module, value.func)
            if found:
                return found
            callee = self._target(module, value.func)  # a function: its return annotation
            if callee and isinstance(callee[1], (ast.FunctionDef, ast.AsyncFunctionDef)):
                return self._class(callee[0], _first_of_tuple(callee[1].returns))
            return None
        if isinstance(value, (ast.ListComp, ast.List)) and (value.elts if isinstance(value, ast.List) else True):
            # a list of instances: ``x[i].m()`` reads Cls.m
            return self._value_class(module, value.elts[0] if isinstance(value, ast.List) else value.elt, known)
        if isinstance(value, ast.Name):
            return known.get(value.id)
        return None

    # ---- the walk
    def read(self, func: Func) -> None:
        if func.key in self.seen:
            return
        self.seen.add(func.key)
        self.route.append(func)
        self.parents[func.key] = self.reading[-1].key if self.reading else None
        path = func.module.path
        caller = self.stack[-1] if self.stack else None
        mark = ""
        if caller is None or (caller.file != path and caller.last_target != path):
            # a new visit; calls from one function into one other file, one after another, are one visit
            back = any(p == path for p, _ in self.visits) and all(f.file != path for f in self.stack)
            self.visits.append((path, back))
            mark = "   << back" if back else ""
        if caller is not None:
            caller.last_target = path
        self.marks.append("  " * len(self.stack) + f"{func.key[0]}:{func.key[1]}" + mark)
        self.stack.append(_Frame(path))
        self.reading.append(func)
        self.here = path
        try:
            self._read_body(func)
        finally:
            self.stack.pop()
            self.reading.pop()
        if caller is not None and self.here != caller.file:  # back to the caller's file to read on
            self.caller_returns += 1
            self.marks.append("  " * len(self.stack) + f"<< {Path(caller.file).name}")
            self.here = caller.file

    def _read_body(self, func: Func) -> None:
        module = func.module
        local = self._param_types(module, func.node)
        self_attrs = self._attr_types(module, func.cls) if func.cls else {}
        if func.cls:
            local["self"] = (module, func.cls)
        for node in ast.walk(func.node):  # variable types first: a call may precede its variable's last binding
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Tuple) and target.elts:  # ``policy, ckpt = load_policy(...)``
                    target = target.elts[0]
                found = self._value_class(module, node.value, local) if isinstance(target, ast.Name) else None
                if found:
                    local[target.id] = found  # type: ignore[union-attr]
        calls = sorted(
            (n for n in ast.walk(func.node) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset)
        )
        for call in calls:
            for callee in self._callees(module, call.func, local, self_attrs):
                self.read(callee)

    def _callees(self, module: Module, expr: ast.expr, local: dict[str, Any], self_attrs: dict[str, Any]) -> list[Func]:
        if isinstance(expr, ast.Name) and expr.id in local:  # calling an instance
            mod, cls = local[expr.id]
            hit = self._method(mod, cls, "__call__") or self._method(mod, cls, "forward")
            return [hit] if hit else []
        target = self._target(module, expr)
        if target:
            mod, node = target
            if isinstance(node, ast.ClassDef):
                hit = self._method(mod, node, "__init__")
                return [hit] if hit else []
            return [Func(mod, node)]  # type: ignore[arg-type]
        if isinstance(expr, ast.Attribute):
            owner, base = None, expr.value.value if isinstance(expr.value, ast.Subscript) else expr.value
            if isinstance(base, ast.Name) and base.id in local:
                owner = local[base.id]
            elif _self_attr(base) in self_attrs:
                owner = self_attrs[_self_attr(base)]  # type: ignore[index]
            if owner:
                hit = self._method(owner[0], owner[1], expr.attr)
                return [hit] if hit else []
        return []


def _first_of_tuple(annotation: ast.expr | None) -> ast.expr | None:
    """``tuple[A, B]`` -> ``A`` (the first of an unpacked result); anything else as it is."""
    if (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id == "tuple"
    ):
        elts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        return elts[0] if elts else None
    return annotation


@dataclass
class _Frame:
    """A function being read: its file, and the file of the last function it called."""

    file: str
    last_target: str | None = None


def _self_attr(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return expr.attr
    return None


def target_route(walker: Walker, target: str) -> dict[str, Any]:
    """The route of one call of ``target`` (``module:function``): the chain of calls that leads from
    the start to it, then everything it calls (read afresh, so a function the reader met earlier on
    another path still counts), in reading order; the files it crosses and how often the reader
    re-enters each (a file read, left and entered again)."""
    module, name = target.split(":")
    path = module.replace(".", "/") + ".py"
    key = next((k for k in walker.parents if k == (path, name)), None)
    if key is None:
        return {"target": target, "reached": False}
    chain: list[tuple[str, str]] = []
    k = walker.parents[key]
    while k is not None:
        chain.insert(0, k)
        k = walker.parents[k]
    fresh = Walker(walker.source)
    fresh.read(next(f for f in walker.route if f.key == key))
    route = chain + [f.key for f in fresh.route]
    entries = Counter(p for i, (p, _) in enumerate(route) if i == 0 or route[i - 1][0] != p)
    return {
        "target": target,
        "reached": True,
        "functions": len(route),
        "files": len(entries),
        "reentries_per_file": {p: n - 1 for p, n in entries.most_common()},
        "max_reentries": max(entries.values()) - 1,
        "route": [f"{p}:{n}" for p, n in route],
    }


def walk(
    root: Path = ROOT,
    rev: str | None = None,
    start: str = "baselines.budgetmix:main",
    target: str = "baselines.policy.ppo:ppo_update",
) -> dict[str, Any]:
    """The route from ``start`` and its counts (see the module docstring)."""
    source = Source(root, rev)
    module_name, func_name = start.split(":")
    found = source.resolve(module_name, func_name)
    if found is None:
        raise SystemExit(f"{start}: no such function in {'the working tree' if rev is None else rev}")
    walker = Walker(source)
    walker.read(Func(found[0], found[1]))  # type: ignore[arg-type]
    visits = [path for path, _ in walker.visits]
    longest = sorted(walker.route, key=lambda f: -f.lines)[:6]
    return {
        "start": start,
        "rev": rev or "working tree",
        "functions": len(walker.route),
        "files": len(set(visits)),
        "visits": len(visits),
        "returns": sum(back for _, back in walker.visits),
        "caller_returns": walker.caller_returns,
        "all_returns": sum(back for _, back in walker.visits) + walker.caller_returns,
        "visits_per_file": dict(Counter(visits).most_common()),
        "returns_per_file": dict(Counter(path for path, back in walker.visits if back).most_common()),
        "longest_functions": {f"{f.key[0]}:{f.key[1]}": f.lines for f in longest},
        "over_60_lines": {f"{f.key[0]}:{f.key[1]}": f.lines for f in walker.route if f.lines > 60},
        "target_route": target_route(walker, target),
        "trail": walker.marks,
    }


def _line(r: dict[str, Any]) -> str:
    top = ", ".join(f"{Path(p).name} x{n}" for p, n in list(r["returns_per_file"].items())[:4])
    long = ", ".join(f"{k.split(':')[1]} {n}" for k, n in list(r["longest_functions"].items())[:3])
    route = r["target_route"]
    reached = (
        f"{route['files']} files, at most {route['max_reentries']} re-entries of one file"
        if route["reached"]
        else "not reached"
    )
    return (
        f"{r['rev']}: {r['functions']} functions, {r['files']} files, {r['visits']} visits, "
        f"{r['returns']} returns to files already left (most: {top or '-'}), {r['caller_returns']} returns to "
        f"the caller, {r['all_returns']} in all; longest: {long} lines; {len(r['over_60_lines'])} functions over "
        f"60 lines; the route of {route['target'].split(':')[1]}: {reached}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", default=None, help="a git revision to read instead of the working tree")
    parser.add_argument("--compare", action="store_true", help="also walk the working tree, after --rev")
    parser.add_argument("--start", default="baselines.budgetmix:main", help="module:function to start from")
    parser.add_argument(
        "--target",
        default="baselines.policy.ppo:ppo_update",
        help="module:function whose route from the start to count",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--trail", action="store_true", help="include the whole route")
    opts = parser.parse_args(argv)
    results = [walk(ROOT, opts.rev, opts.start, opts.target)]
    if opts.compare and opts.rev:
        results.append(walk(ROOT, None, opts.start, opts.target))
    if not opts.trail:
        for r in results:
            r.pop("trail")
    if opts.json:
        print(json.dumps(results if len(results) > 1 else results[0], indent=1))
    else:
        for r in results:
            print(_line(r))
            for step in r.get("trail", []):
                print("   ", step)
    return 0


if __name__ == "__main__":
    sys.exit(main())
