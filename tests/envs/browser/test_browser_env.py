"""BrowserEnv on both sandbox backends: oracle, determinism, faults, drift, garbage, events, menu.

The oracle sweep runs every test task on the local backend and on docker (the text backend is
fast enough for both).
"""

from __future__ import annotations

import pytest

from agentgym.core import MAX_MENU
from agentgym.envs.browser import BrowserEnv
from support.docker import require_docker
from support.oracle_runs import run_oracle

FAULTS = ["tool_error", "timeout", "empty_output", "corrupted_output", "state_drift"]


@pytest.fixture(scope="module", params=["local", "docker"])
def env(request):
    if request.param == "docker":
        require_docker(BrowserEnv.image)
    e = BrowserEnv(split="test", backend=request.param)
    yield e
    e.close()


def _kinds(info) -> list[str]:
    return [e["kind"] for e in info["events"]]


def _events(info, kind: str) -> list[dict]:
    return [e for e in info["events"] if e["kind"] == kind]


def _one_per_template(env) -> list[str]:
    seen, out = set(), []
    for tid in env.tasks.ids("test"):
        key = tid.rsplit("/", 1)[0]
        if key not in seen:
            seen.add(key)
            out.append(tid)
    return out


def test_oracle_solves_every_test_task_in_min_turns(env):
    failed = []
    for tid in env.tasks.ids("test"):
        reward, turns, info = run_oracle(env, tid, slack=2)
        if reward != 1.0 or turns != env.task.min_turns:
            failed.append((tid, reward, turns, env.task.min_turns, env.verdict))
    assert not failed, failed[:3]


def test_oracle_solves_heldout_tasks(env):
    for tid in env.tasks.ids("heldout")[::10]:
        reward, _, _ = run_oracle(env, tid, slack=2)
        assert reward == 1.0, (tid, env.verdict)


@pytest.mark.parametrize("kind", FAULTS)
def test_oracle_recovers_from_a_fault_at_every_template(env, kind):
    for tid in _one_per_template(env):
        n = env.tasks.get(tid).min_turns
        for at in sorted({1, max(1, n // 2), max(1, n - 1)}):
            reward, turns, info = run_oracle(env, tid, fault=(at, kind), slack=4, seed=at)
            assert reward == 1.0, (kind, tid, at, env.verdict)


def test_drift_makes_posted_forms_conflict_and_the_oracle_rereads(env):
    tid = next(t for t in env.tasks.ids("test") if "/fix_post/" in t)
    obs, info = env.reset(seed=0, options={"task_id": tid})
    while "/edit" not in obs["text"].splitlines()[0]:
        obs, _, _, _, info = env.step(env.reference_action())
    fill = env.reference_action()
    assert fill.startswith("fill(")
    obs, _, _, _, info = env.step(fill)
    assert env._drift() is not None  # another moderator edits the post while the form is open
    save = next(
        a
        for a in info["admissible_actions"]
        if a.startswith("click(")
        and "Save changes"
        in next(line for line in obs["text"].splitlines() if line.lstrip().startswith("[" + a[6:-1] + "]"))
    )
    obs, _, _, _, info = env.step(save)
    assert obs["text"].startswith("error: the site rejected the form") and "Someone else edited" in obs["text"]
    assert "state_mismatch" in _kinds(info) and _events(info, "tool_call")[0]["error_kind"] == "conflict"
    assert env.reference_action() == "reload()"
    for _ in range(8):
        obs, reward, terminated, _, info = env.step(env.reference_action())
        if terminated:
            break
    assert reward == 1.0, env.verdict


def test_stale_and_unknown_ids_and_garbage_cost_the_turn(env):
    env.reset(seed=3, options={"task_id": env.tasks.ids("test")[0]})
    first = env.reference_action()
    old_page_id = (
        int(first[first.index("(") + 1 :].split(",")[0].rstrip(")")) if first[:5] in ("click", "fill(") else None
    )
    for action in [
        "click(99999)",
        "garbage )(",
        "",
        "click()",
        "fill(1)",
        "type [1]",
        'goto("http://example.com/")',
        'scroll("left")',
        "new_tab",
        'select(1, "x")',
        "\x00\xff",
        '{"tool": 3}',
    ]:
        obs, reward, terminated, truncated, info = env.step(action)
        assert obs["text"].startswith("error:") and not terminated and reward == 0.0, (action, obs["text"][:80])
    obs, _, _, _, info = env.step("click(99999)")
    assert _events(info, "state_mismatch") and _events(info, "tool_call")[0]["error_kind"] == "not_found"
    if old_page_id is not None:
        env.step('goto("/no/such/page")')
        obs, _, _, _, info = env.step(f"click({old_page_id})")
        assert "not on this page any more" in obs["text"] and _events(info, "state_mismatch")
        assert _events(info, "tool_call")[0]["error_kind"] == "stale"


def test_forward_returns_to_the_page_back_left_until_a_new_page_is_opened(env):
    tid = next(t for t in env.tasks.ids("test") if "/shop/" in t)
    env.reset(seed=0, options={"task_id": tid})
    url = lambda obs: obs["text"].partition("\n")[0]  # noqa: E731
    obs, *_, info = env.step("go_forward()")
    assert obs["text"].startswith("error:") and _events(info, "tool_call")[0]["error_kind"] == "no_history"
    cart = url(env.step('goto("/cart")')[0])
    home = url(env.step("back()")[0])
    assert cart == "URL: /cart" and home != cart
    assert url(env.step("go_forward()")[0]) == cart
    assert url(env.step("<action>back()</action>")[0]) == home
    assert url(env.step("Now forward() again.")[0]) == cart
    env.step("back()")
    env.step('goto("/orders")')  # a new page ends the forward history
    obs, *_, info = env.step("forward()")
    assert _events(info, "tool_call")[0]["error_kind"] == "no_history"


def test_events_mutation_then_verification_and_subtasks(env):
    tid = next(t for t in env.tasks.ids("test") if "/change_role/" in t)
    obs, info = env.reset(seed=0, options={"task_id": tid})
    kinds = []
    while True:
        obs, reward, terminated, _, info = env.step(env.reference_action())
        kinds.append(_kinds(info))
        if terminated:
            break
    flat = [k for ks in kinds for k in ks]
    assert reward == 1.0 and "mutation" in flat and "submit" in flat
    assert flat.index("verification") > flat.index("mutation")
    assert [e for ks in kinds for e in ks if e == "subtask"]


def test_refusal_needs_grounding_and_an_unchanged_site(env):
    tid = next(t for t in env.tasks.ids("test") if "/quota_too_high/" in t)
    env.reset(seed=0, options={"task_id": tid})
    _, reward, terminated, _, _ = env.step('finish("I cannot do that.")')  # never looked at the record
    assert terminated and reward == 0.0 and env.verdict["grounded"] is False
    reward, _, _ = run_oracle(env, tid)
    assert reward == 1.0


def _hasty_episode(env, tid):
    env.reset(seed=0, options={"task_id": tid})
    for _ in range(40):
        _, reward, terminated, _, _ = env.step(env.hasty_action())
        if terminated:
            return reward
    raise AssertionError(f"the hasty policy did not finish {tid}")


def test_a_listing_row_grounds_a_refusal_but_cannot_make_a_wrong_one_right(env):
    """The order list shows the order as shipped: refusing from it is grounded (a turn before the
    oracle's refusal) when the row is true, and fails when the lagging row is false."""
    lagging = {
        t: {r["key"] for r in env.tasks.get(t).meta["spec"]["tables"]["_listing"]}
        for t in env.tasks.ids("test")
        if "/cancel_" in t
    }
    key = {t: env.tasks.get(t).meta["spec"]["ops"][0]["oid"] for t in lagging}
    true_row = next(t for t in lagging if "/cancel_shipped/" in t and f"orders:{key[t]}" not in lagging[t])
    assert _hasty_episode(env, true_row) == 1.0 and env.verdict["grounded"]
    assert env.turn == env.task.min_turns - 1
    false_row = next(t for t in lagging if "/cancel_order/" in t and f"orders:{key[t]}" in lagging[t])
    assert _hasty_episode(env, false_row) == 0.0 and not env.verdict["refusal"] and not env.verdict["answer_ok"]


def test_lookup_answer_is_checked_exactly(env):
    tid = next(t for t in env.tasks.ids("test") if "/price_lookup/" in t)
    env.reset(seed=0, options={"task_id": tid})
    _, reward, _, _, _ = env.step('finish("$0.01")')
    assert reward == 0.0 and env.verdict["answer_ok"] is False and env.verdict["expected_answer"].startswith("$")


def test_ids_are_stable_in_an_episode_and_shuffled_across_seeds(env):
    tid = env.tasks.ids("test")[0]
    first = env.reset(seed=1, options={"task_id": tid})[0]["text"]
    again = env.step("reload()")[0]["text"]
    assert first.split("\n\n")[-2 if env.help_in_observation else -1] == again
    other = env.reset(seed=2, options={"task_id": tid})[0]["text"]
    assert first != other and first.replace("[", "").split("]")[1:] != other.replace("[", "").split("]")[1:]


def test_menu_is_capped_sorted_and_holds_the_oracle_action(env):
    obs, info = env.reset(seed=0, options={"task_id": env.tasks.ids("test")[5]})
    for _ in range(6):
        menu = info["admissible_actions"]
        assert menu == sorted(menu) and len(menu) <= MAX_MENU and env.reference_action() in menu
        obs, _, terminated, _, info = env.step(env.reference_action())
        if terminated:
            break
