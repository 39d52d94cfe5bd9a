"""What produced an experiment folder, so that parts of one experiment can be checked before they are
pooled or compared: the code version, the settings, and the task lists.

`run_experiment` writes ``OUT/provenance.json`` (`record`); `baselines.experiment.pool` refuses parts whose
record differs (`differences`) and `baselines.experiment.compare` refuses folders of different code or task
lists and names the settings that differ (the knob being compared).

- ``code``: a digest of every file of the packages that ran (``agentgym``, its envs and wrappers,
  ``baselines``; corpus and task data included) and ``git describe`` for a name a reader knows.
  Two runs of the same commit with different uncommitted edits differ here, as they should.
- ``settings``: every `baselines.config.Args` field but those that only say where or how fast
  it ran (`EXECUTION_ONLY`: seeds, output folder, device, threads, workers, progress...).
- ``tasks``: digests of the evaluation lists (``eval_tasks.json``) and of the training split's ids.
- ``machine`` (`machine`): the CPU model, torch's version, BLAS and LAPACK, CPU kernels and thread
  settings (``torch.__config__``), numpy's version and BLAS. Recorded, never compared: a rerun on
  the same machine and commit is bit-identical (``tests/baselines/test_reproducible.py``), one on
  another CPU gives the same conclusions but not the same bits (its floating-point kernels change
  training), and this says which machine made which bits.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform
import re
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import agentgym
import agentgym.envs
import agentgym.wrappers
import baselines
from agentgym.errors import ConfigError
from baselines.config import Args

__all__ = [
    "EXECUTION_ONLY",
    "FILE",
    "record",
    "read",
    "differences",
    "settings",
    "source_digest",
    "code_version",
    "machine",
]

FILE = "provenance.json"

EXECUTION_ONLY = frozenset(
    {
        "seed",
        "seeds",
        "out",
        "exp_name",
        "device",
        "torch_threads",
        "backend",
        "track",
        "progress",
        "resume",
        "workers",
        "executor",
        "ray_address",
        "result_cache",
        "harness_reports",
        "preset",
        "warm_cache",
        "warm_cache_tasks",
    }
)
"""Fields that do not change what a run computes (a hit of the result cache gives what a run gives; the
Docker and local backends give the same outcomes; the preset's values are recorded field by field).
``device`` is here too: CPU and GPU differ only in floating-point rounding, and parts of one
experiment are often run on both."""


def _package_roots() -> list[tuple[str, Path]]:
    return [
        (name, _folder(mod))
        for name, mod in (
            ("agentgym", agentgym),
            ("envs", agentgym.envs),
            ("wrappers", agentgym.wrappers),
            ("baselines", baselines),
        )
    ]


def _folder(package: ModuleType) -> Path:
    assert package.__file__ is not None  # a regular package (its __init__.py), not a namespace one
    return Path(package.__file__).resolve().parent


def source_digest() -> str:
    """The hash of every file (sources and data, not bytecode) of the packages that run an experiment."""
    h = hashlib.blake2b(digest_size=16)
    seen: set[Path] = set()
    for name, root in _package_roots():
        for path in sorted(root.rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".pyc", ".pyo") or path in seen:
                continue
            seen.add(path)
            data = path.read_bytes()
            h.update(f"{name}/{path.relative_to(root)}".encode() + b"\x00" + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def code_version() -> dict[str, Any]:
    """``sources``: `source_digest`; ``git``: ``git describe --always --dirty`` of the checkout (None outside one)."""
    root = _package_roots()[-1][1].parent
    try:
        git = (
            subprocess.run(
                ["git", "describe", "--always", "--dirty", "--tags"],
                cwd=root,
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
            or None
        )
    except (OSError, subprocess.TimeoutExpired):
        git = None
    return {"sources": source_digest(), "git": git}


def _digest(value: Any) -> str:
    return hashlib.blake2b(json.dumps(value, sort_keys=True).encode(), digest_size=16).hexdigest()


def settings(args: Args) -> dict[str, Any]:
    """The fields of ``args`` that decide what a run computes."""
    return {k: v for k, v in dataclasses.asdict(args).items() if k not in EXECUTION_ONLY}


def record(args: Args, task_lists: dict[str, list[str]], train_ids: list[str]) -> dict[str, Any]:
    """The provenance of a run of ``args`` that evaluated ``task_lists`` and trained on ``train_ids``."""
    return {
        "code": code_version(),
        "settings": settings(args),
        "tasks": {
            **{f"eval/{name}": _digest(ids) for name, ids in sorted(task_lists.items())},
            "train": _digest(sorted(train_ids)),
        },
        "machine": machine(),
    }


THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def machine() -> dict[str, Any]:
    """What decides the bits of a run beyond code and settings: ``cpu`` (model), ``cpus``, ``arch``,
    ``platform``, ``python``; ``torch``: ``version``, ``cpu_capability`` (the kernels it dispatches
    to: AVX2, AVX512...), ``blas`` and ``lapack`` (its build's BLAS_INFO and LAPACK_INFO),
    ``threads``, ``interop_threads``, ``parallel_backend``, ``cuda``, and the full ``config`` and
    ``parallel_info`` texts; ``numpy``: ``version``, ``blas``, ``lapack``; ``threads_env``: the
    thread-count variables as set (None when unset)."""
    import numpy as np
    import torch  # here, not at the top: pool and compare read records without torch's import time

    config, parallel = torch.__config__.show(), torch.__config__.parallel_info()

    def setting(text: str, pattern: str) -> str | None:
        found = re.search(pattern, text)
        return found.group(1).strip() if found else None

    return {
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "arch": platform.machine(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": {
            "version": torch.__version__,
            "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "blas": setting(config, r"BLAS_INFO=([^,\n]+)"),
            "lapack": setting(config, r"LAPACK_INFO=([^,\n]+)"),
            "threads": torch.get_num_threads(),
            "interop_threads": torch.get_num_interop_threads(),
            "parallel_backend": setting(parallel, r"ATen parallel backend: ([^\n]+)"),
            "cuda": torch.version.cuda,
            "config": config,
            "parallel_info": parallel,
        },
        "numpy": {"version": np.__version__, **_numpy_blas(np)},
        "threads_env": {name: os.environ.get(name) for name in THREAD_VARIABLES},
    }


def _cpu_model() -> str:
    """The CPU's model name (Linux's /proc/cpuinfo; elsewhere what `platform` knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _numpy_blas(np: Any) -> dict[str, str | None]:
    """numpy's BLAS and LAPACK as ``name version`` (numpy >= 1.25 reports them; None before)."""
    try:
        deps = np.show_config(mode="dicts")["Build Dependencies"]
    except (TypeError, KeyError):
        return {"blas": None, "lapack": None}
    return {
        part: " ".join(str(deps.get(part, {}).get(k, "")) for k in ("name", "version")).strip() or None
        for part in ("blas", "lapack")
    }


def read(folder: str | Path) -> dict[str, Any]:
    """A folder's record; a ConfigError for a folder written before records were kept."""
    path = Path(folder) / FILE
    if not path.is_file():
        raise ConfigError(
            f"{folder} has no {FILE} (written before runs recorded their code, settings and task "
            "lists): rerun it with this version, or pass --unchecked to skip the provenance check"
        )
    return json.loads(path.read_text())


def differences(
    a: dict[str, Any], b: dict[str, Any], parts: tuple[str, ...] = ("code", "settings", "tasks")
) -> list[str]:
    """What differs between two records, one line per difference, e.g. ``settings.t_long: 12 != 16``.
    A code difference is named by git describe and the source digests."""
    out = []
    for part in parts:
        if part == "code":
            if a["code"]["sources"] != b["code"]["sources"]:
                out.append(
                    f"code: {a['code']['git'] or '?'} (sources {a['code']['sources'][:12]}) != "
                    f"{b['code']['git'] or '?'} (sources {b['code']['sources'][:12]})"
                )
            continue
        left, right = a.get(part, {}), b.get(part, {})
        for key in sorted(set(left) | set(right)):
            if left.get(key, "<absent>") != right.get(key, "<absent>"):
                out.append(f"{part}.{key}: {left.get(key, '<absent>')!r} != {right.get(key, '<absent>')!r}")
    return out
