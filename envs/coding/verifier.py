"""Coding-v0's verifier: a verdict that no code in the workspace can forge.

The hidden tests never run in the sandbox and never enter it. On the host, each hidden test runs
against the *reference* implementation (the correct corpus module), with the module replaced by
recording proxies: every import, attribute read, call and operator the test performs is logged
with the reference's result, encoded as data (`harness.encode`). After the agent's last turn the
log, without those results, goes to `harness.py` in the sandbox, which performs the same operations
on the agent's modules in a forked child of the warm step server (the agent's uid, only its two
pipes, after every agent process is killed) and sends back its own results, encoded alike. The
verdict, decided here, is that every result matches (`harness.same`: builtins by value, objects by
type and attributes, exceptions by type and message, floats within 1e-9). Exit codes, printed text
and the agent's ``__eq__`` never count, and the expected values exist only in this process. Tests
run with the reference's values, so they take the same path whatever the agent's code does.

The log of a module is recorded once per process. Recording needs the test files to use the
module through imports (the corpus rule) and to pass only data, the module's own objects and
callables to it; callables stay here and are called back over the harness's channel.
"""

from __future__ import annotations

import builtins
import itertools
import json
import sys
import threading
import time
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentgym.envs.coding import harness as h
from agentgym.sandbox.modules import SandboxModule

__all__ = ["Recording", "Verdict", "record", "verify"]

HARNESS_MODULE = SandboxModule.from_file("agentgym_coding_harness", Path(h.__file__))
"""Loaded into the step server with the env's other modules; each verification runs its ``main``
in a forked child (`Sandbox.harness`), so no interpreter starts per verdict."""
MAX_REPLY_BYTES = 32 << 20
TIMED_OUT = "the replay ran out of time"
"""The `Verdict.reason` of a replay stopped at its deadline."""
_ref_counter = itertools.count()
_lock = threading.Lock()


@dataclass
class Recording:
    """What the hidden tests did to the reference: operations, the reference's results, and callbacks."""

    ops: list[list[Any]] = field(default_factory=list)
    expected: list[dict[str, Any]] = field(default_factory=list)
    callbacks: list[Callable[..., Any]] = field(default_factory=list)
    request: bytes = b""  # the line the harness gets: the operations, without the expected results


@dataclass(frozen=True)
class Verdict:
    """The outcome: ``passed``, and for a failure which operation differed or what went wrong (host-side only)."""

    passed: bool
    reason: str = ""
    operations: int = 0
    busy_seconds: float | None = field(default=None, compare=False)
    """When the replay ran out of time: the CPU seconds it had used (it computed, or load starved it)."""


# ------------------------------------------------------------------------------------------ recording
class _Ref:
    """A reference object seen through the recorder: every use becomes a logged operation."""

    __slots__ = ("_rec", "_handle", "_obj")

    def __init__(self, rec: "_Recorder", handle: str, obj: Any) -> None:
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
        real_args = [_unwrap(a) for a in args]
        real_kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        op = ["call", _handle(self), [rec.arg(a) for a in args], [[k, rec.arg(v)] for k, v in kwargs.items()]]
        mutable = [x for x in real_args + list(real_kwargs.values()) if type(x) in (list, dict, set, bytearray)]
        return rec.perform(op, lambda: obj(*real_args, **real_kwargs), mutable)


def _rec(ref: _Ref) -> "_Recorder":
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
        real = [_unwrap(x) for x in operands]
        mutable = [x for x in real[1:] if type(x) in (list, dict, set, bytearray)]
        return rec.perform(["op", name, [rec.arg(x) for x in operands]], lambda: h.OPERATORS[name](*real), mutable)
    return method


for _name in ("eq", "ne", "lt", "le", "gt", "ge", "getitem", "setitem", "delitem", "contains", "len", "iter",
              "next", "bool", "str", "repr", "hash", "add", "sub", "mul", "truediv", "floordiv", "mod", "neg", "pos",
              "abs", "int", "float", "round", "enter", "exit", "format"):
    setattr(_Ref, f"__{_name}__", _operator(_name))
for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod"):
    setattr(_Ref, f"__r{_name}__", _operator(_name, reflected=True))


class _Recorder:
    def __init__(self, sources: Mapping[str, str]) -> None:
        self.sources = dict(sources)
        self.out = Recording()
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
            self.out.callbacks.append(value)
            return {"cb": len(self.out.callbacks) - 1}
        encoded = h.encode(value)
        if _has_object(encoded):
            raise TypeError(f"a hidden test passes a {type(value).__qualname__} to the module; only data, the "
                            "module's own objects and callables can be replayed")
        return encoded

    def perform(self, op: list[Any], thunk: Callable[[], Any], mutable: list[Any] | None = None) -> Any:
        index = len(self.out.ops)
        self.out.ops.append(op)
        try:
            value = thunk()
        except BaseException as exc:
            self.out.expected.append({"x": h.describe_exception(exc)})
            raise
        handles: list[tuple[str, Any]] = []
        expected: dict[str, Any] = {"v": h.encode(value, handles, str(index))}
        if mutable:
            expected["after"] = [h.encode(x) for x in mutable]
        self.out.expected.append(expected)
        if isinstance(value, type) and issubclass(value, BaseException):
            return value  # pytest.raises and except clauses need the real class
        if op[0] == "getattr" and type(value) in (list, dict, set, bytearray):
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

    def importer(self) -> Callable[..., Any]:
        def _import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
            if level == 0 and name in self.sources:
                return self.import_module(name)
            return builtins.__import__(name, globals, locals, fromlist, level)
        return _import


def _has_object(encoded: Any) -> bool:
    if isinstance(encoded, list):
        return any(_has_object(x) for x in encoded)
    if isinstance(encoded, dict):
        return "o" in encoded or any(_has_object(x) for x in encoded.values())
    return False


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


def record(sources: Mapping[str, str], tests: Mapping[str, str]) -> Recording:
    """Run every test function of each test file against the reference modules ``sources``, recording.

    ``tests`` maps a test file name to its source. A test that fails on the reference is a corpus
    bug and raises (it would make every verdict fail).
    """
    rec = _Recorder(sources)
    namespace_builtins = dict(builtins.__dict__, __import__=rec.importer())
    for file, source in sorted(tests.items()):
        namespace: dict[str, Any] = {"__name__": f"hidden_{file[:-3]}", "__builtins__": namespace_builtins}
        exec(compile(source, f"<hidden {file}>", "exec"), namespace)
        for name, fn in list(namespace.items()):
            if name.startswith("test") and callable(fn) and getattr(fn, "__module__", None) == namespace["__name__"]:
                try:
                    fn()
                except Exception as exc:
                    raise RuntimeError(f"hidden test {file}::{name} fails on the reference: {exc!r}") from exc
    rec.out.request = (json.dumps({"ops": rec.out.ops}, separators=(",", ":")) + "\n").encode()
    return rec.out


@lru_cache(maxsize=256)  # about 0.3 MB each (the test namespace stays alive for callbacks); 7-13 ms to record.
# 256 holds every reference of the shipped splits (94 train/test, 26 held out): a training run, which
# draws modules at random, re-recorded at about one submit in eleven with 64 (simulated on the train split).
def _recording(key: tuple[tuple[str, str], ...], tests_key: tuple[tuple[str, str], ...]) -> Recording:
    with _lock:  # the reference modules are registered in sys.modules while recording
        return record(dict(key), dict(tests_key))


# ------------------------------------------------------------------------------------------ verifying
def verify(sandbox: Any, sources: Mapping[str, str], tests: Mapping[str, str], *, timeout: float) -> Verdict:
    """Replay the hidden tests' operations on the agent's modules in ``sandbox`` and compare.

    Anything the agent's code does to the replay (crash, hang, flood, garbage, exit) is a failed
    verdict; only a failure of the sandbox itself raises (an `InfrastructureError`).
    """
    rec = _recording(tuple(sorted(sources.items())), tuple(sorted(tests.items())))
    deadline = time.monotonic() + timeout  # for the whole replay, however many callbacks it makes
    with sandbox.harness(HARNESS_MODULE.name, "main") as harness:
        line = harness.talk(rec.request, timeout=timeout, max_bytes=MAX_REPLY_BYTES)
        while True:
            if line.timed_out or time.monotonic() > deadline:
                return Verdict(False, TIMED_OUT, busy_seconds=line.busy_seconds)
            if line.eof or line.truncated:
                return Verdict(False, "the replay exited early" if line.eof else "the replay's output was too large")
            try:
                message = json.loads(line.text)
            except (ValueError, RecursionError):
                return Verdict(False, "the replay sent an unreadable line")
            if not isinstance(message, dict):
                return Verdict(False, "the replay sent an unreadable line")
            if "results" in message:
                return _compare(rec, message["results"])
            if "cb" not in message:
                return Verdict(False, "the replay sent an unexpected line")
            remaining = max(0.001, deadline - time.monotonic())
            line = harness.talk(_answer_callback(rec, message), timeout=remaining, max_bytes=MAX_REPLY_BYTES)


def _answer_callback(rec: Recording, message: dict[str, Any]) -> bytes:
    """Call a test's callable for the agent's code, on the agent's decoded (plain data) arguments."""
    try:
        fn = rec.callbacks[int(message["cb"])]
        args = [h.decode(a) for a in message["args"]]
        kwargs = {str(k): h.decode(v) for k, v in message["kwargs"]}
        reply = {"v": h.encode(fn(*args, **kwargs))}
    except Exception as exc:  # noqa: BLE001 - the callable's own error goes back to the caller
        reply = {"x": h.describe_exception(exc)}
    return (json.dumps(reply, separators=(",", ":")) + "\n").encode()


def _compare(rec: Recording, results: Any) -> Verdict:
    n = len(rec.expected)
    if not isinstance(results, list) or len(results) != n:
        return Verdict(False, "the replay returned a wrong number of results", n)
    for index, (want, got) in enumerate(zip(rec.expected, results)):
        try:
            ok = isinstance(got, dict) and set(got) == set(want) and all(h.same(want[k], got[k]) for k in want)
        except RecursionError:
            ok = False
        if not ok:
            return Verdict(False, f"operation {index} ({rec.ops[index][0]}) differs from the reference", n)
    return Verdict(True, "", n)

