"""SWE-v0's bug modifiers: each one's exact edit on a small module, what is never modified, determinism."""

from __future__ import annotations

import ast

import pytest

from agentgym.envs.swe.modifiers import (
    MIN_STATEMENTS,
    MODIFIERS,
    Modification,
    enumerate_modifications,
    is_test_path,
    statement_count,
)

MODULE = '''\
import os


class Base:
    pass


class Stack(Base):
    """A stack."""

    def push(self, item):
        """Docstring with 1 < 2 stays."""
        if item is None:
            raise ValueError("no item")
        self.items.append(item)
        self.size += 1
        return True

    def drain(self, n: int = 3) -> list:
        out = []
        total = 0
        for i in range(n):
            total = total + i * 2
        while self.items and not self.done:
            n -= 1
        with self.lock:  # held while reading
            out.append(self.items[0])
        try:
            value = self.items[-1]
        except IndexError:
            value = None
        if total > 4:
            out.append(value)
        else:
            out.append(total - n)
        label = self.name.strip().lower()
        out.append(label)
        return out[1:]


def small(x):
    return x + 1


if __name__ == "__main__":
    print(small(1) + 2)
'''


def _edits(source: str = MODULE) -> dict[str, set[tuple[str, str, str]]]:
    """modifier -> {(function, original lines, new lines)}."""
    lines = source.splitlines(keepends=True)
    out: dict[str, set[tuple[str, str, str]]] = {}
    for m in enumerate_modifications(source, "pkg/stack.py"):
        out.setdefault(m.modifier, set()).add((m.function, "".join(lines[m.first - 1 : m.last]), "".join(m.new_lines)))
    return out


@pytest.mark.parametrize(
    "modifier, function, before, after",
    [
        ("remove_conditional", "Stack.push", '        if item is None:\n            raise ValueError("no item")\n', ""),
        ("remove_conditional", "Stack.drain", "        else:\n            out.append(total - n)\n", ""),
        (
            "remove_conditional",
            "Stack.drain",
            "        while self.items and not self.done:\n",
            "        while not self.done:\n",
        ),
        ("remove_loop", "Stack.drain", "        for i in range(n):\n            total = total + i * 2\n", ""),
        ("remove_loop", "Stack.drain", "        while self.items and not self.done:\n            n -= 1\n", ""),
        ("remove_assignment", "Stack.drain", "        total = 0\n", ""),
        ("remove_assignment", "Stack.drain", "            n -= 1\n", "            pass\n"),
        (
            "remove_wrapper",
            "Stack.drain",
            "        with self.lock:  # held while reading\n            out.append(self.items[0])\n",
            "        out.append(self.items[0])\n",
        ),
        (
            "remove_wrapper",
            "Stack.drain",
            "        try:\n            value = self.items[-1]\n        except IndexError:\n            value = None\n",
            "        value = self.items[-1]\n",
        ),
        (
            "invert_if",
            "Stack.drain",
            "            out.append(value)\n        else:\n            out.append(total - n)\n",
            "            out.append(total - n)\n        else:\n            out.append(value)\n",
        ),
        (
            "shuffle_statements",
            "Stack.drain",
            "        label = self.name.strip().lower()\n        out.append(label)\n",
            "        out.append(label)\n        label = self.name.strip().lower()\n",
        ),
        ("change_operator", "Stack.push", "        self.size += 1\n", "        self.size -= 1\n"),
        (
            "change_operator",
            "Stack.drain",
            "            total = total + i * 2\n",
            "            total = total - i * 2\n",
        ),
        (
            "change_operator",
            "Stack.drain",
            "            total = total + i * 2\n",
            "            total = total + i // 2\n",
        ),
        ("flip_comparison", "Stack.push", "        if item is None:\n", "        if item is not None:\n"),
        ("flip_comparison", "Stack.drain", "        if total > 4:\n", "        if total >= 4:\n"),
        ("flip_comparison", "Stack.drain", "        if total > 4:\n", "        if total < 4:\n"),
        (
            "flip_boolean",
            "Stack.drain",
            "        while self.items and not self.done:\n",
            "        while self.items or not self.done:\n",
        ),
        (
            "flip_boolean",
            "Stack.drain",
            "        while self.items and not self.done:\n",
            "        while self.items and self.done:\n",
        ),
        ("swap_operands", "Stack.drain", "            out.append(total - n)\n", "            out.append(n - total)\n"),
        ("swap_operands", "Stack.drain", "            total = total + i * 2\n", "            total = i * 2 + total\n"),
        ("swap_operands", "Stack.drain", "        if total > 4:\n", "        if 4 > total:\n"),
        ("change_constant", "Stack.drain", "        total = 0\n", "        total = 1\n"),
        ("change_constant", "Stack.drain", "        if total > 4:\n", "        if total > 5:\n"),
        ("change_constant", "Stack.push", "        self.size += 1\n", "        self.size += 0\n"),
        (
            "break_chain",
            "Stack.drain",
            "        label = self.name.strip().lower()\n",
            "        label = self.name.lower()\n",
        ),
        ("remove_base", "Stack", "class Stack(Base):\n", "class Stack():\n"),
        ("off_by_one", "Stack.drain", "        for i in range(n):\n", "        for i in range(n + 1):\n"),
        ("off_by_one", "Stack.drain", "            value = self.items[-1]\n", "            value = self.items[-2]\n"),
        ("off_by_one", "Stack.drain", "        return out[1:]\n", "        return out[0:]\n"),
        ("wrong_return", "Stack.push", "        return True\n", "        return False\n"),
        ("wrong_return", "Stack.drain", "        return out[1:]\n", "        return None\n"),
    ],
)
def test_each_modifier_edits_only_its_site(modifier, function, before, after):
    assert (function, before, after) in _edits()[modifier]


def test_remove_method_takes_the_blank_lines_after_it_but_not_its_neighbours():
    (push,) = [e for e in _edits()["remove_method"] if e[0] == "Stack.push"]
    assert push[1].startswith("    def push(self, item):\n") and push[1].endswith("        return True\n\n")
    assert push[2] == ""


def test_every_modifier_has_a_site_in_the_module_and_every_candidate_is_a_real_change():
    mods = enumerate_modifications(MODULE, "pkg/stack.py")
    assert {m.modifier for m in mods} == set(MODIFIERS)
    reference = ast.dump(ast.parse(MODULE))
    for m in mods:
        assert ast.dump(ast.parse(m.text)) != reference, m.key
        assert "1 < 2" in m.text or m.modifier == "remove_method"  # docstrings are never modified
        assert m.patch.startswith("--- a/pkg/stack.py\n+++ b/pkg/stack.py\n@@ "), m.key


def test_annotations_defaults_main_guard_and_small_functions_are_never_modified():
    lines = MODULE.splitlines(keepends=True)
    protected = {i + 1 for i, line in enumerate(lines) if "def drain" in line or "def small" in line}
    protected |= set(range(next(i for i, line in enumerate(lines) if "__main__" in line) + 1, len(lines) + 1))
    for m in enumerate_modifications(MODULE, "pkg/stack.py"):
        if m.modifier == "remove_method":
            continue  # removes a whole method, its header included
        assert not protected & set(range(m.first, m.last + 1)), m.key
        assert m.function != "small"
    assert statement_count(ast.parse(MODULE).body[-2]) < MIN_STATEMENTS  # `small`


def test_sites_are_numbered_per_function_and_modifier_and_the_order_is_fixed():
    first = enumerate_modifications(MODULE, "pkg/stack.py")
    assert first == enumerate_modifications(MODULE, "pkg/stack.py")
    assert [m.patch_sha256 for m in first] == [m.patch_sha256 for m in enumerate_modifications(MODULE, "pkg/stack.py")]
    seen: dict[tuple[str, str], list[int]] = {}
    for m in first:
        seen.setdefault((m.function, m.modifier), []).append(m.site)
    assert all(sites == list(range(len(sites))) for sites in seen.values())
    assert len({m.key for m in first}) == len(first)
    assert len({m.text for m in first}) == len(first)  # two edits that give the same file are one


def test_layout_and_comments_survive_and_the_patch_is_one_small_hunk():
    (m,) = [
        m for m in enumerate_modifications(MODULE, "pkg/stack.py") if m.key == "pkg/stack.py:Stack.drain/wrong_return@0"
    ]
    assert isinstance(m, Modification) and m.detail == "returns `None`"
    assert m.text == MODULE.replace("        return out[1:]\n", "        return None\n")
    body = m.patch.splitlines()[2:]
    assert body[0].startswith("@@ ") and [line for line in body if line[:1] in "+-"] == [
        "-        return out[1:]",
        "+        return None",
    ]


def test_remove_wrapper_leaves_multiline_strings_alone():
    source = (
        'def f(lock, out):\n    out.clear()\n    with lock:\n        out.append("""a\n        b""")\n    return out\n'
    )
    assert "remove_wrapper" not in _edits(source)


def test_shuffle_needs_a_name_flowing_between_the_statements():
    independent = "def f(a, b):\n    x = a + 1\n    y = b + 1\n    return x, y\n"
    assert "shuffle_statements" not in _edits(independent)
    dependent = "def f(a, b):\n    x = a + 1\n    y = x + b\n    return x, y\n"
    assert _edits(dependent)["shuffle_statements"] == {
        ("f", "    x = a + 1\n    y = x + b\n", "    y = x + b\n    x = a + 1\n")
    }


def test_swapped_operands_keep_their_grouping():
    source = "def f(a, b, c):\n    x = a - b\n    y = (a - b) - c\n    return x ** -y\n"
    after = {e[2] for e in _edits(source)["swap_operands"]}
    assert "    y = c - (a - b)\n" in after  # `c - a - b` would be another expression
    assert "    return (-y) ** x\n" in after


def test_break_chain_drops_a_middle_operand():
    source = "def f(a, b, c):\n    x = a + b + c\n    y = x * 2\n    return y\n"
    assert ("f", "    x = a + b + c\n", "    x = a + c\n") in _edits(source)["break_chain"]


@pytest.mark.parametrize(
    "path, is_test",
    [
        ("tests/test_core.py", True),
        ("pkg/tests/helpers.py", True),
        ("pkg/test_io.py", True),
        ("pkg/io_test.py", True),
        ("conftest.py", True),
        ("pkg/testing/utils.py", True),
        ("pkg/core.py", False),
        ("pkg/contest.py", False),
        ("pkg/attestation.py", False),
    ],
)
def test_test_files_are_recognised_and_never_modified(path, is_test):
    assert is_test_path(path) is is_test
    assert (enumerate_modifications(MODULE, path) == []) is is_test
