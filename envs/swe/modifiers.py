"""Procedural bug modifiers for real library code: SWE-smith's list, and Coding-v0's own two.

Every modifier finds sites in a module's AST and edits the *source text* at the node's exact
position (`agentgym.source_edits`), so a buggy file differs from the original only where the bug
is: comments, quotes and layout stay as the library's authors wrote them, and the fix is a small
diff. A candidate is kept only if it still parses and its AST differs from the original's;
whether a test catches it is decided later, in the sandbox, by the library's own suite
(`agentgym.envs.swe.generate`).

Modifiers (`MODIFIERS`), after SWE-smith's procedural ones:

- ``remove_conditional``: an ``if`` without ``else`` dropped whole, an ``else``/``elif`` branch
  dropped, or one operand of an ``and``/``or`` condition dropped (a missing check);
- ``remove_loop``: a ``for``/``while`` statement dropped;
- ``remove_assignment``: an assignment (plain, augmented or annotated with a value) dropped;
- ``remove_wrapper``: a ``with`` or ``try`` statement replaced by its body, dedented (handlers,
  ``else`` and ``finally`` dropped);
- ``invert_if``: the bodies of an ``if``/``else`` swapped, the condition kept;
- ``shuffle_statements``: two adjacent simple statements (assignments, calls, ...) swapped, only
  where one reads or writes a name the other writes, so their order matters (SWE-smith shuffles
  whole blocks, which mostly yields reorderings that change nothing or break everything, and
  large diffs);
- ``change_operator``: an arithmetic or bitwise operator replaced (``+`` and ``-``, ``*`` and
  ``//``, ``&`` and ``|``, ``<<`` and ``>>``, ...), in expressions and augmented assignments;
- ``flip_comparison``: a comparison operator replaced by its neighbour or negation (``<`` by
  ``<=`` or ``>``, ``==`` by ``!=``, ``in`` by ``not in``, ...);
- ``flip_boolean``: ``and`` and ``or`` exchanged, or a ``not`` dropped;
- ``swap_operands``: the operands of a non-commutative binary operator or an ordering comparison
  exchanged (``a - b`` becomes ``b - a``; parentheses added where precedence needs them; not
  string formatting, ``"%s" % x``);
- ``change_constant``: an int literal changed (0 and 1 exchanged, others plus one) or a bool
  literal negated;
- ``break_chain``: a link lost from a method chain (``s.strip().lower()`` becomes
  ``s.lower()``) or an operand from a chain of one binary operator (``a + b + c`` becomes
  ``a + c``);
- ``remove_base``: a base class dropped from a class statement;
- ``remove_method``: a method dropped from a class;

and Coding-v0's own:

- ``off_by_one``: a ``range`` bound, a slice bound or an index moved by one;
- ``wrong_return``: a returned value replaced (``True`` and ``False`` exchanged, a condition
  negated, anything else by ``None``).

SWE-smith's "shuffle methods" is left out: the order of ``def`` statements in a class body does
not change what the class does (each binds a name in the class namespace), so every such
candidate would be equivalent to the original and rejected by validation anyway; the exceptions
(a redefinition, a ``@x.setter`` before its getter) change the module's import, not a method's
behaviour.

**Complexity floor.** A function or method is modified only if its body holds at least
`MIN_STATEMENTS` statements (counted through nested blocks, not counting the docstring or
nested functions, which are judged on their own): bugs in one-line getters and trivial wrappers
are either not caught by any test or give the answer away in the first failure. A class-level
modifier (``remove_base``, ``remove_method``) applies to any class; ``remove_method`` removes
only methods that meet the floor and are not their class's only statement.

**Never modified**: docstrings, ``if __name__ == "__main__":`` blocks, type annotations
(parameters, returns, annotated assignments' annotations), decorators and default values
(evaluated once, at definition), f-strings, module-level and class-level statements other than
the class-level modifiers' targets, and test files (`is_test_path`).
"""

from __future__ import annotations

import ast
import bisect
import difflib
import hashlib
import io
import re
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

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
    split_lines,
)

__all__ = ["MIN_STATEMENTS", "MODIFIERS", "Modification", "enumerate_modifications", "is_test_path"]

MODIFIERS = (
    "remove_conditional",
    "remove_loop",
    "remove_assignment",
    "remove_wrapper",
    "invert_if",
    "shuffle_statements",
    "change_operator",
    "flip_comparison",
    "flip_boolean",
    "swap_operands",
    "change_constant",
    "break_chain",
    "remove_base",
    "remove_method",
    "off_by_one",
    "wrong_return",
)

MIN_STATEMENTS = 3
"""A function or method needs at least this many statements (docstring excluded) to be modified."""


@dataclass(frozen=True)
class Modification:
    """One injected bug in one file: lines ``first..last`` (1-based) of ``original`` become ``new_lines``.

    ``site`` numbers the candidates of one (``function``, ``modifier``) pair in source order, so
    ``(path, function, modifier, site)`` names a bug, and re-running `enumerate_modifications`
    on the same source rebuilds it (which is how SWE-v0 stores its tasks without the library's
    text: `agentgym.envs.swe.bugs`).
    """

    path: str
    function: str
    modifier: str
    site: int
    detail: str
    first: int
    last: int
    new_lines: tuple[str, ...]
    original: str = field(repr=False, compare=False)

    @property
    def key(self) -> str:
        """``path:function/modifier@site``: the bug's name in task ids."""
        return f"{self.path}:{self.function}/{self.modifier}@{self.site}"

    @cached_property
    def text(self) -> str:
        """The whole buggy file."""
        lines = split_lines(self.original)
        return "".join(lines[: self.first - 1] + list(self.new_lines) + lines[self.last :])

    @cached_property
    def patch(self) -> str:
        """A unified diff from the original file to the buggy one (``a/PATH``, ``b/PATH``)."""
        return unified_diff(self.original, self.text, self.path)

    @property
    def patch_sha256(self) -> str:
        return hashlib.sha256(self.patch.encode()).hexdigest()


def unified_diff(old: str, new: str, path: str) -> str:
    """``diff -u`` of two texts of ``path``, with git's marker for a last line without a newline."""
    out = []
    for line in difflib.unified_diff(split_lines(old), split_lines(new), f"a/{path}", f"b/{path}", n=3):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


_TEST_NAME = re.compile(r"(^|/)(tests?|testing)/|(^|/)(test_[^/]*|[^/]*_tests?|conftest)\.py$")


def is_test_path(path: str) -> bool:
    """True for a test file or a file in a test folder (``tests/``, ``test_*.py``, ``conftest.py``, ...)."""
    return bool(_TEST_NAME.search(path.replace("\\", "/")))


# --------------------------------------------------------------------------- operator tables
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
_BIN_SYMBOL: dict[type, str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
}
_BIN_CHANGES = {
    "+": "-",
    "-": "+",
    "*": "//",
    "/": "*",
    "//": "/",
    "%": "//",
    "**": "*",
    "&": "|",
    "|": "&",
    "^": "|",
    "<<": ">>",
    ">>": "<<",
}
_BIN_TOKEN = re.compile(r"\*\*|//|<<|>>|[-+*/%&|^]")
_AUG_CHANGES = {"+": "-", "-": "+", "&": "|", "|": "&"}
# binding strength of binary operators (higher binds tighter), for parentheses when operands move
_PRECEDENCE: dict[type, int] = {
    ast.BitOr: 1,
    ast.BitXor: 2,
    ast.BitAnd: 3,
    ast.LShift: 4,
    ast.RShift: 4,
    ast.Add: 5,
    ast.Sub: 5,
    ast.Mult: 6,
    ast.MatMult: 6,
    ast.Div: 6,
    ast.FloorDiv: 6,
    ast.Mod: 6,
    ast.Pow: 8,
}
# `b - a` is not `a - b`; `+` stays: strings, lists and tuples concatenate in order
_NON_COMMUTATIVE = (ast.Add, ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift, ast.MatMult)
_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_ATOMIC = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set)
_SKIPPED_FIELDS = frozenset({"annotation", "returns", "decorator_list", "type_params", "type_comment"})
# statements `shuffle_statements` moves: simple ones (a moved block makes a large diff), never a jump
_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Delete, ast.Assert, ast.Global, ast.Nonlocal)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


# --------------------------------------------------------------------------- the walk
@dataclass(frozen=True)
class _Scope:
    """Where a node is: its innermost function (qualname, None outside one) and its statement list."""

    function: str | None
    qualifies: bool
    body: list[ast.stmt] | None


def statement_count(func: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Statements in a function's body, through nested blocks (docstring and nested defs' bodies excluded)."""
    count = 0
    stack: list[ast.AST] = list(func.body)
    if ast.get_docstring(func, clean=False) is not None:
        stack = stack[1:]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.stmt):
            count += 1
            if isinstance(node, _DEFS):
                continue
        stack.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, (ast.stmt, ast.excepthandler)))
    return count


def _walk(tree: ast.Module) -> Iterator[tuple[ast.AST, _Scope]]:
    """Every node that may be modified, with its scope; skipped subtrees (see the module) are not entered."""
    docstrings = docstring_nodes(tree)

    def visit(node: ast.AST, prefix: str, scope: _Scope) -> Iterator[tuple[ast.AST, _Scope]]:
        if is_main_guard(node) or id(node) in docstrings or isinstance(node, ast.JoinedStr):
            return
        yield node, scope
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = prefix + node.name
            inner = (
                _Scope(name, statement_count(node) >= MIN_STATEMENTS, node.body)
                if not isinstance(node, ast.ClassDef)
                else _Scope(None, False, node.body)
            )
            for child in node.body:
                yield from visit(child, name + ".", inner)
            return
        if isinstance(node, ast.Lambda):  # its defaults are evaluated where it is defined: only its body
            yield from visit(node.body, prefix, _Scope(scope.function, scope.qualifies, None))
            return
        for name, value in ast.iter_fields(node):
            if name in _SKIPPED_FIELDS:
                continue
            if isinstance(value, list):
                holder = value if value and isinstance(value[0], ast.stmt) else None
                for child in value:
                    if isinstance(child, ast.AST):
                        yield from visit(child, prefix, _Scope(scope.function, scope.qualifies, holder))
            elif isinstance(value, ast.AST):
                yield from visit(value, prefix, _Scope(scope.function, scope.qualifies, None))

    for stmt in tree.body:
        yield from visit(stmt, "", _Scope(None, False, tree.body))


# --------------------------------------------------------------------------- sites
_ParensRule = Callable[[ast.expr], bool]
"""Whether an operand moved to the other side of an operator needs parentheses there."""

Site = tuple[str, str, list[Edit], str]
"""(modifier, function, edits, detail)."""


class _Sites:
    """Finds every site of every modifier in one module."""

    def __init__(self, src: Source, tree: ast.Module) -> None:
        self.src = src
        self.tree = tree
        self.handled_ints: set[int] = set()  # int literals an off-by-one already covers

    @cached_property
    def string_lines(self) -> set[int]:
        """Lines that continue a multi-line string (their leading whitespace is the string's content)."""
        lines: set[int] = set()
        try:
            for tok in tokenize.generate_tokens(io.StringIO(self.src.text).readline):
                if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
                    lines.update(range(tok.start[0] + 1, tok.end[0] + 1))
        except (tokenize.TokenError, SyntaxError):
            return set(range(1, len(self.src.lines) + 1))
        return lines

    def all(self) -> Iterator[Site]:
        for node, scope in _walk(self.tree):
            if isinstance(node, ast.ClassDef):
                yield from self.class_sites(node)
            if scope.function is None or not scope.qualifies:
                continue
            func = scope.function
            if isinstance(node, ast.stmt) and scope.body is not None:
                yield from self.statement_sites(node, func, scope.body)
            if isinstance(node, ast.expr):
                yield from self.expression_sites(node, func)

    # ---- statements
    def statement_sites(self, node: ast.stmt, func: str, body: list[ast.stmt]) -> Iterator[Site]:
        src = self.src
        owns = owns_lines(src, node)
        if isinstance(node, ast.If) and owns:
            yield from self.conditional_sites(node, func, body)
            yield from self.invert_sites(node, func)
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and owns:
            yield "remove_loop", func, [drop_lines(src, node, body)], f"dropped a `{_keyword(node)}` loop"
        if owns and (isinstance(node, (ast.Assign, ast.AugAssign)) or (isinstance(node, ast.AnnAssign) and node.value)):
            yield "remove_assignment", func, [drop_lines(src, node, body)], "dropped an assignment"
        if isinstance(node, (ast.With, ast.AsyncWith, ast.Try, ast.TryStar)) and owns:
            yield from self.wrapper_sites(node, func)
        yield from self.shuffle_sites(node, func, body)
        if isinstance(node, ast.AugAssign) and one_line(node) and not is_stringy(node.value):
            sym = _BIN_SYMBOL.get(type(node.op))
            gap_a, gap_b = src.end(node.target), src.start(node.value)
            gap = src.segment(gap_a, gap_b)
            if sym in _AUG_CHANGES and gap.strip() == sym + "=":
                new = _AUG_CHANGES[sym]
                edit = (gap_a, gap_b, gap.replace(sym + "=", new + "="))
                yield "change_operator", func, [edit], f"`{sym}=` -> `{new}=`"
        if isinstance(node, ast.Return) and node.value is not None and one_line(node):
            yield from self.return_sites(node.value, func)

    def conditional_sites(self, node: ast.If, func: str, body: list[ast.stmt]) -> Iterator[Site]:
        src = self.src
        if not node.orelse:
            yield "remove_conditional", func, [drop_lines(src, node, body)], "dropped an `if` block"
        elif not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)):
            else_at = else_line(src, node)
            if else_at:
                last = node_end(node.orelse[-1])[0]
                edit = ((else_at, 0), (last, len(src.lines[last - 1])), "")
                yield "remove_conditional", func, [edit], "dropped an `else` branch"
        elif not node.orelse[0].orelse:
            elif_node = node.orelse[0]
            if src.lines[elif_node.lineno - 1].lstrip().startswith("elif"):
                last = node_end(elif_node)[0]
                edit = ((elif_node.lineno, 0), (last, len(src.lines[last - 1])), "")
                yield "remove_conditional", func, [edit], "dropped an `elif` branch"

    def invert_sites(self, node: ast.If, func: str) -> Iterator[Site]:
        """``if c: A else: B`` becomes ``if c: B else: A`` (plain ``else`` only, not ``elif``)."""
        src = self.src
        if not node.orelse or (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)):
            return
        else_at = else_line(src, node)
        body_first, else_first = node.body[0].lineno, node.orelse[0].lineno
        if else_at is None or body_first == node.lineno or else_first == else_at:
            return  # a body on its header's line: not a block of lines to move
        body_last, else_last = node_end(node.body[-1])[0], node_end(node.orelse[-1])[0]
        if _indent(src.lines[body_first - 1]) != _indent(src.lines[else_first - 1]):
            return
        body_text = "".join(src.lines[body_first - 1 : body_last])
        else_text = "".join(src.lines[else_first - 1 : else_last])
        if not body_text.endswith("\n") or not else_text.endswith("\n"):
            return
        edits: list[Edit] = [
            ((body_first, 0), (body_last, len(src.lines[body_last - 1])), else_text),
            ((else_first, 0), (else_last, len(src.lines[else_last - 1])), body_text),
        ]
        yield "invert_if", func, edits, "swapped the `if` and `else` bodies"

    def wrapper_sites(self, node: ast.With | ast.AsyncWith | ast.Try | ast.TryStar, func: str) -> Iterator[Site]:
        """The statement replaced by its (dedented) body."""
        src = self.src
        if isinstance(node, (ast.With, ast.AsyncWith)):
            last_item = node.items[-1]
            header_end = node_end(last_item.optional_vars or last_item.context_expr)[0]
        else:
            header_end = node.lineno
        first_body = node.body[0].lineno
        if first_body <= header_end:
            return
        body_last = node_end(node.body[-1])[0]
        stmt_indent, body_indent = _indent(src.lines[node.lineno - 1]), _indent(src.lines[first_body - 1])
        if len(body_indent) <= len(stmt_indent) or not body_indent.startswith(stmt_indent):
            return
        moved = range(header_end + 1, body_last + 1)
        if any(line in self.string_lines for line in moved):
            return  # dedenting would change a multi-line string's content
        out = []
        for lineno in moved:
            line = src.lines[lineno - 1]
            if not line.strip():
                out.append(line)
            elif line.startswith(body_indent):
                out.append(stmt_indent + line[len(body_indent) :])
            else:
                return  # a comment or continuation line left of the block: no clean dedent
        last = node_end(node)[0]
        text = "".join(out)
        if not text.endswith("\n"):
            return
        edit = ((node.lineno, 0), (last, len(src.lines[last - 1])), text)
        yield "remove_wrapper", func, [edit], f"replaced a `{_keyword(node)}` statement by its body"

    def shuffle_sites(self, node: ast.stmt, func: str, body: list[ast.stmt]) -> Iterator[Site]:
        """``node`` and the statement after it swapped, when their order matters (a name flows between them)."""
        src = self.src
        index = next((i for i, s in enumerate(body) if s is node), None)
        if index is None or index + 1 >= len(body):
            return
        a, b = node, body[index + 1]
        if not all(isinstance(s, _SIMPLE) for s in (a, b)) or not (owns_lines(src, a) and owns_lines(src, b)):
            return
        a_last, b_last = node_end(a)[0], node_end(b)[0]
        if a.lineno == b.lineno or a_last >= b.lineno:
            return
        (a_reads, a_writes), (b_reads, b_writes) = _names(a), _names(b)
        if not (a_writes & b_reads or a_reads & b_writes or a_writes & b_writes):
            return
        a_text = "".join(src.lines[a.lineno - 1 : a_last])
        b_text = "".join(src.lines[b.lineno - 1 : b_last])
        if not a_text.endswith("\n") or not b_text.endswith("\n"):
            return
        edits: list[Edit] = [
            ((a.lineno, 0), (a_last, len(src.lines[a_last - 1])), b_text),
            ((b.lineno, 0), (b_last, len(src.lines[b_last - 1])), a_text),
        ]
        yield "shuffle_statements", func, edits, f"swapped the statements at lines {a.lineno} and {b.lineno}"

    def return_sites(self, value: ast.expr, func: str) -> Iterator[Site]:
        src = self.src
        if isinstance(value, ast.Constant) and type(value.value) is bool:
            new = str(not value.value)
        elif isinstance(value, (ast.Compare, ast.BoolOp)):
            new = f"not ({src.text_of(value)})"
        elif (isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)) or (
            isinstance(value, ast.Constant) and value.value is None
        ):
            return
        else:
            new = "None"
        yield "wrong_return", func, [(src.start(value), src.end(value), new)], f"returns `{new}`"

    # ---- expressions
    def expression_sites(self, node: ast.expr, func: str) -> Iterator[Site]:
        src = self.src
        if not one_line(node):
            return
        if isinstance(node, ast.Compare):
            yield from self.comparison_sites(node, func)
        yield from self.off_by_one_sites(node, func)
        if isinstance(node, ast.BinOp) and type(node.op) in _BIN_SYMBOL:
            yield from self.binop_sites(node, func)
        if isinstance(node, ast.BoolOp):
            yield from self.boolean_sites(node, func)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            text = src.text_of(node)
            rest = text[3:].lstrip() if text.startswith("not") else None
            if rest:
                yield "flip_boolean", func, [(src.start(node), src.end(node), rest)], "dropped `not`"
        if isinstance(node, ast.Constant) and id(node) not in self.handled_ints:
            if type(node.value) is bool:
                edit = (src.start(node), src.end(node), str(not node.value))
                yield "change_constant", func, [edit], f"`{node.value}` -> `{not node.value}`"
            elif type(node.value) is int:
                new_value = {0: 1, 1: 0}.get(node.value, node.value + 1)
                edit = (src.start(node), src.end(node), str(new_value))
                yield "change_constant", func, [edit], f"`{node.value}` -> `{new_value}`"
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
        ):
            link = node.value.func
            edit = (src.end(link.value), src.end(node.value), "")
            yield "break_chain", func, [edit], f"dropped `.{link.attr}(...)` from a method chain"

    def comparison_sites(self, node: ast.Compare, func: str) -> Iterator[Site]:
        src = self.src
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
                yield "flip_comparison", func, [(gap_a, gap_b, text)], f"`{sym}` -> `{new}`"
        if len(node.ops) == 1 and isinstance(node.ops[0], _ORDERING):
            left, right = node.left, node.comparators[0]
            yield from self.swap(node, left, right, func, _compare_operand)

    def binop_sites(self, node: ast.BinOp, func: str) -> Iterator[Site]:
        src = self.src
        sym = _BIN_SYMBOL[type(node.op)]
        gap_a, gap_b = src.end(node.left), src.start(node.right)
        gap = src.segment(gap_a, gap_b)
        match = _BIN_TOKEN.search(gap)
        if match and "#" not in gap and match.group() == sym and not (is_stringy(node.left) or is_stringy(node.right)):
            new = _BIN_CHANGES[sym]
            edit = (gap_a, gap_b, gap[: match.start()] + new + gap[match.end() :])
            yield "change_operator", func, [edit], f"`{sym}` -> `{new}`"
        if isinstance(node.op, _NON_COMMUTATIVE) and not (is_stringy(node.left) or is_stringy(node.right)):
            precedence = _PRECEDENCE[type(node.op)]
            yield from self.swap(
                node, node.left, node.right, func, lambda n: _binop_operand(n, precedence, isinstance(node.op, ast.Pow))
            )
        inner = node.left
        if isinstance(inner, ast.BinOp) and type(inner.op) is type(node.op) and one_line(inner):
            edit = (src.end(inner.left), src.end(inner.right), "")
            yield "break_chain", func, [edit], f"dropped an operand from a chain of `{sym}`"

    def swap(
        self, node: ast.expr, left: ast.expr, right: ast.expr, func: str, needs_parens: _ParensRule
    ) -> Iterator[Site]:
        src = self.src
        lt, rt = src.text_of(left), src.text_of(right)
        if lt == rt:
            return
        new_left = f"({rt})" if needs_parens(right) else rt
        new_right = f"({lt})" if needs_parens(left) else lt
        # an operand's own parentheses (inside the expression's span) move with it: `(a - b) - c` -> `c - (a - b)`
        (la, lb), (ra, rb) = (src.start(left), src.end(left)), (src.start(right), src.end(right))
        if (
            la > src.start(node)
            and src.segment((la[0], la[1] - 1), la) == "("
            and src.segment(lb, (lb[0], lb[1] + 1)) == ")"
        ):
            la, lb = (la[0], la[1] - 1), (lb[0], lb[1] + 1)
        if (
            rb < src.end(node)
            and src.segment((ra[0], ra[1] - 1), ra) == "("
            and src.segment(rb, (rb[0], rb[1] + 1)) == ")"
        ):
            ra, rb = (ra[0], ra[1] - 1), (rb[0], rb[1] + 1)
        edits: list[Edit] = [(la, lb, new_left), (ra, rb, new_right)]
        yield "swap_operands", func, edits, f"swapped the operands of `{_symbol(node)}`"

    def boolean_sites(self, node: ast.BoolOp, func: str) -> Iterator[Site]:
        src = self.src
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
            yield "flip_boolean", func, edits, f"`{old}` -> `{new}`"
        for drop in (0, len(node.values) - 1):
            keep = [v for i, v in enumerate(node.values) if i != drop]
            text = src.segment(src.start(keep[0]), src.end(keep[-1]))
            detail = f"dropped operand {drop + 1} of `{old}`"
            yield "remove_conditional", func, [(src.start(node), src.end(node), text)], detail

    def off_by_one_sites(self, node: ast.expr, func: str) -> Iterator[Site]:
        src = self.src
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "range"
            and node.args
            and not node.keywords
            and len(node.args) <= 3
        ):
            stop = node.args[0] if len(node.args) == 1 else node.args[1]
            for delta in (1, -1):
                edit = (src.start(stop), src.end(stop), plus_minus(src, stop, delta))
                yield "off_by_one", func, [edit], f"range bound {'+' if delta > 0 else '-'}1"
            if len(node.args) >= 2 and int_value(node.args[0]) == 0:
                start = node.args[0]
                yield "off_by_one", func, [(src.start(start), src.end(start), "1")], "range start 0 -> 1"
            self.handled_ints.update(id(getattr(a, "operand", a)) for a in node.args)
            self.handled_ints.update(id(a) for a in node.args)
        if isinstance(node, ast.Subscript):
            index = node.slice
            if isinstance(index, ast.Slice):
                for bound, name in ((index.lower, "lower"), (index.upper, "upper")):
                    if bound is None:
                        continue
                    self.handled_ints.update({id(bound), id(getattr(bound, "operand", bound))})
                    for delta in (1, -1):
                        edit = (src.start(bound), src.end(bound), plus_minus(src, bound, delta))
                        yield "off_by_one", func, [edit], f"slice {name} bound {'+' if delta > 0 else '-'}1"
            elif int_value(index) is not None or isinstance(index, ast.Name):
                self.handled_ints.update({id(index), id(getattr(index, "operand", index))})  # `-1` and its `1`
                value = int_value(index)
                deltas = (1,) if value == 0 else (-1,) if value == -1 else (1, -1)
                for delta in deltas:
                    edit = (src.start(index), src.end(index), plus_minus(src, index, delta))
                    yield "off_by_one", func, [edit], f"index {'+' if delta > 0 else '-'}1"

    # ---- classes
    def class_sites(self, node: ast.ClassDef) -> Iterator[Site]:
        src = self.src
        name = self.class_names[id(node)]
        bases = node.bases
        for i, base in enumerate(bases):
            if isinstance(base, ast.Name) and base.id == "object":
                continue
            if not one_line(base):
                continue
            if len(bases) == 1:
                edit = (src.start(base), src.end(base), "")
            elif i + 1 < len(bases):
                edit = (src.start(base), src.start(bases[i + 1]), "")
            else:
                edit = (src.end(bases[i - 1]), src.end(base), "")
            yield "remove_base", name, [edit], f"dropped the base class `{src.text_of(base)}`"
        methods = [s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if len(node.body) < 2:
            return
        later_decorators = {
            d.value.id
            for s in methods
            for d in s.decorator_list
            if isinstance(d, ast.Attribute) and isinstance(d.value, ast.Name)
        }
        for position, stmt in enumerate(node.body):
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) or statement_count(stmt) < MIN_STATEMENTS:
                continue
            if stmt.name in later_decorators:  # `@name.setter` needs it
                continue
            first = min([stmt.lineno] + [d.lineno for d in stmt.decorator_list])
            if not src.lines[first - 1].lstrip().startswith(("@", "def ", "async ")) or not owns_lines(src, stmt):
                continue
            end = node_end(stmt)[0]
            if position + 1 < len(node.body):  # the blank lines after it go with it (not after the last method)
                while end < len(src.lines) and not src.lines[end].strip():
                    end += 1
            edit = ((first, 0), (end, len(src.lines[end - 1])), "")
            yield "remove_method", f"{name}.{stmt.name}", [edit], f"removed the method `{stmt.name}`"

    @cached_property
    def class_names(self) -> dict[int, str]:
        """Qualnames of every class (``Outer.Inner``; a class in a function: ``func.Cls``)."""
        names: dict[int, str] = {}

        def visit(node: ast.AST, prefix: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    if isinstance(child, ast.ClassDef):
                        names[id(child)] = prefix + child.name
                    visit(child, prefix + child.name + ".")
                else:
                    visit(child, prefix)

        visit(self.tree, "")
        return names


def _binop_operand(node: ast.expr, precedence: int, power: bool) -> bool:
    """Whether an operand moved to the other side of a binary operator needs parentheses."""
    if isinstance(node, _ATOMIC):
        return False
    if isinstance(node, ast.BinOp):
        return _PRECEDENCE.get(type(node.op), 0) <= precedence
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return power  # `-x ** 2` is `-(x ** 2)`
    return True


def _compare_operand(node: ast.expr) -> bool:
    """Whether an operand moved across an ordering comparison needs parentheses."""
    if isinstance(node, (*_ATOMIC, ast.BinOp)):
        return False
    return not (isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not))


def _symbol(node: ast.expr) -> str:
    if isinstance(node, ast.BinOp):
        return _BIN_SYMBOL.get(type(node.op), "@")
    assert isinstance(node, ast.Compare)
    return _CMP_SYMBOL[type(node.ops[0])]


def _keyword(node: ast.stmt) -> str:
    return {
        ast.For: "for",
        ast.AsyncFor: "async for",
        ast.While: "while",
        ast.With: "with",
        ast.AsyncWith: "async with",
        ast.Try: "try",
        ast.TryStar: "try",
    }[type(node)]


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _ref(node: ast.expr) -> str | None:
    """``x`` or ``self.x.y`` for a name or an attribute chain on a name, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _ref(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def _names(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    """(names and attribute chains a statement reads, those it writes)."""
    reads: set[str] = set()
    writes: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, (ast.Name, ast.Attribute)):
            ref = _ref(node)
            if ref is None:
                continue
            (writes if isinstance(node.ctx, (ast.Store, ast.Del)) else reads).add(ref)
        elif isinstance(node, ast.AugAssign):
            ref = _ref(node.target)
            if ref is not None:
                reads.add(ref)
    # `self.items.append(x)` changes `self.items`: a method call on a chain counts as a write to it
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            ref = _ref(node.func.value)
            if ref is not None:
                writes.add(ref)
    return reads, writes


# --------------------------------------------------------------------------- public API
class _Regions:
    """Where a candidate is re-parsed: only the innermost function it edits, else its top-level statement.

    Statements of one function parse independently of the rest of the file, so a candidate that
    parses there parses everywhere; checking only that span keeps enumeration over a large module
    fast (a whole-file parse and AST dump per candidate took seconds per file).
    """

    def __init__(self, src: Source, tree: ast.Module) -> None:
        self.src = src
        self.functions: list[tuple[int, int, str]] = []  # (def line, last line, the prefix that re-indents it)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                before = src.lines[node.lineno - 1][: src.col(node.lineno, node.col_offset)]
                if not before.strip():
                    self.functions.append((node.lineno, node_end(node)[0], "if 1:\n" if before else ""))
        self.top: list[tuple[int, int]] = []
        for stmt in tree.body:
            first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
            self.top.append((first, node_end(stmt)[0]))
        self.top_starts = [a for a, _ in self.top]
        self.dumps: dict[tuple[int, int], str] = {}

    def span(self, first: int, last: int) -> tuple[int, int, str] | None:
        inside = [f for f in self.functions if f[0] < first and last <= f[1]]
        if inside:
            return min(inside, key=lambda f: f[1] - f[0])
        i = bisect.bisect_right(self.top_starts, first) - 1
        if i >= 0 and last <= self.top[i][1]:
            return (*self.top[i], "")
        return None

    def check(self, first: int, last: int, new: tuple[str, ...]) -> bool:
        """Whether the edited text parses and differs in AST from the original's."""
        lines = self.src.lines
        span = self.span(first, last)
        if span is None:  # across top-level statements: the whole file
            return _parses_differently(self.src.text, "".join(lines[: first - 1] + list(new) + lines[last:]))
        a, b, prefix = span
        if (a, b) not in self.dumps:
            self.dumps[(a, b)] = ast.dump(ast.parse(prefix + "".join(lines[a - 1 : b])))
        text = prefix + "".join(lines[a - 1 : first - 1] + list(new) + lines[last:b])
        try:
            return ast.dump(ast.parse(text)) != self.dumps[(a, b)]
        except (SyntaxError, ValueError):
            return False


def _parses_differently(old: str, new: str) -> bool:
    try:
        return ast.dump(ast.parse(new)) != ast.dump(ast.parse(old))
    except (SyntaxError, ValueError):
        return False


def enumerate_modifications(source: str, path: str) -> list[Modification]:
    """Every modification of ``source`` (the file at ``path``, relative to the library's root), in a fixed order.

    Source order (a node's sites before its children's; the modifiers of one node in a fixed
    order); ``site`` counts per (function, modifier). Every candidate parses and differs in AST
    from the original; two that would give the same file are one (the first). A test file gives
    none (`is_test_path`); a file that does not parse raises `SyntaxError`.
    """
    if is_test_path(path):
        return []
    tree = ast.parse(source)
    src = Source(source)
    regions = _Regions(src, tree)
    out: list[Modification] = []
    seen: set[tuple[int, int, tuple[str, ...]]] = set()
    counts: dict[tuple[str, str], int] = {}
    for modifier, func, edits, detail in _Sites(src, tree).all():
        first, last, new = src.edit(edits)
        if new == tuple(src.lines[first - 1 : last]) or (first, last, new) in seen:
            continue
        seen.add((first, last, new))
        if not regions.check(first, last, new):
            continue
        site = counts.get((func, modifier), 0)
        counts[(func, modifier)] = site + 1
        out.append(Modification(path, func, modifier, site, detail, first, last, new, source))
    return out
