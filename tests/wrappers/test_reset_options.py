"""The caller of ``reset`` chooses one episode's budget and faults (issue 33): ``options={"budget": T}``
and ``options={"faults": SPEC}`` on every stack `agentgym.make` and ``gym.make`` build.

Properties (hypothesis, on the container-free KV family): a chosen T is honoured exactly; the next
reset without the option is the env's own draw again; the same seed and options give the same
trajectory; a chosen T moves none of the seed's other draws; chosen faults play exactly as the
same plan built in. Then the refusals, each naming the key.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentgym
from agentgym.errors import ConfigError
from agentgym.registration import ENTRY_POINT
from agentgym.testing.kv_env import ScriptedAgentEnv
from agentgym.wrappers import RandomBudget, ToolFailureInjector, TurnLimit, apply_budget

KV_ID = "agentgym-test/KVOptions-v0"  # its own id: test_make registers KV-v0 with a sibling
if KV_ID not in gym.registry:
    gym.register(
        KV_ID, entry_point=ENTRY_POINT, kwargs={"family_entry_point": "agentgym.testing.kv_env:ScriptedAgentEnv"}
    )

PROPERTY = settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

own_budgets = st.one_of(
    st.none(),
    st.integers(1, 10),
    st.tuples(st.integers(1, 8), st.integers(0, 6)).map(lambda p: {"uniform": [p[0], p[0] + p[1]]}),
    st.lists(st.integers(1, 10), min_size=1, max_size=3).map(lambda c: {"choice": c}),
    st.integers(1, 8).map(lambda t: {"soft": t, "extra": 2, "warn_at": 1}),
)
own_faults = st.sampled_from([None, "tool_error@turn=1", "timeout+empty_output@p=0.5", "state_drift@first=2"])
chosen_faults = st.sampled_from(
    [
        "",
        "tool_error@turn=1",
        "corrupted_output@p=0.7:persistent",
        "timeout@turn=2,3",
        {"kinds": ["empty_output"], "first_k": 1},
    ]
)
# actions that never extend (only the oracle may submit)
idle_actions = st.lists(
    st.sampled_from(["help", "get alpha", "set alpha amber", "set zeta x", "oracle", "?!"]), min_size=1, max_size=14
)


def _top(budget: Any) -> int:
    if budget is None:
        return 1
    if isinstance(budget, int):
        return budget
    spec = budget.get("soft", budget)
    if isinstance(spec, int):
        return spec
    return max(spec.get("uniform") or spec["choice"])


def make(budget: Any, faults: Any, max_budget: int | None, via_gym: bool = False) -> gym.Env:
    options = dict(budget=budget, faults=faults, max_budget=max_budget, cost=False)
    if via_gym:
        return gym.make(KV_ID, labels=True, **options)
    return agentgym.make(KV_ID, **options)


def act(env: gym.Env, action: str) -> str:
    return env.unwrapped.reference_action() if action == "oracle" else action


def plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def rollout(env: gym.Env, seed: int, options: dict[str, Any] | None, actions: list[str]) -> list[Any]:
    obs, info = env.reset(seed=seed, options=options)
    out: list[Any] = [plain(obs), plain(info)]
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(act(env, action))
        out.append((plain(obs), reward, terminated, truncated, plain(info)))
        if terminated or truncated:
            break
    return out


@st.composite
def setups(draw: st.DrawFn) -> dict[str, Any]:
    budget = draw(own_budgets)
    cap = None if budget is None else _top(budget) + draw(st.integers(0, 6))
    return {
        "budget": budget,
        "faults": draw(own_faults),
        "max_budget": cap,
        "chosen": draw(st.integers(1, cap if cap is not None else 16)),
        "via_gym": draw(st.booleans()),
    }


@PROPERTY
@given(setups(), st.integers(0, 2**16), idle_actions)
def test_a_chosen_budget_is_honoured_exactly(setup, seed, actions):
    env = make(setup["budget"], setup["faults"], setup["max_budget"], setup["via_gym"])
    t = setup["chosen"]
    obs, info = env.reset(seed=seed, options={"budget": t})
    assert info["budget"] == t and info["turns_left"] == t
    if setup["budget"] is not None:  # a budget built in gives the observation its turns_left
        assert obs["turns_left"].tolist() == [t]
    assert f"[budget: {t} turns in this episode" in obs["text"]
    for k, action in enumerate((actions * t)[:t], start=1):
        obs, reward, terminated, truncated, info = env.step(act(env, action))
        assert info["turns_left"] == t - k and info["budget"] == t
        assert truncated == (k == t and not terminated)
        if setup["budget"] is not None:
            assert obs["turns_left"].tolist() == [t - k]
        if terminated or truncated:  # the oracle may submit first
            break
    assert terminated or (info["budget_exhausted"] and info["failure_category"] == "timeout")
    env.close()


@PROPERTY
@given(setups(), st.integers(0, 2**16), st.integers(0, 2**16), idle_actions)
def test_the_next_reset_without_the_option_is_the_envs_own_draw(setup, first, seed, actions):
    chose = make(setup["budget"], setup["faults"], setup["max_budget"], setup["via_gym"])
    fresh = make(setup["budget"], setup["faults"], setup["max_budget"], setup["via_gym"])
    chose.reset(seed=first, options={"budget": setup["chosen"], "faults": "tool_error@turn=1"})
    for action in actions[:3]:
        if chose.step(act(chose, action))[3]:
            break
    assert rollout(chose, seed, None, actions) == rollout(fresh, seed, None, actions)
    chose.close()
    fresh.close()


@PROPERTY
@given(setups(), chosen_faults, st.integers(0, 2**16), idle_actions)
def test_seeds_still_fix_the_trajectory(setup, faults, seed, actions):
    options = {"budget": setup["chosen"], "faults": faults, "task_id": "kv/3"}
    a = make(setup["budget"], setup["faults"], setup["max_budget"], setup["via_gym"])
    b = make(setup["budget"], setup["faults"], setup["max_budget"], setup["via_gym"])
    assert rollout(a, seed, options, actions) == rollout(b, seed, dict(options), actions)
    a.close()
    b.close()


@PROPERTY
@given(
    st.sampled_from([{"uniform": [2, 12]}, {"choice": [3, 9]}]), st.integers(1, 12), st.integers(0, 2**16), idle_actions
)
def test_a_chosen_budget_moves_none_of_the_seeds_other_draws(budget, t, seed, actions):
    """The env's own T is drawn and set aside, so the task and the p-fault draws are the seed's."""
    chose = make(budget, "tool_error+timeout@p=0.5", 12)
    own = make(budget, "tool_error+timeout@p=0.5", 12)
    a, b = rollout(chose, seed, {"budget": t}, actions), rollout(own, seed, None, actions)
    assert a[1]["task_id"] == b[1]["task_id"]
    for step_a, step_b in zip(a[2:], b[2:]):
        assert step_a[4]["events"] == step_b[4]["events"]
        if step_a[2] or step_a[3] or step_b[2] or step_b[3]:
            break


@PROPERTY
@given(chosen_faults, st.integers(0, 2**16), idle_actions)
def test_chosen_faults_play_as_the_same_plan_built_in(faults, seed, actions):
    built_in = agentgym.make(KV_ID, budget=8, faults=faults or None, cost=False)
    chose = agentgym.make(KV_ID, budget=8, faults="timeout@first=1", cost=False)
    assert rollout(chose, seed, {"faults": faults}, actions) == rollout(built_in, seed, None, actions)
    # and the next reset is the env's own plan again: its first tool call times out
    chose.reset(seed=seed, options={"task_id": "kv/3"})
    _, _, _, _, info = chose.step("set alpha amber")
    assert [e["fault"] for e in info["events"] if e["kind"] == "fault_injected"] == ["timeout"]


def test_soft_budget_extra_is_chosen_per_episode():
    env = agentgym.make(KV_ID, budget={"soft": 4, "extra": {"uniform": [1, 5]}}, max_budget=10, cost=False)
    obs, info = env.reset(seed=1, options={"budget": {"soft": 9, "extra": 5}})
    assert info["budget"] == 9 and info["extensions"]["extra"] == 5 and obs["turns_left"].tolist() == [9]
    obs, *_, info = env.step("extend")
    assert info["budget"] == 14 and obs["turns_left"].tolist() == [13]
    _, info = env.reset(seed=1, options={"budget": {"extra": 2}})  # T is the env's own, extra chosen
    assert info["budget"] == 4 and info["extensions"]["extra"] == 2
    _, info = env.reset(seed=1, options={"budget": 3})  # T chosen, extra the env's own draw
    own = agentgym.make(KV_ID, budget={"soft": 4, "extra": {"uniform": [1, 5]}}, max_budget=10, cost=False)
    assert info["budget"] == 3 and info["extensions"]["extra"] == own.reset(seed=1)[1]["extensions"]["extra"]


def test_the_callers_options_are_left_as_they_were():
    env = agentgym.make(KV_ID, budget={"soft": 4, "extra": 2}, max_budget=8)
    options = {"budget": {"soft": 6, "extra": 1}, "faults": "tool_error@turn=1", "task_id": "kv/3"}
    copy = {k: (dict(v) if isinstance(v, dict) else v) for k, v in options.items()}
    env.reset(seed=0, options=options)
    assert options == copy


def test_none_means_the_envs_own_and_empty_faults_mean_none():
    env = agentgym.make(KV_ID, budget=5, faults="tool_error@turn=1")
    _, info = env.reset(seed=0, options={"budget": None, "faults": None, "task_id": "kv/3"})
    assert info["budget"] == 5
    assert any(e["kind"] == "fault_injected" for e in env.step("set alpha amber")[4]["events"])
    env.reset(seed=0, options={"faults": "", "task_id": "kv/3"})
    assert not any(e["kind"] == "fault_injected" for e in env.step("set alpha amber")[4]["events"])


def test_without_a_budget_nothing_is_limited_until_a_reset_chooses_t():
    env = agentgym.make(KV_ID)
    assert "turns_left" not in env.observation_space.spaces
    obs, info = env.reset(seed=0)
    assert "budget" not in info and "[budget:" not in obs["text"]
    for _ in range(40):
        assert not any(env.step("help")[2:4])
    obs, info = env.reset(seed=0, options={"budget": 2})
    assert info["budget"] == 2 and "turns_left" not in obs and "[budget: 2 turns" in obs["text"]
    env.step("help")
    *_, truncated, info = env.step("help")
    assert truncated and info["budget_exhausted"]


@pytest.mark.parametrize(
    "build, options, match",
    [
        (lambda: agentgym.make(KV_ID, budget=8), {"budget": 9}, "max_budget=8"),
        (lambda: agentgym.make(KV_ID, budget={"uniform": [2, 8]}, max_budget=16), {"budget": 17}, "max_budget=16"),
        (lambda: agentgym.make(KV_ID, budget=8), {"budget": 0}, "budget=0"),
        (lambda: agentgym.make(KV_ID, budget=8), {"budget": "8"}, "budget='8'"),
        (lambda: agentgym.make(KV_ID, budget=8), {"budget": True}, "budget=True"),
        (
            lambda: agentgym.make(KV_ID, budget=8),
            {"budget": {"soft": 4, "extra": 2}},
            "'extra' needs a BudgetExtension",
        ),
        (lambda: agentgym.make(KV_ID, budget={"soft": 4, "extra": 2}), {"budget": {"soft": 4, "extra": 3}}, "extra=3"),
        (lambda: agentgym.make(KV_ID, budget={"soft": 4, "extra": 2}), {"budget": {"soft": 4, "cost": 1}}, "'cost'"),
        (lambda: agentgym.make(KV_ID), {"faults": "boom@turn=1"}, "faults='boom@turn=1'"),
        (lambda: agentgym.make(KV_ID), {"faults": {"kinds": ["timeout"], "when": 1}}, "faults="),
        (lambda: agentgym.make(KV_ID), {"faults": 3}, "faults=3"),
        (lambda: agentgym.make(KV_ID), {"budjet": 4}, "unknown reset option 'budjet'"),
        (lambda: gym.make(KV_ID), {"seed": 4}, "unknown reset option 'seed'"),
        (lambda: ScriptedAgentEnv(), {"budget": 4}, "'budget' is read by TurnLimit"),
        (lambda: ScriptedAgentEnv(), {"faults": "tool_error@turn=1"}, "'faults' is read by ToolFailureInjector"),
    ],
)
def test_refusals_name_the_key(build, options, match):
    env = build()
    with pytest.raises(ConfigError, match=match.replace("[", r"\[").replace("(", r"\(")):
        env.reset(seed=0, options=options)
    obs, info = env.reset(seed=0)  # a refused reset leaves the env usable (Gymnasium's env checker included)
    assert info["task_id"] and env.step("help")[4]["turn"] == 1


def test_a_refused_option_does_not_reset_the_episode():
    env = agentgym.make(KV_ID, budget=4)
    env.reset(seed=0, options={"task_id": "kv/3"})
    env.step("help")
    with pytest.raises(ConfigError):
        env.reset(seed=5, options={"budget": 99})
    *_, info = env.step("help")  # the same episode goes on
    assert info["turn"] == 2 and info["task_id"] == "kv/3" and info["turns_left"] == 2


def test_wrapper_arguments():
    with pytest.raises(ConfigError, match="max_budget=3 is below max_turns=4"):
        TurnLimit(ScriptedAgentEnv(), 4, max_budget=3)
    with pytest.raises(ConfigError, match="max_budget=3 is below"):
        RandomBudget(ScriptedAgentEnv(), {"uniform": [2, 5]}, max_budget=3)
    with pytest.raises(ConfigError, match="max_budget"):
        apply_budget(ScriptedAgentEnv(), None, max_budget=4)
    env = RandomBudget(ScriptedAgentEnv(), {"uniform": [2, 5]}, max_budget=9)
    assert env.observation_space["turns_left"].high.tolist() == [9]
    assert ToolFailureInjector(ScriptedAgentEnv(), rules=[]).rules == []
