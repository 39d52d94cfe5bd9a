"""verifiers 0.4's OpenEnv task set drives a loopback ``agentgym serve``, one reset (with its own
budget) per task: ``vf-eval`` in a venv of its own (verifiers pins ``mcp==2.0.0``), the oracle as
the chat model (`verifiers_rollout`). The venv is installed from a resolved list of packages
(``verifiers-lock.txt``: about 2 min on the shared 2-core machine; pip's own resolution took 15-20)
and kept for the next run (`verifiers_venv`; ``scripts/test.sh`` builds it during its set-up, so
the test finds it ready); the rollouts take about 1 min, so the test is slow."""

from __future__ import annotations

import secrets
import sys

import pytest
from verifiers_rollout import run_vf_eval
from verifiers_venv import build_venv

from agentgym.serve.app import ServeConfig
from agentgym.serve.server import ServerThread
from agentgym.serve.sessions import ClientBounds


@pytest.mark.slow
def test_vf_eval_plays_oracle_episodes_with_per_task_budgets(tmp_path):
    vpython = build_venv(sys.executable)
    token = secrets.token_urlsafe(32)
    config = ServeConfig(client=ClientBounds(budget=(2, 32)))  # agentgym serve ... --client-budget 2-32
    # the same task twice: with T=16 the oracle solves it; with T=3 the server ends the episode after 3 steps
    resets = [{"seed": 2, "options": {"budget": 16}}, {"seed": 2, "options": {"budget": 3}}]
    with ServerThread(["agentgym/ToolUse-v0"], {"backend": "local"}, token=token, config=config) as srv:
        proc, traces, chat = run_vf_eval(vpython, srv, token, resets, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr[-3000:]
    by_budget = {t["task"]["data"]["reset"]["options"]["budget"]: t["traces"][0] for t in traces}
    assert sorted(by_budget) == [3, 16]
    solved, cut = by_budget[16], by_budget[3]
    assert not solved["errors"] and not cut["errors"]
    assert solved["rewards"]["openenv_reward"]["score"] == 1.0  # the oracle solved it through verifiers' loop
    assert len(solved["calls"]) > 3
    assert cut["rewards"]["openenv_reward"]["score"] == 0.0 and len(cut["calls"]) == 3  # T=3 honoured
    assert len(chat.actions) == len(solved["calls"]) + 3


@pytest.mark.slow
@pytest.mark.docker
def test_vf_eval_records_a_killed_sandbox_as_the_rollouts_error(tmp_path):
    """The first task's sandbox container is killed before the model's second action: verifiers
    records the server's infrastructure error on that rollout (its ``errors``, ``ok`` false; never an
    ``openenv_reward`` of 0 as if the policy had failed), the server closes that session at once,
    and the second task, on a fresh sandbox, is solved as usual."""
    from support.docker import kill_sandbox_container, require_docker

    require_docker("agentgym/tooluse:latest")
    vpython = build_venv(sys.executable)
    token = secrets.token_urlsafe(32)
    config = ServeConfig(client=ClientBounds(budget=(2, 32)), idle_timeout=600.0)
    resets = [{"seed": 2, "options": {"budget": 16}}, {"seed": 3, "options": {"budget": 16}}]
    killed: list[str] = []

    def kill_second(session, n: int) -> None:
        if n == 1:
            killed.append(kill_sandbox_container(session.env.unwrapped.sandbox))

    with ServerThread(["agentgym/ToolUse-v0"], {"backend": "docker"}, token=token, config=config) as srv:
        proc, traces, _chat = run_vf_eval(vpython, srv, token, resets, tmp_path / "out", before_reply=kill_second)
        assert not srv.table.find(lambda s: not s.closed)  # the dead one closed at its error, the other at the end
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(killed) == 1
    by_seed = {t["task"]["data"]["reset"]["seed"]: t for t in traces}
    assert sorted(by_seed) == [2, 3]
    dead, alive = by_seed[2], by_seed[3]
    errors = [e for source in (dead, *dead["traces"]) for e in source.get("errors") or []]
    assert errors and any("infrastructure failure, not the agent's" in e["message"] for e in errors), dead
    assert dead["traces"] and dead["ok"] is False and all(t["ok"] is False for t in dead["traces"])
    assert all("openenv_reward" not in (t.get("rewards") or {}) for t in dead["traces"])
    assert not alive["traces"][0]["errors"] and alive["traces"][0]["rewards"]["openenv_reward"]["score"] == 1.0
