"""Sandboxes: where agent actions run. One `Sandbox` interface, two backends.

- ``docker``: a hardened container per sandbox (what ``"auto"`` means).
- ``local``: a host subprocess with rlimits, for machines without Docker; not isolation, so it
  runs only when chosen by name: ``backend="local"`` or ``AGENTGYM_BACKEND=local``.

``make_sandbox("auto", image=...)`` uses Docker, or raises `EngineUnreachable` (naming
``agentgym setup`` and ``backend="local"``) when no engine answers: agent code never lands on
the host by accident. The ``AGENTGYM_BACKEND`` environment variable overrides ``"auto"``.
"""

from __future__ import annotations

import os
from typing import Any

from agentgym.errors import ConfigError
from agentgym.sandbox.base import CommandResult, ForkResult, Sandbox
from agentgym.sandbox.docker import DockerSandbox, docker_client
from agentgym.sandbox.local import LocalSandbox

__all__ = ["Sandbox", "CommandResult", "ForkResult", "make_sandbox", "resolve_backend", "BACKENDS"]

BACKENDS = ("auto", "docker", "local")


def resolve_backend(backend: str = "auto") -> str:
    """The concrete backend ``"auto"`` stands for on this machine right now."""
    if backend == "auto":
        backend = os.environ.get("AGENTGYM_BACKEND", "auto") or "auto"
    if backend not in BACKENDS:
        raise ConfigError(f"backend={backend!r}; choose one of {BACKENDS}")
    if backend == "auto":
        docker_client(timeout=3)  # raises EngineUnreachable, whose message names both ways out
        return "docker"
    return backend


def make_sandbox(backend: str = "auto", *, image: str = "agentgym/base:latest", **options: Any) -> Sandbox:
    """Start a sandbox. Options go to the backend (memory, cpus, pids_limit, start_timeout...)."""
    concrete = resolve_backend(backend)
    if concrete == "docker":
        return DockerSandbox(image, **options)

    return LocalSandbox(**options)
