"""BudgetWarning and BudgetExtension: attacks first (spam, no wrapper, garbage, after the end), then
the contract (help, tools, menu, info, events, cost, labels) and composition (RandomBudget,
NumericView, agentgym.make, gym.make, spec, pickle)."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env

import agentgym
from agentgym.errors import ConfigError
from agentgym.make import ENTRY_POINT
from agentgym.testing.kv_env import ScriptedAgentEnv, ScriptedEnv
from agentgym.wrappers import (
    BudgetExtension,
    BudgetWarning,
    CostTracker,
    FailureLabeler,
    NumericView,
    ProcessReward,
    RandomBudget,
    ToolFailureInjector,
    TurnLimit,
    apply_budget,
)

KV_ID = "agentgym-test/SoftKV-v0"
if KV_ID not in gym.registry:
    gym.register(
        KV_ID, entry_point=ENTRY_POINT, kwargs={"family_entry_point": "agentgym.testing.kv_env:ScriptedAgentEnv"}
    )

# every form an agent might use; only the first five are well-formed requests
WELL_FORMED = ["extend", "extend()", '{"tool": "extend"}', '{"name": "extend", "arguments": "{}"}', "```\nextend\n```"]
MALFORMED = [
    "extend 5",
    "extend(turns=100)",
    "extend(100)",
    '{"tool": "extend", "args": {"turns": 99}}',
    "extend(",
    "extend " + "9" * 5000,
    "```python\nextend(n=1)\n```",
    'extend("please, I need it")',
    '{"name": "extend", "arguments": "{\\"turns\\": 50}"}',
    "extend\x00",
]
NOT_EXTEND = [
    "EXTEND",
    "extended",
    "extend_budget()",
    "please extend",
    b"extend",
    7,
    None,
    "",
    '{"tool": "set", "args": {"extend": 1}}',
    "[" * 3000 + "extend",
]


def soft(max_turns=3, extra=2, max_requests=1, cost=0.0, env=None):
    return BudgetExtension(
        TurnLimit(env or ScriptedAgentEnv(), max_turns), extra=extra, max_requests=max_requests, cost=cost
    )


def grants(info):
    return info["extensions"]["granted"]


# ---------------------------------------------------------------------- attacks
def test_spamming_extend_gets_one_grant_and_never_more_than_t_plus_e_turns():
    env = FailureLabeler(soft(max_turns=3, extra=2))
    env.reset(seed=0)
    turns, texts = 0, []
    for _ in range(50):
        obs, reward, terminated, truncated, info = env.step("extend")
        turns += 1
        texts.append(obs["text"])
        if terminated or truncated:
            break
    assert turns == 3 + 2 and truncated and not terminated and info["budget_exhausted"]
    assert info["extensions"] == {
        "requested": 5,
        "granted": 1,
        "refused": 4,
        "left": 0,
        "extra": 2,
        "max_requests": 1,
        "cost": 0.0,
    }
    assert texts[0].startswith("extension granted") and all(t.startswith("error: no extension left") for t in texts[1:])
    assert info["failure_category"] == "timeout" and "timeout_after_extension" in info["failure_flags"]
    assert info["turn"] == 5 and info["turns_left"] == 0 and info["budget"] == 5
    with pytest.raises(ResetNeeded):  # after the end `extend` is an action like any other
        env.step("extend")
    assert env.reset(seed=0)[1]["extensions"]["granted"] == 0  # and the next episode starts clean


@pytest.mark.parametrize("budget", [3, {"choice": [3]}])
def test_an_extension_never_carries_over_to_the_next_episode(budget):
    env = BudgetExtension(apply_budget(ScriptedAgentEnv(), budget), extra=4)
    env.reset(seed=0)
    env.step("extend")
    obs, info = env.reset(seed=0)
    assert info["budget"] == 3 and int(obs["turns_left"][0]) == 3 and info["extensions"]["left"] == 1
    for _ in range(3):
        *_, truncated, info = env.step("help")
    assert truncated and info["turn"] == 3


@pytest.mark.parametrize("max_requests", [1, 2, 3])
def test_grants_never_exceed_max_requests(max_requests):
    env = soft(max_turns=2, extra=1, max_requests=max_requests)
    env.reset(seed=0)
    infos = []
    for _ in range(2 + max_requests):
        *_, terminated, truncated, info = env.step("extend")
        infos.append(info)
        if terminated or truncated:
            break
    assert grants(infos[-1]) == max_requests and len(infos) == 2 + max_requests
    assert [grants(i) for i in infos] == sorted(grants(i) for i in infos)


def test_extend_without_an_extension_wrapper_is_an_invalid_action_and_costs_its_turn():
    bare = ScriptedAgentEnv()
    bare.reset(seed=0)
    obs, reward, terminated, truncated, info = bare.step("extend")
    assert obs["text"].startswith("error:") and not (terminated or truncated)
    assert info["events"][0]["kind"] == "action" and not info["events"][0]["parsed_ok"]
    env = TurnLimit(ScriptedAgentEnv(), 2)
    env.reset(seed=0)
    env.step("extend")
    obs, _, _, truncated, info = env.step("extend")
    assert truncated and info["budget"] == 2 and "extensions" not in info
    plain = BudgetExtension(TurnLimit(ScriptedEnv(), 2), extra=3)  # no AgentEnv below: still answered here
    plain.reset(seed=0)
    obs, *_, info = plain.step("extend")
    assert grants(info) == 1 and info["turns_left"] == 4


@pytest.mark.parametrize("action", MALFORMED)
def test_extend_with_garbage_arguments_is_refused_and_costs_a_turn(action):
    env = FailureLabeler(soft(max_turns=2, extra=5))
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(action)
    assert obs["text"].startswith("error:") and "send `extend`" in obs["text"]
    assert info["extensions"]["granted"] == 0 and info["extensions"]["refused"] == 1 and info["turns_left"] == 1
    assert [e["kind"] for e in info["events"]] == ["action", "budget_extension"]
    assert info["events"][0]["parsed_ok"] is False and info["events"][1]["reason"] == "bad_args"
    assert len(obs["text"]) < 400  # the garbage is not echoed back whole
    obs, *_, info = env.step("extend")  # the request left is still there
    assert grants(info) == 1


@pytest.mark.parametrize("action", WELL_FORMED)
def test_every_well_formed_request_is_granted(action):
    env = soft(max_turns=2, extra=3)
    env.reset(seed=0)
    obs, *_, info = env.step(action)
    assert grants(info) == 1 and obs["text"].startswith("extension granted") and info["turns_left"] == 4


@pytest.mark.parametrize("action", NOT_EXTEND)
def test_other_actions_go_to_the_env_and_grant_nothing(action):
    env = soft(max_turns=3, extra=3)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["extensions"]["requested"] == 0 and info["turns_left"] == 2
    assert not any(e["kind"] == "budget_extension" for e in info["events"])


def test_extend_after_termination_or_before_reset_raises_reset_needed_and_grants_nothing():
    env = soft(max_turns=8, extra=3)
    with pytest.raises(ResetNeeded):
        env.step("extend")
    env.reset(seed=1)
    while True:
        *_, terminated, truncated, info = env.step(env.unwrapped.reference_action())
        if terminated or truncated:
            break
    assert terminated and info["admissible_actions"] == []
    with pytest.raises(ResetNeeded):
        env.step("extend")
    assert env.granted == 0 and env.limit.max_turns == 8


def test_a_refusal_on_the_last_turn_ends_the_episode_by_budget():
    env = soft(max_turns=2, extra=3, max_requests=1)
    env.reset(seed=0)
    env.step("extend")  # granted: 1 + 3 turns left
    for _ in range(3):
        *_, truncated, info = env.step("help")
    assert not truncated and info["turns_left"] == 1
    obs, reward, terminated, truncated, info = env.step("extend")
    assert truncated and not terminated and info["budget_exhausted"] and info["success"] is False
    assert obs["text"].startswith("error:") and int(obs["turns_left"][0]) == 0


def test_a_grant_on_the_last_turn_keeps_the_episode_going():
    env = soft(max_turns=1, extra=2)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("extend")
    assert not truncated and info["turns_left"] == 2 and "budget_exhausted" not in info


def test_score_on_truncation_still_judges_the_state_when_a_refusal_ends_it():
    env = soft(max_turns=2, extra=1, env=ScriptedAgentEnv(score_on_truncation=True))
    env.reset(seed=1)  # a one-key task: one set solves it
    env.step(env.unwrapped.reference_action())
    obs, reward, terminated, truncated, info = env.step("extend(now=1)")
    assert truncated and info["success"] is True and reward == 1.0


# ---------------------------------------------------------------------- the contract
def test_extend_is_in_help_the_first_observation_the_menu_and_after_a_help_action():
    env = soft(max_turns=4, extra=3, max_requests=2, cost=0.25)
    obs, info = env.reset(seed=0)
    assert (
        "[extension: send `extend` for 3 more turns, at most 2 times; it costs a turn and 0.25 of the reward]"
        in obs["text"]
    )
    assert info["help"].splitlines()[-1].startswith("  extend - ask for 3 more turns")
    assert info["admissible_actions"][-1] == "extend" and info["admissible_actions"].count("extend") == 1
    obs, *_, info = env.step("help")
    assert "extend - ask for 3 more turns" in obs["text"]
    obs, *_, info = env.step("get alpha")
    assert "extend -" not in obs["text"] and info["admissible_actions"][-1] == "extend"
    env.step("extend")
    *_, info = env.step("extend")
    assert "extend" not in info["admissible_actions"] and info["extensions"]["left"] == 0


class ToolKV(ScriptedAgentEnv):
    """The key-value family with an OpenAI-style tool list, as call-style families have."""

    def tools(self):
        return [{"type": "function", "function": {"name": "get", "description": "read", "parameters": {}}}]


def test_extend_joins_the_tool_schemas_of_call_style_families_only():
    _, info = soft(env=ToolKV()).reset(seed=0)
    names = [t["function"]["name"] for t in info["tools"]]
    assert names == ["get", "extend"]
    assert info["tools"][-1]["function"]["parameters"] == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
    assert soft().reset(seed=0)[1]["tools"] == []


def test_info_events_cost_and_turn_of_an_extend_step():
    env = CostTracker(soft(max_turns=3, extra=2, cost=0.3))
    env.reset(seed=0)
    env.step("set alpha amber")
    obs, reward, terminated, truncated, info = env.step("extend")
    assert reward == pytest.approx(-0.3)
    assert info["events"] == [
        {"kind": "action", "parsed_ok": True, "name": "extend", "error": None},
        {"kind": "budget_extension", "granted": True, "extra": 2, "reason": None},
    ]
    assert info["turn"] == 2 and info["cost"]["model_calls"] == 2 and info["cost"]["env_calls"] == 1
    assert info["task_id"] and info["min_turns"] >= 1 and info["extensions"]["cost"] == pytest.approx(0.3)
    obs, *_, info = env.step("get alpha")
    assert info["turn"] == 3  # agent turns, the extend included, though the env below counted 2


def test_return_is_success_minus_cost_per_grant():
    env = soft(max_turns=2, extra=4, max_requests=2, cost=0.1)
    env.reset(seed=1)
    total, done = 0.0, False
    for action in ["extend", "extend", "extend"]:
        total += env.step(action)[1]
    while not done:
        _, reward, terminated, truncated, info = env.step(env.unwrapped.reference_action())
        total += reward
        done = terminated or truncated
    assert info["success"] and grants(info) == 2 and total == pytest.approx(1.0 - 0.2)


def test_the_extend_observation_keeps_the_observation_fields_and_fits_the_space():
    env = soft(max_turns=2, extra=5, max_requests=2)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert env.observation_space["turns_left"].high.tolist() == [2 + 5 * 2]
    for _ in range(3):
        obs, *_ = env.step("extend")
        assert set(obs) == {"text", "turns_left", "turns_left_frac"} and env.observation_space.contains(obs)
    assert int(obs["turns_left"][0]) == 1 + 5 + 5 - 1 - 1


def test_faults_armed_below_are_not_spent_by_an_extend():
    env = BudgetExtension(
        TurnLimit(ToolFailureInjector(ScriptedAgentEnv(), kinds="tool_error", at_turns=[1]), 4), extra=2
    )
    env.reset(seed=0)
    *_, info = env.step("extend")
    assert not any(e["kind"] == "fault_injected" for e in info["events"])
    *_, info = env.step("set alpha amber")
    assert any(e["kind"] == "fault_injected" for e in info["events"])


# ---------------------------------------------------------------------- the warning
def test_warning_comes_once_in_words_info_and_events():
    env = FailureLabeler(BudgetWarning(TurnLimit(ScriptedAgentEnv(), 4), at=2))
    obs, info = env.reset(seed=0)
    assert "budget_warning" not in info
    seen = []
    for _ in range(4):
        obs, reward, terminated, truncated, info = env.step("help")
        seen.append(info.get("budget_warning"))
        if seen[-1]:
            assert (
                "[budget: 2 turns left, this one included; work not submitted when they run out scores 0]"
                in obs["text"]
            )
            assert info["events"][-1] == {"kind": "budget_warning", "turns_left": 2}
    assert seen == [None, 2, None, None] and truncated


def test_warning_at_reset_when_the_budget_is_already_short_and_never_on_the_last_step():
    env = BudgetWarning(TurnLimit(ScriptedAgentEnv(), 1), at=3)
    obs, info = env.reset(seed=0)
    assert (
        info["budget_warning"] == 1 and "1 turn left" in obs["text"] and info["events"][-1]["kind"] == "budget_warning"
    )
    *_, truncated, info = env.step("help")
    assert truncated and "budget_warning" not in info


def test_warning_mentions_extend_and_comes_again_after_an_extension():
    env = BudgetWarning(soft(max_turns=3, extra=3), at=1)
    env.reset(seed=0)
    obs, *_, info = env.step("help")
    obs, *_, info = env.step("help")
    assert info["budget_warning"] == 1 and "or send `extend` for 3 more" in obs["text"]
    obs, *_, info = env.step("extend")  # 3 turns left: the warning re-arms
    assert "budget_warning" not in info
    for _ in range(2):
        obs, *_, info = env.step("help")
    assert info["budget_warning"] == 1 and "extend" not in obs["text"].splitlines()[-1]


def test_warning_on_a_plain_env_and_without_text():
    env = BudgetWarning(TurnLimit(ScriptedEnv(), 2), at=1)
    env.reset(seed=0)
    *_, info = env.step("help")
    assert info["budget_warning"] == 1


# ---------------------------------------------------------------------- composition
def test_random_budget_draws_t_and_a_spec_extra_per_seed():
    def draw(seed):
        env = BudgetExtension(RandomBudget(ScriptedAgentEnv(), {"uniform": [2, 9]}), extra={"choice": [1, 4, 7]})
        _, info = env.reset(seed=seed)
        return info["budget"], info["extensions"]["extra"]

    draws = [draw(s) for s in range(30)]
    assert draws == [draw(s) for s in range(30)]
    assert {e for _, e in draws} == {1, 4, 7} and len({t for t, _ in draws}) > 3


def test_numeric_view_offers_extend_as_the_last_menu_index():
    env = NumericView(soft(max_turns=2, extra=3), max_actions=16, dim=16)
    obs, info = env.reset(seed=0)
    index = env.menu.index("extend")
    assert index == len(env.menu) - 1 and obs["action_mask"][index] == 1 and env.observation_space.contains(obs)
    obs, reward, terminated, truncated, info = env.step(index)
    assert grants(info) == 1 and int(obs["turns_left"][0]) == 4 and "extend" not in env.menu
    assert obs["action_mask"].sum() == len(env.menu) and env.observation_space.contains(obs)
    obs, *_, info = env.step(index)  # the index now names another entry, never a second grant
    assert grants(info) == 1


@pytest.mark.parametrize("max_actions", [2, 4, 11, 12])
def test_a_menu_cut_by_numeric_view_keeps_extend_last(max_actions):
    env = NumericView(soft(max_turns=2, extra=3), max_actions=max_actions, dim=8)
    obs, info = env.reset(seed=0)
    family = [a for a in info["admissible_actions"] if a != "extend"]
    assert len(family) == 11 and info["wrapper_actions"] == ["extend"]
    assert env.menu[-1] == "extend" and len(env.menu) == min(max_actions, 12)
    assert env.menu[:-1] == family[: len(env.menu) - 1] and obs["action_mask"].sum() == len(env.menu)
    obs, reward, terminated, truncated, info = env.step(len(env.menu) - 1)
    assert grants(info) == 1 and "extend" not in env.menu and "wrapper_actions" not in info
    assert env.menu == family[:max_actions]


def test_bad_constructor_arguments_echo_the_value():
    with pytest.raises(ConfigError, match="directly"):
        BudgetExtension(FailureLabeler(TurnLimit(ScriptedAgentEnv(), 3)), extra=2)
    with pytest.raises(ConfigError, match="directly"):
        BudgetExtension(ScriptedAgentEnv(), extra=2)
    with pytest.raises(ConfigError, match="extra=0"):
        soft(extra=0)
    with pytest.raises(ConfigError, match="max_requests=0"):
        soft(max_requests=0)
    with pytest.raises(ConfigError, match="cost=-1"):
        soft(cost=-1)
    with pytest.raises(ConfigError, match="cost=nan"):
        soft(cost=float("nan"))
    with pytest.raises(ConfigError, match="at=0"):
        BudgetWarning(TurnLimit(ScriptedAgentEnv(), 3), at=0)
    with pytest.raises(ConfigError, match="needs a TurnLimit"):
        BudgetWarning(ScriptedAgentEnv(), at=1)


def layers(env):
    out = []
    while isinstance(env, gym.Wrapper):
        if type(env).__module__.startswith("agentgym."):
            out.append(type(env).__name__)
        env = env.env
    return out[::-1]


def test_make_and_gym_make_build_the_soft_stack_in_order():
    spec = {"soft": {"uniform": [2, 6]}, "extra": 3, "max_requests": 1, "cost": 0.1, "warn_at": 2}
    env = agentgym.make(KV_ID, budget=spec, process_reward=0.1, numeric={"dim": 16})
    assert layers(env) == [
        "ToolFailureInjector",
        "RandomBudget",
        "BudgetExtension",
        "BudgetWarning",
        "FailureLabeler",
        "ProcessReward",
        "CostTracker",
        "NumericView",
        "TimeLimitGuard",
    ]
    assert layers(agentgym.make(KV_ID, budget={"soft": 4, "warn_at": 1}))[1:3] == ["TurnLimit", "BudgetWarning"]
    assert layers(agentgym.make(KV_ID, budget={"soft": 4, "extra": 2}))[1:3] == ["TurnLimit", "BudgetExtension"]
    via_gym = gym.make(KV_ID, budget=spec, labels=True, cost=True)
    via_make = agentgym.make(KV_ID, budget=spec)
    assert layers(via_gym) == layers(via_make)
    assert play(via_gym, 4, ["extend", "help"] * 6) == play(via_make, 4, ["extend", "help"] * 6)


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"soft": 4}, "needs 'extra'"),
        ({"soft": 4, "extra": 2, "extre": 1}, "extre"),
        ({"soft": 4, "cost": 0.1, "warn_at": 1}, "give 'extra' too"),
        ({"soft": 0, "extra": 2}, "max_turns=0"),
        ({"soft": 4, "extra": {"uniform": [3, 1]}}, "lo > hi"),
        ({"soft": 4, "warn_at": "soon"}, "at='soon'"),
    ],
)
def test_bad_soft_specs_raise_config_errors_naming_the_budget(bad, match):
    with pytest.raises(ConfigError, match=match) as exc:
        agentgym.make(KV_ID, budget=bad)
    assert "budget=" in str(exc.value)


def play(env, seed, actions):
    obs, info = env.reset(seed=seed)
    out = [info["budget"], info.get("extensions")]
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        info = {k: v for k, v in info.items() if k != "cost"}
        out.append((reward, terminated, truncated, info, obs["text"] if "text" in obs else None))
        if terminated or truncated:
            break
    return out


@pytest.mark.filterwarnings("ignore:.*is different from the unwrapped version")
def test_spec_round_trip_and_pickle_rebuild_the_soft_stack():
    env = agentgym.make(
        KV_ID, budget={"soft": {"choice": [2, 5]}, "extra": {"uniform": [1, 3]}, "warn_at": 1}, process_reward=0.1
    )
    again = gym.make(env.spec)
    assert layers(again) == layers(env) and again.spec == env.spec
    hand = BudgetWarning(BudgetExtension(TurnLimit(gym.make(KV_ID), 3), extra=2, cost=0.5), at=2)
    hand_again = gym.make(hand.spec)
    assert [w.kwargs for w in hand_again.spec.additional_wrappers] == [w.kwargs for w in hand.spec.additional_wrappers]
    copy = pickle.loads(pickle.dumps(env))
    actions = ["extend", "get alpha", "extend", "help", "submit"]
    for seed in range(4):
        assert play(again, seed, actions) == play(env, seed, actions) == play(copy, seed, actions)
    assert play(hand_again, 1, actions) == play(hand, 1, actions)


@pytest.mark.filterwarnings("ignore:.*is different from the unwrapped version")
def test_gymnasium_check_env_passes_on_soft_stacks():
    check_env(agentgym.make(KV_ID, budget={"soft": {"uniform": [2, 9]}, "extra": 3, "warn_at": 2}, cost=False))
    check_env(gym.make(KV_ID, budget={"soft": 3, "extra": 2, "max_requests": 2}, labels=True, numeric=True))


def test_apply_budget_is_the_hard_budget_too():
    assert type(apply_budget(ScriptedAgentEnv(), 3)) is TurnLimit
    assert type(apply_budget(ScriptedAgentEnv(), {"choice": [2, 3]})) is RandomBudget
    with pytest.raises(ConfigError, match="budget=True"):
        apply_budget(ScriptedAgentEnv(), True)
    assert isinstance(np.int64(3), np.integer) and type(apply_budget(ScriptedAgentEnv(), np.int64(3))) is TurnLimit


def test_process_reward_above_sees_the_extension_penalty_only_on_its_step():
    env = ProcessReward(soft(max_turns=3, extra=2, cost=0.5), weight=0.0)
    env.reset(seed=0)
    assert env.step("extend")[1] == pytest.approx(-0.5)
    assert env.step("help")[1] == 0.0


@pytest.mark.parametrize(
    "env_id, request_form",
    [
        ("agentgym/Coding-v0", "extend"),
        ("agentgym/ToolUse-v0", '{"name": "extend", "arguments": "{}"}'),
        ("agentgym/Browser-v0", "extend()"),
    ],
)
def test_every_family_lists_and_grants_extend(env_id, request_form):
    env = agentgym.make(env_id, budget={"soft": 3, "extra": 2, "warn_at": 1}, split="test", backend="local")
    try:
        obs, info = env.reset(seed=0)
        assert "send `extend` for 2 more turns" in obs["text"] and "extend - ask for 2 more turns" in info["help"]
        assert info["admissible_actions"][-1] == "extend"
        tools = [t["function"]["name"] for t in info["tools"]]
        assert tools == ([] if env_id.endswith("Coding-v0") else [*tools[:-1], "extend"])
        obs, *_, info = env.step("help")
        assert "extend - ask for 2 more turns" in obs["text"]
        obs, reward, terminated, truncated, info = env.step(request_form)
        assert obs["text"].startswith("extension granted") and info["turns_left"] == 3 and info["turn"] == 2
        obs, *_, info = env.step(env.unwrapped.reference_action())  # the family still answers as before
        assert not obs["text"].startswith("error:") and info["turn"] == 3 and info["extensions"]["granted"] == 1
    finally:
        env.close()
