"""Whether two experiment folders hold the same results, apart from what measures time.

    python benchmarks/same_results.py OUT_A OUT_B      # exit 1 and list the differences, if any
    python benchmarks/same_results.py OUT_A OUT_B --renamed baselines.budget_env=baselines.experiment.budget_env

``--renamed OLD=NEW`` (repeatable) reads OLD as NEW in A's JSON files: a module moved between the
two runs renames the env ids that name it (``MODULE:agentgym-test/...``), and nothing else.

Compares what a change to scheduling or speed must keep bit for bit (issue 34 item 7): every
trained policy's weights (``*/checkpoint.pt``), ``summary.json``, ``contrasts.json``,
``control.json``, ``eval_tasks.json``, and every evaluation episode (``eval/**/episodes.jsonl``,
as sets of records). Left out: measured times (`TIMED` keys, the records'
``agentgym.eval.episodes.TIMING_FIELDS``) and result-cache counts; and, unless ``--strict``, an
episode's ``cost.cache_hit`` and ``cost.env_calls`` (`CACHED`), which say whether Coding-v0's result
cache held the episode's test runs (a hit makes no sandbox call and gives what the run gives): they
differ between two runs of the same code whenever the cache does, e.g. a checkout in another folder
starts a cold cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TIMED = frozenset(
    {
        "seconds",
        "latency_s",
        "env_seconds",
        "agent_seconds",
        "ms_per_decision",
        "startup_s",
        "worker",
        "timing",
        "steps_per_second",
        "SPS",
        "result_cache",
        "rollout_seconds",
        "update_seconds",
        "straggler_seconds",
        "eval_cache",
        "infra_retries",
    }
)
"""Keys whose values measure time, name a worker process, or count result-cache hits."""


CACHED = frozenset({"cache_hit", "env_calls"})
"""An episode's cost fields that depend on the result cache's state, not on the episode."""


def untimed(value: Any, strict: bool = True) -> Any:
    if isinstance(value, dict):
        kept = {
            k: untimed(v, strict)
            for k, v in value.items()
            if k not in TIMED and not k.endswith(("_seconds", "_s", "_ms"))
        }
        if not strict and isinstance(kept.get("cost"), dict):
            kept["cost"] = {c: x for c, x in kept["cost"].items() if c not in CACHED}
        return kept
    if isinstance(value, list):
        return [untimed(v, strict) for v in value]
    return value


def _digest(path: Path) -> str:
    import torch

    state = torch.load(path, map_location="cpu", weights_only=False)["policy"]
    h = hashlib.sha256()
    for key, value in sorted(state.items()):
        h.update(key.encode() + value.numpy().tobytes())
    return h.hexdigest()


def _episodes(path: Path, strict: bool = True) -> list[str]:
    rows = [
        json.dumps(untimed(json.loads(line), strict), sort_keys=True)
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    return sorted(rows)


def _renamed(value: Any, renames: dict[str, str]) -> Any:
    """``value`` with every string's OLD parts replaced by NEW (``renames``)."""
    if isinstance(value, dict):
        return {_renamed(k, renames): _renamed(v, renames) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, renames) for v in value]
    if isinstance(value, str):
        for old, new in renames.items():
            value = value.replace(old, new)
    return value


def differences(a: Path, b: Path, strict: bool = False, renames: dict[str, str] | None = None) -> list[str]:
    out: list[str] = []
    ckpts = sorted(p.relative_to(a) for p in a.glob("*/checkpoint.pt"))
    if ckpts != sorted(p.relative_to(b) for p in b.glob("*/checkpoint.pt")):
        out.append("checkpoints: different runs")
    out += [f"weights differ: {p}" for p in ckpts if (b / p).exists() and _digest(a / p) != _digest(b / p)]
    for name in ("summary.json", "contrasts.json", "control.json", "eval_tasks.json"):
        if (a / name).exists() != (b / name).exists():
            out.append(f"{name}: in one folder only")
        elif (a / name).exists() and _renamed(untimed(json.loads((a / name).read_text())), renames or {}) != untimed(
            json.loads((b / name).read_text())
        ):
            out.append(f"{name} differs")
    files = sorted(p.relative_to(a) for p in (a / "eval").rglob("episodes.jsonl")) if (a / "eval").exists() else []
    if files != (
        sorted(p.relative_to(b) for p in (b / "eval").rglob("episodes.jsonl")) if (b / "eval").exists() else []
    ):
        out.append("eval: different episode files")
    out += [
        f"episodes differ: {p}"
        for p in files
        if (b / p).exists() and _episodes(a / p, strict) != _episodes(b / p, strict)
    ]
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--strict", action="store_true", help="compare the cache-dependent cost fields too")
    parser.add_argument(
        "--renamed", action="append", default=[], metavar="OLD=NEW", help="read OLD as NEW in A's JSON files"
    )
    opts = parser.parse_args(argv)
    a, b = opts.a, opts.b
    renames = dict(item.split("=", 1) for item in opts.renamed)
    diffs = differences(a, b, opts.strict, renames)
    episodes = sum(len(_episodes(p)) for p in (a / "eval").rglob("episodes.jsonl")) if (a / "eval").exists() else 0
    print(
        json.dumps(
            {
                "a": str(a),
                "b": str(b),
                "episodes_compared": episodes,
                "checkpoints_compared": len(list(a.glob("*/checkpoint.pt"))),
                "strict": opts.strict,
                "renamed": renames,
                "differences": diffs,
            },
            indent=1,
        )
    )
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
