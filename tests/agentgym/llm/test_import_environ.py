"""Importing agentgym leaves the process's environment as it found it: a user's own code keeps loading
models from a hub (agentgym's offline loading is per call, `agentgym.agents.models.OFFLINE`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

MODULES = [
    "agentgym",
    "agentgym.eval",
    "agentgym.agents",
    "agentgym.agents.hf",
    "agentgym.agents.models",
    "agentgym.llm",
    "agentgym.integrations.trl",
    "agentgym.integrations.skyrl",
    "agentgym.serve",
]


def test_importing_agentgym_changes_no_environment_variable():
    code = (
        "import importlib, json, os, sys\n"
        "before = dict(os.environ)\n"
        f"for name in {MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "after = dict(os.environ)\n"
        "print(json.dumps({k: [before.get(k), after.get(k)] for k in set(before) | set(after) "
        "if before.get(k) != after.get(k)}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_"))}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {}
