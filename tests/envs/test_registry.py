"""Registry-driven checks for every registered agentgym id (MiniGrid/PettingZoo style).

For each id in `agentgym.ENV_IDS`: Gymnasium's `check_env` on both backends (rendering
included), a determinism rollout (two envs, same seed, oracle and seeded menu actions with state
drift and corrupted output injected, everything compared), the oracle on test-split tasks and its recovery from every fault kind
(with every event checked against the contract), SB3's checker on the numeric view,
reset/close cycles that leave no sandbox behind, the eval harness, a pickle and spec round
trip, and the ``"agentgym:<id>"`` form of `gym.make`. A new family is covered by registering
it. Unexpected warnings fail the test.
"""

from __future__ import annotations

import importlib
import importlib.util
import pickle
import warnings
from contextlib import contextmanager
from pathlib import Path

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import agentgym
from agentgym import events

from support.docker import require_docker

IDS = sorted(agentgym.ENV_IDS)


def family_class(env_id: str) -> type:
    module, _, name = agentgym.ENV_IDS[env_id].partition(":")
    return getattr(importlib.import_module(module), name)


def family_image(env_id: str) -> str:
    return family_class(env_id).image


def backends_of(env_id: str) -> tuple[str, ...]:
    """The backends a family runs on: both, or only Docker (MiniWoB-v0: its pages and Chromium are in its image)."""
    return getattr(family_class(env_id), "backends", ("local", "docker"))


def local_or_docker(env_id: str) -> str:
    """The local backend, or Docker for a Docker-only family (which then needs the engine and its image:
    skipped without them locally, failed under CI=true)."""
    if "local" in backends_of(env_id):
        return "local"
    require_docker(family_image(env_id))
    return "docker"


BACKEND_PAIRS = [(i, b) for i in IDS for b in ("local", "docker") if b in backends_of(i)]


@contextmanager
def no_unexpected_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message="agentgym local sandbox backend")  # said once, on purpose
        yield


def use_backend(env_id: str, backend: str) -> str:
    if backend == "docker":
        require_docker(family_image(env_id))
    return backend


@pytest.mark.parametrize(("env_id", "backend"), BACKEND_PAIRS)
def test_check_env(env_id, backend):
    """Gymnasium's full check_env, rendering included (render_mode="ansi" returns the last observation)."""
    backend = use_backend(env_id, backend)
    with no_unexpected_warnings():
        env = gym.make(env_id, backend=backend, render_mode="ansi")
        try:
            check_env(env.unwrapped)
            env.reset(seed=0)
            assert env.render() == env.unwrapped._last_text and env.render()
        finally:
            env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_reset_gives_help_and_tools_without_spending_a_turn(env_id):
    """The grammar is in the first observation and in info["help"]; call-style families list their tools."""
    env = gym.make(env_id, backend=local_or_docker(env_id))
    try:
        obs, info = env.reset(seed=0)
        assert info["help"] and info["help"].splitlines()[0] in env.unwrapped.help_text()
        assert isinstance(info["tools"], list) and info["turn"] == 0
        for schema in info["tools"]:
            assert schema["type"] == "function" and schema["function"]["name"]
            assert schema["function"]["name"] in obs["text"]
        if not info["tools"]:
            assert info["help"].strip().splitlines()[-1] in obs["text"]
    finally:
        env.close()
    bare = gym.make(env_id, backend=local_or_docker(env_id), help_in_observation=False)
    try:
        assert len(bare.reset(seed=0)[0]["text"]) < len(obs["text"])
    finally:
        bare.close()


@pytest.mark.parametrize("env_id", IDS)
def test_is_success_mirrors_success_for_sb3(env_id):
    """SB3's Monitor and EvalCallback read info["is_success"]: set it wherever success is decided."""
    env = agentgym.make(env_id, backend=local_or_docker(env_id), budget=1)
    try:
        env.reset(seed=0)
        _, _, terminated, truncated, info = env.step("help")
        assert truncated and info["is_success"] is info["success"] is False
    finally:
        env.close()
    env = agentgym.make(env_id, backend=local_or_docker(env_id), budget=40)
    try:
        env.reset(seed=0)
        terminated = truncated = False
        while not (terminated or truncated):
            _, _, terminated, truncated, info = env.step(env.unwrapped.reference_action())
        assert terminated and info["is_success"] is info["success"] is True
    finally:
        env.close()


def rollout(env_id: str, backend: str, seed: int, steps: int = 12) -> list:
    """Oracle and seeded menu actions mixed, with state drift at turn 3 and corrupted output at turn 6."""
    import numpy as np

    env = gym.make(env_id, backend=backend)
    try:
        rng = np.random.default_rng(5)
        obs, info = env.reset(seed=seed)
        trajectory = [obs, info]
        for turn in range(1, steps + 1):
            if turn in (3, 6):
                env.unwrapped.inject_fault("state_drift" if turn == 3 else "corrupted_output")
            menu = [a for a in info["admissible_actions"] if a.split()[0] != "submit"] or info["admissible_actions"]
            if not menu:
                break
            action = env.unwrapped.reference_action() if turn % 3 else menu[int(rng.integers(len(menu)))]
            obs, reward, terminated, truncated, info = env.step(action)
            trajectory.append((action, obs, reward, terminated, truncated, info))
            if terminated or truncated:
                break
        return trajectory
    finally:
        env.close()


@pytest.mark.parametrize(("env_id", "backend"), BACKEND_PAIRS)
def test_same_seed_same_trajectory(env_id, backend):
    backend = use_backend(env_id, backend)
    with no_unexpected_warnings():
        first, second = rollout(env_id, backend, seed=42), rollout(env_id, backend, seed=42)
    assert first == second
    assert len(first) > 2


@pytest.mark.parametrize(("env_id", "backend"), BACKEND_PAIRS)
def test_oracle_solves_test_tasks(env_id, backend):
    """The reference policy solves test-split tasks when the budget allows (a few seeds per backend)."""
    backend = use_backend(env_id, backend)
    with no_unexpected_warnings():
        env = gym.make(env_id, backend=backend, split="test")
        try:
            for seed in range(3):
                obs, info = env.reset(seed=seed)
                reward, terminated = 0.0, False
                for _ in range(4 * info["min_turns"] + 10):
                    obs, reward, terminated, truncated, info = env.step(env.unwrapped.reference_action())
                    if terminated or truncated:
                        break
                assert terminated and reward == 1.0 and info["success"] is True, (env_id, seed, info["task_id"])
        finally:
            env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_spec_pickle_round_trip_and_module_prefixed_id(env_id):
    with no_unexpected_warnings():
        env = gym.make(env_id, backend=local_or_docker(env_id))
        try:
            spec = pickle.loads(pickle.dumps(env.spec))
            assert spec.id == env_id and spec == env.spec
            again = gym.make(spec)
            try:
                assert type(again.unwrapped) is type(env.unwrapped) and again.spec == env.spec
            finally:
                again.close()
        finally:
            env.close()
        prefixed = gym.make(f"agentgym:{env_id}", backend=local_or_docker(env_id))
        try:
            obs, info = prefixed.reset(seed=0)
            assert isinstance(obs["text"], str) and info["task_id"]
        finally:
            prefixed.close()


@pytest.mark.parametrize("env_id", IDS)
def test_benchmark_script_measures_every_id(env_id):
    """benchmarks/envs.py is generic over ids: one short run each (figures are not asserted, only their shape)."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "envs.py"
    spec = importlib.util.spec_from_file_location("agentgym_bench_envs", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    with no_unexpected_warnings():
        result = bench.bench(env_id, backend=local_or_docker(env_id), episodes=2, steps_per_episode=2,
                             tests_per_episode=1)
    assert result["env"] == env_id and result["backend"] == local_or_docker(env_id)
    assert result["reset_ms"]["n"] == 2 and result["step_ms"]["p50"] is not None
    assert result["oracle"]["success_rate"] == 1.0 and result["oracle"]["episodes_per_s"] > 0
    if result["verification_action"] is not None:
        assert result["test_run_ms"]["n"] == 2


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("kind", agentgym.FAULT_KINDS)
def test_oracle_recovers_from_every_fault_kind(env_id, kind):
    """Each fault kind fires on the first action and the oracle still succeeds (faults reach every family)."""
    from agentgym.agents import OracleAgent
    from agentgym.testing import assert_recovers

    with no_unexpected_warnings():
        episodes = assert_recovers(env_id, OracleAgent(), fault=f"{kind}@turn=1", budget=40, seeds=(0,),
                                   backend=local_or_docker(env_id), split="test")
    assert episodes[0].faults == [kind] and all(events.check(e) for e in episodes[0].events)


@pytest.mark.parametrize("env_id", IDS)
def test_sb3_accepts_the_numeric_view(env_id):
    """Stable-Baselines3's own checker on the Discrete/Box view every family gets from `numeric=True`."""
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = agentgym.make(env_id, backend=local_or_docker(env_id), budget=6, numeric=True)
    try:
        with no_unexpected_warnings():
            sb3_check_env(env, warn=True)
    finally:
        env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_reset_close_cycles_leave_no_sandbox_behind(env_id):
    """Build, play, close three times: each close removes its sandbox folder and server."""
    import os
    import tempfile

    from agentgym.sandbox.watchdog import LOCAL_PREFIX

    backend = local_or_docker(env_id)

    def ours() -> set[str]:
        if backend == "docker":  # this process's containers (a --rm container is gone once stopped)
            from agentgym.sandbox.docker import list_managed

            return {c.id for c in list_managed() if c.labels.get("io.agentgym.owner_pid") == str(os.getpid())}
        return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith(f"{LOCAL_PREFIX}{os.getpid()}-")}

    before = ours()
    for cycle in range(3):
        env = gym.make(env_id, backend=backend)
        obs, info = env.reset(seed=cycle)
        env.step(info["admissible_actions"][0] if info["admissible_actions"] else "help")
        env.reset(seed=cycle + 10)
        assert len(ours() - before) == 1
        env.close()
        env.close()  # idempotent
        assert not ours() - before, f"cycle {cycle} left {sorted(ours() - before)}"


@pytest.mark.parametrize("env_id", IDS)
def test_eval_harness_runs_every_id(env_id, tmp_path):
    """The Pass@(K,T) harness on two test tasks with the oracle: a third family is evaluated by registering it."""
    from agentgym.eval import evaluate

    with no_unexpected_warnings():
        result = evaluate(env_id, "oracle", ks=[1], ts=[40], n=1, tasks=2, out=tmp_path,
                          sandbox=local_or_docker(env_id), progress=False, report=False)
    assert result.ran == 2 and len(result.records) == 2, result
    assert all(r["success"] for r in result.records), result.records
    assert result.grid(env_id) == {40: {1: 1.0}}


@pytest.mark.parametrize("env_id", IDS)
def test_random_menu_policy_is_measured_and_far_below_the_oracle(env_id):
    """The menu is not a giveaway: uniform picks over it rarely solve a task (the oracle solves all)."""
    import numpy as np

    env = gym.make(env_id, backend=local_or_docker(env_id), split="test")
    try:
        ids = env.unwrapped.tasks.ids("test")
        ids = ids[:: max(1, len(ids) // 24)][:24]
        rng, wins = np.random.default_rng(0), 0
        for task_id in ids:
            obs, info = env.reset(seed=0, options={"task_id": task_id})
            for _ in range(20):
                menu = info["admissible_actions"]
                obs, reward, terminated, _, info = env.step(menu[int(rng.integers(len(menu)))])
                if terminated:
                    wins += reward == 1.0
                    break
    finally:
        env.close()
    print(f"{env_id}: random menu policy on {len(ids)} test tasks, T=20: success {wins / len(ids):.3f}")
    assert wins / len(ids) < 0.25


@pytest.mark.parametrize("env_id", IDS)
def test_task_filters_are_shared_and_checked(env_id):
    """Every family takes ``tiers=`` (and its group filter) through the base class; others are refused."""
    from agentgym.errors import ConfigError

    full = gym.make(env_id, backend=local_or_docker(env_id)).unwrapped.tasks
    tier = full.all_tiers[-1]
    env = gym.make(env_id, backend=local_or_docker(env_id), split="test", tiers=tier)
    assert list(env.unwrapped.tasks.ids("test")) == list(full.ids("test", tier))
    with pytest.raises(ConfigError, match="tier"):
        gym.make(env_id, backend=local_or_docker(env_id), tiers=["no_such_tier"])
    with pytest.raises(ConfigError, match="takes no colours"):
        gym.make(env_id, backend=local_or_docker(env_id), colours=["red"])
    if full.group_filter:
        group = full.all_groups[0]
        narrowed = gym.make(env_id, backend=local_or_docker(env_id), **{full.group_filter: [group]}).unwrapped.tasks
        assert 0 < len(narrowed.ids("test")) < len(full.ids("test"))
