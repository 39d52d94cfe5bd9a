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


# --------------------------------------------------------------------------- source positions
class _Source:
    """Maps AST positions (UTF-8 byte columns) to text, and applies edits to whole lines."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True)

    def col(self, lineno: int, byte_col: int) -> int:
        return len(self.lines[lineno - 1].encode()[:byte_col].decode("utf-8", "replace"))

    def start(self, node: ast.stmt | ast.expr) -> tuple[int, int]:
        return node.lineno, self.col(node.lineno, node.col_offset)

    def end(self, node: ast.stmt | ast.expr) -> tuple[int, int]:
        line, col = _end(node)
        return line, self.col(line, col)

    def segment(self, a: tuple[int, int], b: tuple[int, int]) -> str:
        if a[0] == b[0]:
            return self.lines[a[0] - 1][a[1] : b[1]]
        parts = [self.lines[a[0] - 1][a[1] :]] + self.lines[a[0] : b[0] - 1] + [self.lines[b[0] - 1][: b[1]]]
        return "".join(parts)

    def text_of(self, node: ast.stmt | ast.expr) -> str:
        return self.segment(self.start(node), self.end(node))

    def edit(self, edits: list[tuple[tuple[int, int], tuple[int, int], str]]) -> tuple[int, int, tuple[str, ...]]:
        """Apply non-overlapping (start, end, replacement) edits; return (first, last, new lines)."""
        first = min(a[0] for a, _, _ in edits)
        last = max(b[0] for _, b, _ in edits)
        block = "".join(self.lines[first - 1 : last])
        offsets = [0]
        for line in self.lines[first - 1 : last]:
            offsets.append(offsets[-1] + len(line))

        def flat(pos: tuple[int, int]) -> int:
            return offsets[pos[0] - first] + pos[1]

        for a, b, text in sorted(edits, key=lambda e: flat(e[0]), reverse=True):
            block = block[: flat(a)] + text + block[flat(b) :]
        return first, last, tuple(block.splitlines(keepends=True))


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
_ATOMIC = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Tuple, ast.Dict)


def _plus_minus(src: _Source, node: ast.expr, delta: int) -> str:
    """Source text for ``node + delta``, folded into the literal when the node is an int literal."""
    value = _int_value(node)
    if value is not None:
        return str(value + delta)
    text = src.text_of(node)
    if not (isinstance(node, _ATOMIC) or (isinstance(node, ast.BinOp) and type(node.op) in _BIN_SYMBOL)):
        text = f"({text})"
    return f"{text} {'+' if delta > 0 else '-'} {abs(delta)}"


def _int_value(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    return None


def _end(node: ast.stmt | ast.expr) -> tuple[int, int]:
    """Where a parsed node ends (line, byte column); typeshed allows None, for nodes built by hand."""
    assert node.end_lineno is not None and node.end_col_offset is not None, ast.dump(node)[:80]
    return node.end_lineno, node.end_col_offset


def _one_line(node: ast.AST) -> bool:
    lineno = getattr(node, "lineno", None)
    return lineno is not None and lineno == getattr(node, "end_lineno", None)


def _is_stringy(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))


# --------------------------------------------------------------------------- site walk
def _walk(tree: ast.Module) -> Iterator[tuple[ast.AST, str, list[ast.stmt] | None]]:
    """Yield (node, enclosing function name, the statement list holding it if a statement)."""

    def visit(node: ast.AST, func: str, body: list[ast.stmt] | None) -> Iterator:
        if _is_main_guard(node):
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


def _is_main_guard(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
    )


def _docstring_nodes(tree: ast.Module) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                ids.add(id(first))
    return ids


Edit = tuple[tuple[int, int], tuple[int, int], str]


def _sites(src: _Source, tree: ast.Module) -> Iterator[tuple[str, str, list[Edit], str]]:
    """Yield (kind, func, edits, detail) for every mutation site of every operator."""
    docstrings = _docstring_nodes(tree)
    handled_ints: set[int] = set()  # int literals an off-by-one already covers
    for node, func, body in _walk(tree):
        # ---- comparison flip
        if isinstance(node, ast.Compare) and _one_line(node):
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
            and _one_line(node)
            and len(node.args) <= 3
        ):
            stop = node.args[0] if len(node.args) == 1 else node.args[1]
            for delta in (1, -1):
                yield (
                    "off_by_one",
                    func,
                    [(src.start(stop), src.end(stop), _plus_minus(src, stop, delta))],
                    f"range bound {'+' if delta > 0 else '-'}1",
                )
            if len(node.args) >= 2 and _int_value(node.args[0]) == 0:
                start = node.args[0]
                yield "off_by_one", func, [(src.start(start), src.end(start), "1")], "range start 0 -> 1"
            handled_ints.update(id(a) for a in node.args)
        if isinstance(node, ast.Subscript) and _one_line(node):
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
                            [(src.start(bound), src.end(bound), _plus_minus(src, bound, delta))],
                            f"slice {name} bound {'+' if delta > 0 else '-'}1",
                        )
            elif _int_value(index) is not None or isinstance(index, ast.Name):
                handled_ints.add(id(index))
                value = _int_value(index)
                deltas = (1,) if value == 0 else (-1,) if value == -1 else (1, -1)
                for delta in deltas:
                    yield (
                        "off_by_one",
                        func,
                        [(src.start(index), src.end(index), _plus_minus(src, index, delta))],
                        f"index {'+' if delta > 0 else '-'}1",
                    )
        # ---- arithmetic operator swap
        if (
            isinstance(node, ast.BinOp)
            and type(node.op) in _BIN_SYMBOL
            and _one_line(node)
            and not (_is_stringy(node.left) or _is_stringy(node.right))
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
            and _one_line(node)
            and not _is_stringy(node.value)
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
        if isinstance(node, ast.BoolOp) and _one_line(node):
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
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and _one_line(node):
            text = src.text_of(node)
            rest = text[3:].lstrip() if text.startswith("not") else None
            if rest:
                yield "boolean_swap", func, [(src.start(node), src.end(node), rest)], "dropped `not`"
        # ---- wrong constant
        if isinstance(node, ast.Constant) and id(node) not in handled_ints and _one_line(node):
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
            and _one_line(node)
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


def _statement_sites(src: _Source, node: ast.stmt, func: str, body: list[ast.stmt]) -> Iterator:
    if isinstance(node, ast.If) and _owns_lines(src, node):
        if not node.orelse:
            yield "dropped_branch", func, [_drop_lines(src, node, body)], "dropped an `if` block"
        elif not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)):
            else_line = _else_line(src, node)
            if else_line:
                a = (else_line, 0)
                last = _end(node.orelse[-1])[0]
                b = (last, len(src.lines[last - 1]))
                if b[0] == len(src.lines) or src.lines[b[0] - 1].endswith("\n"):
                    yield "dropped_branch", func, [(a, b, "")], "dropped an `else` branch"
        elif not node.orelse[0].orelse:
            elif_node = node.orelse[0]
            line = src.lines[elif_node.lineno - 1]
            if line.lstrip().startswith("elif"):
                a = (elif_node.lineno, 0)
                last = _end(elif_node)[0]
                b = (last, len(src.lines[last - 1]))
                yield "dropped_branch", func, [(a, b, "")], "dropped an `elif` branch"
    if isinstance(node, (ast.AugAssign, ast.Expr)) and _owns_lines(src, node):
        if isinstance(node, ast.AugAssign) or isinstance(node.value, ast.Call):
            yield "dropped_statement", func, [_drop_lines(src, node, body)], "dropped a statement"
    if isinstance(node, ast.Return) and node.value is not None and _one_line(node):
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


def _owns_lines(src: _Source, node: ast.stmt) -> bool:
    """True when the statement's lines hold nothing else (so they can be dropped whole)."""
    before = src.lines[node.lineno - 1][: src.col(node.lineno, node.col_offset)]
    end_line, end_col = _end(node)
    after = src.lines[end_line - 1][src.col(end_line, end_col) :]
    return not before.strip() and (not after.strip() or after.strip().startswith("#"))


def _drop_lines(src: _Source, node: ast.stmt, body: list[ast.stmt]) -> Edit:
    a = (node.lineno, 0)
    end_line = _end(node)[0]
    b = (end_line, len(src.lines[end_line - 1]))
    if len(body) == 1:  # the block would be empty: keep it valid with `pass`
        indent = src.lines[node.lineno - 1][: src.col(node.lineno, node.col_offset)]
        return a, b, indent + "pass\n"
    return a, b, ""


def _else_line(src: _Source, node: ast.If) -> int | None:
    for lineno in range(_end(node.body[-1])[0] + 1, node.orelse[0].lineno + 1):
        stripped = src.lines[lineno - 1].strip()
        if stripped.startswith("else") and stripped[4:].lstrip().startswith(":"):
            return lineno
    return None


# --------------------------------------------------------------------------- public API
def enumerate_mutants(source: str) -> list[Mutant]:
    """Every syntactically valid, AST-changing mutant of ``source``, in a fixed order."""
    tree = ast.parse(source)
    reference = ast.dump(tree)
    src = _Source(source)
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
