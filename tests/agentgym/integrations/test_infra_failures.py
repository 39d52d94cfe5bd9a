"""Infrastructure failures inside a trainer's rollout are never the agent's (DESIGN 16).

The failure is real: the episode's sandbox container is ``docker kill``-ed mid-episode (as an OOM
kill, an engine restart or a lost node would end it), in process and behind ``agentgym serve``.
Each adapter then speaks its trainer's contract: TRL gets None from ``get_reward()`` (every reward
function None: unscorable, advantage 0) and a neutral tool result; SkyRL a typed error its skip
option acts on; verifiers an error on the rollout. An agent that crashes its own sandbox earns no
such exclusion. The GRPO step with a killed rollout is in ``test_grpo_survives_a_killed_rollout``.
"""

from __future__ import annotations

import secrets
import time

import pytest

pytest.importorskip("trl")
pytest.importorskip("datasets")

from agentgym.errors import InfrastructureError, ResetFailed
from agentgym.integrations import trl as agtrl
from agentgym.integrations.episode import EPISODE_OVER, INFRA_FAILURE, Episode
from agentgym.integrations.tools import action_call, tool_schemas
from support.docker import kill_sandbox_container, require_docker

IMAGES = {"agentgym/Coding-v0": "agentgym/coding:latest", "agentgym/ToolUse-v0": "agentgym/tooluse:latest"}


def trl_call(env, name: str, args: dict) -> object:
    """A tool call as TRL 1.16's tool loop makes it: any exception becomes ``{"error": str(e)}``."""
    try:
        return getattr(env, name)(**args)
    except Exception as e:  # what grpo_trainer.py does with a tool's exception
        return {"error": str(e)}


def oracle_call(env) -> tuple[str, dict]:
    episode = env.episode
    base = episode.env.unwrapped
    return action_call(base.family, base.reference_action(), tool_schemas(episode.env, probed=base.tools()))


def instance(env_id: str, remote: str | None = None, **kwargs):
    factory = agtrl.environment_factory(env_id, remote=remote, **kwargs)
    row = agtrl.dataset(env_id, n=1, seed=0)[0]
    cls = factory[row["environment"]] if isinstance(factory, dict) else factory
    return cls(), row


@pytest.mark.docker
@pytest.mark.parametrize("env_id", sorted(IMAGES))
def test_a_sandbox_killed_mid_episode_leaves_the_completion_unscorable(env_id):
    """The user's report: reset, one call, kill the container, three more calls as TRL makes them,
    then ``get_reward()``. It answered 0.0 (the policy's failure); it must answer None."""
    require_docker(IMAGES[env_id])
    env, row = instance(env_id)
    try:
        env.reset(**row)
        first = trl_call(env, *oracle_call(env))
        assert isinstance(first, str) and not env.episode.done
        action = oracle_call(env)
        kill_sandbox_container(env.episode.env.unwrapped.sandbox)
        after = [trl_call(env, *action) for _ in range(3)]
        assert env.get_reward() is None
        assert after == [INFRA_FAILURE, EPISODE_OVER, EPISODE_OVER]  # a neutral text, never the exception
        summary = env.episode.summary()
        assert summary["infra_failures"] == 1 and summary["infra_error"].startswith("SandboxCrashed")
        assert summary["done"] and not summary["success"] and summary["calls_after_end"] == 2
        assert env.episode.env is None  # the dead sandbox's env is closed; the next reset builds a fresh one
        env.reset(**row)  # the next episode on this instance is scored again
        assert env.get_reward() == 0.0 and env.episode.summary()["infra_failures"] == 0
        assert isinstance(trl_call(env, *oracle_call(env)), str) and env.get_reward() is not None
    finally:
        env.episode.close()
