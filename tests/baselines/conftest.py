"""tests/baselines: one torch thread (OpenMP threads spin on a busy shared CPU), budget_env importable,
and Coding-v0's disk result cache in a folder of this session (trainer subprocesses inherit it), not the user's."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(__file__))
torch.set_num_threads(1)
os.environ["AGENTGYM_CACHE_DIR"] = tempfile.mkdtemp(prefix="agentgym-test-cache-")
atexit.register(shutil.rmtree, os.environ["AGENTGYM_CACHE_DIR"], ignore_errors=True)
