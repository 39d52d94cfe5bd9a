"""NumericView: menu-index actions, hashed observations, the mask, SB3's checker."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from agentgym.errors import ConfigError
from agentgym.features import hash_tokens
from agentgym.testing.kv_env import ScriptedAgentEnv, ScriptedEnv
from agentgym.wrappers import CostTracker, FailureLabeler, NumericView, TurnLimit
from agentgym.wrappers.budget import budget_note


def numeric_env(**kw):
    return NumericView(FailureLabeler(TurnLimit(ScriptedAgentEnv(), 6)), **kw)


def test_spaces_and_observation_content():
    env = numeric_env(max_actions=16, dim=32)
    assert env.action_space == spaces.Discrete(16)
    assert set(env.observation_space.spaces) == {"text", "actions", "action_mask", "turns_left", "turns_left_frac"}
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    menu = info["admissible_actions"]
    seen = f"{env.unwrapped._last_text.rstrip()}\n\n{budget_note(6)}"  # TurnLimit states T in the text
    np.testing.assert_array_equal(obs["text"], hash_tokens(seen, 32))
    rows = obs["actions"].reshape(16, 32)
    np.testing.assert_array_equal(rows[0], hash_tokens(menu[0], 32))
    assert not rows[len(menu) :].any()
    assert obs["action_mask"].tolist() == [1] * len(menu) + [0] * (16 - len(menu))
    assert (
        info["action_mask"].tolist() == env.action_masks().tolist() == [True] * len(menu) + [False] * (16 - len(menu))
    )


def test_index_sends_that_menu_entry():
    env = numeric_env()
    _, info = env.reset(seed=1)
    menu = info["admissible_actions"]
    target = env.unwrapped.reference_action()
    *_, info = env.step(menu.index(target))
    assert info["events"][0] == {"kind": "action", "parsed_ok": True, "name": "set", "error": None}


@pytest.mark.parametrize("index", [31, np.int64(20), -1, np.array([40]), "x", None, 2**70])
def test_index_past_the_menu_costs_a_turn(index):
    env = numeric_env()
    env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(index)
    assert info["events"][0]["parsed_ok"] is False and obs["turns_left"].tolist() == [5] and not terminated


def test_long_menus_are_cut_to_max_actions():
    env = numeric_env(max_actions=2)
    obs, info = env.reset(seed=0)
    assert len(info["admissible_actions"]) > 2 and obs["action_mask"].tolist() == [1, 1]


def test_without_a_budget_there_is_no_turns_left_field():
    env = NumericView(ScriptedAgentEnv(), dim=8)
    assert set(env.observation_space.spaces) == {"text", "actions", "action_mask"}


# gymnasium's checker warns on any wrapped env; here the wrapper is what is checked
@pytest.mark.filterwarnings("ignore:.*is different from the unwrapped version")
def test_gymnasium_and_sb3_checkers_pass():
    gym_check_env(numeric_env(max_actions=16, dim=32), skip_render_check=True)  # a numeric view renders nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SB3's advice (e.g. "flatten this observation") counts as a failure
        sb3_check_env(numeric_env(max_actions=16, dim=32), warn=True)
        sb3_check_env(NumericView(CostTracker(TurnLimit(ScriptedEnv(), 5)), max_actions=12, dim=16), warn=True)


def test_sb3_ppo_learns_on_it_without_errors():
    from stable_baselines3 import PPO

    model = PPO("MultiInputPolicy", numeric_env(max_actions=16, dim=32), n_steps=32, batch_size=16, n_epochs=1, seed=0)
    model.learn(total_timesteps=32)


@pytest.mark.parametrize("kwargs", [{"max_actions": 0}, {"dim": -4}, {"dim": 2.0}])
def test_bad_arguments_are_echoed(kwargs):
    ((name, value),) = kwargs.items()
    with pytest.raises(ConfigError, match=f"{name}={value!r}".replace(".", r"\.")):
        numeric_env(**kwargs)


def test_needs_a_text_observation():
    env = ScriptedEnv(observation_space=spaces.Box(0, 1, (3,)))
    with pytest.raises(ConfigError, match="Box"):
        NumericView(env)
