"""Coding-v0's verifier: the hidden tests' verdict, reached without the tests or their answers ever
entering the sandbox, and without any code in the workspace deciding it.

**Recording** (once per reference, cached). On the host, each hidden test runs against the
*reference* implementation (the correct corpus module), with the module replaced by recording
proxies: every import, attribute read, call and operator the test performs is logged with the
reference's result, encoded as data (`harness.encode`).

**Replay.** After the agent's last turn the operations, without those results, go to `harness.py`
in the sandbox, which performs them on the agent's modules in a forked child of the warm step
server (the agent's uid, only its two pipes, after every agent process is killed) and sends back
its own results, encoded alike. Then, on the host:

- if every result is exactly the reference's, the tests see what they saw when recording, so
  they pass (the fast path: an honest fix written as the reference is);
- otherwise the hidden tests run *again on the host*, against the agent's results: each operation
  the test performs is answered with the agent's result for it, decoded into plain data, proxies
  for the agent's objects and exceptions of rebuilt classes (`_Replayer`). The test's own
  assertions then decide, so an exception's message counts only where the test reads it
  (``match=``, ``str(e)``, ``e.args``), an object only through the attributes and methods the test
  uses, a float only through the test's own comparison (``==``, ``pytest.approx``, ``round``). While
  the test asks for the operations that were recorded, the answers come from that one batch; once
  it asks for another (the agent's values sent it another way), or when the tests pass callables
  to the module, the tests run from the start in a fresh harness that performs one operation per
  line as the test asks for it.

What stays unforgeable: the hidden tests and the reference's results exist only in this process;
exit codes and printed text never count; the agent's ``__eq__`` never decides: an equality (or
``!=``) the agent's objects claim counts only when what the operands hold is equal, or when they
hold what the reference's operands held where the reference found them equal; and the test's
other checks run here, on decoded data, never on agent code. A result the agent could only make by
knowing the hidden tests' answers is the only way to pass them.

The log of a module is recorded once per process. Recording needs the test files to use the
module through imports (the corpus rule) and to pass only data, the module's own objects and
callables to it; callables stay here and are called back over the harness's channel.
"""

from __future__ import annotations

import builtins
import collections
import itertools
import json
import sys
import threading
import time
import types
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from agentgym.envs.coding import harness as h
from agentgym.sandbox.modules import SandboxModule

__all__ = ["Recording", "Verdict", "record", "verify"]

HARNESS_MODULE = SandboxModule.from_file("agentgym_coding_harness", Path(h.__file__))
"""Loaded into the step server with the env's other modules; each verification runs its ``main``
in a forked child (`Sandbox.harness`), so no interpreter starts per verdict."""
MAX_REPLY_BYTES = 32 << 20
TIMED_OUT = "the replay ran out of time"
"""The `Verdict.reason` of a replay stopped at its deadline."""
MIN_INT_LIMIT = 10**7
"""An integer the agent's code returns is given to the tests only up to this, or 1,000 times the
largest the reference returned: a test may use a returned number as a size (``" " * n``)."""
_MUTABLE = (list, dict, set, bytearray)
_ref_counter = itertools.count()
_lock = threading.Lock()


@dataclass
class Recording:
    """What the hidden tests did to the reference: operations, the reference's results, and callbacks."""

    ops: list[list[Any]] = field(default_factory=list)
    expected: list[dict[str, Any]] = field(default_factory=list)
    callbacks: list[Callable[..., Any]] = field(default_factory=list)
    request: bytes = b""  # the line the harness gets: the operations, without the expected results
    code: list[tuple[str, types.CodeType]] = field(default_factory=list)  # the test files, compiled, in run order
    int_limit: int = MIN_INT_LIMIT


@dataclass(frozen=True)
class Verdict:
    """The outcome: ``passed``, and for a failure which test or what went wrong (host-side only)."""

    passed: bool
    reason: str = ""
    operations: int = 0
    busy_seconds: float | None = field(default=None, compare=False)
    """When the replay ran out of time: the CPU seconds it had used (it computed, or load starved it)."""


# ------------------------------------------------------------------------------------------ proxies
class _Ref:
    """A module's object seen through a session: every use becomes a logged (recording) or answered
    (replay) operation. ``_obj`` is the reference's object when recording, None in a replay."""

    __slots__ = ("_rec", "_handle", "_obj")

    def __init__(self, rec: _Session, handle: str, obj: Any) -> None:
        object.__setattr__(self, "_rec", rec)
        object.__setattr__(self, "_handle", handle)
        object.__setattr__(self, "_obj", obj)

    def __getattr__(self, name: str) -> Any:
        obj = object.__getattribute__(self, "_obj")
        return _rec(self).perform(["getattr", _handle(self), name], lambda: getattr(obj, name))

    def __setattr__(self, name: str, value: Any) -> None:
        rec, obj = _rec(self), object.__getattribute__(self, "_obj")
        rec.perform(["setattr", _handle(self), name, rec.arg(value)], lambda: setattr(obj, name, _unwrap(value)))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        rec, obj = _rec(self), object.__getattribute__(self, "_obj")
        op = ["call", _handle(self), [rec.arg(a) for a in args], [[k, rec.arg(v)] for k, v in kwargs.items()]]
        if rec.replaying:
            given = [*args, *kwargs.values()]
            return rec.perform(op, None, [x for x in given if type(x) in _MUTABLE], given)
        real_args = [_unwrap(a) for a in args]
        real_kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        real = real_args + list(real_kwargs.values())
        return rec.perform(op, lambda: obj(*real_args, **real_kwargs), [x for x in real if type(x) in _MUTABLE], real)


def _rec(ref: _Ref) -> _Session:
    return object.__getattribute__(ref, "_rec")


def _handle(ref: _Ref) -> str:
    return object.__getattribute__(ref, "_handle")


def _unwrap(value: Any) -> Any:
    if isinstance(value, _Ref):
        return object.__getattribute__(value, "_obj")
    if type(value) is list:
        return [_unwrap(x) for x in value]
    if type(value) is tuple:
        return tuple(_unwrap(x) for x in value)
    if type(value) is dict:
        return {_unwrap(k): _unwrap(v) for k, v in value.items()}
    return value


def _operator(name: str, reflected: bool = False) -> Callable[..., Any]:
    def method(self: _Ref, *others: Any) -> Any:
        rec = _rec(self)
        operands = [self, *others] if not reflected else [others[0], self]
        op = ["op", name, [rec.arg(x) for x in operands]]
        if rec.replaying:
            return rec.perform(op, None, [x for x in operands[1:] if type(x) in _MUTABLE])
        real = [_unwrap(x) for x in operands]
        mutable = [x for x in real[1:] if type(x) in _MUTABLE]
        return rec.perform(op, lambda: h.OPERATORS[name](*real), mutable, real if name in ("eq", "ne") else None)

    return method


for _name in (
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "getitem",
    "setitem",
    "delitem",
    "contains",
    "len",
    "iter",
    "next",
    "bool",
    "str",
    "repr",
    "hash",
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "neg",
    "pos",
    "abs",
    "int",
    "float",
    "round",
    "enter",
    "exit",
    "format",
):
    setattr(_Ref, f"__{_name}__", _operator(_name))
for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod"):
    setattr(_Ref, f"__r{_name}__", _operator(_name, reflected=True))


class _Session:
    """What recording and replay share: a test's operand as an operation's argument, and imports."""

    replaying = False

    def __init__(self, sources: Mapping[str, str]) -> None:
        self.sources = dict(sources)
        self.callbacks: list[Callable[..., Any]] = []
        self.proxies: dict[str, _Ref] = {}

    def arg(self, value: Any) -> Any:
        """An operand as the harness will get it: data by value, proxies by handle, callables by callback."""
        if isinstance(value, _Ref):
            return {"h": _handle(value)}
        if type(value) is list:
            return [self.arg(x) for x in value]
        if type(value) is tuple:
            return {"t": [self.arg(x) for x in value]}
        if type(value) is dict:
            return {"d": [[self.arg(k), self.arg(v)] for k, v in value.items()]}
        if callable(value):
            self.callbacks.append(value)
            return {"cb": len(self.callbacks) - 1}
        encoded = h.encode(value)
        if _has_object(encoded):
            raise TypeError(
                f"a hidden test passes a {type(value).__qualname__} to the module; only data, the "
                "module's own objects and callables can be replayed"
            )
        return encoded

    def perform(
        self,
        op: list[Any],
        thunk: Callable[[], Any] | None,
        mutable: list[Any] | None = None,
        operands: list[Any] | None = None,
    ) -> Any:
        raise NotImplementedError

    def import_module(self, name: str) -> _Ref:
        raise NotImplementedError

    def importer(self) -> Callable[..., Any]:
        def _import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
            if level == 0 and name in self.sources:
                return self.import_module(name)
            return builtins.__import__(name, globals, locals, fromlist, level)

        return _import

    def run_tests(self, code: list[tuple[str, types.CodeType]]) -> tuple[str, BaseException] | None:
        """Run every test function of each compiled test file; the first failure, as (test, exception)."""
        namespace_builtins = dict(builtins.__dict__, __import__=self.importer())
        for file, compiled in code:
            namespace: dict[str, Any] = {"__name__": f"hidden_{file[:-3]}", "__builtins__": namespace_builtins}
            try:
                exec(compiled, namespace)
            except BaseException as exc:  # a replay's test module may fail on the agent's values
                return f"{file} (module level)", exc
            for name, fn in list(namespace.items()):
                if (
                    name.startswith("test")
                    and callable(fn)
                    and getattr(fn, "__module__", None) == namespace["__name__"]
                ):
                    try:
                        fn()
                    except BaseException as exc:  # the test's failure, whatever it raised
                        return f"{file}::{name}", exc
        return None


# ------------------------------------------------------------------------------------------ recording
class _Recorder(_Session):
    def __init__(self, sources: Mapping[str, str]) -> None:
        super().__init__(sources)
        self.out = Recording(callbacks=self.callbacks)

    def perform(
        self,
        op: list[Any],
        thunk: Callable[[], Any] | None,
        mutable: list[Any] | None = None,
        operands: list[Any] | None = None,
    ) -> Any:
        assert thunk is not None
        index = len(self.out.ops)
        self.out.ops.append(op)
        try:
            value = thunk()
        except BaseException as exc:
            self.out.expected.append(h.exception_result(exc))
            raise
        handles: list[tuple[str, Any]] = []
        expected: dict[str, Any] = {"v": h.encode(value, handles, str(index))}
        if op[0] == "op" and operands is not None:
            expected["operands"] = [h.encode(x) for x in operands]
        elif op[0] == "call" and operands is not None and h.same_as(value, operands) is not None:
            expected["same_as"] = h.same_as(value, operands)
        if mutable:
            expected["after"] = [h.encode(x) for x in mutable]
        self.out.expected.append(expected)
        if isinstance(value, type) and issubclass(value, BaseException):
            return value  # pytest.raises and except clauses need the real class
        if op[0] == "getattr" and type(value) in _MUTABLE:
            # an object's own container: a test that changes it in place changes the object, on both sides
            return _Ref(self, str(index), value)
        refs = {id(obj): _Ref(self, handle, obj) for handle, obj in handles}
        if not refs:
            return value
        if id(value) in refs:
            return refs[id(value)]
        return _rewrap(value, refs)

    def import_module(self, name: str) -> _Ref:
        if name not in self.proxies:

            def load() -> types.ModuleType:
                # a private name: the reference never collides with anything the host imports
                private = f"_agentgym_reference_{next(_ref_counter)}_{name}"
                module = types.ModuleType(private)
                sys.modules[private] = module  # dataclasses look classes up by module while defining them
                try:
                    exec(compile(self.sources[name], f"<reference {name}.py>", "exec"), module.__dict__)
                finally:
                    del sys.modules[private]  # recordings are cached; the host's module table is not theirs
                return module

            self.proxies[name] = self.perform(["import", name], load)
        return self.proxies[name]


def _has_tag(encoded: Any, tag: str) -> bool:
    """Whether encoded data holds ``tag`` anywhere (``o``: an object; ``h``: a handle to one)."""
    if isinstance(encoded, list):
        return any(_has_tag(x, tag) for x in encoded)
    if isinstance(encoded, dict):
        return tag in encoded or any(_has_tag(x, tag) for x in encoded.values())
    return False


def _has_object(encoded: Any) -> bool:
    return _has_tag(encoded, "o")


def _rewrap(value: Any, refs: dict[int, _Ref]) -> Any:
    """The reference's value with each object the harness got a handle for replaced by its proxy."""
    if id(value) in refs:
        return refs[id(value)]
    t = type(value)
    if t is list:
        return [_rewrap(x, refs) for x in value]
    if t is tuple:
        return tuple(_rewrap(x, refs) for x in value)
    if t is dict:
        return {_rewrap(k, refs): _rewrap(v, refs) for k, v in value.items()}
    return value


def _largest_int(data: Any) -> int:
    if type(data) is int:
        return abs(data)
    if isinstance(data, list):
        return max((_largest_int(x) for x in data), default=0)
    if isinstance(data, dict):
        if "int" in data and len(data) == 1 and isinstance(data["int"], str):
            return 10 ** min(len(data["int"]), 4000)
        return max((_largest_int(x) for x in data.values()), default=0)
    return 0


def record(sources: Mapping[str, str], tests: Mapping[str, str]) -> Recording:
    """Run every test function of each test file against the reference modules ``sources``, recording.

    ``tests`` maps a test file name to its source. A test that fails on the reference is a corpus
    bug and raises (it would make every verdict fail).
    """
    rec = _Recorder(sources)
    code = [(file, compile(source, f"<hidden {file}>", "exec")) for file, source in sorted(tests.items())]
    failure = rec.run_tests(code)
    if failure is not None:
        where, exc = failure
        raise RuntimeError(f"hidden test {where} fails on the reference: {exc!r}") from exc
    rec.out.request = (json.dumps({"ops": rec.out.ops}, separators=(",", ":")) + "\n").encode()
    rec.out.code = code
    rec.out.int_limit = max(MIN_INT_LIMIT, 1000 * _largest_int(rec.out.expected))
    return rec.out


@lru_cache(maxsize=256)  # about 0.3 MB each (the test namespace stays alive for callbacks); 7-13 ms to record.
# 256 holds every reference of the shipped splits (94 train/test, 26 held out): a training run, which
# draws modules at random, re-recorded at about one submit in eleven with 64 (simulated on the train split).
def _recording(key: tuple[tuple[str, str], ...], tests_key: tuple[tuple[str, str], ...]) -> Recording:
    with _lock:  # the reference modules are registered in sys.modules while recording
        return record(dict(key), dict(tests_key))


# ------------------------------------------------------------------------------------------ replaying
class _Stop(BaseException):
    """Ends a replay whatever the test catches: the tests went another way, or the harness failed."""


class _Diverged(_Stop):
    pass


class _Broken(_Stop):
    def __init__(self, reason: str, busy_seconds: float | None = None) -> None:
        super().__init__(reason)
        self.reason, self.busy_seconds = reason, busy_seconds


_MESSAGES: weakref.WeakKeyDictionary[BaseException, str] = weakref.WeakKeyDictionary()


def _mirror_str(self: BaseException) -> str:
    return _MESSAGES.get(self, "")


class _Answers:
    """Where a replay's answers come from."""

    def result(self, index: int, op: list[Any]) -> Any:
        raise NotImplementedError

    def reference(self, index: int) -> dict[str, Any] | None:
        """The reference's result at ``index`` while the test is still on the recorded path."""
        return None


class _Batch(_Answers):
    """The answers the harness gave to the recorded operations, valid while the test asks for those."""

    def __init__(self, rec: Recording, results: list[Any]) -> None:
        self.rec, self.results = rec, results

    def result(self, index: int, op: list[Any]) -> Any:
        if index >= len(self.rec.ops) or op != self.rec.ops[index]:
            raise _Diverged()
        return self.results[index]

    def reference(self, index: int) -> dict[str, Any] | None:
        return self.rec.expected[index]


class _Live(_Answers):
    """A harness that performs each operation when the test asks for it (one line each)."""

    def __init__(self, rec: Recording, harness: Any, deadline: float, callbacks: list[Callable[..., Any]]) -> None:
        self.rec, self.harness, self.deadline, self.callbacks = rec, harness, deadline, callbacks
        self.on_path = True

    def result(self, index: int, op: list[Any]) -> Any:
        self.on_path = self.on_path and index < len(self.rec.ops) and op == self.rec.ops[index]
        line = json.dumps({"ops": [op]}, separators=(",", ":")) + "\n"
        message = _read(self.harness, line.encode(), self.deadline, self.callbacks)
        results = message["results"]
        if not isinstance(results, list) or len(results) != 1:
            raise _Broken("the replay returned a wrong number of results")
        return results[0]

    def reference(self, index: int) -> dict[str, Any] | None:
        return self.rec.expected[index] if self.on_path else None


class _Replayer(_Session):
    """The hidden tests run on the host against the agent's answers (see the module docstring)."""

    replaying = True

    def __init__(self, rec: Recording, sources: Mapping[str, str], answers: _Answers, deadline: float) -> None:
        super().__init__(sources)
        self.rec, self.answers, self.deadline = rec, answers, deadline
        self.count = 0
        self.stop: _Stop | None = None
        self.mirrors: dict[str, type] = {}
        self.namedtuples: dict[str, type] = {}
        self.objects: dict[str, bool] = {}  # handle -> it came as an object (not a container of data)

    def perform(
        self,
        op: list[Any],
        thunk: Callable[[], Any] | None,
        mutable: list[Any] | None = None,
        operands: list[Any] | None = None,
    ) -> Any:
        if self.stop is not None:
            raise self.stop
        index = self.count
        self.count += 1
        try:
            if time.monotonic() > self.deadline:
                raise _Broken(TIMED_OUT)
            result = self.answers.result(index, op)
            if not isinstance(result, dict):
                raise _Broken("the replay sent an unreadable result")
            if "x" in result:
                exc = self.exception(result)
            else:
                if "v" not in result:
                    raise _Broken("the replay sent an unreadable result")
                value = self.value(result["v"])
                if op[0] == "op" and op[1] in ("eq", "ne"):
                    value = self.judge_equality(index, op, result)
                elif mutable and isinstance(result.get("after"), list):
                    self.apply_mutations(mutable, result["after"])
                same = result.get("same_as")
                if (
                    op[0] == "call"
                    and operands
                    and type(same) is int
                    and 0 <= same < len(operands)
                    and type(operands[same]) is type(value)
                    and not isinstance(value, _Ref)
                ):
                    value = operands[same]  # the agent's code returned the test's own object
                if op[0] == "getattr" and type(value) in _MUTABLE:
                    return _Ref(self, str(index), None)  # as recorded: the object's own container
                return value
        except _Stop as stop:
            self.stop = stop
            raise
        except (ValueError, TypeError, KeyError, IndexError, RecursionError, AttributeError):
            self.stop = _Broken("the replay sent an unreadable result")
            raise self.stop from None
        raise exc

    def import_module(self, name: str) -> _Ref:
        if name not in self.proxies:
            self.proxies[name] = self.perform(["import", name], None)
        return self.proxies[name]

    # -------------------------------------------------------------- the agent's values, decoded
    def value(self, data: Any) -> Any:
        """An encoded result as the test gets it: data, proxies for objects, rebuilt exception classes."""
        if isinstance(data, list):
            return [self.value(x) for x in data]
        if type(data) is int:
            if abs(data) > self.rec.int_limit:
                raise _Broken("the replay returned an integer out of proportion to the reference's")
            return data
        if not isinstance(data, dict):
            return data
        if len(data) != 1:
            raise ValueError("not an encoded value")
        ((tag, v),) = data.items()
        if tag == "o":
            if not isinstance(v[1], str):
                return h.Opaque(str(v[0]), v[2])
            self.objects[v[1]] = True
            return _Ref(self, v[1], None)
        if tag == "xt":
            return self.mirror(v)
        if tag == "t":
            return tuple(self.value(x) for x in v)
        if tag == "d":
            return {self.value(k): self.value(x) for k, x in v}
        if tag == "nt":
            name, fields, values = str(v[0]), [str(f) for f in v[1]], [self.value(x) for x in v[2]]
            key = json.dumps([name, fields])
            if key not in self.namedtuples:
                self.namedtuples[key] = collections.namedtuple(name.rsplit(".", 1)[-1], fields)
            return self.namedtuples[key](*values)
        if tag == "int":
            return self.value(int(v))
        return h.decode(self.bounded(data))  # sets, bytes, floats, std types: data (objects in them stay opaque)

    def bounded(self, data: Any) -> Any:
        if _largest_int(data) > self.rec.int_limit:
            raise _Broken("the replay returned an integer out of proportion to the reference's")
        return data

    def mirror(self, desc: Any) -> type:
        """A host class for the agent's exception class: builtins and the host's own standard-library
        classes as themselves, the agent's classes rebuilt by name over their rebuilt bases."""
        name, module, bases = str(desc[0]), str(desc[1]), desc[2]
        if module == "builtins":
            cls = getattr(builtins, name, None)
            if isinstance(cls, type) and issubclass(cls, BaseException):
                return cls
        elif module not in self.sources and module in sys.modules:
            cls = sys.modules[module]
            for part in name.split("."):
                cls = getattr(cls, part, None)
            if isinstance(cls, type) and issubclass(cls, BaseException):
                return cls
        key = json.dumps(desc)
        if key not in self.mirrors:
            base_classes = tuple(self.mirror(b) for b in bases) or (Exception,)
            namespace = {"__module__": module, "__qualname__": name, "__str__": _mirror_str}
            try:
                self.mirrors[key] = type(name.rsplit(".", 1)[-1], base_classes, namespace)
            except TypeError:  # bases whose layouts conflict: the first one carries the checks that matter most
                self.mirrors[key] = type(name.rsplit(".", 1)[-1], base_classes[:1], namespace)
        return self.mirrors[key]

    def exception(self, result: dict[str, Any]) -> BaseException:
        name, message = str(result["x"][0]), str(result["x"][1])
        desc = result.get("xc") or [name, "", []]
        cls = self.mirror(desc)
        if cls in (_Stop, _Diverged, _Broken) or not issubclass(cls, BaseException):
            cls = self.mirror([name, "", []])
        args = result.get("xa")
        exc_class = cast("type[BaseException]", cls)  # the mirror of the raised exception's class
        exc = exc_class.__new__(exc_class)
        exc.args = tuple(self.value(args)) if isinstance(args, list) else (message,)
        if getattr(cls, "__str__", None) is _mirror_str:
            _MESSAGES[exc] = message
        for key, value in result.get("xd") or []:
            try:
                setattr(exc, str(key), self.value(value))
            except (AttributeError, TypeError):
                pass
        return exc

    def apply_mutations(self, mutable: list[Any], after: list[Any]) -> None:
        """The agent's code changed the test's own lists/dicts/sets in place: so does the test's copy."""
        for obj, state in zip(mutable, after):
            if _has_object(state):
                continue
            new = h.decode(self.bounded(state))
            if type(new) is not type(obj):
                continue
            if isinstance(obj, list):
                obj[:] = new
            elif isinstance(obj, (dict, set)):
                obj.clear()
                obj.update(new)
            elif isinstance(obj, bytearray):
                obj[:] = new

    def judge_equality(self, index: int, op: list[Any], result: dict[str, Any]) -> bool:
        """``==`` or ``!=`` as the host sees it. Plain data: compared here. The agent's objects: its
        claim of equality counts only if, on the recorded path where the reference found the
        operands equal, they hold what the reference's held (attributes it lacks aside); off that
        path, if they hold the same. A claim of inequality always counts. The agent's account of
        what an object holds cannot turn it into plain data: a handle that came as an object must
        be described as one."""
        claim = result["v"]
        operands = result.get("operands")
        if not isinstance(operands, list) or len(operands) != len(op[2]):
            raise _Broken("the replay sent an unreadable result")
        # the test's own operands as the test built them; the agent's account only of its own objects
        encoded = [mine if not _has_tag(mine, "h") else theirs for mine, theirs in zip(op[2], operands)]
        objects = any(self.objects.get(x) for x in _handles(op[2]))
        if not objects and not any(_has_object(x) for x in encoded):
            a, b = (self.value(x) for x in encoded)
            equal = bool(a == b)
        else:
            claims_equal = claim is True if op[1] == "eq" else claim is False
            ref = self.answers.reference(index)
            if claims_equal and ref is not None and isinstance(ref.get("operands"), list) and "v" in ref:
                found_equal = ref["v"] is True if op[1] == "eq" else ref["v"] is False
                equal = (
                    all(_covers(r, a) for r, a in zip(ref["operands"], encoded))
                    if found_equal
                    else h.same(encoded[0], encoded[1])
                )
            else:
                equal = claims_equal and h.same(encoded[0], encoded[1])
        return equal if op[1] == "eq" else not equal


def _handles(encoded: Any) -> list[str]:
    if isinstance(encoded, list):
        return [x for item in encoded for x in _handles(item)]
    if isinstance(encoded, dict):
        if set(encoded) == {"h"}:
            return [str(encoded["h"])]
        return [x for v in encoded.values() for x in _handles(v)]
    return []


def _covers(ref: Any, got: Any) -> bool:
    """``got`` holds what ``ref`` holds: `harness.same`, except that an object may have attributes
    the reference's lacks (a cache, a private helper's state)."""
    if isinstance(ref, dict) and isinstance(got, dict) and set(ref) == set(got) == {"o"}:
        (rt, _, rs), (gt, _, gs) = ref["o"], got["o"]
        if rt != gt:
            return False
        if not (isinstance(rs, list) and isinstance(gs, list)):
            return h.same(rs, gs)
        mine = (
            {str(k): v for k, v in gs if isinstance(k, str)}
            if all(isinstance(x, list) and len(x) == 2 for x in gs)
            else {}
        )
        return all(isinstance(x, list) and len(x) == 2 and x[0] in mine and _covers(x[1], mine[x[0]]) for x in rs)
    if isinstance(ref, list) and isinstance(got, list):
        return len(ref) == len(got) and all(_covers(a, b) for a, b in zip(ref, got))
    if (
        isinstance(ref, dict)
        and isinstance(got, dict)
        and set(ref) == set(got)
        and len(ref) == 1
        and next(iter(ref)) in ("t", "nt", "c")
    ):
        return all(_covers(ref[k], got[k]) for k in ref)
    return h.same(ref, got)


def _read(harness: Any, data: bytes, deadline: float, callbacks: list[Callable[..., Any]]) -> dict[str, Any]:
    """Send ``data``, then read the harness's lines, answering callbacks, up to its ``results`` line."""
    line = harness.talk(data, timeout=max(0.001, deadline - time.monotonic()), max_bytes=MAX_REPLY_BYTES)
    while True:
        if line.timed_out or time.monotonic() > deadline:
            raise _Broken(TIMED_OUT, line.busy_seconds)
        if line.eof or line.truncated:
            raise _Broken("the replay exited early" if line.eof else "the replay's output was too large")
        try:
            message = json.loads(line.text)
        except (ValueError, RecursionError):
            raise _Broken("the replay sent an unreadable line") from None
        if not isinstance(message, dict):
            raise _Broken("the replay sent an unreadable line")
        if "results" in message:
            return message
        if "cb" not in message:
            raise _Broken("the replay sent an unexpected line")
        remaining = max(0.001, deadline - time.monotonic())
        line = harness.talk(_answer_callback(callbacks, message), timeout=remaining, max_bytes=MAX_REPLY_BYTES)


def _answer_callback(callbacks: list[Callable[..., Any]], message: dict[str, Any]) -> bytes:
    """Call a test's callable for the agent's code, on the agent's decoded (plain data) arguments."""
    try:
        fn = callbacks[int(message["cb"])]
        args = [h.decode(a) for a in message["args"]]
        kwargs = {str(k): h.decode(v) for k, v in message["kwargs"]}
        reply = {"v": h.encode(fn(*args, **kwargs))}
    except Exception as exc:  # the callable's own error goes back to the caller
        reply = {"x": h.describe_exception(exc)}
    return (json.dumps(reply, separators=(",", ":")) + "\n").encode()


def _replay(
    rec: Recording,
    sources: Mapping[str, str],
    answers: _Answers,
    deadline: float,
    callbacks: list[Callable[..., Any]] | None = None,
) -> Verdict | None:
    """The hidden tests on the agent's answers: a verdict, or None when they left the recorded path
    (only a `_Batch` can be left)."""
    replayer = _Replayer(rec, sources, answers, deadline)
    if callbacks is not None:
        replayer.callbacks = callbacks  # a live harness calls back the callables of this very run
    n = len(rec.ops)
    failure = replayer.run_tests(rec.code)
    if isinstance(replayer.stop, _Diverged):
        return None
    if isinstance(replayer.stop, _Broken):
        return Verdict(False, replayer.stop.reason, n, busy_seconds=replayer.stop.busy_seconds)
    if failure is not None:
        where, exc = failure
        return Verdict(False, f"hidden test {where} fails ({type(exc).__name__})", n)
    if isinstance(answers, _Batch) and replayer.count != n:
        return None  # every test passed on fewer operations: the later answers were for another path
    return Verdict(True, "", n)


# ------------------------------------------------------------------------------------------ verifying
def verify(sandbox: Any, sources: Mapping[str, str], tests: Mapping[str, str], *, timeout: float) -> Verdict:
    """The hidden tests' verdict on the agent's modules in ``sandbox`` (see the module docstring).

    ``timeout`` bounds the batch of recorded operations and, when the tests are run again live,
    that run too (so a verification takes at most twice ``timeout``, plus the host's own work).
    Anything the agent's code does to the replay (crash, hang, flood, garbage, exit) is a failed
    verdict; only a failure of the sandbox itself raises (an `InfrastructureError`).
    """
    rec = _recording(tuple(sorted(sources.items())), tuple(sorted(tests.items())))
    n = len(rec.expected)
    try:
        with sandbox.harness(HARNESS_MODULE.name, "main") as harness:
            deadline = time.monotonic() + timeout  # for the batch, however many callbacks it makes
            results = _read(harness, rec.request, deadline, rec.callbacks)["results"]
    except _Broken as broken:
        return Verdict(False, broken.reason, n, busy_seconds=broken.busy_seconds)
    if not isinstance(results, list) or len(results) != n:
        return Verdict(False, "the replay returned a wrong number of results", n)
    if results == rec.expected:
        return Verdict(True, "", n)  # the tests would see exactly what they saw on the reference
    if not rec.callbacks:
        verdict = _replay(rec, sources, _Batch(rec, results), deadline)
        if verdict is not None:
            return verdict
    # the tests went another way on the agent's answers (or pass callables): run them again, live,
    # with a timeout of their own (a verification takes at most two)
    callbacks: list[Callable[..., Any]] = []
    with sandbox.harness(HARNESS_MODULE.name, "main") as harness:
        deadline = time.monotonic() + timeout
        verdict = _replay(rec, sources, _Live(rec, harness, deadline, callbacks), deadline, callbacks)
    assert verdict is not None
    return verdict
