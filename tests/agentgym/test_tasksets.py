"""The shared task-set contract: one ``ids(split=..., tier=...)`` for every family, shared filters."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import agentgym
from agentgym.errors import ConfigError
from agentgym.tasks import Task, TemplateTaskSet

FAMILY_IDS = [i for i in agentgym.ENV_IDS if not i.endswith("KV-v0")]


class _Toy(TemplateTaskSet):
    family = "toy"
    all_tiers = ("easy", "hard")
    all_groups = ("a", "b")
    group_filter = "rooms"
    templates = {
        "a/one": SimpleNamespace(tier="easy", heldout=False),
        "a/two": SimpleNamespace(tier="hard", heldout=False),
        "b/three": SimpleNamespace(tier="easy", heldout=True),
    }
    seeds_per_template = 8

    def get(self, task_id: str) -> Task:
        return Task(task_id, self.family, self.split_of(task_id), "do it", tier=self.template_of(task_id).tier)


def test_template_tasks_split_by_held_out_template_and_filter_by_tier_and_group():
    toy = _Toy()
    assert toy.ids(split="heldout") == [f"toy/b/three/{s}" for s in range(8)]
    train, test = toy.ids(split="train"), toy.ids(split="test")
    assert sorted(train + test) == sorted(f"toy/a/{n}/{s}" for n in ("one", "two") for s in range(8))
    assert toy.ids(split="train", tier="hard") == [i for i in train if "/two/" in i]
    assert _Toy(rooms=["b"]).ids(split="train") == [] and _Toy(["b"]).ids(split="heldout")
    assert _Toy(tiers=["hard"]).ids(split="train") == toy.ids(split="train", tier="hard")
    with pytest.raises(ConfigError, match="unknown toy room"):
        _Toy(rooms=["c"])
    with pytest.raises(ConfigError, match="unknown tier"):
        toy.ids(split="train", tier="medium")
    with pytest.raises(ConfigError, match="toy/<room>/<template>/<seed>"):
        toy.get("toy/a/nine/1")


def test_narrowed_passes_env_filters_through():
    toy = _Toy()
    assert toy.narrowed("train", rooms=None, tiers=()) is toy
    assert toy.narrowed("train", tiers=["hard"]).ids(split="train") == toy.ids(split="train", tier="hard")
    with pytest.raises(ConfigError, match="no toy tasks in split 'train'"):
        toy.narrowed("train", rooms=["b"])


@pytest.mark.parametrize("env_id", FAMILY_IDS)
def test_every_family_answers_the_one_ids_signature(env_id: str):
    module, _, name = agentgym.ENV_IDS[env_id].partition(":")
    env_cls = getattr(__import__(module, fromlist=[name]), name)
    ts = env_cls._taskset()
    assert ts.all_tiers
    for split in ts.splits:
        every = ts.ids(split=split)
        by_tier = [i for tier in ts.all_tiers for i in ts.ids(split=split, tier=tier)]
        assert sorted(by_tier) == sorted(every), (env_id, split)
