"""The registry contract as a public checker: run on any registered id what agentgym's own ids pass.

The package's suite (``tests/envs/test_registry.py``) parametrizes these checks over every
``agentgym/*`` id; a family of your own (``examples/minimal_family.py``, or one you register with
``gym.register``) runs the very same checks, MiniGrid/PettingZoo style::

    import gymnasium as gym
    from agentgym.testing.contract import check_contract

    gym.register("me/MyFamily-v0", entry_point=MyFamilyEnv)
    check_contract("me/MyFamily-v0", backend="local")   # raises AssertionError on the first break

Each check takes ``(env_id, backend)``, builds its envs through ``gym.make``/`agentgym.make` and
closes them, and fails on unexpected warnings. `CHECKS` names them; `FAULT_CHECK` runs once per
fault kind. `check_contract` leaves Stable-Baselines3's checker out (with a warning) where
``stable_baselines3`` is not installed.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, SupportsFloat, cast

import gymnasium as gym
from gymnasium.utils.env_checker import check_env as gym_check_env

import agentgym
from agentgym import events
from agentgym.agents import OracleAgent
from agentgym.core import FAULT_KINDS, AgentEnv
from agentgym.errors import ConfigError
from agentgym.eval import evaluate
from agentgym.sandbox.docker import list_managed
from agentgym.sandbox.watchdog import LOCAL_PREFIX
from agentgym.testing import assert_recovers

__all__ = ["CHECKS", "FAULT_CHECK", "check_contract", "no_unexpected_warnings", "rollout"] + [
    "check_gymnasium",
    "check_reset_help",
    "check_is_success",
    "check_determinism",
    "check_oracle_solves",
    "check_spec_round_trip",
    "check_fault_recovery",
    "check_sb3_numeric_view",
    "check_no_sandbox_left",
    "check_eval_harness",
    "check_random_menu_below_oracle",
    "check_task_filters",
]


def _agent_env(env: gym.Env) -> AgentEnv:
    """The agentgym env under the wrappers (every env these checks build is one)."""
    return cast(AgentEnv, env.unwrapped)


@contextmanager
def no_unexpected_warnings() -> Iterator[None]:
    """Every warning is an error, except the local backend's one notice that it is no isolation."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message="agentgym local sandbox backend")  # said once, on purpose
        yield


def check_gymnasium(env_id: str, backend: str) -> None:
    """Gymnasium's full check_env, rendering included (render_mode="ansi" returns the last observation)."""
    with no_unexpected_warnings():
        env = gym.make(env_id, backend=backend, render_mode="ansi")
        try:
            gym_check_env(env.unwrapped)
            env.reset(seed=0)
            assert env.render() == _agent_env(env)._last_text and env.render()
        finally:
            env.close()


def check_reset_help(env_id: str, backend: str) -> None:
    """The grammar is in the first observation and in info["help"]; call-style families list their tools."""
    env = gym.make(env_id, backend=backend)
    try:
        obs, info = env.reset(seed=0)
        assert info["help"] and info["help"].splitlines()[0] in _agent_env(env).help_text()
        assert isinstance(info["tools"], list) and info["turn"] == 0
        for schema in info["tools"]:
            assert schema["type"] == "function" and schema["function"]["name"]
            assert schema["function"]["name"] in obs["text"]
        if not info["tools"]:
            assert info["help"].strip().splitlines()[-1] in obs["text"]
    finally:
        env.close()
    bare = gym.make(env_id, backend=backend, help_in_observation=False)
    try:
        assert len(bare.reset(seed=0)[0]["text"]) < len(obs["text"])
    finally:
        bare.close()


def check_is_success(env_id: str, backend: str) -> None:
    """SB3's Monitor and EvalCallback read info["is_success"]: set wherever success is decided."""

    env = agentgym.make(env_id, backend=backend, budget=1)
    try:
        env.reset(seed=0)
        _, _, terminated, truncated, info = env.step("help")
        assert truncated and info["is_success"] is info["success"] is False
    finally:
        env.close()
    env = agentgym.make(env_id, backend=backend, budget=40)
    try:
        env.reset(seed=0)
        terminated = truncated = False
        while not (terminated or truncated):
            _, _, terminated, truncated, info = env.step(_agent_env(env).reference_action())
        assert terminated and info["is_success"] is info["success"] is True
    finally:
        env.close()


def rollout(env_id: str, backend: str, seed: int, steps: int = 12) -> list[Any]:
    """Oracle and seeded menu actions mixed, with state drift at turn 3 and corrupted output at turn 6."""
    import numpy as np

    env = gym.make(env_id, backend=backend)
    try:
        rng = np.random.default_rng(5)
        obs, info = env.reset(seed=seed)
        trajectory: list[Any] = [obs, info]
        for turn in range(1, steps + 1):
            if turn in (3, 6):
                _agent_env(env).inject_fault("state_drift" if turn == 3 else "corrupted_output")
            menu = [a for a in info["admissible_actions"] if a.split()[0] != "submit"] or info["admissible_actions"]
            if not menu:
                break
            action = _agent_env(env).reference_action() if turn % 3 else menu[int(rng.integers(len(menu)))]
            obs, reward, terminated, truncated, info = env.step(action)
            trajectory.append((action, obs, reward, terminated, truncated, info))
            if terminated or truncated:
                break
        return trajectory
    finally:
        env.close()


def check_determinism(env_id: str, backend: str) -> None:
    """Same seed, same trajectory, faults and drift included."""
    with no_unexpected_warnings():
        first, second = rollout(env_id, backend, seed=42), rollout(env_id, backend, seed=42)
    assert first == second
    assert len(first) > 2


def check_oracle_solves(env_id: str, backend: str) -> None:
    """The reference policy solves test-split tasks when the budget allows (three seeds)."""
    with no_unexpected_warnings():
        env = gym.make(env_id, backend=backend, split="test")
        try:
            for seed in range(3):
                obs, info = env.reset(seed=seed)
                reward: SupportsFloat = 0.0
                terminated = False
                for _ in range(4 * info["min_turns"] + 10):
                    obs, reward, terminated, truncated, info = env.step(_agent_env(env).reference_action())
                    if terminated or truncated:
                        break
                assert terminated and reward == 1.0 and info["success"] is True, (env_id, seed, info["task_id"])
        finally:
            env.close()


def check_spec_round_trip(env_id: str, backend: str) -> None:
    """``env.spec`` pickles and rebuilds the env; an ``agentgym/*`` id also works as ``"agentgym:<id>"``."""
    with no_unexpected_warnings():
        env = gym.make(env_id, backend=backend)
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
        if not env_id.startswith("agentgym/"):
            return
        prefixed = gym.make(f"agentgym:{env_id}", backend=backend)
        try:
            obs, info = prefixed.reset(seed=0)
            assert isinstance(obs["text"], str) and info["task_id"]
        finally:
            prefixed.close()


def check_fault_recovery(env_id: str, backend: str, kind: str) -> None:
    """A fault of ``kind`` fires on the first action and the oracle still succeeds; every event is valid.
    A kind the family does not apply (`AgentEnv.fault_kinds`) must be refused, by name, when asked for."""

    env = gym.make(env_id, backend=backend, disable_env_checker=True)  # no sandbox until reset
    try:
        family = cast(type[AgentEnv], type(env.unwrapped))  # any registered family: an agentgym id or a user's own
    finally:
        env.close()
    if kind not in family.fault_kinds:
        try:
            agentgym.make(env_id, backend=backend, faults=f"{kind}@turn=1").close()
        except ConfigError as exc:
            assert repr(kind) in str(exc), exc
            return
        raise AssertionError(f"{env_id} does not apply {kind!r} ({family.fault_kinds}) but accepted it")
    with no_unexpected_warnings():
        episodes = assert_recovers(
            env_id, OracleAgent(), fault=f"{kind}@turn=1", budget=40, seeds=(0,), backend=backend, split="test"
        )
    assert episodes[0].faults == [kind] and all(events.check(e) for e in episodes[0].events)


def check_sb3_numeric_view(env_id: str, backend: str) -> None:
    """Stable-Baselines3's own checker on the Discrete/Box view every family gets from ``numeric=True``
    (needs ``stable_baselines3``; `check_contract` leaves it out, with a warning, where it is missing)."""
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = agentgym.make(env_id, backend=backend, budget=6, numeric=True)
    try:
        with no_unexpected_warnings():
            sb3_check_env(env, warn=True)
    finally:
        env.close()


def check_no_sandbox_left(env_id: str, backend: str) -> None:
    """Build, play, close three times: each close removes its sandbox folder or container and server."""

    def ours() -> set[str]:
        if backend == "docker":  # this process's containers (a --rm container is gone once stopped)
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


def check_eval_harness(env_id: str, backend: str) -> None:
    """The Pass@(K,T) harness on two test tasks with the oracle: a family is evaluated by registering it."""

    with tempfile.TemporaryDirectory() as out, no_unexpected_warnings():
        result = evaluate(
            env_id, "oracle", ks=[1], ts=[40], n=1, tasks=2, out=out, sandbox=backend, progress=False, report=False
        )
    assert result.ran == 2 and len(result.records) == 2, result
    assert all(r["success"] for r in result.records), result.records
    assert result.grid(env_id) == {40: {1: 1.0}}


def check_random_menu_below_oracle(env_id: str, backend: str) -> None:
    """The menu is not a giveaway: uniform picks over it rarely solve a task (the oracle solves all)."""
    import numpy as np

    env = gym.make(env_id, backend=backend, split="test")
    try:
        ids = _agent_env(env).tasks.ids("test")
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
    assert wins / len(ids) < 0.25, f"{env_id}: random menu policy solved {wins} of {len(ids)} test tasks at T=20"


def _refused(make: Callable[[], Any], match: str) -> None:
    try:
        make()
    except ConfigError as exc:
        assert match in str(exc), exc
    else:
        raise AssertionError(f"expected a ConfigError saying {match!r}")


def check_task_filters(env_id: str, backend: str) -> None:
    """Every family takes ``tiers=`` (and its group filter) through the base class; others are refused."""
    full = _agent_env(gym.make(env_id, backend=backend)).tasks
    tier = full.all_tiers[-1]
    env = gym.make(env_id, backend=backend, split="test", tiers=tier)
    assert list(_agent_env(env).tasks.ids("test")) == list(full.ids("test", tier))
    _refused(lambda: gym.make(env_id, backend=backend, tiers=["no_such_tier"]), "tier")
    _refused(lambda: gym.make(env_id, backend=backend, colours=["red"]), "takes no colours")
    if full.group_filter:
        group = full.all_groups[0]
        narrowing: dict[str, Any] = {full.group_filter: [group]}
        narrowed = _agent_env(gym.make(env_id, backend=backend, **narrowing)).tasks
        assert 0 < len(narrowed.ids("test")) < len(full.ids("test"))


CHECKS: dict[str, Callable[[str, str], None]] = {
    "gymnasium": check_gymnasium,
    "reset_help": check_reset_help,
    "is_success": check_is_success,
    "determinism": check_determinism,
    "oracle_solves": check_oracle_solves,
    "spec_round_trip": check_spec_round_trip,
    "sb3_numeric_view": check_sb3_numeric_view,
    "no_sandbox_left": check_no_sandbox_left,
    "eval_harness": check_eval_harness,
    "random_menu_below_oracle": check_random_menu_below_oracle,
    "task_filters": check_task_filters,
}
"""Every check that takes ``(env_id, backend)``, by name."""
FAULT_CHECK = check_fault_recovery
"""The check run once per fault kind: ``FAULT_CHECK(env_id, backend, kind)``."""


def check_contract(
    env_id: str,
    backend: str = "local",
    *,
    checks: Iterable[str] | None = None,
    fault_kinds: Iterable[str] | None = None,
) -> None:
    """Run the registry contract on ``env_id`` (every check, or the named ``checks``) and every fault
    kind (or ``fault_kinds``); raises `AssertionError` naming the first check that fails."""

    if checks is None:
        checks = list(CHECKS)
        if importlib.util.find_spec("stable_baselines3") is None:
            warnings.warn(
                "stable_baselines3 is not installed: the contract check 'sb3_numeric_view' is left out", stacklevel=2
            )
            checks.remove("sb3_numeric_view")
    for name in checks:
        try:
            CHECKS[name](env_id, backend)
        except AssertionError as exc:
            raise AssertionError(f"{env_id} ({backend}) fails the contract check {name!r}: {exc}") from exc
    for kind in FAULT_KINDS if fault_kinds is None else fault_kinds:
        try:
            FAULT_CHECK(env_id, backend, kind)
        except AssertionError as exc:
            raise AssertionError(f"{env_id} ({backend}) fails the fault check {kind!r}: {exc}") from exc
