"""`load_agent`: build an agent from the name a user types on the command line.

Names: ``random``, ``oracle``, ``scripted`` (needs ``actions``), ``openai`` (needs ``base_url``
and ``model``), ``hf`` (a transformers model in process, `agentgym.agents.hf.HFAgent`; ``model``
defaults to ``smollm2-135m``), or ``package.module:factory`` for any user policy, where ``factory(**kwargs)``
returns an object with ``reset`` and ``act``.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from agentgym.agents.base import Agent
from agentgym.agents.hf import HFAgent
from agentgym.agents.models import check_model
from agentgym.agents.openai import OpenAIChatAgent
from agentgym.agents.simple import OracleAgent, RandomAgent, ScriptedAgent
from agentgym.errors import ConfigError

__all__ = ["load_agent", "check_agent", "resolve_factory", "BUILTIN_AGENTS", "BATCHED_AGENTS", "batches"]

BUILTIN_AGENTS = ("random", "oracle", "scripted", "openai", "hf")
BATCHED_AGENTS = ("hf",)
"""Agents that play a cell's K samples as one batch (``reset_batch`` / ``act_batch`` / ``cost_batch``)."""


def resolve_factory(spec: str) -> Any:
    """The object ``package.module:factory`` names, imported but not called (a harness checks
    the name in the parent and builds the agent only in its workers)."""
    if ":" not in spec:
        raise ConfigError(f"agent {spec!r}: choose one of {BUILTIN_AGENTS} or give 'package.module:factory'")
    module_name, _, attr = spec.partition(":")
    try:
        module = _import_from_cwd_too(module_name)
    except ImportError as exc:
        raise ConfigError(f"agent {spec!r}: cannot import {module_name!r} ({exc}); is it on PYTHONPATH?") from exc
    factory: Any = module
    for part in attr.split("."):
        factory = getattr(factory, part, None)
        if factory is None:
            raise ConfigError(f"agent {spec!r}: {module_name!r} has no attribute {attr!r}")
    return factory


def _import_from_cwd_too(module_name: str) -> Any:
    """Import ``module_name``, looking in the current directory too, as ``python -m`` does (the
    ``agentgym`` console script's path holds only its own folder). Workers inherit the path."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        cwd = os.getcwd()
        if exc.name != module_name.split(".")[0] or cwd in sys.path or "" in sys.path:
            raise
        sys.path.insert(0, cwd)
        return importlib.import_module(module_name)


def check_agent(spec: str, **kwargs: Any) -> None:
    """Fail early on a bad agent name or missing settings, without building the agent (a
    user's factory may load a model: that belongs in the workers only)."""
    if spec in ("random", "oracle", "scripted"):
        if spec == "scripted" and "actions" not in kwargs:
            raise ConfigError("agent 'scripted' needs actions=[...] (or a dict of task id -> actions)")
        return
    if spec == "openai":
        missing = [k for k in ("base_url", "model") if not kwargs.get(k)]
        if missing:
            raise ConfigError(f"agent 'openai' needs {missing}: pass --base-url URL --model NAME")
        return
    if spec == "hf":
        if "model" in kwargs and not isinstance(kwargs["model"], tuple):
            check_model(kwargs["model"])
        return
    resolve_factory(spec)


def load_agent(spec: str, **kwargs: Any) -> Agent:
    """The agent ``spec`` names, built with ``kwargs``."""
    if spec == "random":
        return RandomAgent(**kwargs)
    if spec == "oracle":
        return OracleAgent(**kwargs)
    if spec == "scripted":
        return ScriptedAgent(**kwargs)
    if spec == "openai":
        missing = [k for k in ("base_url", "model") if not kwargs.get(k)]
        if missing:
            raise ConfigError(f"agent 'openai' needs {missing}: pass --base-url URL --model NAME")
        return OpenAIChatAgent(**kwargs)
    if spec == "hf":
        return HFAgent(**kwargs)
    factory = resolve_factory(spec)
    agent = factory(**kwargs) if callable(factory) else factory
    if not isinstance(agent, Agent):
        raise ConfigError(
            f"agent {spec!r} built {type(agent).__name__}, which lacks reset(env, obs, info) and act(obs, info)"
        )
    return agent


def batches(agent: Any) -> bool:
    """Whether ``agent`` (a name, an `AgentSpec`-like object with ``name``, or an instance) plays a
    cell's samples as one batch."""
    name = agent if isinstance(agent, str) else getattr(agent, "name", None) if not hasattr(agent, "act") else None
    return name in BATCHED_AGENTS if isinstance(name, str) else hasattr(agent, "act_batch")
