"""The untrusted side of Coding-v0's verifier: replays operations on the agent's modules and reports values.

It runs after the agent's last turn, inside the sandbox, as the agent's user, in a child forked
from the warm step server (`Sandbox.harness`: only its two pipes, every other agent process
killed first; interpreter start-up hooks such as ``sitecustomize`` or ``.pth`` files never run
in it) with the workspace first on its import path. The host sends lines, each a list of
operations the hidden tests perform on the module (imports, attribute reads, calls, operators):
first every operation they performed on the reference, then, if the host has to re-run the tests
on this side's answers, one operation per line. This process performs them on the agent's
modules and answers each line with the results *encoded as data*: builtins by value, objects by
type name, handle and attribute values, exceptions by type (with its bases), message, arguments
and attributes. The host judges them with the hidden tests, which never enter the sandbox, and
the reference's results never leave the host. Nothing this process prints, returns or exits with
can pass for a verdict: at worst it sends wrong values, which the tests reject. Callables the tests
pass in (``lambda x: x >= 37``) stay on the host; calling one here sends a ``cb`` line and waits
for the host's answer.

Stdlib only; the host imports `encode`, `decode`, `exception_result`, `same_as` and `same` from here
too, so both sides encode alike.
"""

import importlib
import json
import math
import os
import re
import sys
from collections.abc import Callable
from typing import Any

_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
MAX_DEPTH = 60
OPERATORS: dict[str, Callable[..., Any]] = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "getitem": lambda a, k: a[k],
    "setitem": lambda a, k, v: a.__setitem__(k, v),
    "delitem": lambda a, k: a.__delitem__(k),
    "contains": lambda a, x: x in a,
    "len": len,
    "iter": iter,
    "next": next,
    "bool": bool,
    "str": str,
    "repr": repr,
    "hash": hash,
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "neg": lambda a: -a,
    "pos": lambda a: +a,
    "abs": abs,
    "int": int,
    "float": float,
    "round": round,
    "enter": lambda a: a.__enter__(),
    "exit": lambda a, *x: a.__exit__(*x),
    "format": format,
}


def scrub(text):
    """Messages compared without memory addresses (reprs of objects differ between processes)."""
    return _ADDRESS.sub("0x?", text)


def describe_exception(exc):
    try:
        message = str(exc)
    except BaseException:  # an agent's __str__ may raise anything
        message = "<unprintable>"
    return [type(exc).__qualname__, scrub(message)[:2000]]


def class_desc(cls, depth=0):
    """An exception class as data: ``[qualname, module, [its bases]]`` (builtins end the chain), so
    the host can rebuild a class that ``pytest.raises`` and ``except`` treat alike."""
    name, module = str(getattr(cls, "__qualname__", "?")), str(getattr(cls, "__module__", "?"))
    if module == "builtins" or depth > 20:
        return [name, module, []]
    return [name, module, [class_desc(b, depth + 1) for b in cls.__bases__ if b is not object]]


def exception_result(exc):
    """A raised exception as an operation's result: type and message (``x``), the class with its
    bases (``xc``), its arguments (``xa``) and attributes (``xd``)."""
    out = {"x": describe_exception(exc)}
    try:
        out["xc"] = class_desc(type(exc))
        out["xa"] = encode(list(exc.args)) if isinstance(exc.args, tuple) else []
        attrs = getattr(exc, "__dict__", None)
        if type(attrs) is dict and attrs:
            out["xd"] = [[str(k), encode(attrs[k])] for k in sorted(attrs, key=str)]
    except BaseException:  # an agent's exception may be built to break this
        out.pop("xa", None)
        out.pop("xd", None)
    return out


# ------------------------------------------------------------------------------------------ encode
def encode(value, handles=None, prefix="", depth=0, stack=None):
    """``value`` as JSON-able data. Objects that are not plain data get a handle ``prefix.k`` (for later
    operations on them) when ``handles`` is a list; their type name and attribute values are encoded
    too, so two objects compare by what they hold, never by their own ``__eq__``."""
    if depth > MAX_DEPTH:
        return {"deep": True}
    t = type(value)
    if value is None or t is bool or t is str:
        return value
    if t is int:
        return value if abs(value) < (1 << 53) else {"int": str(value)}
    if t is float:
        return {"float": repr(value)} if math.isnan(value) or math.isinf(value) else value
    stack = stack if stack is not None else set()
    if id(value) in stack:
        return {"cycle": True}
    stack.add(id(value))
    try:
        return _encode_composite(value, t, handles, prefix, depth + 1, stack)
    finally:
        stack.discard(id(value))


def _encode_composite(value, t, handles, prefix, depth, stack):
    def sub(x):
        return encode(x, handles, prefix, depth, stack)

    if t is list:
        return [sub(x) for x in value]
    if t is tuple:
        return {"t": [sub(x) for x in value]}
    if t is dict:
        return {"d": [[sub(k), sub(v)] for k, v in value.items()]}
    if t is set or t is frozenset:
        return {"s" if t is set else "fs": [sub(x) for x in value]}
    if t is bytes or t is bytearray:
        return {"b" if t is bytes else "ba": value.hex()}
    if t is complex:
        return {"c": [encode(value.real), encode(value.imag)]}
    if isinstance(value, tuple) and hasattr(t, "_fields"):
        return {"nt": [t.__qualname__, list(t._fields), [sub(x) for x in value]]}
    std = _encode_std(value, t, sub)
    if std is not None:
        return std
    if isinstance(value, BaseException):
        return {"e": describe_exception(value)}
    if isinstance(value, type) and issubclass(value, BaseException):
        return {"xt": class_desc(value)}
    handle = None
    if handles is not None:
        handle = "%s.%d" % (prefix, len(handles))
        handles.append((handle, value))
    return {"o": [t.__qualname__, handle, _state(value, depth, stack)]}


def _encode_std(value, t, sub):
    """Standard-library value types, by value, in a form `decode` rebuilds."""
    module = getattr(t, "__module__", "")
    if t is range or t is slice:
        return {t.__name__: [sub(value.start), sub(value.stop), sub(value.step)]}
    if module == "fractions" and t.__name__ == "Fraction":
        return {"fraction": [str(value.numerator), str(value.denominator)]}
    if module == "decimal" and t.__name__ == "Decimal":
        return {"decimal": str(value)}
    if module == "datetime" and t.__name__ in ("date", "datetime", "time"):
        return {t.__name__: value.isoformat()}
    if module == "datetime" and t.__name__ == "timedelta":
        return {"timedelta": [value.days, value.seconds, value.microseconds]}
    if module == "collections" and t.__name__ in ("Counter", "OrderedDict", "defaultdict"):
        return {t.__name__: [[sub(k), sub(v)] for k, v in value.items()]}
    if module == "collections" and t.__name__ == "deque":
        return {"deque": [sub(x) for x in value]}
    return None


def _state(value, depth, stack):
    """What an object holds: its attributes (instances), or its name (functions, classes); nothing for modules."""
    if type(value).__name__ == "module":
        return None
    if (
        isinstance(value, type)
        or callable(value)
        and not hasattr(value, "__dict__")
        or type(value).__name__ in ("function", "builtin_function_or_method", "method", "module", "generator")
    ):
        return getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    fields = {}
    attrs = getattr(value, "__dict__", None)
    if type(attrs) is dict:
        fields.update(attrs)
    for cls in type(value).__mro__:
        for slot in (
            cls.__dict__.get("__slots__", ()) if isinstance(cls.__dict__.get("__slots__", ()), (tuple, list)) else ()
        ):
            if isinstance(slot, str) and slot not in fields and hasattr(value, slot):
                fields[slot] = getattr(value, slot)
    return [[name, encode(fields[name], None, "", depth, stack)] for name in sorted(fields, key=str)]


def same_as(value, args):
    """The position of the argument that ``value`` is (the very object), or None: a test that checks
    ``f(x) is x`` sees its own object back."""
    for i, x in enumerate(args):
        if value is x:
            return i
    return None


# ------------------------------------------------------------------------------------------ compare
def same(a, b, rel=1e-9, abs_tol=1e-12):
    """Encoded values equal as the hidden tests would see them: numbers with a float tolerance,
    dicts and sets in any order, object handles ignored."""
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol)
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if not isinstance(a, dict):
        return a == b
    if a.keys() != b.keys():
        return False
    (tag,) = a.keys() if len(a) == 1 else (None,)
    if tag in ("d",):
        return _same_unordered([[k, v] for k, v in a["d"]], [[k, v] for k, v in b["d"]])
    if tag in ("s", "fs"):
        return _same_unordered(a[tag], b[tag])
    if tag == "o":
        return a["o"][0] == b["o"][0] and same(a["o"][2], b["o"][2])
    return all(same(a[k], b[k]) for k in a)


def _same_unordered(xs, ys):
    if len(xs) != len(ys):
        return False
    rest = list(ys)
    for x in xs:
        for i, y in enumerate(rest):
            if same(x, y):
                del rest[i]
                break
        else:
            return False
    return True


# ------------------------------------------------------------------------------------------ decode
class Opaque:
    """An object the other side could only describe: its type name and encoded state."""

    def __init__(self, type_name, state):
        self.type_name, self.state = type_name, state

    def __repr__(self):
        return "<%s>" % self.type_name


def decode(data, lookup=None):
    """Encoded data back to Python values; ``lookup`` resolves ``{"h": id}`` and ``{"cb": n}`` references."""
    if isinstance(data, list):
        return [decode(x, lookup) for x in data]
    if not isinstance(data, dict):
        return data
    if len(data) != 1:
        raise ValueError("not an encoded value")
    ((tag, v),) = data.items()
    if tag in ("h", "cb"):
        if lookup is None:
            raise ValueError("a reference where none is allowed")
        return lookup(tag, v)
    if tag == "t":
        return tuple(decode(x, lookup) for x in v)
    if tag == "d":
        return {decode(k, lookup): decode(x, lookup) for k, x in v}
    if tag in ("s", "fs"):
        items = (decode(x, lookup) for x in v)
        return set(items) if tag == "s" else frozenset(items)
    if tag in ("b", "ba"):
        return bytes.fromhex(v) if tag == "b" else bytearray.fromhex(v)
    if tag == "int":
        return int(v)
    if tag == "float":
        return float(v)
    if tag == "c":
        return complex(decode(v[0]), decode(v[1]))
    if tag == "nt":
        return tuple(decode(x, lookup) for x in v[2])
    if tag == "o":
        return Opaque(v[0], v[2])
    return _decode_std(tag, v, lookup)


def _decode_std(tag, v, lookup):
    import collections
    import datetime
    import decimal
    import fractions

    if tag in ("range", "slice"):
        return (range if tag == "range" else slice)(*(decode(x, lookup) for x in v))
    if tag == "fraction":
        return fractions.Fraction(int(v[0]), int(v[1]))
    if tag == "decimal":
        return decimal.Decimal(v)
    if tag in ("date", "datetime", "time"):
        return getattr(datetime, tag).fromisoformat(v)
    if tag == "timedelta":
        return datetime.timedelta(days=v[0], seconds=v[1], microseconds=v[2])
    if tag in ("Counter", "OrderedDict", "defaultdict"):
        pairs = [(decode(k, lookup), decode(x, lookup)) for k, x in v]
        return collections.Counter(dict(pairs)) if tag == "Counter" else collections.OrderedDict(pairs)
    if tag == "deque":
        return collections.deque(decode(x, lookup) for x in v)
    return Opaque(tag, v)


# ------------------------------------------------------------------------------------------ the harness
class _Replay:
    def __init__(self, inp, out):
        self.inp, self.out = inp, out
        self.objects = {}
        self.stubs = {}

    def send(self, obj):
        data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(self.out, view) :]

    def receive(self):
        line = self.inp.readline()
        if not line:
            raise SystemExit(0)
        return json.loads(line)

    def lookup(self, tag, ref):
        if tag == "h":
            return self.objects[ref]
        if ref not in self.stubs:
            self.stubs[ref] = self.callback(ref)
        return self.stubs[ref]

    def callback(self, number):
        def call_host(*args, **kwargs):
            self.send(
                {"cb": number, "args": [encode(a) for a in args], "kwargs": [[k, encode(v)] for k, v in kwargs.items()]}
            )
            reply = self.receive()
            if "x" in reply:
                import builtins

                kind = getattr(builtins, str(reply["x"][0]), None)
                raise (kind if isinstance(kind, type) and issubclass(kind, Exception) else RuntimeError)(reply["x"][1])
            return decode(reply["v"])

        return call_host

    def perform(self, index, op):
        kind = op[0]
        mutable = []
        if kind == "import":
            value = importlib.import_module(op[1])
        elif kind == "getattr":
            value = getattr(self.objects[op[1]], op[2])
        elif kind == "setattr":
            value = setattr(self.objects[op[1]], op[2], decode(op[3], self.lookup))
        elif kind == "call":
            args = [decode(a, self.lookup) for a in op[2]]
            kwargs = {k: decode(v, self.lookup) for k, v in op[3]}
            mutable = [x for x in list(args) + list(kwargs.values()) if type(x) in (list, dict, set, bytearray)]
            value = self.objects[op[1]](*args, **kwargs)
        elif kind == "op":
            args = [decode(a, self.lookup) for a in op[2]]
            mutable = [x for x in args[1:] if type(x) in (list, dict, set, bytearray)]
            value = OPERATORS[op[1]](*args)
        else:
            raise ValueError("unknown operation %r" % (kind,))
        handles = []
        result = {"v": encode(value, handles, str(index))}
        if kind == "op" and op[1] in ("eq", "ne"):  # the host judges equality from what the operands hold
            result["operands"] = [encode(x) for x in args]
        elif kind == "call":
            same = same_as(value, list(args) + list(kwargs.values()))
            if same is not None:
                result["same_as"] = same
        self.objects[str(index)] = value
        for handle, obj in handles:
            self.objects[handle] = obj
        if mutable:
            result["after"] = [encode(x) for x in mutable]
        return result

    def run(self):
        index = 0
        while True:  # one line of operations after another, until the host closes the pipe
            request = self.receive()
            results = []
            for op in request["ops"]:
                try:
                    results.append(self.perform(index, op))
                except BaseException as exc:  # the agent's code may raise anything, SystemExit too
                    results.append(exception_result(exc))
                index += 1
            self.send({"results": results})


def main():
    # The protocol gets private fds; the agent's prints and reads go to /dev/null.
    inp = os.fdopen(os.dup(0), "rb")
    out = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdout = sys.stderr = open(os.devnull, "w")
    sys.path[:0] = [os.getcwd()]
    sys.dont_write_bytecode = True
    sys.setrecursionlimit(10_000)
    _Replay(inp, out).run()
