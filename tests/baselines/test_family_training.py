"""The trainer on the other families (issue 39): their menus and encoder in training,
checkpoints kept to their family."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from agentgym.errors import ConfigError
from baselines.config import Args, TrainSettings
from baselines.policy.agent import PolicyAgent, load_policy, save_checkpoint
from baselines.policy.family_features import FamilyMemory, episode_memory, features_tag
from baselines.policy.features import FEATURES_VERSION, EpisodeMemory
from baselines.policy.model import MenuPolicy
from support.docker import require_docker

TINY = {
    "total_env_steps": 48,
    "num_envs": 2,
    "env_threads": 1,
    "steps_per_update": 24,
    "minibatch_size": 24,
    "update_epochs": 1,
    "dim": 32,
    "hidden": 16,
    "track": False,
    "progress": False,
    "recovery_starts": 0.0,
    "device": "cpu",
}


def _tiny_args(preset: str, tmp_path, **over) -> Args:
    from baselines.budgetmix import parse_args

    args = parse_args(["--preset", preset])
    return dataclasses.replace(args, **{**TINY, "out": str(tmp_path), "schedule": f"fixed:{args.t_long}", **over})


def _train_and_check(args: Args) -> None:
    from baselines.policy.env_pool import close_idle
    from baselines.policy.train import train

    try:
        summary = train(TrainSettings.from_args(args), "tiny")
    finally:
        close_idle()
    assert summary["env_steps"] >= args.total_env_steps and summary["updates"] >= 1
    policy, ckpt = load_policy(summary["checkpoint"], features="family-v1")
    assert policy.features == "family-v1" and ckpt["policy_config"]["features"] == "family-v1"
    with pytest.raises(ConfigError, match="family features"):
        load_policy(summary["checkpoint"], features=FEATURES_VERSION)


def test_the_trainer_trains_tooluse_on_its_no_oracle_menu_with_the_family_encoder(tmp_path):
    from baselines.policy.rollout import EpisodeCollector
    from baselines.policy.train import make_env

    args = _tiny_args("tooluse", tmp_path, backend="local")
    collector = EpisodeCollector(
        [make_env(args.env_ids, 6, backend="local")],
        MenuPolicy(dim=32, hidden=16),
        dim=32,
        max_actions=32,
        seed=0,
        threads=1,
    )
    try:
        assert collector.envs[0].unwrapped.menu == "no-oracle"
        assert isinstance(collector.memories[0], FamilyMemory)
    finally:
        collector.close()
    _train_and_check(args)


@pytest.mark.docker
def test_the_trainer_trains_miniwob_on_its_pages_and_no_oracle_menu(tmp_path):
    require_docker()
    _train_and_check(_tiny_args("miniwob", tmp_path, backend="docker"))


def test_checkpoints_refuse_the_wrong_family(tmp_path):
    coding = tmp_path / "coding.pt"
    family = tmp_path / "family.pt"
    save_checkpoint(coding, MenuPolicy(dim=16, hidden=8), max_actions=8)
    save_checkpoint(family, MenuPolicy(dim=16, hidden=8, features=features_tag("agentgym/ToolUse-v0")), max_actions=8)
    assert load_policy(coding, features=features_tag("agentgym/Coding-v0"))[0].features == FEATURES_VERSION
    with pytest.raises(ConfigError, match="Coding's features"):
        load_policy(coding, features=features_tag("agentgym/ToolUse-v0"))
    with pytest.raises(ConfigError, match="family features"):
        load_policy(family, features=features_tag("agentgym/Coding-v0"))
    assert load_policy(family, features="family-v1")[0].features == "family-v1"
    # a tag this code does not build (an older family encoder) is refused whatever the env
    ckpt = torch.load(family, weights_only=False)
    ckpt["policy_config"]["features"] = "family-v0"
    torch.save(ckpt, family)
    with pytest.raises(ConfigError, match="retrain"):
        load_policy(family)


class _Env:
    """Just enough of an env for `PolicyAgent.reset`: its family."""

    def __init__(self, family: str) -> None:
        self.family = family
        self.unwrapped = self


def test_the_evaluation_agent_encodes_with_its_familys_encoder_and_refuses_another():
    family_policy = MenuPolicy(dim=16, hidden=8, features="family-v1")
    agent = PolicyAgent(family_policy, max_actions=8)
    agent.reset(_Env("tooluse"), {}, {})
    assert isinstance(agent.memory, FamilyMemory)
    with pytest.raises(ConfigError, match="trained on family features"):
        agent.reset(_Env("coding"), {}, {})
    coding_agent = PolicyAgent(MenuPolicy(dim=16, hidden=8), max_actions=8)
    coding_agent.reset(_Env("coding"), {}, {})
    assert isinstance(coding_agent.memory, EpisodeMemory)
    with pytest.raises(ConfigError, match="Coding's features"):
        coding_agent.reset(_Env("miniwob"), {}, {})
    assert isinstance(episode_memory("agentgym/MiniWoB-click-button-v0", 16, 8), FamilyMemory)


def test_the_forced_state_probe_skips_the_families_it_has_no_states_for():
    from baselines.experiment.probe import budget_probe

    assert (
        budget_probe({"p": MenuPolicy(dim=16, hidden=8)}, "agentgym/ToolUse-v0", max_actions=8, turns_left=[1, 2]) == {}
    )
