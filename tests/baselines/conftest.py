"""tests/baselines: one torch thread (OpenMP threads spin on a busy shared CPU), and budget_env importable."""

from __future__ import annotations

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
torch.set_num_threads(1)
