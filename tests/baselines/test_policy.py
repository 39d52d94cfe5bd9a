"""MenuPolicy and its features: shapes, the menu mask, batching, and the budget as an input."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from baselines.policy.features import (
    BUDGET_FEATURES,
    CANDIDATE_EXTRAS,
    CANDIDATE_KINDS,
    PROGRESS_NAMES,
    EpisodeMemory,
    budget_features,
    change_features,
    stack_steps,
)
from baselines.policy.model import MenuPolicy, masked_categorical, pick_device

DIM, MAX_ACTIONS = 32, 6


def _steps(menus: list[list[str]], turns_left: list[int]) -> list:
    out = []
    for menu, left in zip(menus, turns_left):
        mem = EpisodeMemory(DIM, MAX_ACTIONS)
        out.append(
            mem.encode(
                {"text": "tests fail in parse_date", "turns_left": np.array([left])}, {"admissible_actions": menu}
            )
        )
    return out


def test_batched_shapes_and_mask() -> None:
    menus = [["run tests", "submit"], ["a", "b", "c", "d", "e", "f", "g"], []]
    batch = stack_steps(_steps(menus, [3, 1, 5]), MAX_ACTIONS)
    assert batch["observation"].shape == (3, 3 * DIM)
    assert batch["budget"].shape == (3, BUDGET_FEATURES)
    assert batch["candidates"].shape == (3, MAX_ACTIONS, 2 * DIM)
    assert batch["candidate_extras"].shape == (3, MAX_ACTIONS, CANDIDATE_EXTRAS)
    # menus longer than max_actions are cut; an empty menu keeps one slot so the softmax is finite
    assert batch["mask"].sum(axis=1).tolist() == [2, MAX_ACTIONS, 1]
    policy = MenuPolicy(dim=DIM, hidden=16)
    t = {k: torch.as_tensor(v) for k, v in batch.items()}
    logits, value = policy.forward_batch(t)
    assert logits.shape == (3, MAX_ACTIONS) and value.shape == (3,)
    probs = torch.softmax(logits, -1)
    assert torch.all(probs[~t["mask"]] == 0)
    assert torch.allclose(probs.sum(-1), torch.ones(3))


def test_act_samples_only_menu_entries_and_is_seeded() -> None:
    policy = MenuPolicy(dim=DIM, hidden=16)
    batch = stack_steps(_steps([["x", "y"]] * 64, [2] * 64), MAX_ACTIONS)
    a, logp, v = policy.act(batch, generator=torch.Generator().manual_seed(0))
    b, _, _ = policy.act(batch, generator=torch.Generator().manual_seed(0))
    assert set(a.tolist()) <= {0, 1} and (a == b).all()
    assert np.all(logp <= 0) and v.shape == (64,)
    g, _, _ = policy.act(batch, greedy=True)
    assert len(set(g.tolist())) == 1


def test_act_draws_what_the_masked_categorical_draws() -> None:
    """`act` skips building the distribution; its choices and log-probabilities must not change."""
    torch.manual_seed(3)
    policy = MenuPolicy(dim=DIM, hidden=16)
    menus = [["a", "b", "c"], ["a"], [], ["a", "b", "c", "d", "e", "f", "g"]]
    batch = stack_steps(_steps(menus * 8, [1, 2, 5, 9] * 8), MAX_ACTIONS)
    t = {k: torch.as_tensor(v) for k, v in batch.items()}
    fast, reference = torch.Generator().manual_seed(7), torch.Generator().manual_seed(7)
    for _ in range(50):
        index, logp, value = policy.act(batch, generator=fast)
        with torch.no_grad():
            logits, want_value = policy.forward_batch(t)
            dist = masked_categorical(logits, t["mask"])
            want = torch.multinomial(dist.probs.float(), 1, generator=reference).squeeze(-1)
            want_logp = dist.log_prob(want)
        assert (
            (index == want.numpy()).all() and (logp == want_logp.numpy()).all() and (value == want_value.numpy()).all()
        )
    greedy, logp, _ = policy.act(batch, greedy=True)
    assert (greedy == logits.argmax(-1).numpy()).all() and (logp == dist.log_prob(logits.argmax(-1)).numpy()).all()


def test_budget_term_equals_the_bilinear_layer_on_the_repeated_context() -> None:
    torch.manual_seed(1)
    policy = MenuPolicy(dim=DIM, hidden=16)
    torch.nn.init.normal_(policy.budget_score.weight, std=0.5)  # large enough to matter
    torch.nn.init.constant_(policy.budget_score.bias, 0.3)
    t = {k: torch.as_tensor(v) for k, v in stack_steps(_steps([["a", "b", "c"], ["d"]], [1, 7]), MAX_ACTIONS).items()}
    with torch.no_grad():
        logits, _ = policy.forward_batch(t)
        context = torch.cat([t["budget"], t["progress"]], -1)
        action_in = torch.cat([t["candidates"], t["candidate_extras"]], -1)
        repeated = context.unsqueeze(1).expand(-1, action_in.shape[1], -1).contiguous()
        state = policy.state_encoder(torch.cat([t["observation"], context], -1))
        want = (
            torch.einsum("bh,bah->ba", policy.state_query(state), policy.action_encoder(action_in))
            + policy.prior_score(action_in).squeeze(-1)
            + policy.budget_score(repeated, action_in).squeeze(-1)
        )
    assert torch.allclose(logits[t["mask"]], want[t["mask"]], atol=1e-5)


def test_batches_pad_to_the_longest_menu_and_score_as_if_fully_padded() -> None:
    steps = _steps([["a", "b", "c"], ["d"], []], [1, 7, 3])
    short = stack_steps(steps, MAX_ACTIONS)
    assert short["candidates"].shape[1] == 3 and short["mask"].sum(axis=1).tolist() == [3, 1, 1]
    assert stack_steps(steps[2:], MAX_ACTIONS)["mask"].shape == (1, 1)  # an empty menu keeps one slot
    full = {
        k: np.zeros((3, MAX_ACTIONS) + v.shape[2:], v.dtype)
        if v.ndim >= 2 and k != "observation" and k not in ("budget", "progress")
        else v
        for k, v in short.items()
    }
    for k in ("candidates", "candidate_extras", "mask"):
        full[k][:, :3] = short[k]
    policy = MenuPolicy(dim=DIM, hidden=16)
    with torch.no_grad():
        a, _ = policy.forward_batch({k: torch.as_tensor(v) for k, v in short.items()})
        b, _ = policy.forward_batch({k: torch.as_tensor(v) for k, v in full.items()})
    assert torch.allclose(torch.softmax(a, -1), torch.softmax(b, -1)[:, :3], atol=1e-6)


def test_policy_sees_the_budget() -> None:
    # the same observation and menu with different turns left must give different scores
    policy = MenuPolicy(dim=DIM, hidden=16)
    torch.manual_seed(0)
    for p in policy.parameters():
        torch.nn.init.normal_(p, std=0.5)
    batch = stack_steps(_steps([["run tests", "submit"]] * 2, [1, 12]), MAX_ACTIONS)
    t = {k: torch.as_tensor(v) for k, v in batch.items()}
    logits, value = policy.forward_batch(t)
    assert not torch.allclose(logits[0, :2], logits[1, :2])
    assert value[0] != value[1]


def test_budget_features_mark_the_last_turns_and_an_absent_budget() -> None:
    last, many, none = budget_features(1, 5), budget_features(12, 0), budget_features(None, 3)
    assert last[3] == 1.0 and many[3] == 0.0  # "one turn left" flag
    assert none[-1] == 1.0 and last[-1] == 0.0 and not none[:6].any()


def test_memory_tracks_repeats_and_the_last_action() -> None:
    mem = EpisodeMemory(DIM, MAX_ACTIONS)
    info = {"admissible_actions": ["run tests", "submit"]}
    mem.encode({"text": "start"}, info)
    mem.record("run tests")
    step = mem.encode({"text": "1 failed"}, info)
    assert step.candidate_extras[0, 2] > 0 and step.candidate_extras[0, 4] == 1.0  # taken, and last
    assert step.candidate_extras[1, 2] == 0 and step.candidate_extras[1, 4] == 0.0
    assert step.budget[-1] == 1.0 and step.budget[6] > 0  # no budget given; one turn used


def test_pick_device_auto() -> None:
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert pick_device("auto").type == expected
    assert pick_device("cpu").type == "cpu"
    with pytest.raises(RuntimeError):
        pick_device("nonsense")


FIX = (
    "patch\n--- a/m.py\n+++ b/m.py\n@@ -3,3 +3,3 @@\n     parts.append(s)\n"
    "-    return None\n+    return ''.join(parts)\n "
)
INVERSE = (
    "patch\n--- a/m.py\n+++ b/m.py\n@@ -3,3 +3,3 @@\n     parts.append(s)\n"
    "-    return ''.join(parts)\n+    return None\n "
)
DROP = "patch\n--- a/m.py\n+++ b/m.py\n@@ -3,3 +3,2 @@\n     x = 1\n-    total += x\n     return total"


def test_change_features_tell_a_fix_from_its_inverse() -> None:
    # the whole-diff bag of tokens is nearly the same for a fix and its inverse; the change is not
    fix, is_patch, balance = change_features(FIX, DIM)
    inverse, _, _ = change_features(INVERSE, DIM)
    assert is_patch == 1.0 and balance == 0.0
    np.testing.assert_allclose(fix, -inverse, atol=1e-6)
    assert float(np.abs(fix).sum()) > 0
    assert change_features(DROP, DIM)[2] == pytest.approx(-1 / 3)  # drops a line
    for action in ("submit", "view m.py", "patch"):  # not a diff: no change
        vec, flag, bal = change_features(action, DIM)
        assert not vec.any() and flag == 0.0 and bal == 0.0
    step = EpisodeMemory(DIM, MAX_ACTIONS).encode({"text": "x"}, {"admissible_actions": [FIX, INVERSE, "submit"]})
    assert step.candidates.shape == (3, 2 * DIM)
    assert not np.allclose(step.candidates[0, DIM:], step.candidates[1, DIM:])
    assert step.candidate_extras[:, 5].tolist() == [1.0, 1.0, 0.0]  # is a patch
    submit_flag = 7 + CANDIDATE_KINDS.index("submit")
    assert step.candidate_extras[:, submit_flag].tolist() == [0.0, 0.0, 1.0]


def _feature(step, name: str) -> float:
    return float(step.progress[PROGRESS_NAMES.index(name)])


def test_progress_reads_the_verdict_and_unverified_edits_from_public_events_only() -> None:
    from agentgym import events as ev

    mem = EpisodeMemory(DIM, MAX_ACTIONS)
    menu = {"admissible_actions": [FIX, "test", "revert", "submit"]}
    step = mem.encode({"text": "bug in m.py"}, menu)
    assert _feature(step, "never_checked") == 1.0 and _feature(step, "last_action_none") == 1.0
    mem.record(FIX)
    # a subtask event says this patch fixed the bug: the policy must not see it
    patched = {**menu, "events": [ev.tool_call("edit", True), ev.mutation("m.py"), ev.subtask("bug1", True)]}
    step = mem.encode({"text": "Patched m.py (1 hunk)."}, patched)
    assert _feature(step, "unverified_edit") == 1.0 and _feature(step, "last_action_edit") == 1.0
    leaky = EpisodeMemory(DIM, MAX_ACTIONS)
    leaky.encode({"text": "bug in m.py"}, menu)
    leaky.record(FIX)
    no_subtask = {**menu, "events": [ev.tool_call("edit", True), ev.mutation("m.py"), ev.subtask("bug1", False)]}
    np.testing.assert_array_equal(leaky.encode({"text": "Patched m.py (1 hunk)."}, no_subtask).progress, step.progress)
    mem.record("test")
    step = mem.encode(
        {"text": "1 failed"}, {**menu, "events": [ev.tool_call("tests", True), ev.verification(False, "visible tests")]}
    )
    assert _feature(step, "verdict_failed") == 1.0 and _feature(step, "unverified_edit") == 0.0
    assert _feature(step, "last_check_failed") == 1.0 and _feature(step, "last_action_test") == 1.0
    mem.record("revert")
    step = mem.encode({"text": "Reverted"}, {**menu, "events": [ev.tool_call("edit", True), ev.mutation("m.py")]})
    assert _feature(step, "verdict_failed") == 0.0 and _feature(step, "unverified_edit") == 1.0
    assert _feature(step, "last_check_failed") == 1.0 and _feature(step, "last_action_revert") == 1.0
    mem.record("view nope.py")
    step = mem.encode({"text": "error"}, {**menu, "events": [ev.tool_call("view", True), ev.state_mismatch("missing")]})
    assert _feature(step, "last_error") == 1.0 and _feature(step, "last_action_view") == 1.0
    mem.record("test")
    step = mem.encode(
        {"text": "ok"}, {**menu, "events": [ev.tool_call("tests", True), ev.verification(True, "visible tests")]}
    )
    assert _feature(step, "verdict_passed") == 1.0 and _feature(step, "last_error") == 0.0


def test_checkpoint_round_trip_and_an_old_feature_version_is_refused(tmp_path) -> None:
    from agentgym.errors import ConfigError
    from baselines.policy.agent import load_policy, save_checkpoint

    policy = MenuPolicy(dim=DIM, hidden=16)
    path = tmp_path / "checkpoint.pt"
    save_checkpoint(path, policy, max_actions=MAX_ACTIONS)
    loaded, ckpt = load_policy(path)
    assert ckpt["max_actions"] == MAX_ACTIONS
    for a, b in zip(policy.state_dict().values(), loaded.state_dict().values()):
        assert torch.equal(a, b)
    # a checkpoint from before the change features: a clear error, not a tensor size mismatch
    ckpt["policy_config"].pop("features")
    torch.save(ckpt, path)
    with pytest.raises(ConfigError, match="features v1.*retrain"):
        load_policy(path)
