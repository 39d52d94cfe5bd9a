"""Registers the harness's test envs (see eval_envs.py) for every test in this folder."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from eval_envs import register_test_envs  # noqa: E402

register_test_envs()
