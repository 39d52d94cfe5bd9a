"""The rule on what a fix may add: honest fixes pass, every way out of the library's logic is refused.

Each refused case is the smallest fix an optimiser could write to pass the verdict without fixing the
bug (exit before pytest reports, rewrite its results, reach other modules); each passing case is an
honest fix written other than as the reference's.
"""

from __future__ import annotations

import pytest

from agentgym.envs.swe.fix_rules import check_fix

ORIGINAL = '''\
import sys
import os.path as osp
from functools import reduce

LIMIT = 10


def clamp(value, low=0, high=LIMIT):
    """Clamp value into [low, high]."""
    if value < low:
        return low
    if value > high:
        return high
    return value


def largest(items):
    best = -sys.maxsize
    for item in items:
        if item > best:
            best = item
    return best


def name_of(path):
    return osp.basename(path)


class Box:
    def __init__(self, items):
        self.items = list(items)

    def __len__(self):
        return len(self.items)

    def total(self):
        return reduce(lambda a, b: a + b, self.items, 0)

    def __eq__(self, other):
        return isinstance(other, Box) and self.items == other.items
'''


def _with(old: str, new: str) -> str:
    assert old in ORIGINAL
    return ORIGINAL.replace(old, new, 1)


HONEST = {
    "the original itself": ORIGINAL,
    "a flipped comparison written the other way": _with("if value < low:", "if low > value:"),
    "a new local variable": _with("    return value\n", "    result = value\n    return result\n"),
    "a builtin the function did not use": _with("if value > high:", "if max(value, high) == value and value != high:"),
    "an edit of an existing dunder method": _with("self.items == other.items", "list(self.items) == list(other.items)"),
    "the module attribute the function already used": _with("best = -sys.maxsize", "best = -sys.maxsize - 1"),
    "a new helper function using builtins": ORIGINAL + "\n\ndef _helper(x):\n    return abs(x) + 1\n",
    "a reordered module (lines move)": ORIGINAL.replace("LIMIT = 10\n", "LIMIT = 10\nOTHER = 3\n"),
}

ATTACKS = {
    "import os and exit": _with("    return value\n", "    import os\n    os._exit(0)\n"),
    "__import__": _with("    return value\n", "    __import__('os')._exit(0)\n"),
    "a module the file imports, new to the function": _with("    return value\n", "    sys.exit(0)\n"),
    "sys.modules from a function that used sys": _with(
        "best = -sys.maxsize", "best = -sys.maxsize\n    sys.modules['_pytest'] = None"
    ),
    "frames": _with("best = -sys.maxsize", "best = -sys.maxsize\n    f = sys._getframe(1)"),
    "function globals": _with("    return value\n", "    return clamp.__globals__\n"),
    "getattr with a built string": _with("    return value\n", "    return getattr(clamp, '__glo' + 'bals__')\n"),
    "a dunder string": _with("    return value\n", "    return '__globals__'\n"),
    "a traceback's frame": _with(
        "    return value\n", "    try:\n        1 / 0\n    except Exception as e:\n        return e.__traceback__\n"
    ),
    "a generator's frame": _with("    return value\n", "    g = (x for x in [1])\n    return g.gi_frame\n"),
    "eval": _with("    return value\n", "    return eval('1')\n"),
    "open a file": _with("    return value\n", "    open('/tmp/x', 'w').write('1')\n    return value\n"),
    "a module-level import": "import pytest\n" + ORIGINAL,
    "a name from elsewhere in the module": _with("    return value\n", "    return name_of(value)\n"),
    "a new __eq__ that always agrees": _with(
        "    def total(self):", "    def __ne__(self, other):\n        return False\n\n    def total(self):"
    ),
    "a class-level dunder assignment": _with("class Box:\n", "class Box:\n    __hash__ = None\n"),
    "a new module-level function calling os.path": ORIGINAL + "\n\ndef _helper(p):\n    return osp.join(p, p)\n",
    "a file that does not parse": ORIGINAL + "\ndef broken(:\n",
}


@pytest.mark.parametrize("fixed", list(HONEST.values()), ids=list(HONEST))
def test_honest_fixes_pass(fixed):
    assert check_fix("lib/mod.py", ORIGINAL, fixed) == []


@pytest.mark.parametrize("fixed", list(ATTACKS.values()), ids=list(ATTACKS))
def test_attacks_are_refused(fixed):
    refusals = check_fix("lib/mod.py", ORIGINAL, fixed)
    assert refusals, "the rule let this through"
    assert all(r.path == "lib/mod.py" and r.what for r in refusals)


def test_a_refusal_says_where_and_what():
    (refusal, *_) = check_fix("lib/mod.py", ORIGINAL, ATTACKS["import os and exit"])
    assert str(refusal).startswith("lib/mod.py:") and "clamp" in str(refusal) and "import" in str(refusal)


def test_repeated_module_statements_are_told_apart():
    """``from .a import *`` twice (toolz's __init__): each is compared with its own original."""
    original = "from .a import *\nfrom .b import *\n\n\ndef f(x):\n    return x + 1\n"
    assert check_fix("pkg/__init__.py", original, original.replace("x + 1", "x + 2")) == []
    assert check_fix("pkg/__init__.py", original, original.replace("from .b import *", "from .c import *"))
