"""ToolUseEnv on both sandbox backends: contract, oracle, faults, drift, refusals, events, errors.

The oracle sweep runs every test task on the local backend and a sample on docker; set
AGENTGYM_TOOLUSE_FULL=1 to sweep the whole test split on docker too.
"""

from __future__ import annotations

import json
import os

import pytest

from agentgym.actions import render_call
from agentgym.core import MAX_MENU
from agentgym.envs.tooluse import ToolUseEnv
from agentgym.envs.tooluse.env import ENGINE_MODULE
from support.docker import require_docker
from support.oracle_runs import run_oracle

IMAGE = ToolUseEnv.image
FULL = os.environ.get("AGENTGYM_TOOLUSE_FULL", "") not in ("", "0")


@pytest.fixture(scope="module", params=["local", "docker"])
def env(request):
    """One warm env per backend for the whole module (a container start is ~0.3 s)."""
    if request.param == "docker":
        require_docker(IMAGE)
    e = ToolUseEnv(split="test", backend=request.param)
    yield e
    e.close()


def _ids(env, template: str) -> list[str]:
    return [t for t in env.tasks.ids("test") if f"/{template}/" in t]


def _kinds(info) -> list[str]:
    return [e["kind"] for e in info["events"]]


def _events(info, kind: str) -> list[dict]:
    return [e for e in info["events"] if e["kind"] == kind]


def _lookups(env) -> None:
    """Do the task's reads, as a careful agent would."""
    for action, _ in env.unwrapped._lookups:
        env.step(action)


# ---------------------------------------------------------------------------- contract
# ---------------------------------------------------------------------------- oracle
def test_oracle_solves_every_test_task_in_min_turns(env):
    ids = env.tasks.ids("test")
    if env.backend == "docker" and not FULL:
        ids = ids[::6]
    failed = []
    for tid in ids:
        obs, info = env.reset(options={"task_id": tid})
        actions = []
        for _ in range(info["min_turns"] + 2):
            actions.append(env.reference_action())
            obs, reward, terminated, _, info = env.step(actions[-1])
            if terminated:
                break
        # the state-aware oracle, fault-free, walks exactly the task's planned reference solution
        if reward != 1.0 or tuple(actions) != env.task.solution or len(actions) != env.task.min_turns:
            failed.append((tid, actions, env.task.solution, env.verdict))
    assert not failed, failed[:2]


def test_oracle_solves_heldout_tasks(env):
    for tid in env.tasks.ids("heldout")[::8]:
        reward, turns, info = run_oracle(env, tid)
        assert reward == 1.0, (tid, env.verdict)


@pytest.mark.parametrize("kind", ["tool_error", "timeout", "empty_output", "corrupted_output", "state_drift"])
def test_oracle_recovers_from_a_transient_fault_at_turn_1(env, kind):
    templates = sorted({t.split("/")[2] for t in env.tasks.ids("test")})
    for template in templates:
        tid = _ids(env, template)[0]
        reward, turns, info = run_oracle(env, tid, fault=(1, kind), slack=3)
        assert reward == 1.0, (kind, tid, env.verdict)
        if kind != "state_drift":
            assert turns == info["min_turns"] + (kind != "state_drift"), (kind, tid)


def test_oracle_recovers_from_drift_at_every_turn(env):
    for tid in env.tasks.ids("test")[::9]:
        n = env.tasks.get(tid).min_turns
        for at in range(1, n):
            reward, _, _ = run_oracle(env, tid, fault=(at, "state_drift"), slack=4, seed=at)
            assert reward == 1.0, (tid, at, env.verdict)


def test_faults_read_as_tool_api_failures(env):
    tid = _ids(env, "cancel_all_pending")[0]
    env.reset(seed=0, options={"task_id": tid})
    first = env.reference_action()
    env.inject_fault("tool_error")
    obs, _, _, _, info = env.step(first)
    assert "429 Too Many Requests" in obs["text"] and _events(info, "tool_call")[0]["error_kind"] == "rate_limited"
    assert env.reference_action() == first  # nothing happened: retry
    env.step(first)
    listing = env.reference_action()
    env.inject_fault("corrupted_output")
    obs, _, _, _, info = env.step(listing)
    body = json.loads(obs["text"].split("\n[partial result")[0])
    assert body["partial"] is True and len(body["orders"]) < len(env.task.meta["lookups"][1][1])
    assert not [e for e in _events(info, "subtask") if e["name"].startswith("lookup:list_orders")]
    assert env.reference_action() == listing  # a partial listing is read again


def test_oracle_survives_random_faults_of_every_kind_through_the_wrappers(env):
    import agentgym

    spec = "tool_error+timeout+empty_output+corrupted_output+state_drift@p=0.3"
    stack = agentgym.make("agentgym/ToolUse-v0", budget=40, faults=spec, split="test", backend=env.backend)
    try:
        faults = 0
        for i, tid in enumerate(env.tasks.ids("test")[:: (5 if env.backend == "local" else 15)]):
            obs, info = stack.reset(seed=i, options={"task_id": tid})
            while True:
                obs, reward, terminated, truncated, info = stack.step(stack.unwrapped.reference_action())
                faults += len(_events(info, "fault_injected"))
                if terminated or truncated:
                    break
            assert reward == 1.0 and info["failure_category"] == "success", (tid, stack.unwrapped.verdict)
        assert faults > 5
    finally:
        stack.close()


# ---------------------------------------------------------------------------- drift and stale records
def _ship_target(env) -> str:
    """Another actor ships the target order (the first drift candidate of a cancel task)."""
    what = env.sandbox.call(ENGINE_MODULE, "drift", pick=0, protect=[])
    env.unwrapped._epoch += 1
    env.unwrapped._view = (env.unwrapped._epoch, what["view"])
    return what["what"]


def test_drift_turns_a_cancel_into_a_refusal_and_a_stale_write_is_flagged(env):
    tid = _ids(env, "cancel_pending")[0]
    order = env.tasks.get(tid).meta["intents"][0]
    env.reset(options={"task_id": tid})
    _lookups(env)
    assert "shipped order " + order["order_id"] in _ship_target(env)
    # the oracle notices the record changed, re-reads it, then refuses
    assert env.reference_action().startswith("list_orders(")
    _, _, _, _, info = env.step(render_call("cancel_order", {"order_id": order["order_id"], "reason": order["reason"]}))
    assert [e["detail"] for e in _events(info, "state_mismatch")] == [
        f"orders:{order['order_id']} changed since you last read it"
    ]
    assert _events(info, "mutation")
    _, reward, terminated, _, _ = env.step('finish("Done, it is cancelled.")')
    assert terminated and reward == 0.0 and not env.verdict["state_ok"]

    env.reset(options={"task_id": tid})
    _lookups(env)
    _ship_target(env)
    reward, _, _ = 0.0, None, None
    for _ in range(4):
        obs, reward, terminated, _, info = env.step(env.reference_action())
        if terminated:
            break
    assert reward == 1.0 and env.verdict["refusal"]


def test_drift_never_touches_what_the_agent_wrote(env):
    tid = _ids(env, "cancel_all_pending")[0]
    env.reset(options={"task_id": tid})
    _lookups(env)
    env.step(env.reference_action())  # the first cancellation
    written = set(env.unwrapped._protected)
    assert any(k.startswith("orders:") for k in written) and any(k.startswith("products:") for k in written)
    drifted = set()
    for pick in range(30):
        reply = env.sandbox.call(ENGINE_MODULE, "drift", pick=pick, protect=sorted(written))
        if reply is None:
            break
        assert reply["key"] not in written
        drifted.add(reply["key"])
    assert drifted  # the other pending orders and the profile were fair game


# ---------------------------------------------------------------------------- refusal tier
def test_refusal_tier_acting_fails_and_only_a_grounded_refusal_succeeds(env):
    tid = _ids(env, "refuse_cancel_shipped")[0]
    intent = env.tasks.get(tid).meta["intents"][0]
    # acting on the forbidden request fails, even with a refusal-sounding answer
    env.reset(options={"task_id": tid})
    _lookups(env)
    env.step(render_call("cancel_order", {"order_id": intent["order_id"], "reason": intent["reason"]}))
    _, reward, _, _, _ = env.step('finish("Sorry, I cannot do that.")')
    assert reward == 0.0 and not env.verdict["state_ok"]
    # a refusal without reading the order is a guess, not a policy decision
    env.reset(options={"task_id": tid})
    _, reward, _, _, _ = env.step('finish("Sorry, I cannot do that.")')
    assert reward == 0.0 and env.verdict["state_ok"] and not env.verdict["grounded"]
    # reading, then claiming success, fails
    env.reset(options={"task_id": tid})
    _lookups(env)
    _, reward, _, _, _ = env.step('finish("All done, cancelled.")')
    assert reward == 0.0 and not env.verdict["answer_ok"]
    # reading, changing nothing, refusing: success
    env.reset(options={"task_id": tid})
    _lookups(env)
    _, reward, _, _, info = env.step("finish(\"I'm sorry, I can't cancel it: the order has already shipped.\")")
    assert reward == 1.0 and info["success"]


def test_a_wrong_amount_fails_the_answer(env):
    tid = _ids(env, "return_delivered")[0]
    env.reset(options={"task_id": tid})
    while not env.reference_action().startswith("finish("):
        env.step(env.reference_action())
    right = env.reference_action()
    amount = float(right.split("$")[1].rstrip('.")'))
    _, reward, _, _, _ = env.step(f'finish("Refunded ${amount + 1:.2f}.")')
    assert reward == 0.0 and env.verdict["state_ok"] and not env.verdict["answer_ok"]


# ---------------------------------------------------------------------------- events and errors
def test_events_mutation_verification_subtasks(env):
    tid = _ids(env, "cancel_pending")[0]
    obs, info = env.reset(options={"task_id": tid})
    names = list(env.task.subtasks)
    done = []
    while True:
        action = env.reference_action()
        obs, reward, terminated, _, info = env.step(action)
        done += [e["name"] for e in _events(info, "subtask") if e["done"]]
        if action.startswith("cancel_order("):
            order_id = action.split('"')[1]
            assert _events(info, "mutation") == [{"kind": "mutation", "target": f"orders:{order_id}"}]
            assert _events(info, "tool_call") == [
                {"kind": "tool_call", "name": "cancel_order", "ok": True, "error_kind": None}
            ]
        if action.startswith("get_order("):
            assert _events(info, "verification")[0]["ok"] is True
        if terminated:
            break
    assert reward == 1.0 and sorted(done) == sorted(names)


def test_re_reading_a_wrong_write_is_a_failed_verification(env):
    tid = _ids(env, "update_address")[0]
    order = env.tasks.get(tid).meta["intents"][0]
    env.reset(options={"task_id": tid})
    _lookups(env)
    env.step(render_call("update_address", {"order_id": order["order_id"], "address": "9 Wrong Way, Nowhere"}))
    _, _, _, _, info = env.step(render_call("get_order", {"order_id": order["order_id"]}))
    assert _events(info, "verification") == [
        {"kind": "verification", "ok": False, "target": f"orders:{order['order_id']}"}
    ]
    env.step(render_call("update_address", {"order_id": order["order_id"], "address": order["address"]}))
    _, _, _, _, info = env.step(render_call("get_order", {"order_id": order["order_id"]}))
    assert _events(info, "verification")[0]["ok"] is True
    _, reward, _, _, _ = env.step('finish("Your order will ship to the new address.")')
    assert reward == 1.0


def test_error_paths_cost_the_turn_and_say_why(env):
    tid = _ids(env, "cancel_pending")[0]
    obs, info = env.reset(options={"task_id": tid})
    user = env.tasks.get(tid).meta["tables"]["users"][0]["user_id"]
    cases = [
        ("{broken", "invalid JSON", None),
        ("cancel everything now", "cannot parse", None),
        ('launch_rocket(x="1")', "unknown tool 'launch_rocket'", None),
        ("get_order()", "missing argument 'order_id'", "bad_args"),
        ('cancel_order(order_id="O1", reason="bored")', "must be one of", "bad_args"),
        ('get_order(order_id="O00000")', "no order with id 'O00000'", "not_found"),
        ('find_user_by_email(email="nobody@example.com")', "no customer with email", "not_found"),
        ("calculate(expression=\"__import__('os')\")", "cannot evaluate", "bad_args"),
        ('search_products(query="lamp", page=99)', "out of range", "bad_args"),
        ("finish()", "finish takes one text answer", None),
    ]
    for turn, (action, message, kind) in enumerate(cases, start=1):
        obs, reward, terminated, _, info = env.step(action)
        assert obs["text"].startswith("error") and message in obs["text"], (action, obs["text"])
        assert not terminated and reward == 0.0 and env.turn == turn
        if kind is None:
            assert info["events"][0]["parsed_ok"] is False
        else:
            assert _events(info, "tool_call") == [
                {"kind": "tool_call", "name": action.split("(")[0], "ok": False, "error_kind": kind}
            ]
    obs, _, _, _, info = env.step('get_order(order_id="O00000")')
    assert _events(info, "state_mismatch") == [{"kind": "state_mismatch", "detail": "orders:O00000 does not exist"}]
    order = env.tasks.get(tid).meta["intents"][0]["order_id"]
    env.step(render_call("cancel_order", {"order_id": order, "reason": "no longer needed"}))
    obs, _, _, _, info = env.step(render_call("cancel_order", {"order_id": order, "reason": "no longer needed"}))
    assert "already cancelled" in obs["text"] and _events(info, "tool_call")[0]["error_kind"] == "conflict"
    obs, _, _, _, info = env.step(render_call("list_orders", {"user_id": user}))
    assert json.loads(obs["text"])["user_id"] == user and _events(info, "verification")


def test_help_lists_openai_style_schemas(env):
    env.reset(options={"task_id": _ids(env, "book_cheapest")[0]})
    obs, _, _, _, info = env.step("help")
    assert _kinds(info) == ["action"]
    schemas = json.loads(obs["text"].split("Tools (JSON schema):\n", 1)[1])
    names = {s["function"]["name"] for s in schemas}
    assert {"search_flights", "book_flight", "finish", "calculate"} <= names
    book = next(s for s in schemas if s["function"]["name"] == "book_flight")["function"]["parameters"]
    assert book["properties"]["cabin"]["enum"] == ["basic", "economy", "business"]
    assert book["properties"]["passengers"]["type"] == "integer"


def test_calculator_and_json_actions(env):
    env.reset(options={"task_id": _ids(env, "return_delivered")[0]})
    obs, _, _, _, info = env.step('{"tool": "calculate", "args": {"expression": "(129.99 * 0.85) + 24"}}')
    assert json.loads(obs["text"])["result"] == pytest.approx(134.4915)
    assert _events(info, "tool_call")[0]["ok"] is True


# ---------------------------------------------------------------------------- menu and random policy
def test_menu_is_capped_sorted_and_holds_the_oracle_action(env):
    for tid in env.tasks.ids("test")[::7]:
        obs, info = env.reset(options={"task_id": tid})
        while True:
            menu = info["admissible_actions"]
            assert 3 <= len(menu) <= MAX_MENU and menu == sorted(menu) and len(set(menu)) == len(menu)
            ref = env.reference_action()
            assert ref in menu and any(m.startswith("finish(") for m in menu)
            if not ref.startswith("finish("):  # built from seen entities, not copied from the oracle
                e = env.unwrapped
                assert ref in e._domain.menu(e._known, e.task.meta["hints"]), (tid, ref)
            obs, reward, terminated, _, info = env.step(env.reference_action())
            if terminated:
                assert info["admissible_actions"] == []
                break
