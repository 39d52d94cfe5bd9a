"""A non-editable ``pip install .`` (a wheel with its package data) into a clean virtual
environment runs an episode on every registered id, from outside the source tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EPISODES = r"""
import importlib, json, sys, gymnasium as gym, agentgym
from agentgym.agents import OracleAgent
assert "site-packages" in agentgym.__file__, agentgym.__file__
import importlib.metadata as md  # installed as agentgym-budget (the index's "agentgym" is another project)
assert md.version("agentgym-budget") == agentgym.__version__, md.version("agentgym-budget")
import os, agentgym.envs, agentgym.wrappers  # the source tree's symlinks become real folders in the wheel
for pkg in (agentgym.envs, agentgym.wrappers):
    assert not os.path.islink(os.path.dirname(pkg.__file__)), pkg.__file__
out = {}
skip = set(sys.argv[2].split(",")) - {""}
for env_id in agentgym.ENV_IDS:
    if env_id in skip:
        continue
    module, _, name = agentgym.ENV_IDS[env_id].partition(":")
    family = getattr(importlib.import_module(module), name)
    backend = sys.argv[1] if sys.argv[1] in getattr(family, "backends", (sys.argv[1],)) else "docker"
    env = agentgym.make(env_id, budget=20, backend=backend, split="test")
    agent = OracleAgent()
    obs, info = env.reset(seed=0)
    agent.reset(env, obs, info)
    while True:
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            break
    out[env_id] = {"success": info["success"], "turns": info["turn"]}
    env.close()
print(json.dumps(out))
"""


@pytest.mark.slow
def test_wheel_install_runs_an_episode_on_each_id(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    pip = subprocess.run(
        [python, "-m", "pip", "install", "-q", ROOT], capture_output=True, text=True, timeout=900, cwd=tmp_path
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    # local: needs pytest from the plain install (Coding-v0's tests run with it on the host); a
    # Docker-only family (MiniWoB-v0) runs on Docker, and without it is left out (a failure in CI)
    import importlib

    import agentgym
    from support.docker import IN_CI, docker_ready

    skipped = []
    for env_id, entry in agentgym.ENV_IDS.items():
        module, _, name = entry.partition(":")
        family = getattr(importlib.import_module(module), name)
        if "local" not in getattr(family, "backends", ("local",)) and (why := docker_ready(family.image)):
            if IN_CI:
                pytest.fail(f"CI=true requires the Docker backend for {env_id}: {why}")
            skipped.append(env_id)
    run = subprocess.run(
        [python, "-c", EPISODES, "local", ",".join(skipped)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(run.stdout.strip().splitlines()[-1])

    assert set(results) == set(agentgym.ENV_IDS) - set(skipped)  # every registered family, from package data alone
    assert all(r["success"] for r in results.values()), results
