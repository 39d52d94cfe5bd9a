"""The offline patch ranker: change features must tell true fixes from decoys better than the whole-diff bag."""

from __future__ import annotations

import json

import pytest

from baselines.policy.patch_ranker import candidate_sets, main, rank_accuracy


@pytest.fixture(scope="module")
def data() -> tuple[list, list]:
    return candidate_sets("train", 150), candidate_sets("test", 80)


def test_candidate_sets_hold_menu_patches_and_true_fixes(data: tuple[list, list]) -> None:
    train, test = data
    assert len(train) == 150 and len(test) == 80
    for actions, labels in train + test:
        assert all(a.startswith("patch\n--- a/") for a in actions)
        assert labels.sum() >= 1  # every task offers its true fix(es); most also offer decoys
    assert sum(labels.sum() < len(labels) for _, labels in train) > 0.9 * len(train)


def test_change_features_beat_the_whole_diff_bag_and_a_blind_pick(data: tuple[list, list]) -> None:
    train, test = data
    whole = rank_accuracy(train, test, "whole_diff", dim=128)
    change = rank_accuracy(train, test, "change", dim=128)
    assert change["test_top1"] >= change["test_blind"] + 0.2
    assert change["test_top1"] > whole["test_top1"]


def test_bad_feature_set_is_refused(data: tuple[list, list]) -> None:
    with pytest.raises(ValueError, match="feature set 'tokens'"):
        rank_accuracy(data[0][:2], data[1][:2], "tokens")


def test_cli_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--train", "20", "--test", "10", "--dim", "64", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"whole_diff", "change", "both"}
    assert all(0.0 <= r["test_top1"] <= 1.0 for r in out.values())
