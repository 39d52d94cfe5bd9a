"""The positive control settled (issue 34, item 5): PPO from the cloned optimum, and the setting that finds it from scratch.

    python benchmarks/positive_control.py                                # 5 seeds x 8,000 env steps, both settings
    python benchmarks/positive_control.py --seeds 1,2,3 --workers 2
    python benchmarks/positive_control.py --setting try:ent_coef=0.05,anneal_lr=false --setting control
    python benchmarks/positive_control.py --json out.json

Each setting is one `baselines.positive_control.run_control` call, as the experiment makes it (the
quick preset's `Args`, fixed-T2, fixed-T10 and BudgetMix over T = 2-10, scored at T = 2, 5, 10
with ``--episodes`` episodes per seed), plus its cloned arm: the known best policy
(`recover_action_values`) behaviour-cloned into the same network (`clone_optimum`), then trained
fixed-T10 by the same PPO with the same seeds and steps. ``--setting NAME:FIELD=VALUE,...`` adds a
setting over the quick preset's `Args`; ``before`` is the trainer as the experiment hands it
(``{}``), ``control`` is `CONTROL_SETTING` (what the experiment's control now runs).

The table: per setting and arm, success at each T as the mean over seeds with its 95% interval
(Student's t over seeds; `seed_interval`), beside the optimum (the dynamic programme), the known
best policy played on the env, and the clone before any PPO; then env steps and seconds per
setting (wall, on this machine, with ``--workers`` processes).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from baselines.config import PRESETS, Args, with_overrides  # noqa: E402
from baselines.positive_control import CONTROL_SETTING, run_control  # noqa: E402

TS = (2, 5, 10)


def parse_setting(text: str) -> tuple[str, dict[str, Any]]:
    """``NAME`` (``before`` or ``control``) or ``NAME:FIELD=VALUE,FIELD=VALUE`` -> (name, `Args` overrides)."""
    name, _, body = text.partition(":")
    if not body:
        if name == "before":
            return name, {}
        if name == "control":
            return name, dict(CONTROL_SETTING)
        raise SystemExit(f"--setting {text!r}: give before, control or NAME:FIELD=VALUE,...")
    base = Args()
    changed = with_overrides(base, [item for item in body.split(",") if item])
    return name, {k: getattr(changed, k) for k in (item.split("=", 1)[0] for item in body.split(",") if item)}


def _cell(cell: dict[str, Any]) -> str:
    lo, hi = cell["success_ci95"]
    return f"{cell['success']:.3f} [{lo:.2f}, {hi:.2f}]"


def table(results: dict[str, dict[str, Any]]) -> str:
    """Markdown: one row per (setting, arm), success at each T (mean over seeds [95% interval])."""
    first = next(iter(results.values()))
    head = ["setting", "arm"] + [f"T={t}" for t in TS]
    rows = [["", "optimum (dynamic programme)"] + [f"{first['by_T']['fixed-T10'][str(t)]['optimum']:.3f}" for t in TS],
            ["", "known best policy, played"] + [f"{first['best_policy'][str(t)]:.3f}" for t in TS]]
    if "cloned_start" in first:
        rows.append(["", "the clone, before PPO"] + [f"{first['cloned_start'][str(t)]:.3f}" for t in TS])
    for name, res in results.items():
        for arm, by_t in res["by_T"].items():
            rows.append([name, arm] + [_cell(by_t[str(t)]) for t in TS])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="1,2,3,4,5", help="training seeds (each arm, each setting)")
    parser.add_argument("--steps", type=int, default=8000, help="env steps per training run (the experiment's control_steps)")
    parser.add_argument("--episodes", type=int, default=200, help="evaluation episodes per seed and T")
    parser.add_argument("--workers", type=int, default=2, help="processes for the (arm, seed) runs")
    parser.add_argument("--setting", action="append", default=None,
                        help="before, control or NAME:FIELD=VALUE,... (repeat; default: before and control)")
    parser.add_argument("--json", default="", help="also write every result here")
    opts = parser.parse_args(argv)
    seeds = tuple(int(s) for s in opts.seeds.split(",") if s)
    base = Args(**{**PRESETS["quick"], "preset": "quick", "progress": False, "workers": opts.workers})
    results: dict[str, dict[str, Any]] = {}
    for name, setting in (parse_setting(s) for s in opts.setting or ["before", "control"]):
        started = time.perf_counter()
        results[name] = run_control(opts.steps, seeds, t_short=2, t_long=10, eval_ts=TS, episodes=opts.episodes,
                                    base=base, setting=setting)
        results[name]["wall_seconds"] = time.perf_counter() - started
        print(f"[positive control] {name} {setting}: {time.perf_counter() - started:.0f} s", flush=True)
    print()
    print(f"Seeds {list(seeds)}, {opts.steps} env steps per run, {opts.episodes} episodes per seed and T; "
          "cells: success, mean over seeds [95% interval over seeds].")
    print()
    print(table(results))
    print()
    for name, res in results.items():
        runs = len(res["by_T"]) * len(seeds)
        print(f"- {name}: setting {res['setting']}; {runs} runs x {opts.steps} env steps; "
              f"{res['wall_seconds']:.0f} s wall with {opts.workers} workers; clone fit {res.get('clone_fit')}")
    if opts.json:
        Path(opts.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
