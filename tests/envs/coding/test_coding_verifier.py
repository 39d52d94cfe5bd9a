"""The verifier judges what the hidden tests observe, and nothing the agent's code claims decides it.

Each case is a reference module, a hidden test file and an agent's version, verified in a real
sandbox (local backend: these are about the verdict, not isolation; `tests/security` runs the
attacks on Docker). One test per observation kind, each written to fail on the verifier that
compared every result with the reference's (exception messages, whole ``__dict__``, floats within
1e-9), plus the cases that must still fail.
"""

from __future__ import annotations

import warnings

import pytest

from agentgym.envs.coding import CodingEnv, verifier
from agentgym.sandbox import make_sandbox


@pytest.fixture(scope="module")
def sandbox():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sb = make_sandbox("local")
    for module in CodingEnv.sandbox_modules:  # as the env loads them: the runner warms the stdlib the tasks use
        sb.load_module(module.name, module.source)
    yield sb
    sb.close()


_counter = iter(range(10_000))


def verdict(sandbox, reference: str, tests: str, agent: str) -> verifier.Verdict:
    """Verify ``agent`` as module ``m<k>`` against ``tests`` (``MOD`` stands for the module's name)."""
    name = f"verified_module_{next(_counter)}"
    sandbox.write_file(f"{name}.py", agent)
    return verifier.verify(sandbox, {name: reference}, {f"test_{name}.py": tests.replace("MOD", name)}, timeout=10.0)


RAISES = """
def check(x):
    if x < 0:
        raise ValueError(f"bad value {x}")
    return x
"""


def test_type_only_exception_ignores_the_message(sandbox):
    tests = (
        "import pytest\nfrom MOD import check\n\n"
        "def test_it():\n    with pytest.raises(ValueError):\n        check(-1)\n"
    )
    assert verdict(sandbox, RAISES, tests, RAISES.replace("bad value", "negative:")).passed
    assert not verdict(sandbox, RAISES, tests, RAISES.replace("ValueError", "TypeError")).passed


def test_message_checked_exception_reads_the_message(sandbox):
    tests = (
        "import pytest\nfrom MOD import check\n\ndef test_it():\n"
        "    with pytest.raises(ValueError, match='value -1'):\n        check(-1)\n"
    )
    assert verdict(sandbox, RAISES, tests, RAISES.replace("bad value", "the value")).passed
    assert not verdict(sandbox, RAISES, tests, RAISES.replace("bad value", "negative:")).passed
    via_str = (
        "from MOD import check\n\ndef test_it():\n    try:\n        check(-1)\n    except ValueError as e:\n"
        "        assert str(e).startswith('bad') and e.args == ('bad value -1',)\n    else:\n        assert False\n"
    )
    assert verdict(sandbox, RAISES, via_str, RAISES).passed
    assert not verdict(sandbox, RAISES, via_str, RAISES.replace("bad value", "bad  value")).passed


ACCOUNT = """
class Account:
    def __init__(self, owner):
        self.owner = owner
        self.items = []

    def add(self, amount):
        self.items.append(amount)
        return self

    def total(self):
        return sum(self.items)
"""


def test_attribute_read_ignores_attributes_the_test_never_reads(sandbox):
    tests = "from MOD import Account\n\ndef test_it():\n    a = Account('ann')\n    assert a.owner == 'ann'\n"
    cached = ACCOUNT.replace("self.items = []", "self.items = []\n        self._cache = {'made': True}")
    assert verdict(sandbox, ACCOUNT, tests, cached).passed
    assert not verdict(
        sandbox, ACCOUNT, tests, ACCOUNT.replace("self.owner = owner", "self.owner = owner.upper()")
    ).passed


def test_method_call_judges_the_object_by_its_methods(sandbox):
    tests = (
        "from MOD import Account\n\n"
        "def test_it():\n    a = Account('ann')\n    a.add(2)\n    assert a.add(3).total() == 5\n"
    )
    running_sum = (
        ACCOUNT.replace("self.items = []", "self._sum = 0")
        .replace("self.items.append(amount)", "self._sum += amount")
        .replace("return sum(self.items)", "return self._sum")
    )
    assert verdict(sandbox, ACCOUNT, tests, running_sum).passed
    assert not verdict(sandbox, ACCOUNT, tests, running_sum.replace("self._sum += amount", "self._sum = amount")).passed


MEAN = "def mean(xs):\n    return sum(xs) / len(xs)\n"


def test_float_comparison_is_the_tests_own(sandbox):
    approx = (
        "import pytest\nfrom MOD import mean\n\n"
        "def test_it():\n    assert mean([1, 2]) == pytest.approx(1.5, rel=1e-3)\n"
    )
    assert verdict(sandbox, MEAN, approx, "def mean(xs):\n    return sum(xs) / len(xs) + 1e-4\n").passed
    assert not verdict(sandbox, MEAN, approx, "def mean(xs):\n    return sum(xs) / len(xs) + 1e-2\n").passed
    exact = "from MOD import mean\n\ndef test_it():\n    assert mean([1, 2]) == 1.5\n"
    assert not verdict(sandbox, MEAN, exact, "def mean(xs):\n    return sum(xs) / len(xs) + 1e-12\n").passed
    rounded = "from MOD import mean\n\ndef test_it():\n    assert round(mean([1, 2]), 2) == 1.5\n"
    assert verdict(sandbox, MEAN, rounded, "def mean(xs):\n    return sum(xs) / len(xs) + 1e-4\n").passed


POINT = """
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)


def parse(text):
    x, y = text.split(",")
    return Point(int(x), int(y))
"""


def test_the_agents_eq_never_decides(sandbox):
    tests = "from MOD import Point, parse\n\ndef test_it():\n    assert parse('1,2') == Point(1, 2)\n"
    assert verdict(sandbox, POINT, tests, POINT + "\n\nclass _P:\n    pass\n").passed
    always_equal = POINT.replace(
        "return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)", "return True"
    ).replace("return Point(int(x), int(y))", "return Point(0, 0)")
    assert not verdict(sandbox, POINT, tests, always_equal).passed
    to_data = "from MOD import parse\n\ndef test_it():\n    assert parse('1,2').x == 1\n"
    anything = (
        "class _A(int):\n    def __eq__(self, o):\n        return True\n    __hash__ = int.__hash__\n\n"
        "class _P:\n    x = _A(7)\n\ndef parse(text):\n    return _P()\n"
    )
    assert not verdict(sandbox, POINT, to_data, anything).passed


def test_a_value_the_test_discards_is_not_judged(sandbox):
    tests = (
        "from MOD import Account\n\ndef test_it():\n    a = Account('ann')\n    a.add(2)\n    assert a.total() == 2\n"
    )
    returns_none = ACCOUNT.replace("        return self\n", "")
    assert verdict(sandbox, ACCOUNT, tests, returns_none).passed


def test_the_tests_own_path_on_the_agents_values(sandbox):
    """A value the test passes back to the module: the replay follows the agent's value, live."""
    reference = "def double(x):\n    return 2 * x\n\ndef half(x):\n    return x // 2\n"
    tests = "from MOD import double, half\n\ndef test_it():\n    assert half(double(3)) == 3\n"
    off_by_one = "def double(x):\n    return 2 * x + 1\n\ndef half(x):\n    return x // 2\n"
    assert verdict(sandbox, reference, tests, off_by_one).passed  # pytest passes it too: (7 // 2) == 3
    v = verdict(sandbox, reference, tests, "def double(x):\n    return 2 * x + 2\n\ndef half(x):\n    return x // 2\n")
    assert not v.passed and "test_it" in v.reason


def test_an_integer_out_of_proportion_fails_before_the_test_uses_it(sandbox):
    reference = "def width():\n    return 3\n"
    tests = "from MOD import width\n\ndef test_it():\n    assert len(' ' * width()) < 10\n"
    v = verdict(sandbox, reference, tests, "def width():\n    return 10 ** 12\n")
    assert not v.passed and "integer" in v.reason


def test_the_tests_own_object_comes_back_as_itself(sandbox):
    """``assert f(x) is x``: the harness says which argument a result is, and the test gets that object."""
    reference = (
        "from decimal import Decimal\n\ndef as_decimal(x):\n    if isinstance(x, Decimal):\n        return x\n"
        "    return Decimal(str(x))\n\ndef check(x):\n    if x < 0:\n        raise ValueError('bad')\n"
    )
    tests = (
        "from decimal import Decimal\nfrom MOD import as_decimal, check\n\ndef test_it():\n    d = Decimal('4.5')\n"
        "    assert as_decimal(d) is d\n    assert as_decimal(2) == Decimal(2)\n"
    )
    tests = "import pytest\n" + tests + "    with pytest.raises(ValueError):\n        check(-1)\n"
    reworded = reference.replace("'bad'", "'negative'")  # not the reference's results: the tests run again
    assert verdict(sandbox, reference, tests, reworded).passed
    copies = reworded.replace("        return x\n", "        return Decimal(str(x))\n")
    assert not verdict(sandbox, reference, tests, copies).passed


_REWRITE_HARNESS = r"""
import sys as _s
_h = _s.modules.get("agentgym_coding_harness")
if _h is not None:
    _perform = _h._Replay.perform

    def _forged(self, index, op):
        result = _perform(self, index, op)
        if op[0] == "op" and op[1] in ("eq", "ne"):
            result = {"v": op[1] == "eq", "operands": [1, 1]}  # "equal", and "both are the number 1"
        return result

    _h._Replay.perform = _forged
"""


def test_module_code_rewriting_the_harness_cannot_call_its_objects_data(sandbox):
    """The harness is the agent's process: module code can make it say anything. An object it
    returned cannot later be described as plain data equal to the test's operand."""
    tests = "from MOD import Point, parse\n\ndef test_it():\n    assert parse('1,2') == Point(1, 2)\n"
    broken = POINT.replace("return Point(int(x), int(y))", "return Point(0, 0)")
    assert not verdict(sandbox, POINT, tests, broken + _REWRITE_HARNESS).passed
