"""SWE-v0 through the trainers' adapters: TRL's tool-calling class and SkyRL's text env, the oracle's
episodes scored by the library's tests."""

from __future__ import annotations

import inspect

import pytest

from agentgym.llm.tools import action_call
from support.docker import require_docker

pytestmark = pytest.mark.docker
DOCKER = {"backend": "docker"}


def _tools_of(cls: type) -> list[str]:
    return sorted(
        n
        for n, _ in inspect.getmembers(cls, predicate=inspect.isfunction)
        if not n.startswith("_") and n not in ("reset", "get_reward")
    )


def test_trl_class_offers_the_grammar_and_scores_the_oracle():
    pytest.importorskip("trl")
    from transformers.utils import get_json_schema

    from agentgym.integrations import trl as agtrl

    require_docker("agentgym/swe:latest")
    cls = agtrl.environment_factory("agentgym/SWE-v0", split="test", **DOCKER)
    assert _tools_of(cls) == ["find", "patch", "replace", "revert", "run", "search", "submit", "test", "view"]
    schemas = [get_json_schema(getattr(cls, n)) for n in _tools_of(cls)]
    env = cls()
    try:
        first = env.reset(seed=0, budget=12)
        assert "fails" in first
        while not env.episode.done:
            name, args = action_call("swe", env.episode.env.unwrapped.reference_action(), schemas)
            getattr(env, name)(**args)
        assert env.get_reward() == 1.0 and env.episode.summary()["success"]
    finally:
        env.episode.close()


def test_skyrl_text_env_scores_the_oracle():
    skyrl_gym = pytest.importorskip("skyrl_gym")
    import agentgym.integrations.skyrl  # noqa: F401  (registers the ids)

    require_docker("agentgym/swe:latest")
    env = skyrl_gym.make(
        "agentgym/SWE-v0", env_config={"kwargs": {**DOCKER, "split": "test"}}, extras={"seed": 1, "budget": 12}
    )
    try:
        env.init([{"role": "user", "content": "Fix the library."}])
        for _ in range(12):
            out = env.step(env.episode.env.unwrapped.reference_action())
            if out["done"]:
                break
        assert out["done"] and out["reward"] == 1.0 and out["metadata"]["success"]
    finally:
        env.close()
