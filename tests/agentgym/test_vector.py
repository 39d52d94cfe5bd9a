"""Vector envs: agentgym ids under gymnasium's AsyncVectorEnv (text needs shared_memory=False)."""

from __future__ import annotations

import gymnasium as gym

import agentgym  # noqa: F401


def test_async_vector_env_steps_text_observations():
    envs = gym.make_vec(
        "agentgym/ToolUse-v0",
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"shared_memory": False},
        backend="local",
        split="test",
    )
    try:
        obs, infos = envs.reset(seed=[1, 2])
        assert len(obs["text"]) == 2 and all(isinstance(t, str) and t for t in obs["text"])
        assert obs["text"][0] != obs["text"][1]  # two seeds, two tasks: nothing stale or shared
        obs, rewards, terminated, truncated, infos = envs.step(["help", "not an action"])
        assert "find_user_by_email" in obs["text"][0]
        assert obs["text"][1].startswith("error:")
        assert not terminated.any() and not truncated.any()
    finally:
        envs.close()
