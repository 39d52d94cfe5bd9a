"""What identifies an agent across runs, and what of its settings may be written down.

A resumed run must be the same experiment: the same agent name, the same settings and the
same code. `agent_identity` gives all three plus a digest, which `run.json` keeps and a resume
compares. Secrets (API keys, tokens, passwords, credentials in URLs) never reach the identity
or any file: `public_kwargs` redacts them, wherever they sit in the settings, and the digest
covers only the names of secret settings, so changing a key alone does not block a resume.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import sys
from collections.abc import Mapping
from typing import Any

import agentgym
from agentgym.agents.loading import BUILTIN_AGENTS, resolve_factory

__all__ = ["REDACTED", "is_secret", "public_kwargs", "redact_text", "agent_identity", "identity_mismatch"]

REDACTED = "<redacted>"
_SECRET_WORDS = {
    "key",
    "apikey",
    "token",
    "password",
    "passwd",
    "pwd",
    "secret",
    "authorization",
    "auth",
    "credential",
    "credentials",
    "cookie",
    "bearer",
    "session",
}
_URL_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s]+@")
_BEARER = re.compile(r"(?i)(bearer\s+)\S+")
_KEYLIKE = re.compile(r"\bsk-[A-Za-z0-9_-]{8,}")


def is_secret(name: str) -> bool:
    """A setting whose name says it holds a credential: api_key, access_token, Authorization...
    (``max_tokens`` is not: only whole words count)."""
    words = [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1_\2", str(name)).lower()) if w]
    return any(w in _SECRET_WORDS for w in words)


def redact_text(text: str) -> str:
    """``text`` with URL passwords, bearer tokens and ``sk-...`` keys replaced by `REDACTED`."""
    text = _URL_USERINFO.sub(lambda m: m.group("scheme") + REDACTED + "@", text)
    text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    return _KEYLIKE.sub(REDACTED, text)


def public_kwargs(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Agent settings fit to store: secret values redacted at any depth, the rest made printable."""
    return {str(k): REDACTED if is_secret(str(k)) else _public(v) for k, v in kwargs.items()}


def _public(value: Any) -> Any:
    if isinstance(value, Mapping):
        return public_kwargs(value)
    if isinstance(value, (list, tuple)):
        return [_public(v) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, (int, float, bool, type(None))):
        return value
    return redact_text(repr(value))


def _secret_names(kwargs: Mapping[str, Any], prefix: str = "") -> list[str]:
    out = []
    for k, v in kwargs.items():
        if is_secret(str(k)):
            out.append(prefix + str(k))
        elif isinstance(v, Mapping):
            out += _secret_names(v, f"{prefix}{k}.")
    return sorted(out)


def _code_version(obj: Any) -> str:
    """The version of the code behind an agent: its module's ``__version__``, else a digest of
    the module's source (a changed policy file is a different agent)."""
    module = obj if inspect.ismodule(obj) else sys.modules.get(getattr(obj, "__module__", "") or "")
    if module is None:
        return "unknown"
    top = sys.modules.get(module.__name__.split(".")[0])
    if module.__name__.startswith("agentgym."):
        return f"agentgym {agentgym.__version__}"
    version = getattr(module, "__version__", None) or getattr(top, "__version__", None)
    if version:
        return f"{module.__name__} {version}"
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return "unknown"
    return f"{module.__name__} source sha256:{hashlib.sha256(source.encode()).hexdigest()[:16]}"


def agent_identity(agent: Any, kwargs: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``{"name", "kwargs", "version", "digest"}`` for an agent given by name (with its kwargs), or
    for an agent instance or factory (its class and its code)."""
    kwargs = dict(kwargs or {})
    if isinstance(agent, str):
        name = agent
        target: Any = sys.modules["agentgym.agents.loading"] if agent in BUILTIN_AGENTS else resolve_factory(agent)
        state = ""
    else:
        name = (
            f"{type(agent).__module__}.{type(agent).__qualname__}"
            if not callable(agent) or hasattr(agent, "act")
            else f"{getattr(agent, '__module__', '?')}.{getattr(agent, '__qualname__', type(agent).__qualname__)}"
        )
        target = agent
        # Not its pickled state: a live agent's state moves as it acts (an RNG, counters), so the same
        # agent would never match itself on resume. An instance is identified by its class and code.
        state = ""
    identity = {
        "name": name,
        "kwargs": public_kwargs(kwargs),
        "secrets": _secret_names(kwargs),
        "version": _code_version(target),
        "state": state,
    }
    identity["digest"] = hashlib.sha256(json.dumps(identity, sort_keys=True, default=repr).encode()).hexdigest()[:16]
    return identity


def identity_mismatch(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The fields in which two identities differ, each as ``field: old -> new``."""
    return [
        f"{k}: {old.get(k)!r} -> {new.get(k)!r}"
        for k in ("name", "kwargs", "secrets", "version", "state")
        if old.get(k) != new.get(k)
    ]
