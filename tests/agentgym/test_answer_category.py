"""A verdict the final message alone decided is labelled so: ``answer_contradicts_state``.

Reports separate wrong work from wrong words: when the world is as the task wants it (and a
refusal is grounded in what the agent saw) and only the final message fails, the episode's
failure category is ``answer_contradicts_state``; when the work itself is wrong it is not.
Local backend: the verdict is the same sandbox code as on Docker.
"""

from __future__ import annotations

import warnings

import pytest

import agentgym
from agentgym.actions import render_call
from agentgym.testing.verdicts import play_to_answer
from agentgym.wrappers.labels import CATEGORIES, label_episode


@pytest.fixture(scope="module", params=["agentgym/ToolUse-v0", "agentgym/Browser-v0"])
def env(request):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the local backend's warning
        env = agentgym.make(request.param, backend="local")
    yield env
    env.close()


def _task(env, tier: str) -> str:
    tasks = env.unwrapped.tasks
    return next(t for t in tasks.ids("test") if tasks.get(t).tier == tier)


def _finish(env, answer: str) -> dict:
    *_, terminated, _, info = env.step(render_call("finish", {"answer": answer}))
    assert terminated
    return info


def test_the_work_done_and_a_message_that_denies_it_is_wrong_words(env):
    play_to_answer(env, _task(env, "single"))
    info = _finish(env, "I'm sorry, I cannot do that: it is not allowed.")
    assert not info["success"] and info["answer_contradicts_state"]
    assert info["failure_category"] == "answer_contradicts_state", info["failure_flags"]


def test_nothing_written_on_a_refusal_task_and_a_claim_of_done_is_wrong_words(env):
    play_to_answer(env, _task(env, "refusal"))
    info = _finish(env, "I checked it against the policy and then made the update you asked for.")
    assert info["failure_category"] == "answer_contradicts_state", info["failure_flags"]


def test_the_work_not_done_is_wrong_work_whatever_the_message(env):
    env.reset(seed=0, options={"task_id": _task(env, "single")})
    info = _finish(env, "I made the update you asked for.")
    assert not info["success"] and not info["answer_contradicts_state"]
    assert info["failure_category"] != "answer_contradicts_state"


def test_a_blind_refusal_is_not_blamed_on_its_words(env):
    env.reset(seed=0, options={"task_id": _task(env, "refusal")})  # nothing read: not grounded
    info = _finish(env, "I cannot do that.")
    assert not info["success"] and info["failure_category"] != "answer_contradicts_state"


def test_the_category_comes_second_and_only_on_a_failure():
    assert CATEGORIES[:2] == ("success", "answer_contradicts_state")
    assert label_episode([{"kind": "submit"}], success=False, truncated=False, answer_contradicts_state=True) == (
        "answer_contradicts_state",
        ["answer_contradicts_state"],
    )
    assert label_episode([{"kind": "submit"}], success=True, truncated=False, answer_contradicts_state=True)[0] == (
        "success"
    )
