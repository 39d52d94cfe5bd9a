"""BFCL's API instances driven by parsed calls: the sandbox side of BFCL-v0, and the host's ground truth.

Stdlib only (BFCL's classes come from the image's ``/opt/bfcl``, or from the host's copy in the
download cache for the local backend: `agentgym.setup.api_images`). The step server loads this file
and keeps one `World`, the agent's instances; the host builds its own `World` for the ground truth.
A call arrives already parsed (a method name, positional and keyword values): nothing is ``eval``'d.
Each call is executed and its result formatted exactly as BFCL's executor does
(``multi_turn_utils.execute_multi_turn_func_call``), so the execution results and the instances'
state are the ones BFCL's checker would see for the same call list.

State leaves the sandbox as data: `fingerprint` hashes a canonical encoding of each public
attribute, built so that two values get the same hash exactly when Python's ``==`` (what BFCL's
``state_checker`` applies) holds for them: numbers by value (``1 == 1.0 == True``), dicts and sets
unordered, lists and tuples kept apart, BFCL's ``File`` and ``Directory`` by name and content (their
own ``__eq__``), any other object unequal to everything, as an object without ``__eq__`` is.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import inspect
import json
import math
import os
import sys
from typing import Any

__all__ = ["World", "load", "fingerprint", "setup", "call", "state", "drift", "cwd"]

PRELOADED = tuple(
    importlib.import_module(name)
    for name in (
        "_strptime",
        "bisect",
        "calendar",
        "cmath",
        "colorsys",
        "datetime",
        "decimal",
        "locale",
        "numbers",
        "random",
        "string",
        "subprocess",
        "time",
        "unicodedata",
    )
)
"""Standard modules BFCL's classes and mpmath import when the first task is set up (``strptime`` even
later, at a call). They are imported here, when the step server loads this file, because on a host
the interpreter's own files may be readable by root alone: the local backend loads family code with
root's rights, then drops them. (Not unused imports: keep them.)"""

STATELESS = ("MathAPI",)
"""BFCL's classes that take no initial configuration (``STATELESS_CLASSES``)."""
BLOCKED = ("kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run")
"""Names BFCL's executor refuses to run (none is a method of the eight classes)."""
NOT_FOUND = ("no such", "not found", "does not exist", "not exist", "invalid", "unknown")


def load(roots: list[str], modules: dict[str, str]) -> dict[str, type]:
    """BFCL's classes from the first root that holds them (``<root>/python/bfcl_apis``); class -> type."""
    for root in roots:
        python = os.path.join(root, "python")
        if os.path.isdir(os.path.join(python, "bfcl_apis")):
            if python not in sys.path:
                sys.path.append(python)  # an installed mpmath of the same version may come first
            return {cls: getattr(importlib.import_module(f"bfcl_apis.{mod}"), cls) for cls, mod in modules.items()}
    raise RuntimeError(f"BFCL's API classes are not in {roots}: run `agentgym setup`")


def _number(value: float) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def _encode(value: Any) -> Any:
    """A JSON value standing for ``value`` such that equal encodings <=> ``==`` (see the module doc)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return {"#": _number(value)}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, tuple):
        return {"tuple": [_encode(v) for v in value]}
    if isinstance(value, dict):
        items = sorted((json.dumps(_encode(k), sort_keys=True), _encode(v)) for k, v in value.items())
        return {"dict": items}
    if isinstance(value, (set, frozenset)):
        return {"set": sorted(json.dumps(_encode(v), sort_keys=True) for v in value)}
    kind = type(value).__name__
    if kind == "File" and hasattr(value, "content"):
        return {"File": [value.name, value.content]}
    if kind == "Directory" and hasattr(value, "contents"):
        return {"Directory": [value.name, _encode(value.contents)]}
    own_eq: object = type(value).__eq__  # object: a class's __eq__ is compared by identity, not called
    if hasattr(value, "isoformat") and own_eq is not object.__eq__:  # datetime, date
        return {kind: value.isoformat()}
    return {"object": f"{kind}@{id(value)}"}  # default equality is identity: equal to nothing elsewhere


def fingerprint(value: Any) -> str:
    """A short hash of `_encode`'s canonical form of ``value``."""
    text = json.dumps(_encode(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def format_result(result: Any) -> str:
    """An execution result as BFCL's executor records it (str as is, dict as JSON, else ``str``)."""
    if type(result) is str:
        return result
    if type(result) is dict:
        try:
            return json.dumps(result)
        except Exception:  # BFCL's own fallback
            return str(result)
    return str(result)


class World:
    """One BFCL instance set: the involved classes loaded with the task's initial configuration."""

    def __init__(self, classes: dict[str, type], config: dict[str, Any], long_context: bool) -> None:
        self.classes, self.config, self.long_context = classes, config, long_context
        self.instances: dict[str, Any] = {}
        self.methods: dict[str, Any] = {}
        self.log: list[tuple[str, list[Any], dict[str, Any]]] = []
        self._build()

    def _build(self) -> None:
        self.instances, self.methods = {}, {}
        for name, cls in self.classes.items():
            instance = cls()
            if name not in STATELESS:
                instance._load_scenario(copy.deepcopy(self.config.get(name, {})), long_context=self.long_context)
            self.instances[name] = instance
            for method, bound in inspect.getmembers(instance, predicate=inspect.ismethod):
                if not method.startswith("_"):
                    self.methods[method] = bound  # a later class wins a shared name, as in BFCL's mapping

    def call(self, name: str, positional: list[Any], kwargs: dict[str, Any]) -> tuple[str, bool, str | None]:
        """Run one call as BFCL's executor does; (result text, ok, error kind). The values are copied
        first: BFCL evaluates a fresh literal for every call, and methods keep lists they are given."""
        self.log.append((name, copy.deepcopy(list(positional)), copy.deepcopy(dict(kwargs))))
        positional, kwargs = copy.deepcopy(list(positional)), copy.deepcopy(dict(kwargs))
        method = self.methods.get(name)
        if name in BLOCKED:
            return f"Error during execution: Function call {name} is not allowed.", False, "bad_args"
        if method is None:
            return f"Error during execution: name '{name}' is not defined", False, "bad_args"
        kind: str | None = None
        try:
            inspect.signature(method).bind(*positional, **kwargs)
        except TypeError:
            kind = "bad_args"
        try:
            result = method(*positional, **kwargs)
        except Exception as exc:  # BFCL records the error as the call's result
            return f"Error during execution: {exc}", False, kind or "exception"
        text = format_result(result)
        if isinstance(result, dict) and "error" in result:
            message = str(result["error"]).lower()
            return text, False, "not_found" if any(m in message for m in NOT_FOUND) else "api_error"
        return text, True, None

    def state(self) -> dict[str, dict[str, str]]:
        """class -> public attribute -> `fingerprint`: what BFCL's ``state_checker`` compares."""
        return {
            name: {attr: fingerprint(value) for attr, value in vars(instance).items() if not attr.startswith("_")}
            for name, instance in self.instances.items()
        }

    def cwd(self) -> list[str] | None:
        """The file system's current directory as a path of names from its root (None without one)."""
        fs = self.instances.get("GorillaFileSystem")
        if fs is None:
            return None
        path, node = [], getattr(fs, "_current_dir", None)
        while node is not None and node is not fs.root:
            path.append(node.name)
            node = node.parent
        return path[::-1]

    def rollback(self) -> tuple[str, list[Any], dict[str, Any]] | None:
        """Lose the last call: the instances rebuilt and every earlier call replayed. The lost call."""
        if not self.log:
            return None
        log, lost = self.log[:-1], self.log[-1]
        self.log = []
        self._build()
        for name, positional, kwargs in log:
            self.call(name, positional, kwargs)
        return lost


# ---------------------------------------------------------------------------- the step server's side
_WORLD: World | None = None
_CLASSES: dict[str, type] = {}


def setup(roots: list[str], modules: dict[str, str], config: dict[str, Any], long_context: bool) -> dict[str, Any]:
    """Fresh instances of the task's classes (``modules``: class -> BFCL module) with its configuration."""
    global _WORLD
    missing = {c: m for c, m in modules.items() if c not in _CLASSES}
    if missing:
        _CLASSES.update(load(roots, missing))
    _WORLD = World({c: _CLASSES[c] for c in modules}, config, long_context)
    return {"cwd": _WORLD.cwd()}


def _world() -> World:
    if _WORLD is None:
        raise RuntimeError("no task is set up")
    return _WORLD


def call(name: str, positional: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    text, ok, kind = _world().call(name, positional, kwargs)
    return {"result": text, "ok": ok, "error_kind": kind, "cwd": _world().cwd()}


def state() -> dict[str, dict[str, str]]:
    return _world().state()


def cwd() -> list[str] | None:
    return _world().cwd()


def drift() -> dict[str, Any]:
    """State drift: the service loses the last call (a replica rolled back), as `World.rollback`."""
    lost = _world().rollback()
    return {"lost": None if lost is None else list(lost), "cwd": _world().cwd()}
