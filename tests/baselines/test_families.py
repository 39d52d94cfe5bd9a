"""The experiment's per-family plans (`baselines.policy.families`): menus, pages,
faults and interventions the oracle survives."""

from __future__ import annotations

import pytest

import agentgym
from agentgym.envs.miniwob.env import IMAGE as MINIWOB_IMAGE
from agentgym.envs.miniwob.tasks import CONTROLS
from agentgym.errors import ConfigError
from agentgym.wrappers.faults import parse_faults
from baselines.policy.families import MINIWOB_PAGES, PLANS, check_family_interventions, family_env_kwargs, plan_for
from support.docker import require_docker


def _oracle_success(env, task_id: str, seed: int = 0, budget: int | None = None) -> bool:
    """Play the oracle through the wrapped env; True when it succeeds within the budget."""
    options = {"task_id": task_id, **({"budget": budget} if budget else {})}
    obs, info = env.reset(seed=seed, options=options)
    while True:
        obs, reward, terminated, truncated, info = env.step(env.unwrapped.reference_action())
        if terminated or truncated:
            return reward == 1.0


def test_plans_name_their_families_and_every_spec_parses():
    assert plan_for("agentgym/Coding-v0") is None and family_env_kwargs("agentgym/Coding-v0") == {}
    assert plan_for("agentgym/ToolUse-v0") is PLANS["tooluse"]
    assert plan_for("agentgym/MiniWoB-click-button-v0") is PLANS["miniwob"]
    for plan in PLANS.values():
        assert plan.env_kwargs["menu"] == "no-oracle"
        for spec in (plan.train_faults, *plan.interventions):
            parse_faults(spec)
        check_family_interventions(plan.env_id, plan.interventions)
    assert set(MINIWOB_PAGES) <= set(CONTROLS) and len(MINIWOB_PAGES) == len(set(MINIWOB_PAGES))
    # the experiment's 28 pages, measured once: a controls page added later must be measured and kept or
    # left out (baselines.policy.families._WORKED_OUT) on purpose, not join the experiment unseen
    assert len(MINIWOB_PAGES) == 28


def test_interventions_that_cannot_bite_are_refused_with_the_familys_own():
    with pytest.raises(ConfigError, match="no mutation events.*tool_error@turn=1"):
        check_family_interventions("agentgym/MiniWoB-v0", ["wrong-patch", "state_drift@mutation=1"])
    check_family_interventions("agentgym/ToolUse-v0", ["state_drift@mutation=1"])
    check_family_interventions("agentgym/Coding-v0", ["state_drift@mutation=1"])


@pytest.mark.parametrize("spec", PLANS["tooluse"].interventions)
def test_the_tooluse_oracle_recovers_from_every_intervention_with_a_few_turns_to_spare(spec):
    plan = PLANS["tooluse"]
    for split in (plan.headline_split, plan.second_split):
        env = agentgym.make(plan.env_id, backend="local", split=split, faults=spec, budget=32, **plan.env_kwargs)
        try:
            tasks = env.unwrapped.tasks
            failed = [
                tid
                for tid in tasks.ids(split)[::9]
                if not _oracle_success(env, tid, budget=tasks.get(tid).min_turns + 3)
            ]
            assert not failed, (spec, split, failed)
        finally:
            env.close()


def test_the_tooluse_oracle_survives_the_training_faults():
    plan = PLANS["tooluse"]
    env = agentgym.make(
        plan.env_id, backend="local", split="train", faults=plan.train_faults, budget=24, **plan.env_kwargs
    )
    try:
        ids = env.unwrapped.tasks.ids("train")[::40]
        assert sum(_oracle_success(env, tid, seed=i) for i, tid in enumerate(ids)) == len(ids)
    finally:
        env.close()


@pytest.mark.docker
def test_miniwob_pages_are_menu_solvable_and_the_oracle_recovers_from_the_interventions():
    require_docker(MINIWOB_IMAGE)
    plan = PLANS["miniwob"]
    env = agentgym.make(plan.env_id, split="test", help_in_observation=False, **plan.env_kwargs)
    try:
        for page in MINIWOB_PAGES:  # the rule: a menu player solves the page from the no-oracle menu
            tid = [t for t in env.unwrapped.tasks.ids("test") if t.split("/")[1] == page][0]
            obs, info = env.reset(seed=0, options={"task_id": tid})
            for _ in range(30):
                ref = env.unwrapped.reference_action()
                assert ref in info["admissible_actions"], (tid, ref)
                obs, reward, terminated, truncated, info = env.step(ref)
                if terminated:
                    break
            assert reward == 1.0, tid
    finally:
        env.close()
    for spec in plan.interventions:
        env = agentgym.make(
            plan.env_id, split="test", help_in_observation=False, faults=spec, budget=14, **plan.env_kwargs
        )
        try:
            for page in ("click-checkboxes", "login-user", "search-engine", "enter-text"):
                tid = [t for t in env.unwrapped.tasks.ids("test") if t.split("/")[1] == page][1]
                assert _oracle_success(env, tid), (spec, tid)
        finally:
            env.close()


def test_the_family_presets_use_the_plans():
    from baselines.budgetmix import parse_args
    from baselines.config import intervention_runs
    from baselines.experiment.run import check_interventions

    for preset, plan in (("tooluse", PLANS["tooluse"]), ("miniwob", PLANS["miniwob"])):
        args = parse_args(["--preset", preset])
        assert args.env_ids == plan.env_id and args.eval_split == plan.headline_split
        assert args.train_faults == plan.train_faults and args.recovery_starts == 0.0
        assert tuple(name for name, _, _ in intervention_runs(args)) == plan.interventions
        assert all("faults" in how for _, how, _ in intervention_runs(args))  # fault specs, not forced starts
        check_interventions(args, plan.env_id)
        assert min(int(t) for t in args.eval_intervention_ts.split(",")) >= args.t_short


def test_a_fault_that_cannot_bite_fails_the_experiment_before_training():
    from baselines.budgetmix import parse_args
    from baselines.experiment.run import check_interventions

    args = parse_args(["--preset", "miniwob", "--eval-interventions", "tool_error@turn=1,state_drift@mutation=1"])
    with pytest.raises(ConfigError, match="no mutation events"):
        check_interventions(args, "agentgym/MiniWoB-v0")


def test_the_experiment_trains_a_family_only_on_its_no_oracle_menu():
    """The trainer's envs get the plan's menu, and Coding's forced starts are refused before training."""
    import dataclasses

    from baselines.budgetmix import parse_args
    from baselines.experiment.run import check_family_wiring
    from baselines.policy.train import make_env

    args = parse_args(["--preset", "tooluse", "--backend", "local"])
    env = make_env(args.env_ids, None, backend="local")()
    try:
        assert env.unwrapped.menu == "no-oracle"
    finally:
        env.close()
    check_family_wiring(args, args.env_ids)
    with pytest.raises(ConfigError, match="--recovery-starts 0"):
        check_family_wiring(dataclasses.replace(args, recovery_starts=0.5), args.env_ids)


def test_miniwob_eval_lists_hold_the_plans_pages_only():
    from baselines.experiment.eval_lists import split_task_ids

    ids = split_task_ids("agentgym/MiniWoB-v0", "test", None)
    assert {t.split("/")[1] for t in ids} == set(MINIWOB_PAGES)


def test_process_arms_refuse_a_family_without_subtasks() -> None:
    """MiniWoB-v0's pages name no subtasks: process-reward arms there would be the plain arms again (a
    run with them trained bit-identical policies), so the experiment refuses them before training."""
    from baselines.budgetmix import parse_args
    from baselines.experiment.run import check_process_arms

    with pytest.raises(ConfigError, match="name no subtasks"):
        check_process_arms(parse_args(["--preset", "miniwob", "--process-arms", "0.5"]), "agentgym/MiniWoB-v0")
    check_process_arms(parse_args(["--preset", "tooluse-process"]), "agentgym/ToolUse-v0")  # subtasks: no error
    check_process_arms(parse_args(["--preset", "quick"]), "agentgym/MiniWoB-v0")  # no arms asked for
