"""Family-neutral policy inputs (`baselines.policy.family_features`): Coding's shapes, public events only,
the budget's slack."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agentgym.envs.tooluse import ToolUseEnv
from agentgym.wrappers import ToolFailureInjector, TurnLimit
from baselines.policy.family_features import (
    BUDGET_NAMES,
    EXTRA_NAMES,
    PROGRESS_NAMES,
    FamilyMemory,
    episode_memory,
    slack_budget_features,
    structure_features,
)
from baselines.policy.features import EpisodeMemory, stack_steps
from baselines.policy.model import MenuPolicy

DIM = 32


def _ev(kind: str, **fields):
    return {"kind": kind, **fields}


def _progress(step) -> dict[str, float]:
    return dict(zip(PROGRESS_NAMES, step.progress.tolist()))


def _extras(step, action: str) -> dict[str, float]:
    return dict(zip(EXTRA_NAMES, step.candidate_extras[step.actions.index(action)].tolist()))


MENU = [
    'get_order(order_id="O1")',
    'cancel_order(order_id="O1", reason="ordered by mistake")',
    'finish(answer="Done.")',
    'get_order(order_id="O2")',
]


def test_the_arrays_have_codings_shapes_and_the_policy_takes_them():
    info = {"admissible_actions": MENU, "min_turns": 4, "events": []}
    obs = {"text": "Customer: please cancel O1", "turns_left": np.array([6])}
    fam, cod = FamilyMemory(DIM, 32).encode(obs, info), EpisodeMemory(DIM, 32).encode(obs, info)
    for name in ("observation", "budget", "progress", "candidates", "candidate_extras"):
        assert getattr(fam, name).shape == getattr(cod, name).shape, name
        assert getattr(fam, name).dtype == np.float32
    batch = {k: torch.as_tensor(v) for k, v in stack_steps([fam, fam], 32).items()}
    logits, value = MenuPolicy(dim=DIM, hidden=16).forward_batch(batch)
    assert logits.shape == (2, len(MENU)) and value.shape == (2,)


def test_subtask_events_change_nothing():
    def run(extra: list[dict]) -> list[np.ndarray]:
        mem = FamilyMemory(DIM, 32)
        mem.encode({"text": "start"}, {"admissible_actions": MENU, "events": []})
        mem.record(MENU[1])
        step = mem.encode(
            {"text": "ok"},
            {
                "admissible_actions": MENU,
                "events": [
                    _ev("action", parsed_ok=True, name="cancel_order"),
                    _ev("tool_call", name="cancel_order", ok=True),
                    _ev("mutation", target="orders:O1"),
                    *extra,
                ],
            },
        )
        return [step.progress, step.candidate_extras, step.budget, step.observation]

    plain, told = run([]), run([_ev("subtask", name="write:0:cancel", done=True)])
    assert all(np.array_equal(a, b) for a, b in zip(plain, told))


def test_history_from_public_events_errors_faults_retries_and_checks():
    mem = FamilyMemory(DIM, 32)
    mem.encode({"text": "start"}, {"admissible_actions": MENU, "events": []})
    mem.record(MENU[1])  # the write hits an injected tool error
    step = mem.encode(
        {"text": "error (rate_limited)"},
        {
            "admissible_actions": MENU,
            "events": [
                _ev("action", parsed_ok=True, name="cancel_order"),
                _ev("tool_call", name="cancel_order", ok=False, error_kind="rate_limited"),
                _ev("fault_injected", fault="tool_error", tool="cancel_order", transient=True),
            ],
        },
    )
    p, e = _progress(step), _extras(step, MENU[1])
    assert p["last_error"] == p["last_fault"] == p["faults_seen"] == p["open_failure"] == 1.0
    assert e["retry_of_failed"] == e["faulted_before"] == 1.0 and e["failed_before"] == 0.0
    assert _extras(step, MENU[0])["retry_of_failed"] == 0.0
    mem.record(MENU[1])  # the retry writes
    step = mem.encode(
        {"text": "{}"},
        {
            "admissible_actions": MENU,
            "events": [
                _ev("action", parsed_ok=True, name="cancel_order"),
                _ev("tool_call", name="cancel_order", ok=True),
                _ev("mutation", target="orders:O1"),
            ],
        },
    )
    p = _progress(step)
    assert p["open_failure"] == 0.0 and p["unverified_write"] == 1.0 and p["never_checked"] == 1.0
    assert p["last_write"] == 1.0 and _extras(step, MENU[1])["verb_wrote"] == 1.0
    mem.record(MENU[0])  # the re-read verifies it
    step = mem.encode(
        {"text": "{}"},
        {
            "admissible_actions": MENU,
            "events": [
                _ev("action", parsed_ok=True, name="get_order"),
                _ev("tool_call", name="get_order", ok=True),
                _ev("verification", ok=True, target="orders:O1"),
            ],
        },
    )
    p = _progress(step)
    assert p["verdict_passed"] == 1.0 and p["unverified_write"] == 0.0 and p["last_read"] == 1.0
    assert _extras(step, MENU[0])["verified_before"] == 1.0
    mem.record(MENU[3])  # a stale or missing record
    step = mem.encode(
        {"text": "error"},
        {
            "admissible_actions": MENU,
            "events": [
                _ev("action", parsed_ok=True, name="get_order"),
                _ev("tool_call", name="get_order", ok=False, error_kind="not_found"),
                _ev("state_mismatch", detail="orders:O2 does not exist"),
            ],
        },
    )
    assert _progress(step)["last_mismatch"] == 1.0
    assert _extras(step, MENU[3])["stale_before"] == _extras(step, MENU[3])["failed_before"] == 1.0


def test_the_budget_is_turns_left_and_slack_over_the_tasks_min_turns():
    b = dict(zip(BUDGET_NAMES, slack_budget_features(turns_left=5, turns_used=0, min_turns=4).tolist()))
    assert b["slack"] == pytest.approx(1 / 8) and b["slack_le_0"] == 0.0 and b["slack_le_2"] == 1.0
    b = dict(zip(BUDGET_NAMES, slack_budget_features(turns_left=2, turns_used=1, min_turns=6).tolist()))
    assert b["slack"] < 0 and b["slack_le_0"] == 1.0 and b["left_le_2"] == 1.0
    b = dict(zip(BUDGET_NAMES, slack_budget_features(turns_left=None, turns_used=3, min_turns=6).tolist()))
    assert b["no_budget"] == 1.0 and sum(b.values()) == 1.0  # no budget wrapper: nothing invented


def test_structure_reads_the_verb_the_arguments_and_the_element():
    page = {"12": ("button", "Submit"), "13": ("checkbox", "blue")}
    a, b = structure_features("click(12)", page, DIM), structure_features("click(13)", page, DIM)
    assert not np.allclose(a, b)  # same verb, different element kinds
    same_kind = structure_features('get_order(order_id="O1")', {}, DIM)
    assert np.allclose(same_kind, structure_features('get_order(order_id="O9")', {}, DIM))  # ids are not structure
    assert not np.allclose(same_kind, structure_features('get_user(user_id="U1")', {}, DIM))


def test_the_hook_picks_the_encoder_by_family():
    assert isinstance(episode_memory("tooluse", DIM, 8), FamilyMemory)
    assert isinstance(episode_memory("miniwob", DIM, 8), FamilyMemory)
    assert isinstance(episode_memory("coding", DIM, 8), EpisodeMemory)
    env = TurnLimit(ToolUseEnv(split="test", backend="local"), 8)
    try:
        assert isinstance(episode_memory(env, DIM, 8), FamilyMemory)
    finally:
        env.close()


def test_a_real_tooluse_episode_with_a_fault_encodes_the_retry():
    env = ToolFailureInjector(
        TurnLimit(ToolUseEnv(split="test", backend="local", menu="no-oracle"), 12), kinds="tool_error", at_turns=1
    )
    mem = FamilyMemory(DIM, 32)
    try:
        obs, info = env.reset(seed=0)
        step = mem.encode(obs, info)
        assert _progress(step)["first_turn"] == 1.0
        b = dict(zip(BUDGET_NAMES, step.budget.tolist()))
        assert b["left"] == pytest.approx(12 / 32) and b["slack"] == pytest.approx((12 - info["min_turns"]) / 8)
        first = env.unwrapped.reference_action()
        assert first in step.actions
        mem.record(first)
        obs, _, _, _, info = env.step(first)
        step = mem.encode(obs, info)
        assert _progress(step)["last_fault"] == 1.0 and _extras(step, first)["retry_of_failed"] == 1.0
    finally:
        env.close()
