"""AST mutation operators: the bugs the coding family injects into correct source modules.

Every operator finds sites in a module's AST and edits the *source text* at the node's exact
position, so a mutant differs from the original only where the bug is (comments, quotes and
layout stay as the author wrote them) and its fix is a one-hunk diff. A candidate is kept only
if it still parses and its AST differs from the original's; whether a test catches it is decided
later by executing the hidden tests (see `agentgym.envs.coding.build_tasks`).

Kinds (`MUTATION_KINDS`): comparison flip, off-by-one in a range, slice or index, arithmetic
operator swap, boolean operator swap (and a dropped ``not``), wrong constant, swapped arguments,
dropped condition, dropped branch, dropped statement, wrong return value.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from agentgym.source_edits import (
    Edit,
    Source,
    docstring_nodes,
    drop_lines,
    else_line,
    int_value,
    is_main_guard,
    is_stringy,
    node_end,
    one_line,
    owns_lines,
    plus_minus,
)
from agentgym.tasks import stable_hash

__all__ = ["Mutant", "MUTATION_KINDS", "enumerate_mutants", "select_mutants"]

MUTATION_KINDS = (
    "comparison_flip",
    "off_by_one",
    "arithmetic_swap",
    "boolean_swap",
    "wrong_constant",
    "swapped_arguments",
    "dropped_condition",
    "dropped_branch",
    "dropped_statement",
    "wrong_return",
)


@dataclass(frozen=True)
class Mutant:
    """One injected bug: lines ``start..end`` (1-based, inclusive) of the original become ``new``."""

    kind: str
    func: str
    start: int
    end: int
    old: tuple[str, ...]
    new: tuple[str, ...]
    detail: str

    @property
    def key(self) -> str:
        """A stable name for this mutant within its module."""
        return f"{self.kind}@{self.start}:{stable_hash(chr(10).join(self.new)) % 100_000:05d}"

    def apply(self, source: str) -> str:
        """The mutated source (``source`` must be the original the mutant was made from)."""
        lines = source.splitlines(keepends=True)
        if tuple(lines[self.start - 1 : self.end]) != self.old:
            raise ValueError(f"mutant {self.key} does not match this source at lines {self.start}-{self.end}")
        return "".join(lines[: self.start - 1] + list(self.new) + lines[self.end :])

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "func": self.func,
            "start": self.start,
            "end": self.end,
            "old": list(self.old),
            "new": list(self.new),
            "detail": self.detail,
        }

    @classmethod
    def from_json(cls, d: dict) -> Mutant:
        return cls(d["kind"], d["func"], int(d["start"]), int(d["end"]), tuple(d["old"]), tuple(d["new"]), d["detail"])


_CMP_SYMBOL = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_CMP_FLIPS = {
    "<": ["<=", ">"],
    "<=": ["<", ">="],
    ">": [">=", "<"],
    ">=": [">", "<="],
    "==": ["!="],
    "!=": ["=="],
    "in": ["not in"],
    "not in": ["in"],
    "is": ["is not"],
    "is not": ["is"],
}
_CMP_TOKEN = re.compile(r"<=|>=|==|!=|<|>|not\s+in\b|is\s+not\b|\bin\b|\bis\b")
_BIN_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}
_BIN_SWAPS = {"+": "-", "-": "+", "*": "//", "/": "*", "//": "/", "%": "//", "**": "*"}
_BIN_TOKEN = re.compile(r"\*\*|//|[-+*/%]")


# --------------------------------------------------------------------------- site walk
def _walk(tree: ast.Module) -> Iterator[tuple[ast.AST, str, list[ast.stmt] | None]]:
    """Yield (node, enclosing function name, the statement list holding it if a statement)."""

    def visit(node: ast.AST, func: str, body: list[ast.stmt] | None) -> Iterator:
        if is_main_guard(node):
            return
        yield node, func, body
        inner = func
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = node.name if func == "<module>" else f"{func}.{node.name}"
        elif isinstance(node, ast.ClassDef):
            inner = node.name if func == "<module>" else f"{func}.{node.name}"
        for _field, value in ast.iter_fields(node):
            if isinstance(value, list):
                holder = value if value and isinstance(value[0], ast.stmt) else None
                for child in value:
                    if isinstance(child, ast.AST):
                        yield from visit(child, inner, holder)
            elif isinstance(value, ast.AST):
                yield from visit(value, inner, None)

    yield from visit(tree, "<module>", None)


def _sites(src: Source, tree: ast.Module) -> Iterator[tuple[str, str, list[Edit], str]]:
    """Yield (kind, func, edits, detail) for every mutation site of every operator."""
    docstrings = docstring_nodes(tree)
    handled_ints: set[int] = set()  # int literals an off-by-one already covers
    for node, func, body in _walk(tree):
        # ---- comparison flip
        if isinstance(node, ast.Compare) and one_line(node):
            operands = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                gap_a, gap_b = src.end(operands[i]), src.start(operands[i + 1])
                gap = src.segment(gap_a, gap_b)
                match = _CMP_TOKEN.search(gap)
                if "#" in gap or match is None:
                    continue
                sym = _CMP_SYMBOL[type(op)]
                for new in _CMP_FLIPS[sym]:
                    text = gap[: match.start()] + new + gap[match.end() :]
                    yield "comparison_flip", func, [(gap_a, gap_b, text)], f"`{sym}` -> `{new}`"
        # ---- off by one: range bounds, slice bounds, integer indexes
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "range"
            and node.args
            and not node.keywords
            and one_line(node)
            and len(node.args) <= 3
        ):
            stop = node.args[0] if len(node.args) == 1 else node.args[1]
            for delta in (1, -1):
                yield (
                    "off_by_one",
                    func,
                    [(src.start(stop), src.end(stop), plus_minus(src, stop, delta))],
                    f"range bound {'+' if delta > 0 else '-'}1",
                )
            if len(node.args) >= 2 and int_value(node.args[0]) == 0:
                start = node.args[0]
                yield "off_by_one", func, [(src.start(start), src.end(start), "1")], "range start 0 -> 1"
            handled_ints.update(id(a) for a in node.args)
        if isinstance(node, ast.Subscript) and one_line(node):
            index = node.slice
            if isinstance(index, ast.Slice):
                for bound, name in ((index.lower, "lower"), (index.upper, "upper")):
                    if bound is None:
                        continue
                    handled_ints.add(id(bound))
                    for delta in (1, -1):
                        yield (
                            "off_by_one",
                            func,
                            [(src.start(bound), src.end(bound), plus_minus(src, bound, delta))],
                            f"slice {name} bound {'+' if delta > 0 else '-'}1",
                        )
            elif int_value(index) is not None or isinstance(index, ast.Name):
                handled_ints.add(id(index))
                value = int_value(index)
                deltas = (1,) if value == 0 else (-1,) if value == -1 else (1, -1)
                for delta in deltas:
                    yield (
                        "off_by_one",
                        func,
                        [(src.start(index), src.end(index), plus_minus(src, index, delta))],
                        f"index {'+' if delta > 0 else '-'}1",
                    )
        # ---- arithmetic operator swap
        if (
            isinstance(node, ast.BinOp)
            and type(node.op) in _BIN_SYMBOL
            and one_line(node)
            and not (is_stringy(node.left) or is_stringy(node.right))
        ):
            gap_a, gap_b = src.end(node.left), src.start(node.right)
            gap = src.segment(gap_a, gap_b)
            match = _BIN_TOKEN.search(gap)
            sym = _BIN_SYMBOL[type(node.op)]
            if match and "#" not in gap and match.group() == sym:
                new = _BIN_SWAPS[sym]
                yield (
                    "arithmetic_swap",
                    func,
                    [(gap_a, gap_b, gap[: match.start()] + new + gap[match.end() :])],
                    f"`{sym}` -> `{new}`",
                )
        if (
            isinstance(node, ast.AugAssign)
            and type(node.op) in (ast.Add, ast.Sub)
            and one_line(node)
            and not is_stringy(node.value)
        ):
            gap_a, gap_b = src.end(node.target), src.start(node.value)
            gap = src.segment(gap_a, gap_b)
            sym = _BIN_SYMBOL[type(node.op)]
            if gap.strip() == sym + "=":
                new = _BIN_SWAPS[sym]
                yield (
                    "arithmetic_swap",
                    func,
                    [(gap_a, gap_b, gap.replace(sym + "=", new + "="))],
                    f"`{sym}=` -> `{new}=`",
                )
        # ---- boolean operator swap, dropped `not`, dropped condition
        if isinstance(node, ast.BoolOp) and one_line(node):
            old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            edits: list[Edit] = []
            for left, right in zip(node.values, node.values[1:]):
                gap_a, gap_b = src.end(left), src.start(right)
                gap = src.segment(gap_a, gap_b)
                if "#" in gap or len(re.findall(rf"\b{old}\b", gap)) != 1:
                    edits = []
                    break
                edits.append((gap_a, gap_b, re.sub(rf"\b{old}\b", new, gap, count=1)))
            if edits:
                yield "boolean_swap", func, edits, f"`{old}` -> `{new}`"
            for drop in (0, len(node.values) - 1):
                keep = [v for i, v in enumerate(node.values) if i != drop]
                text = src.segment(src.start(keep[0]), src.end(keep[-1]))
                yield (
                    "dropped_condition",
                    func,
                    [(src.start(node), src.end(node), text)],
                    f"dropped operand {drop + 1} of `{old}`",
                )
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and one_line(node):
            text = src.text_of(node)
            rest = text[3:].lstrip() if text.startswith("not") else None
            if rest:
                yield "boolean_swap", func, [(src.start(node), src.end(node), rest)], "dropped `not`"
        # ---- wrong constant
        if isinstance(node, ast.Constant) and id(node) not in handled_ints and one_line(node):
            if type(node.value) is bool:
                yield (
                    "wrong_constant",
                    func,
                    [(src.start(node), src.end(node), str(not node.value))],
                    f"`{node.value}` -> `{not node.value}`",
                )
            elif type(node.value) is int:
                new_value = {0: 1, 1: 0}.get(node.value, node.value + 1)
                yield (
                    "wrong_constant",
                    func,
                    [(src.start(node), src.end(node), str(new_value))],
                    f"`{node.value}` -> `{new_value}`",
                )
        # ---- swapped arguments
        if (
            isinstance(node, ast.Call)
            and len(node.args) >= 2
            and one_line(node)
            and not any(isinstance(a, ast.Starred) for a in node.args[:2])
        ):
            a, b = node.args[0], node.args[1]
            ta, tb = src.text_of(a), src.text_of(b)
            if ta != tb:
                yield (
                    "swapped_arguments",
                    func,
                    [(src.start(a), src.end(a), tb), (src.start(b), src.end(b), ta)],
                    "swapped the first two arguments",
                )
        # ---- statements: dropped branch, dropped statement, wrong return
        if isinstance(node, ast.stmt) and body is not None and id(node) not in docstrings and func != "<module>":
            yield from _statement_sites(src, node, func, body)


def _statement_sites(src: Source, node: ast.stmt, func: str, body: list[ast.stmt]) -> Iterator:
    if isinstance(node, ast.If) and owns_lines(src, node):
        if not node.orelse:
            yield "dropped_branch", func, [drop_lines(src, node, body)], "dropped an `if` block"
        elif not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)):
            else_at = else_line(src, node)
            if else_at:
                a = (else_at, 0)
                last = node_end(node.orelse[-1])[0]
                b = (last, len(src.lines[last - 1]))
                if b[0] == len(src.lines) or src.lines[b[0] - 1].endswith("\n"):
                    yield "dropped_branch", func, [(a, b, "")], "dropped an `else` branch"
        elif not node.orelse[0].orelse:
            elif_node = node.orelse[0]
            line = src.lines[elif_node.lineno - 1]
            if line.lstrip().startswith("elif"):
                a = (elif_node.lineno, 0)
                last = node_end(elif_node)[0]
                b = (last, len(src.lines[last - 1]))
                yield "dropped_branch", func, [(a, b, "")], "dropped an `elif` branch"
    if isinstance(node, (ast.AugAssign, ast.Expr)) and owns_lines(src, node):
        if isinstance(node, ast.AugAssign) or isinstance(node.value, ast.Call):
            yield "dropped_statement", func, [drop_lines(src, node, body)], "dropped a statement"
    if isinstance(node, ast.Return) and node.value is not None and one_line(node):
        value = node.value
        if isinstance(value, ast.Constant) and type(value.value) is bool:
            new = str(not value.value)
        elif isinstance(value, (ast.Compare, ast.BoolOp)):
            new = f"not ({src.text_of(value)})"
        elif isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
            return
        elif isinstance(value, ast.Constant) and value.value is None:
            return
        else:
            new = "None"
        yield "wrong_return", func, [(src.start(value), src.end(value), new)], f"returns `{new}`"


# --------------------------------------------------------------------------- public API
def enumerate_mutants(source: str) -> list[Mutant]:
    """Every syntactically valid, AST-changing mutant of ``source``, in a fixed order."""
    tree = ast.parse(source)
    reference = ast.dump(tree)
    src = Source(source)
    out: list[Mutant] = []
    seen: set[tuple[int, int, tuple[str, ...]]] = set()
    for kind, func, edits, detail in _sites(src, tree):
        first, last, new = src.edit(edits)
        old = tuple(src.lines[first - 1 : last])
        if new == old or (first, last, new) in seen:
            continue
        seen.add((first, last, new))
        mutated = "".join(src.lines[: first - 1] + list(new) + src.lines[last:])
        try:
            changed = ast.dump(ast.parse(mutated)) != reference
        except SyntaxError:
            continue
        if changed:
            out.append(Mutant(kind, func, first, last, old, new, detail))
    return out


def select_mutants(module: str, mutants: list[Mutant], limit: int) -> list[Mutant]:
    """Up to ``limit`` mutants, round-robin over kinds in a hash order fixed per module."""
    by_kind: dict[str, list[Mutant]] = {}
    for m in mutants:
        by_kind.setdefault(m.kind, []).append(m)
    for kind in by_kind:
        by_kind[kind].sort(key=lambda m: stable_hash(f"{module}/{m.key}"))
    chosen: list[Mutant] = []
    kinds = sorted(by_kind, key=lambda k: stable_hash(f"{module}/{k}"))
    while len(chosen) < limit and any(by_kind.values()):
        for kind in kinds:
            if by_kind[kind] and len(chosen) < limit:
                chosen.append(by_kind[kind].pop(0))
    return sorted(chosen, key=lambda m: (m.start, m.key))
