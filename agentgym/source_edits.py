"""Edits to Python source text at AST positions: what every family that injects bugs shares.

A bug injected into a module should differ from the original only where the bug is: comments,
quotes and layout stay as the author wrote them, and the fix is a small diff. So an edit is made
on the *text*, at the exact position the AST gives for a node (UTF-8 byte columns mapped to
characters), never by unparsing a modified tree. Coding-v0's mutation operators
(`agentgym.envs.coding.mutations`) and SWE-v0's modifiers (`agentgym.envs.swe.modifiers`) both
build on these helpers; stdlib only.
"""

from __future__ import annotations

import ast
import re

__all__ = [
    "Edit",
    "Source",
    "docstring_nodes",
    "drop_lines",
    "else_line",
    "int_value",
    "is_main_guard",
    "is_stringy",
    "node_end",
    "one_line",
    "owns_lines",
    "plus_minus",
    "split_lines",
]

Position = tuple[int, int]
"""(1-based line, 0-based character column)."""

Edit = tuple[Position, Position, str]
"""Replace the text from ``start`` to ``end`` with a string."""


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(text: str) -> list[str]:
    """Lines as Python's tokenizer counts them, ends kept: ``str.splitlines`` would also split at
    form feeds and other separators that real source files hold inside a line."""
    return _LINE.findall(text)


class Source:
    """Maps AST positions (UTF-8 byte columns) to text, and applies edits to whole lines."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = split_lines(text)

    def col(self, lineno: int, byte_col: int) -> int:
        return len(self.lines[lineno - 1].encode()[:byte_col].decode("utf-8", "replace"))

    def start(self, node: ast.stmt | ast.expr) -> Position:
        return node.lineno, self.col(node.lineno, node.col_offset)

    def end(self, node: ast.stmt | ast.expr) -> Position:
        line, col = node_end(node)
        return line, self.col(line, col)

    def segment(self, a: Position, b: Position) -> str:
        if a[0] == b[0]:
            return self.lines[a[0] - 1][a[1] : b[1]]
        parts = [self.lines[a[0] - 1][a[1] :]] + self.lines[a[0] : b[0] - 1] + [self.lines[b[0] - 1][: b[1]]]
        return "".join(parts)

    def text_of(self, node: ast.stmt | ast.expr) -> str:
        return self.segment(self.start(node), self.end(node))

    def edit(self, edits: list[Edit]) -> tuple[int, int, tuple[str, ...]]:
        """Apply non-overlapping (start, end, replacement) edits; return (first, last, new lines)."""
        first = min(a[0] for a, _, _ in edits)
        last = max(b[0] for _, b, _ in edits)
        block = "".join(self.lines[first - 1 : last])
        offsets = [0]
        for line in self.lines[first - 1 : last]:
            offsets.append(offsets[-1] + len(line))

        def flat(pos: Position) -> int:
            return offsets[pos[0] - first] + pos[1]

        for a, b, text in sorted(edits, key=lambda e: flat(e[0]), reverse=True):
            block = block[: flat(a)] + text + block[flat(b) :]
        return first, last, tuple(split_lines(block))


_ATOMIC = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Tuple, ast.Dict)
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def plus_minus(src: Source, node: ast.expr, delta: int) -> str:
    """Source text for ``node + delta``, folded into the literal when the node is an int literal."""
    value = int_value(node)
    if value is not None:
        return str(value + delta)
    text = src.text_of(node)
    if not (isinstance(node, _ATOMIC) or (isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC))):
        text = f"({text})"
    return f"{text} {'+' if delta > 0 else '-'} {abs(delta)}"


def int_value(node: ast.AST) -> int | None:
    """The value of an int literal (``3``, ``-3``), else None (bools are not ints here)."""
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


def node_end(node: ast.stmt | ast.expr) -> tuple[int, int]:
    """Where a parsed node ends (line, byte column); typeshed allows None, for nodes built by hand."""
    assert node.end_lineno is not None and node.end_col_offset is not None, ast.dump(node)[:80]
    return node.end_lineno, node.end_col_offset


def one_line(node: ast.AST) -> bool:
    lineno = getattr(node, "lineno", None)
    return lineno is not None and lineno == getattr(node, "end_lineno", None)


def is_stringy(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))


def is_main_guard(node: ast.AST) -> bool:
    """``if __name__ == "__main__":`` (a script's entry point, never a bug site)."""
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
    )


def docstring_nodes(tree: ast.Module) -> set[int]:
    """``id()`` of every docstring statement in ``tree`` (module, class and function docstrings)."""
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


def owns_lines(src: Source, node: ast.stmt) -> bool:
    """True when the statement's lines hold nothing else (so they can be dropped whole)."""
    before = src.lines[node.lineno - 1][: src.col(node.lineno, node.col_offset)]
    end_line, end_col = node_end(node)
    after = src.lines[end_line - 1][src.col(end_line, end_col) :]
    return not before.strip() and (not after.strip() or after.strip().startswith("#"))


def drop_lines(src: Source, node: ast.stmt, body: list[ast.stmt]) -> Edit:
    """The edit that drops a statement's lines (``pass`` in its place when it is its block's only one)."""
    a = (node.lineno, 0)
    end_line = node_end(node)[0]
    b = (end_line, len(src.lines[end_line - 1]))
    if len(body) == 1:  # the block would be empty: keep it valid with `pass`
        indent = src.lines[node.lineno - 1][: src.col(node.lineno, node.col_offset)]
        return a, b, indent + "pass\n"
    return a, b, ""


def else_line(src: Source, node: ast.If) -> int | None:
    """The line of an ``if``'s ``else:`` (None when there is no plain ``else``)."""
    for lineno in range(node_end(node.body[-1])[0] + 1, node.orelse[0].lineno + 1):
        stripped = src.lines[lineno - 1].strip()
        if stripped.startswith("else") and stripped[4:].lstrip().startswith(":"):
            return lineno
    return None
