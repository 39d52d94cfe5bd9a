"""Registry-driven checks for every registered agentgym id (MiniGrid/PettingZoo style).

The checks themselves are public (`agentgym.testing.contract`), so a user's family and
``examples/minimal_family.py`` run the same ones; this file only parametrizes them over the ids
and backends (and keeps the check of the repository's benchmark script).

For each id in `agentgym.ENV_IDS`: Gymnasium's `check_env` on both backends (rendering
included), a determinism rollout (two envs, same seed, oracle and seeded menu actions with state
drift and corrupted output injected, everything compared), the oracle on test-split tasks and
its recovery from every fault kind (with every event checked against the contract), SB3's
checker on the numeric view, reset/close cycles that leave no sandbox behind, the eval harness,
a pickle and spec round trip, and the ``"agentgym:<id>"`` form of `gym.make`. A new family is
covered by registering it. Unexpected warnings fail the test.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

import pytest

import agentgym
from agentgym.testing import contract
from agentgym.testing.contract import no_unexpected_warnings
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


def use_backend(env_id: str, backend: str) -> str:
    if backend == "docker":
        require_docker(family_image(env_id))
    return backend


PER_BACKEND = ("gymnasium", "determinism", "oracle_solves")
"""Checks run on both backends; the others run once, on the local backend (Docker for a Docker-only family)."""


@pytest.mark.parametrize(("env_id", "backend"), BACKEND_PAIRS)
@pytest.mark.parametrize("check", PER_BACKEND)
def test_contract_on_every_backend(check, env_id, backend):
    contract.CHECKS[check](env_id, use_backend(env_id, backend))


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("check", [c for c in contract.CHECKS if c not in PER_BACKEND])
def test_contract(check, env_id):
    contract.CHECKS[check](env_id, local_or_docker(env_id))


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("kind", agentgym.FAULT_KINDS)
def test_oracle_recovers_from_every_fault_kind(env_id, kind):
    """Each fault kind fires on the first action and the oracle still succeeds (faults reach every family)."""
    contract.FAULT_CHECK(env_id, local_or_docker(env_id), kind)


@pytest.mark.parametrize("env_id", IDS)
def test_benchmark_script_measures_every_id(env_id):
    """benchmarks/envs.py is generic over ids: one short run each (figures are not asserted, only their shape)."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "envs.py"
    spec = importlib.util.spec_from_file_location("agentgym_bench_envs", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    with no_unexpected_warnings():
        result = bench.bench(
            env_id, backend=local_or_docker(env_id), episodes=2, steps_per_episode=2, tests_per_episode=1
        )
    assert result["env"] == env_id and result["backend"] == local_or_docker(env_id)
    assert result["reset_ms"]["n"] == 2 and result["step_ms"]["p50"] is not None
    assert result["oracle"]["success_rate"] == 1.0 and result["oracle"]["episodes_per_s"] > 0
    if result["verification_action"] is not None:
        assert result["test_run_ms"]["n"] == 2
