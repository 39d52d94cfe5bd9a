"""The AgentEnv contract, on the toy family, on both backends."""

from __future__ import annotations

import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env

from support.toy_env import ToyEnv


@pytest.fixture
def env(backend):
    e = ToyEnv(backend=backend, split="test")
    yield e
    e.close()


def test_oracle_solves_and_info_keys(env):
    obs, info = env.reset(seed=3)
    assert set(obs) == {"text"} and info["task_id"].startswith("toy/")
    assert {"task_id", "events", "admissible_actions", "cost", "turn", "min_turns"} <= set(info)
    for _ in range(info["min_turns"]):
        obs, reward, terminated, truncated, info = env.step(env.reference_action())
    assert terminated and not truncated and reward == 1.0 and info["success"] is True
    with pytest.raises(ResetNeeded):
        env.step("cat")


def test_garbage_actions_cost_a_turn_and_never_raise(env):
    env.reset(seed=0)
    for garbage in ["", "\x00\xff", "write", "rm -rf /", "x" * 100_000, b"bytes!", 42]:
        obs, reward, terminated, truncated, info = env.step(garbage)
        assert not terminated and reward == 0.0
        assert obs["text"].startswith("error:")
        assert info["events"][0] == {
            "kind": "action",
            "parsed_ok": False,
            "name": None,
            "error": info["events"][0]["error"],
        }
    assert env.turn == 7


def test_same_seed_same_task_and_trajectory(backend):
    runs = []
    for _ in range(2):
        with_env = ToyEnv(backend=backend)
        obs, info = with_env.reset(seed=11)
        traj = [(obs, info["task_id"])]
        for a in ["cat", "write x", "cat", "submit"]:
            o, r, te, tr, i = with_env.step(a)
            traj.append((o, r, te, i["events"]))
        runs.append(traj)
        with_env.close()
    assert runs[0] == runs[1]


def test_faults_apply_to_tool_actions_only(env):
    env.reset(seed=1)
    env.inject_fault("tool_error")
    _, _, _, _, info = env.step("write nope")
    kinds = [e["kind"] for e in info["events"]]
    assert "fault_injected" in kinds and "mutation" not in kinds  # the write never happened
    env.inject_fault("tool_error")
    _, _, _, _, info = env.step("help")  # not a tool: no fault
    assert "fault_injected" not in [e["kind"] for e in info["events"]]


def test_oracle_retries_after_transient_fault(env):
    _, info = env.reset(seed=2)
    env.inject_fault("timeout")
    env.step(env.reference_action())
    for _ in range(info["min_turns"]):
        _, reward, terminated, _, info = env.step(env.reference_action())
    assert terminated and reward == 1.0


def test_check_env_passes(backend):
    env = ToyEnv(backend=backend)
    check_env(env, skip_render_check=True)  # built without gym.make: no spec to re-make it per render mode
    env.close()


def test_end_by_budget_scores_zero_unless_asked(backend):
    for score, expected in [(False, False), (True, True)]:
        env = ToyEnv(backend=backend, score_on_truncation=score)
        env.reset(seed=5)
        env.step(env.reference_action())
        assert env.end_by_budget() is expected
        env.close()


def test_help_finish_and_bad_arguments_never_reach_the_family(env):
    """AgentEnv handles the actions every grammar shares (ToyEnv's `_execute` raises on them)."""
    env.reset(seed=0)
    obs, *_, info = env.step("help")
    assert obs["text"] == env.help_text() and [e["kind"] for e in info["events"]] == ["action"]
    obs, reward, terminated, _, info = env.step("submit")
    assert terminated and obs["text"] == "submitted" and info["events"][-1] == {"kind": "submit"}
    assert env.answer is None and env.answer_value is None


class _Finishing(ToyEnv):
    submit_text = "finished: {answer}"

    def _parse(self, action):
        from agentgym.core import BadArguments, ParsedAction

        if action == "cat 1":
            return BadArguments("cat", tool="cat", error="cat takes no arguments")
        if action.startswith("finish "):
            return ParsedAction("finish", {"answer": action[7:], "value": "$1.00"})
        return super()._parse(action)


def test_finish_keeps_the_answer_and_bad_arguments_are_a_failed_call_of_their_tool():
    env = _Finishing(backend="local")
    try:
        env.reset(seed=0)
        obs, *_, info = env.step("cat 1")
        assert obs["text"] == "error: cat takes no arguments"
        assert info["events"][1:] == [{"kind": "tool_call", "name": "cat", "ok": False, "error_kind": "bad_args"}]
        env.inject_fault("tool_error")  # a fault hits a bad call as it hits a good one of the same tool
        *_, info = env.step("cat 1")
        assert [e["kind"] for e in info["events"]] == ["action", "tool_call", "fault_injected"]
        obs, *_ = env.step("finish it is {x}")
        assert obs["text"] == "finished: it is {x}" and (env.answer, env.answer_value) == ("it is {x}", "$1.00")
        env.reset(seed=0)
        assert env.answer is None and env.answer_value is None
    finally:
        env.close()
