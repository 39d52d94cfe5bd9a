"""Vector envs: agentgym ids under gymnasium's AsyncVectorEnv (text needs shared_memory=False)."""

from __future__ import annotations

import gymnasium as gym

import agentgym


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


def _rollout(mode: str, **vector_kwargs):
    envs = gym.make_vec(
        "agentgym/ToolUse-v0",
        num_envs=2,
        vectorization_mode=mode,
        vector_kwargs=vector_kwargs,
        backend="local",
        split="test",
    )
    try:
        seen = [tuple(envs.reset(seed=[3, 4])[0]["text"])]
        for actions in (["help", "not an action"], ['finish("é ✓ 😀")', "help"]):
            seen.append(tuple(envs.step(actions)[0]["text"]))
        return seen
    finally:
        envs.close()


def test_async_shared_memory_round_trips_text_exactly():
    """Gymnasium's default shared_memory=True must give the same texts as the sync env, not '000...'."""
    expected = _rollout("sync")
    assert _rollout("async") == expected
    assert _rollout("async", shared_memory=True, copy=False) == expected


def test_any_text_shared_memory_keeps_every_character():
    from copy import deepcopy

    from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory, write_to_shared_memory

    space = agentgym.AnyText(8)
    memory = create_shared_memory(space, n=3)
    view = read_from_shared_memory(space, memory, n=3)  # read once, like AsyncVectorEnv
    for i, text in enumerate(["héllo\x00\n", "\ud800😀", ""]):
        write_to_shared_memory(space, i, text, memory)
    assert deepcopy(view) == ("héllo\x00\n", "\ud800😀", "")
    write_to_shared_memory(space, 2, "later", memory)
    assert view[2] == "later" and list(view) == ["héllo\x00\n", "\ud800😀", "later"]
