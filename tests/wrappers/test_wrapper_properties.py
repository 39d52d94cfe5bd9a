"""Property tests over random wrapper stacks, budgets, fault schedules and action sequences.

Every property runs 500 examples on the container-free scripted envs. A stack always holds a
budget wrapper, hard or soft (`apply_budget`: a warning, an extension, or both); the other
wrappers are drawn, in any sensible order: the labeler above the budget (it reads the
truncation), the fault injector on an AgentEnv and below the numeric view (it parses text
actions), the numeric view outermost (it changes the action space). Plans spam ``extend`` in
well-formed and malformed shapes.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentgym.core import FAULT_KINDS
from agentgym.testing.kv_env import ScriptedAgentEnv, ScriptedEnv
from agentgym.wrappers import (
    CATEGORIES,
    CostTracker,
    FailureLabeler,
    NumericView,
    ProcessReward,
    ToolFailureInjector,
    apply_budget,
    label_episode,
)

PROPERTY = settings(max_examples=500, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
TIMINGS = ("env_seconds", "agent_seconds", "episode_seconds")
WEIGHTS = (0.0, 0.1, 0.5, 1.0)


budgets = st.one_of(
    st.integers(1, 12),
    st.tuples(st.integers(1, 12), st.integers(0, 6)).map(lambda p: {"uniform": [p[0], p[0] + p[1]]}),
    st.lists(st.integers(1, 12), min_size=1, max_size=4).map(lambda c: {"choice": c}),
    st.lists(st.integers(1, 12), min_size=2, max_size=2).map(lambda c: {"choice": c, "weights": [1, 3]}),
    st.tuples(st.integers(1, 12), st.integers(0, 10)).map(lambda p: {"loguniform": [p[0], p[0] + p[1]]}),
    st.integers(1, 12).map(lambda hi: _UpTo(hi)),
)


class _UpTo:
    """A callable budget (picklable and printable for hypothesis' reports)."""

    def __init__(self, hi: int) -> None:
        self.hi = hi

    def __call__(self, rng: np.random.Generator) -> int:
        return int(rng.integers(1, self.hi + 1))

    def __repr__(self) -> str:
        return f"_UpTo({self.hi})"


soft_budgets = st.fixed_dictionaries(
    {"soft": budgets},
    optional={
        "extra": st.one_of(
            st.integers(1, 6),
            st.tuples(st.integers(1, 4), st.integers(0, 4)).map(lambda p: {"uniform": [p[0], p[0] + p[1]]}),
        ),
        "max_requests": st.integers(1, 3),
        "cost": st.sampled_from([0.0, 0.1, 0.5]),
        "warn_at": st.integers(1, 4),
    },
).filter(lambda b: "extra" in b or ("warn_at" in b and "max_requests" not in b and "cost" not in b))


schedules = st.one_of(
    st.lists(st.integers(1, 12), min_size=1, max_size=3).map(lambda t: {"at_turns": t}),
    st.integers(1, 4).map(lambda k: {"first_k": k}),
    st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]).map(lambda p: {"p": p}),
)
fault_rules = st.tuples(
    st.lists(st.sampled_from(FAULT_KINDS), min_size=1, max_size=3, unique=True), st.booleans(), schedules
).map(lambda t: {"kinds": t[0], "transient": t[1], **t[2]})


@st.composite
def stacks(draw: st.DrawFn) -> dict[str, Any]:
    """A description of a wrapper stack: the base env and the layers, innermost first."""
    agent_env = draw(st.booleans())
    layers: list[tuple[str, Any]] = [("budget", draw(st.one_of(budgets, soft_budgets)))]
    if agent_env and draw(st.booleans()):
        layers.append(("faults", draw(st.lists(fault_rules, min_size=1, max_size=2))))
    if draw(st.booleans()):
        layers.append(("process_reward", draw(st.sampled_from(WEIGHTS))))
    if draw(st.booleans()):
        layers.append(("cost", None))
    layers = draw(st.permutations(layers))
    if draw(st.booleans()):
        above_budget = [i for i, (name, _) in enumerate(layers) if name == "budget"][0] + 1
        layers.insert(draw(st.integers(above_budget, len(layers))), ("labels", None))
    if draw(st.booleans()):
        layers.append(("numeric", draw(st.sampled_from([4, 8, 16]))))
    return {"agent_env": agent_env, "score_on_truncation": draw(st.booleans()), "layers": layers}


def build(stack: dict[str, Any]):
    env = ScriptedAgentEnv(score_on_truncation=stack["score_on_truncation"]) if stack["agent_env"] else ScriptedEnv()
    for name, arg in stack["layers"]:
        if name == "budget":
            env = apply_budget(env, arg)
        elif name == "faults":
            env = ToolFailureInjector(env, rules=arg)
        elif name == "process_reward":
            env = ProcessReward(env, weight=arg)
        elif name == "cost":
            env = CostTracker(env)
        elif name == "labels":
            env = FailureLabeler(env)
        elif name == "numeric":
            env = NumericView(env, max_actions=arg, dim=16)
    return env


# a plan step: follow the oracle, pick a menu entry, or send text (garbage included)
plan_steps = st.one_of(
    st.just(("oracle", None)),
    st.tuples(st.just("menu"), st.integers(0, 20)),
    st.tuples(st.just("text"), st.text(alphabet="se tagb\x00\n\t;é{}-_0", max_size=20)),
    st.tuples(st.just("text"), st.sampled_from(["submit", "get alpha", "set alpha amber", "set zeta x", "help"])),
    st.tuples(st.just("text"), st.sampled_from([b"\xff\xfe", 42, None, "x" * 20_000])),
    st.tuples(
        st.just("text"),
        st.sampled_from(
            [
                "extend",
                "extend()",
                "extend 9",
                "extend(turns=99)",
                '{"tool": "extend"}',
                '{"tool": "extend", "args": {"n": 1}}',
            ]
        ),
    ),
)
plans = st.lists(plan_steps, min_size=1, max_size=14)


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def play(stack: dict[str, Any], seed: int, plan: list[tuple[str, Any]], env: Any = None) -> dict[str, Any]:
    """Run one episode (on ``env``, else a fresh build of ``stack``); the record holds everything
    the properties look at."""
    env = build(stack) if env is None else env
    numeric = stack["layers"][-1][0] == "numeric"
    obs, info = env.reset(seed=seed)
    record: dict[str, Any] = {"budget": info["budget"], "steps": [], "reset": _plain((obs, info)), "events": []}
    pos = 0
    while True:
        kind, arg = plan[pos % len(plan)]
        pos += 1
        menu = list(info.get("admissible_actions") or [])
        if kind == "oracle" and stack["agent_env"]:
            text = env.unwrapped.reference_action()
            action: Any = menu.index(text) if numeric and text in menu else (999 if numeric else text)
        elif kind == "menu" or numeric:
            index = arg if kind == "menu" else len(str(arg))
            action = index if numeric else (menu[index % len(menu)] if menu else "help")
        else:
            action = arg
        obs, reward, terminated, truncated, info = env.step(action)
        record["steps"].append(_plain((action, obs, reward, terminated, truncated, info)))
        record["events"] += info.get("events", [])
        if terminated or truncated:
            record.update(terminated=terminated, truncated=truncated, info=record["steps"][-1][-1])
            record["turns"] = len(record["steps"])
            env.close()
            return record


@PROPERTY
@given(stacks(), st.integers(0, 2**16), plans)
def test_turns_never_exceed_the_budget_and_truncation_means_it_ran_out(stack, seed, plan):
    r = play(stack, seed, plan)
    ext = r["info"].get("extensions") or {"requested": 0, "granted": 0, "extra": 0, "max_requests": 0}
    budget = r["budget"] + ext["granted"] * ext["extra"]  # T, lengthened by each grant
    assert ext["granted"] <= ext["max_requests"]
    assert 1 <= r["turns"] <= budget <= r["budget"] + ext["max_requests"] * ext["extra"]
    ran_out = r["turns"] == budget and not r["terminated"]
    assert r["truncated"] == ran_out
    assert r["info"]["budget_exhausted"] == ran_out
    assert r["info"]["turns_left"] == budget - r["turns"] and r["info"]["budget"] == budget
    assert all("TimeLimit.truncated" not in step[-1] for step in r["steps"])
    requests = [e for e in r["events"] if e["kind"] == "budget_extension"]
    assert len(requests) == ext["requested"] and sum(e["granted"] for e in requests) == ext["granted"]


@pytest.mark.slow
@PROPERTY
@given(stacks(), st.integers(0, 2**16), plans)
def test_warnings_come_once_per_crossing_and_extend_is_offered_only_while_grantable(stack, seed, plan):
    r = play(stack, seed, plan)
    soft = next(
        (arg for name, arg in stack["layers"] if name == "budget" and isinstance(arg, dict) and "soft" in arg), {}
    )
    ext = r["info"].get("extensions") or {"granted": 0, "max_requests": 0}
    warnings = [e for e in r["events"] if e["kind"] == "budget_warning"]
    assert len(warnings) <= (1 + ext["granted"] if "warn_at" in soft else 0)
    assert all(1 <= w["turns_left"] <= soft["warn_at"] for w in warnings)
    infos = [r["reset"][1], *(step[-1] for step in r["steps"])]
    for i, info in enumerate(infos):
        over = i == len(infos) - 1 and i > 0
        menu = info.get("admissible_actions") or []
        grantable = "extra" in soft and info["extensions"]["left"] > 0 and not over and menu != ["extend"]
        assert ("extend" in menu) == (grantable and bool(menu)) and menu.count("extend") <= 1


@pytest.mark.slow
@PROPERTY
@given(stacks(), st.integers(0, 2**16), plans)
def test_exactly_one_failure_category_per_episode(stack, seed, plan):
    stack = {**stack, "layers": [*stack["layers"]]}
    if not any(name == "labels" for name, _ in stack["layers"]):
        at = len(stack["layers"]) - (stack["layers"][-1][0] == "numeric")
        stack["layers"].insert(at, ("labels", None))
    r = play(stack, seed, plan)
    labelled = [step[-1] for step in r["steps"] if "failure_category" in step[-1]]
    assert len(labelled) == 1 and "failure_category" in r["steps"][-1][-1]
    category, flags = r["info"]["failure_category"], r["info"]["failure_flags"]
    assert category in CATEGORIES and category in flags
    assert sum(f in CATEGORIES for f in flags[:1]) == 1 and flags[0] == category
    assert (category == "success") == bool(r["info"].get("success"))
    success = bool(r["info"].get("success"))
    assert label_episode(r["events"], success=success, truncated=r["truncated"]) == (category, flags)


@pytest.mark.slow
@PROPERTY
@given(stacks(), st.integers(0, 2**16), plans)
def test_same_seed_same_budget_faults_trajectory_and_labels(stack, seed, plan):
    first, second = play(stack, seed, plan), play(stack, seed, plan)
    assert first == second


@pytest.mark.slow
@PROPERTY
@given(stacks(), st.integers(0, 2**16), plans)
def test_a_pickled_stack_plays_the_same(stack, seed, plan):
    env = build(stack)
    env.reset(seed=seed + 1)  # mid-life state travels too, and the next reset clears it
    assert play(stack, seed, plan, env=pickle.loads(pickle.dumps(env))) == play(stack, seed, plan)


@pytest.mark.slow
@PROPERTY
@given(stacks(), st.integers(0, 2**16), plans)
def test_rewards_stay_in_bounds(stack, seed, plan):
    r = play(stack, seed, plan)
    weight = sum(arg for name, arg in stack["layers"] if name == "process_reward")
    price = next(
        (
            arg.get("cost", 0.0)
            for name, arg in stack["layers"]
            if name == "budget" and isinstance(arg, dict) and "extra" in arg
        ),
        0.0,
    )
    granted = (r["info"].get("extensions") or {}).get("granted", 0)
    rewards = [step[2] for step in r["steps"]]
    assert all(isinstance(x, float) for x in rewards)
    assert all(-weight - price - 1e-9 <= x <= 1.0 + weight + 1e-9 for x in rewards)
    if weight == 0:
        assert all(x in (0.0, 1.0, -price) for x in rewards)
        assert sum(rewards) == pytest.approx(float(bool(r["info"].get("success"))) - price * granted)
    final = rewards[-1] - (r["info"].get("process_reward") or 0.0)
    assert final == float(bool(r["info"].get("success")))
