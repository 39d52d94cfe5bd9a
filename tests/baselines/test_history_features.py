"""Per-candidate history (issue 24): what the agent applied, tested and undid, from public information only."""

from __future__ import annotations

import numpy as np
import pytest

import agentgym
from agentgym import events as ev
from baselines.experiment.budget_env import RECOVER_ENV_ID
from baselines.policy.features import (
    CANDIDATE_KINDS,
    HISTORY_NAMES,
    PROGRESS_NAMES,
    EpisodeMemory,
    patch_key,
)

DIM, MAX_ACTIONS = 32, 16
FIX = "patch\n--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n a = 1\n-b = 3\n+b = 2\n c = 3\n"
DECOY = "patch\n--- a/m.py\n+++ b/m.py\n@@ -3,3 +3,3 @@\n c = 3\n-d = 4\n+d = 5\n e = 5\n"
# the same change as FIX, offered after another edit moved its context and line numbers
FIX_MOVED = "patch\n--- a/m.py\n+++ b/m.py\n@@ -2,4 +2,4 @@\n a = 1\n x = 0\n-b = 3\n+b = 2\n c = 3\n"
MENU = [FIX, DECOY, "test", "revert", "submit"]


def _history(step, action: str) -> dict[str, float]:
    base = 7 + len(CANDIDATE_KINDS)
    row = step.candidate_extras[step.actions.index(action)]
    return {name: float(row[base + j]) for j, name in enumerate(HISTORY_NAMES)}


def _progress(step, name: str) -> float:
    return float(step.progress[PROGRESS_NAMES.index(name)])


def test_patch_key_names_the_change_not_its_context() -> None:
    assert patch_key(FIX) == patch_key(FIX_MOVED) == ("m.py", ("b = 3",), ("b = 2",))
    assert patch_key(DECOY) != patch_key(FIX)
    assert patch_key("submit") is None and patch_key("revert") is None


def _play(subtask_done: bool, private: dict) -> list:
    """decoy, failing test, revert, then the menu again: the steps' encodings."""
    mem = EpisodeMemory(DIM, MAX_ACTIONS)
    out = [mem.encode({"text": "bug in m.py"}, {"admissible_actions": MENU, **private})]
    script = [
        (DECOY, "Patched m.py.", [ev.tool_call("edit", True), ev.mutation("m.py"), ev.subtask("bug", subtask_done)]),
        ("test", "1 failed", [ev.tool_call("tests", True), ev.verification(False, "visible tests")]),
        ("revert", "Reverted.", [ev.tool_call("edit", True), ev.mutation("m.py"), ev.subtask("bug", not subtask_done)]),
    ]
    for action, text, events in script:
        mem.record(action)
        out.append(mem.encode({"text": text}, {"admissible_actions": MENU, "events": events, **private}))
    return out


def test_history_marks_the_tried_change_and_its_failing_test() -> None:
    start, patched, failed, reverted = _play(False, {})
    assert _history(start, DECOY) == dict.fromkeys(HISTORY_NAMES, 0.0)
    assert _history(patched, DECOY)["applied_now"] == 1.0 and _history(patched, DECOY)["test_failed"] == 0.0
    assert _history(failed, DECOY)["test_failed"] == 1.0
    assert _history(failed, "revert")["undoes_failed"] == 1.0 and _progress(failed, "top_failed") == 1.0
    after = _history(reverted, DECOY)
    assert after == {**dict.fromkeys(HISTORY_NAMES, 0.0), "applied_before": 1.0, "test_failed": 1.0, "reverted": 1.0}
    assert _history(reverted, FIX) == dict.fromkeys(HISTORY_NAMES, 0.0)  # untried: a fresh candidate
    assert _progress(reverted, "clean_after_tries") == 1.0 and _progress(reverted, "edits_applied") == 0.0
    assert _progress(reverted, "changes_failed") == pytest.approx(1 / 3)


def test_history_uses_public_information_only() -> None:
    """Two episodes whose hidden state differs (which patch fixed the bug: `subtask` events; the
    solution and success in info) but whose public history is the same encode identically."""
    a = _play(True, {"solution": [FIX], "success": True})
    b = _play(False, {"solution": [DECOY], "success": False})
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.progress, y.progress)
        np.testing.assert_array_equal(x.candidate_extras, y.candidate_extras)
        np.testing.assert_array_equal(x.observation, y.observation)


def test_history_is_the_same_for_envs_whose_answers_differ() -> None:
    """On the faithful budget env: two envs on the same task whose right patch differs (private
    state), driven through the same actions with the same public outcomes, give the same features."""
    envs = [agentgym.make(RECOVER_ENV_ID, budget=8, split="train") for _ in range(2)]
    try:
        runs = []
        for answer_shift, env in enumerate(envs):
            obs, info = env.reset(seed=3, options={"task_id": "budgetchoice/1"})
            base = env.unwrapped
            base.answer = (base.answer + answer_shift) % base.n  # the hidden state differs
            runs.append((env, obs, info))
        wrong = next(
            w
            for w in envs[0].unwrapped.names
            if envs[0].unwrapped.names.index(w) not in {e.unwrapped.answer for e in envs}
        )
        assert envs[0].unwrapped.answer != envs[1].unwrapped.answer
        encodings = []
        for env, obs, info in runs:
            mem = EpisodeMemory(DIM, MAX_ACTIONS)
            steps = [mem.encode(obs, info)]
            for action in (f"patch {wrong}", "run tests", "revert", "view x"):
                mem.record(action)
                obs, _, _, _, info = env.step(action)
                steps.append(mem.encode(obs, info))
            encodings.append(steps)
    finally:
        for env in envs:
            env.close()
    for x, y in zip(*encodings):
        for field in ("observation", "budget", "progress", "candidates", "candidate_extras"):
            np.testing.assert_array_equal(getattr(x, field), getattr(y, field))
    assert _history(encodings[0][3], f"patch {wrong}")["test_failed"] == 1.0


def test_mentioned_words_are_exact_and_public() -> None:
    """A candidate naming a word of the observations is flagged exactly (no hash collisions)."""
    from baselines.policy.features import MENTION_NAMES

    mem = EpisodeMemory(DIM, MAX_ACTIONS)
    step = mem.encode(
        {"text": "The failing test mentions tango. Fix it."},
        {"admissible_actions": ["patch tango", "patch sierra", "submit"]},
    )
    col = 7 + len(CANDIDATE_KINDS) + len(HISTORY_NAMES)
    share = step.candidate_extras[:, col + MENTION_NAMES.index("mentioned_share")]
    assert share.tolist() == [1.0, 0.0, 0.0]
    # a diff's changed lines: the function the bug report names
    diff = (
        "patch\n--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n def latest(count):\n"
        "-    return xs[-count - 1:]\n+    return xs[-count:]\n"
    )
    step = EpisodeMemory(DIM, MAX_ACTIONS).encode(
        {"text": "`latest` misbehaves when count is 1"}, {"admissible_actions": [diff]}
    )
    assert step.candidate_extras[0, col + MENTION_NAMES.index("mentioned_any")] == 1.0
