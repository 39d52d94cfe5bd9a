"""PettingZoo interop: K attempts of one task in separate sandboxes."""

from __future__ import annotations

import pytest
from pettingzoo.test import parallel_api_test

from agentgym.errors import ConfigError
from agentgym.parallel import KAttemptsEnv
from support.toy_env import ToyEnv


@pytest.mark.filterwarnings("ignore:KAttemptsEnv.reset ignores the options")  # PettingZoo's test sends {"options": 1}
def test_parallel_api(backend):
    env = KAttemptsEnv(lambda: ToyEnv(backend=backend), k=2)
    try:
        parallel_api_test(env, num_cycles=20)
    finally:
        env.close()


def test_attempts_share_the_task_and_finish_independently():
    env = KAttemptsEnv(lambda: ToyEnv(backend="local"), k=3)
    try:
        obs, infos = env.reset(seed=4)
        assert len({info["task_id"] for info in infos.values()}) == 1
        oracle = env._envs["attempt_0"].unwrapped
        solution = [oracle.reference_action()]
        word = oracle.task.meta["word"]
        # attempt_0 solves it, attempt_1 submits a wrong answer, attempt_2 keeps reading
        _, rewards, terms, _, _ = env.step(
            {"attempt_0": f"write {word}", "attempt_1": "write nope", "attempt_2": "cat"}
        )
        _, rewards, terms, _, _ = env.step({"attempt_0": "submit", "attempt_1": "submit", "attempt_2": "cat"})
        assert rewards == {"attempt_0": 1.0, "attempt_1": 0.0, "attempt_2": 0.0}
        assert env.agents == ["attempt_2"] and solution[0] == f"write {word}"
        with pytest.raises(ConfigError):
            env.step({})
    finally:
        env.close()


def test_bad_k_is_rejected():
    with pytest.raises(ConfigError, match="k=0"):
        KAttemptsEnv(lambda: ToyEnv(backend="local"), k=0)


def test_pickles_after_reset_and_flattens_to_box():
    """SuperSuit's concat_vec_envs_v1 copies the env by pickling it, often after a reset."""
    import pickle

    import numpy as np
    from gymnasium import spaces

    env = KAttemptsEnv("agentgym/ToolUse-v0", k=2, flatten=True, numeric=True, budget=4, backend="local", split="test")
    try:
        obs, _ = env.reset(seed=0)
        assert isinstance(env.observation_space("attempt_0"), spaces.Box)
        assert env.observation_space("attempt_0").contains(obs["attempt_0"])
        copy = pickle.loads(pickle.dumps(env))
        try:
            again, _ = copy.reset(seed=0)
            assert np.array_equal(again["attempt_0"], obs["attempt_0"]) and copy.possible_agents == env.possible_agents
        finally:
            copy.close()
    finally:
        env.close()
