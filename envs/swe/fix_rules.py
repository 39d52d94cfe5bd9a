"""What a fix may add to a library: the rule that keeps SWE-v0's verdict unforgeable.

The verdict runs the library's own tests in the sandbox, so the agent's code runs in the very
process that reports the tests' outcomes. The tests, the ``conftest.py`` files and the pytest
plugins are the pristine ones (the verdict runs after the workspace is restored), and what the agent
left elsewhere never loads; what remains is the library code the agent changed. That code may
change anything the original did, but what it *adds* may not reach outside the library's own
logic: a changed function, method or module-level statement (a *unit*) may use

* the names its original used (the pristine library's, not the buggy task's), names it binds itself
  (parameters, assignments, loop and comprehension variables), and plain builtins (`SAFE_BUILTINS`);
* attributes, except dunders beyond the ordinary protocol ones (`SAFE_DUNDERS`) and the
  interpreter's internals (`INTERNAL_ATTRIBUTES`: frames, code objects, ``sys.modules``...);

and where it uses an imported module's attribute, a dynamic call (``getattr``, ``eval``,
``globals``...), an internal attribute or a dunder-like string, that exact expression must appear
in the original unit. It may not import anything, and a unit the original does not have may use only
builtins and what it binds. Every honest fix of a synthetic bug (the reverse patch, or an
equivalent expression over the same names) passes; a fix that imports ``os`` to exit 0, walks
frames to pytest's reports, or rebinds ``sys.modules`` is refused before anything runs. The rule is
stated in the task's instruction and ``help``, and ``test`` warns when a change would be refused.

Stdlib only; host side.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Refusal", "check_fix", "SAFE_BUILTINS", "SAFE_DUNDERS", "INTERNAL_ATTRIBUTES", "RULE"]

RULE = (
    "A fix may change any code of the library, but what it adds may not import modules, call "
    "getattr/eval/exec/globals-style builtins, reach dunder or interpreter internals (frames, code "
    "objects, sys.modules), or use a name its function did not use before, apart from plain builtins "
    "and the names it binds itself. A change that breaks this rule fails the verdict."
)
"""The rule in one paragraph, as the instruction and ``help`` state it."""

DYNAMIC_BUILTINS = frozenset(
    {
        "__import__",
        "eval",
        "exec",
        "compile",
        "globals",
        "locals",
        "vars",
        "getattr",
        "setattr",
        "delattr",
        "open",
        "breakpoint",
        "exit",
        "quit",
        "input",
        "help",
        "memoryview",
        "__build_class__",
        "__loader__",
        "__spec__",
        "__builtins__",
    }
)
"""Builtins that reach past a function's own data (names, modules, files, the interpreter)."""

SAFE_BUILTINS = frozenset(
    name for name in dir(builtins) if not name.startswith("_") and name not in DYNAMIC_BUILTINS
) | frozenset({"__name__", "__doc__", "__file__", "__class__"})
"""Builtins a fix may use anywhere: types, exceptions, ``len``, ``range``, ``isinstance``..."""

SAFE_DUNDERS = frozenset(
    {
        "__init__",
        "__name__",
        "__qualname__",
        "__doc__",
        "__class__",
        "__len__",
        "__iter__",
        "__next__",
        "__getitem__",
        "__setitem__",
        "__delitem__",
        "__contains__",
        "__eq__",
        "__ne__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__hash__",
        "__repr__",
        "__str__",
        "__call__",
        "__enter__",
        "__exit__",
        "__add__",
        "__sub__",
        "__mul__",
        "__bool__",
    }
)
"""Dunder attributes of the ordinary protocols; every other dunder (``__globals__``, ``__dict__``,
``__subclasses__``, ``__code__``...) is internal."""

INTERNAL_ATTRIBUTES = frozenset(
    {
        "f_back",
        "f_globals",
        "f_locals",
        "f_code",
        "f_builtins",
        "f_trace",
        "gi_frame",
        "gi_code",
        "cr_frame",
        "cr_code",
        "ag_frame",
        "tb_frame",
        "tb_next",
        "co_code",
        "co_consts",
        "modules",
        "_getframe",
        "settrace",
        "setprofile",
        "meta_path",
        "path_hooks",
        "stdout",
        "stderr",
        "_exit",
        "system",
        "popen",
    }
)
"""Attribute names that reach the interpreter, the process or other modules' state."""

_DUNDER = re.compile(r"^__\w+__$")


@dataclass(frozen=True)
class Refusal:
    """One construct a fix added that the rule does not allow, and where."""

    path: str
    unit: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} (in {self.unit}): {self.what}"


def _units(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """(key, node) of every top-level statement, function, class body statement and method: the pieces
    a fix is compared by (nested functions belong to their enclosing unit). A key repeated in the file
    (two ``from . import *``, a function defined twice) gets its occurrence number."""
    seen: dict[str, int] = {}
    for key, node in _raw_units(tree):
        seen[key] = seen.get(key, 0) + 1
        yield (key if seen[key] == 1 else f"{key}#{seen[key]}"), node


def _raw_units(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    for i, node in enumerate(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            yield f"{node.name}.<class>", ast.Module(body=[_class_head(node)], type_ignores=[])
            for j, item in enumerate(node.body):
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield f"{node.name}.{item.name}", item
                else:
                    yield f"{node.name}.<body {_statement_key(item, j)}>", item
        else:
            yield f"<module {_statement_key(node, i)}>", node


def _class_head(node: ast.ClassDef) -> ast.ClassDef:
    """The class statement without its body: its bases, keywords and decorators."""
    return ast.ClassDef(
        name=node.name,
        bases=node.bases,
        keywords=node.keywords,
        body=[ast.Pass()],
        decorator_list=node.decorator_list,
    )


def _statement_key(node: ast.stmt, index: int) -> str:
    """A module-level statement's key: the names it binds (stable when lines move), else its position."""
    names = sorted(t.id for t in ast.walk(node) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)) or sorted(
        a.asname or a.name for a in getattr(node, "names", []) if isinstance(a, ast.alias)
    )
    return ",".join(names) if names else f"#{index}"


def _module_aliases(tree: ast.Module) -> set[str]:
    """Every name an import binds anywhere in the file (``import os.path as p`` -> ``p``)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.update(a.asname or a.name for a in node.names)
    return out


def _bound(node: ast.AST) -> set[str]:
    """Names a unit binds itself: parameters, assignment, loop, ``with``, ``except`` and comprehension targets."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not node:
            out.add(n.name)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            out.add(n.name)
    return out


def _sensitive(node: ast.AST, aliases: set[str]) -> Iterator[tuple[ast.AST, str]]:
    """Every expression in ``node`` that must appear as it is in the original unit, with why."""
    for n in ast.walk(node):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            yield n, "an import"
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in DYNAMIC_BUILTINS:
            yield n, f"a call of {n.func.id}()"
        elif isinstance(n, ast.Attribute):
            if _DUNDER.match(n.attr) and n.attr not in SAFE_DUNDERS:
                yield n, f"the internal attribute .{n.attr}"
            elif n.attr in INTERNAL_ATTRIBUTES:
                yield n, f"the interpreter attribute .{n.attr}"
            elif isinstance(n.value, ast.Name) and n.value.id in aliases:
                yield n, f"the module attribute {n.value.id}.{n.attr}"
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            text = n.value
            if _DUNDER.match(text) or text in INTERNAL_ATTRIBUTES or text in DYNAMIC_BUILTINS:
                yield n, f"the string {text!r}"


def _defined_dunders(node: ast.AST) -> set[str]:
    """Dunder methods and attributes a unit defines (``def __eq__``, ``__eq__ = ...``): a new one changes
    how the tests' own comparisons and lookups behave on the library's objects."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and _DUNDER.match(n.name) and n.name != "__init__":
            out.add(n.name)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and _DUNDER.match(n.id):
            out.add(n.id)
    return out


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _line(node: ast.AST) -> int:
    return int(getattr(node, "lineno", 0) or 0)


def check_fix(path: str, original: str, fixed: str) -> list[Refusal]:
    """Every construct ``fixed`` adds to ``original`` (the pristine library file) that the rule refuses
    (see the module docstring); empty when the fix may run. A file that does not parse is refused."""
    try:
        new_tree = ast.parse(fixed)
    except SyntaxError as exc:
        return [Refusal(path, "<module>", exc.lineno or 0, f"the file does not parse ({exc.msg})")]
    old_tree = ast.parse(original)
    aliases = _module_aliases(old_tree) | _module_aliases(new_tree)
    old_units = dict(_units(old_tree))
    refusals: list[Refusal] = []
    for unit, node in _units(new_tree):
        old = old_units.get(unit)
        if old is not None and ast.dump(old) == ast.dump(node):
            continue
        defined = _defined_dunders(node) - (_defined_dunders(old) if old is not None else set())
        for name in sorted(defined):
            refusals.append(Refusal(path, unit, _line(node), f"defines {name}, which this code did not define"))
        allowed_dumps = {ast.dump(n) for n, _ in _sensitive(old, aliases)} if old is not None else set()
        for n, why in _sensitive(node, aliases):
            if ast.dump(n) not in allowed_dumps:
                refusals.append(Refusal(path, unit, _line(n), f"adds {why}"))
        allowed = (_names(old) if old is not None else set()) | SAFE_BUILTINS | _bound(node)
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id not in allowed:
                refusals.append(
                    Refusal(path, unit, _line(n), f"uses the name {n.id!r}, which this code did not use before")
                )
                allowed.add(n.id)  # once per name
    return refusals
