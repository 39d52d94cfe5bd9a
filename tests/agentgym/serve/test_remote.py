"""`RemoteEnv` and ``gym.make(id, remote=URL)``: the server's spaces, the local trajectory for the
same seed on every registered id, Gymnasium's ``check_env``, async vector envs and SB3."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import agentgym
from agentgym.errors import ConfigError, InfrastructureError
from agentgym.remote import RemoteAuthError, RemoteEnv, ServerUnreachable
from agentgym.wire.codec import from_json, space_from_json, space_to_json, to_json
from serve_helpers import IDS, LOCAL_IDS, OTHER_TOKEN, TOKEN, TOY_ID, backend_for, start


def equal(a, b) -> bool:
    """Deep equality with numpy arrays compared by value, dtype and shape."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and np.array_equal(a, b)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def oracle_pair(remote: gym.Env, local: gym.Env, seed: int, max_turns: int = 60) -> list:
    """Both envs played with the local oracle's actions; returns pairs of (remote, local) steps."""
    steps = [(remote.reset(seed=seed), local.reset(seed=seed))]
    for _ in range(max_turns):
        action = local.unwrapped.reference_action()
        r, lo = remote.step(action), local.step(action)
        steps.append((r, lo))
        if lo[2] or lo[3]:
            break
    return steps


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"budget": 6, "labels": True, "faults": "corrupted_output@turn=2"},
        {"numeric": {"max_actions": 16, "dim": 32}, "budget": 10},
    ],
    ids=["bare", "budget-faults-labels", "numeric"],
)
def test_spaces_round_trip_through_json(kwargs):
    for env_id in LOCAL_IDS:
        env = gym.make(env_id, backend="local", **kwargs)
        try:
            for space in (env.observation_space, env.action_space):
                assert space_from_json(space_to_json(space)) == space
            obs, info = env.reset(seed=1)
            assert equal(from_json(env.observation_space, to_json(obs)), obs)
        finally:
            env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_same_seed_same_trajectory_as_local_and_oracle_succeeds(url_of, env_id):
    remote = RemoteEnv(url_of(env_id), token=TOKEN)
    local = gym.make(env_id, backend=backend_for(env_id))
    try:
        assert remote.observation_space == local.observation_space and remote.action_space == local.action_space
        steps = oracle_pair(remote, local, seed=7)
        for r, lo in steps:
            assert equal(r, lo)  # obs, reward, terminated, truncated and info, exactly
        final = steps[-1][0]
        assert final[1] == 1.0 and final[2] is True and final[4]["success"] is True
        assert (
            remote.help_text() and remote.help_text() == local.unwrapped.help_text() or not local.unwrapped.help_text()
        )
    finally:
        remote.close()
        local.close()


def test_wrapper_stack_is_the_servers(server):
    """The server's stack (budget, faults, labels) shapes what the remote env returns."""
    kwargs = {"backend": "local", "budget": 4, "labels": True, "faults": "tool_error@turn=1"}
    srv = start(["agentgym/ToolUse-v0"], kwargs)
    try:
        remote = gym.make("agentgym/ToolUse-v0", remote=srv.url, token=TOKEN)
        local = gym.make("agentgym/ToolUse-v0", **kwargs)
        try:
            assert "turns_left" in remote.observation_space.spaces
            for r, lo in oracle_pair(remote, local, seed=3):
                assert equal(r, lo)
            assert "failure_category" in r[4]
        finally:
            remote.close()
            local.close()
    finally:
        srv.stop()


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes(url_of, monkeypatch, env_id):
    monkeypatch.setenv("AGENTGYM_SERVE_TOKEN", TOKEN)  # not a make kwarg: env.spec would record it
    env = gym.make(env_id, remote=url_of(env_id), render_mode="ansi")
    try:
        check_env(env.unwrapped)
        assert "token" not in env.spec.kwargs
        env.reset(seed=0)
        assert env.render() and env.render() in env.reset(seed=0)[0]["text"]
    finally:
        env.close()


def test_gym_make_remote_checks_id_and_refuses_client_side_options(server):
    env = gym.make("agentgym/Coding-v0", remote=f"{server.url}/agentgym/Coding-v0", token=TOKEN)
    try:
        assert env.unwrapped.env_id == "agentgym/Coding-v0"
    finally:
        env.close()
    with pytest.raises(ConfigError, match="serves 'agentgym/Browser-v0'"):
        gym.make("agentgym/Coding-v0", remote=f"{server.url}/agentgym/Browser-v0", token=TOKEN)
    with pytest.raises(ConfigError, match="belong on the server"):
        gym.make("agentgym/Coding-v0", remote=server.url, token=TOKEN, budget=4)
    with pytest.raises(ConfigError, match="belong on the server"):
        gym.make("agentgym/Coding-v0", remote=server.url, token=TOKEN, split="test")
    env = agentgym.make("agentgym/Browser-v0", remote=server.url + "/agentgym/Browser-v0", token=TOKEN)
    env.close()


def test_token_errors_are_typed(server, monkeypatch):
    monkeypatch.delenv("AGENTGYM_SERVE_TOKEN", raising=False)
    monkeypatch.delenv("AGENTGYM_SERVE_TOKEN_FILE", raising=False)
    with pytest.raises(ConfigError, match="no token"):
        RemoteEnv(server.url)
    with pytest.raises(RemoteAuthError):
        RemoteEnv(server.url, token="x" * 32)
    monkeypatch.setenv("AGENTGYM_SERVE_TOKEN", OTHER_TOKEN)
    RemoteEnv(server.url).close()  # the second accepted token, from the environment


def test_unreachable_server_is_an_infrastructure_error():
    with pytest.raises(ServerUnreachable) as info:
        RemoteEnv("http://127.0.0.1:9", token=TOKEN, timeout=2)
    assert isinstance(info.value, InfrastructureError)


def test_async_vector_env_over_remote_envs(server):
    url = f"{server.url}/{TOY_ID}"
    envs = gym.vector.AsyncVectorEnv([lambda: RemoteEnv(url, token=TOKEN)] * 2, shared_memory=False)
    try:
        obs, infos = envs.reset(seed=[0, 1])
        assert len(obs["text"]) == 2 and all("Write the word" in t for t in obs["text"])
        actions = [f"write {t.split(chr(39))[1]}" for t in obs["text"]]
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        obs, rewards, terminated, truncated, infos = envs.step(["submit", "submit"])
        assert list(rewards) == [1.0, 1.0] and all(terminated)
    finally:
        envs.close()
    make_vec = gym.make_vec(
        "agentgym/ToolUse-v0",
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"shared_memory": False},
        remote=f"{server.url}/agentgym/ToolUse-v0",
        token=TOKEN,
    )
    try:
        obs, _ = make_vec.reset(seed=5)
        assert len(obs["text"]) == 2
    finally:
        make_vec.close()


def test_sb3_learns_on_a_served_numeric_view():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    srv = start([TOY_ID], {"backend": "local", "numeric": {"max_actions": 8, "dim": 16}, "budget": 4})
    try:
        env = RemoteEnv(srv.url, token=TOKEN)
        try:
            sb3_check_env(env)
            env.reset(seed=0)
            assert env.action_masks().dtype == bool
            PPO("MultiInputPolicy", env, n_steps=16, batch_size=16, n_epochs=1, seed=0, device="cpu").learn(32)
        finally:
            env.close()
    finally:
        srv.stop()
