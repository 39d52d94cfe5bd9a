"""Hostile tool arguments: each is bounded in time and size and comes back as a typed ``error``.

Every case broke the env before (a crashed step server, an exception out of ``step()``, or a
calculator that never returns); each now costs the agent its turn and leaves the sandbox usable.
"""

from __future__ import annotations

import time

import gymnasium as gym
import pytest
from test_tooluse_backend import TODAY, _shop, engine_in

import agentgym  # noqa: F401  (registers the ids)

DEEP = 900
HOSTILE = [
    # calculate: results far past any amount, and round() asked for 10**18 digits
    ('calculate(expression="((2**64)**64)**64")', "bad_args"),
    ('calculate(expression="(((9**64)**64)**64)**64")', "bad_args"),
    ('calculate(expression="round(1, -10**18)")', "bad_args"),
    ('calculate(expression="1e308*10")', "bad_args"),
    ('calculate(expression="2.0**64**64")', "bad_args"),
    # argument values the database cannot hold or the tools cannot read
    ('get_order(order_id="\\ud800")', "bad_args"),
    ('return_order(order_id="O1", payment_method_id="PM1", amount=1e308)', "error"),
    ('{"tool": "calculate", "args": {"expression": "1"}, "x": ' + "9" * 5000 + "}", "error"),
    ('{"tool": "calculate", "args": "' + "[" * DEEP + "]" * DEEP + '"}', "error"),
    ("calculate(expression=" + "-" * DEEP + "1)", "error"),
    ("calculate(expression=" + "[" * 200 + "]" * 200 + ")", "error"),
]


@pytest.fixture(scope="module")
def env():
    env = gym.make("agentgym/ToolUse-v0", backend="local", domains=["retail"])
    yield env
    env.close()


@pytest.mark.filterwarnings("ignore:agentgym local sandbox backend")
@pytest.mark.parametrize("action,kind", HOSTILE, ids=[a[:40] for a, _ in HOSTILE])
def test_hostile_call_is_a_typed_error_and_the_sandbox_lives(env, action, kind):
    env.reset(seed=3)
    start = time.perf_counter()
    obs, reward, terminated, truncated, info = env.step(action)
    assert time.perf_counter() - start < 2.0
    assert obs["text"].startswith("error"), obs["text"][:200]
    assert kind in obs["text"][:40]
    assert len(obs["text"]) <= env.unwrapped.max_observation_length
    assert not terminated and reward == 0.0
    obs, *_ = env.step('calculate(expression="2*21")')  # the same sandbox still answers
    assert '"result": 42' in obs["text"]


@pytest.mark.filterwarnings("ignore:agentgym local sandbox backend")
@pytest.mark.parametrize("answer", ["$inf", "1e999", "9" * 5000, "nan"])
def test_finish_with_a_non_finite_amount_is_scored_not_raised(env, answer):
    env.reset(seed=3)
    obs, reward, terminated, truncated, info = env.step(f'finish("All done. The amount is {answer}.")')
    assert terminated and reward == 0.0 and info["success"] is False


@pytest.fixture
def backend(tmp_path, monkeypatch):
    mod = engine_in(tmp_path, monkeypatch)
    intents = [{"op": "cancel", "order_id": "O1", "reason": "no longer needed"}]
    mod.setup("retail", _shop(status="pending", delivered=None), TODAY, intents)
    yield mod
    mod._session.close()


def test_a_tool_past_its_time_limit_is_stopped(backend, monkeypatch):
    """The database work of one call is interrupted at TOOL_SECONDS (a pathological query)."""
    monkeypatch.setattr(backend, "TOOL_SECONDS", 0.0)
    monkeypatch.setattr(backend, "PROGRESS_OPCODES", 1)
    reply = backend.call_tool("get_order", {"order_id": "O1"})
    assert reply == {"ok": False, "error_kind": "timeout", "error": "get_order ran past 0 s and was stopped"}
    monkeypatch.setattr(backend, "TOOL_SECONDS", 2.0)
    assert backend.call_tool("get_order", {"order_id": "O1"})["ok"]  # the handler is gone afterwards


def test_a_result_over_the_size_limit_is_refused(backend, monkeypatch):
    monkeypatch.setattr(backend, "MAX_RESULT_CHARS", 50)
    reply = backend.call_tool("get_order", {"order_id": "O1"})
    assert reply["ok"] is False and reply["error_kind"] == "too_large" and "limit of 50" in reply["error"]


def test_search_wildcards_are_text(backend):
    """``%`` and ``_`` in a query match themselves: a pattern of wildcards cannot make LIKE backtrack."""
    assert backend.call_tool("search_products", {"query": "%"})["result"]["results"] == []
    assert backend.call_tool("search_products", {"query": "_" * 3})["result"]["results"] == []
    assert len(backend.call_tool("search_products", {"query": "lamp"})["result"]["results"]) == 2
