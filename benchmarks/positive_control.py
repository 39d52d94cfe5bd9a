"""The positive control settled (issue 34, item 5): PPO from the cloned optimum,
and the setting that finds it from scratch.

    python benchmarks/positive_control.py                                # 5 seeds x 8,000 env steps, both settings
    python benchmarks/positive_control.py --seeds 1,2,3 --workers 2
    python benchmarks/positive_control.py --setting try:ent_coef=0.05,anneal_lr=false --setting control
    python benchmarks/positive_control.py --json out.json

Each setting is one `baselines.experiment.control.run_control` call, as the experiment makes it (the
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
from baselines.experiment.budget_env import recover_best_action  # noqa: E402
from baselines.experiment.control import CONTROL_SETTING, run_control  # noqa: E402

TS = (2, 5, 10)


# ---------------------------------------------------------------------- the ladder: exact values of simple strategies
def strategy_value(policy: Any, turns: int, n: int = 5, clue: float = 0.6, fn: float = 0.1) -> float:
    """Exact success of ``policy(left, cur, fails, last)`` on the faithful env (the programme's
    model: prior 0.6 on the clue, a wrong patch's test always fails, the right one's 10% of the
    time); ``last`` is start, patched, passed, failed or reverted."""
    prior = [clue] + [(1 - clue) / (n - 1)] * (n - 1)

    def post(fails: tuple[int, ...]) -> list[float]:
        w = [p * fn**k for p, k in zip(prior, fails)]
        return [x / sum(w) for x in w]

    def value(left: int, cur: int | None, fails: tuple[int, ...], last: str) -> float:
        if left <= 0:
            return 0.0
        action = policy(left, cur, fails, last)
        if action == "submit":
            return 1.0 if last == "passed" else (post(fails)[cur] if cur is not None else 0.0)
        if action == "test" and cur is not None:
            if last == "passed":
                return value(left - 1, cur, fails, "passed")
            p_pass = post(fails)[cur] * (1 - fn)
            failed = tuple(f + (i == cur) for i, f in enumerate(fails))
            return p_pass * value(left - 1, cur, fails, "passed") + (1 - p_pass) * value(
                left - 1, cur, failed, "failed"
            )
        if action == "revert":
            return value(left - 1, None, fails, "reverted")
        return value(left - 1, int(action.split()[1]), fails, "patched")

    return value(turns, None, (0,) * n, "start")


def _untried(fails: tuple[int, ...], skip: int = -1) -> int:
    return min([j for j, f in enumerate(fails) if f == 0 and j != skip] or [0])


LADDER: dict[str, Any] = {
    "patch the clue, submit (where PPO lands)": lambda left, cur, fails, last: "patch 0" if cur is None else "submit",
    "+ test it first, submit either way": lambda left, cur, fails, last: (
        "patch 0" if cur is None else "test" if last == "patched" and left >= 2 else "submit"
    ),
    "+ after a failing test: revert, patch another, submit": lambda left, cur, fails, last: (
        "submit"
        if last == "passed"
        else ("patch 0" if last == "start" else "patch 1")
        if cur is None
        else "test"
        if last == "patched" and cur == 0 and left >= 2
        else "revert"
        if last == "failed" and left >= 3
        else "submit"
    ),
    "+ test every patch, revert and retry, commit when turns run out (clue first)": lambda left, cur, fails, last: (
        "submit"
        if last == "passed"
        else f"patch {_untried(fails)}"
        if cur is None
        else "test"
        if last == "patched" and left >= 3
        else "revert"
        if last == "failed" and left >= 3
        else "submit"
    ),
    (
        "the optimum (the dynamic programme: the others tested first, the clue committed last)"
    ): lambda left, cur, fails, last: recover_best_action(left, cur, fails, passed=last == "passed"),
}
"""Strategies a step apart, from the local optimum PPO converges to up to the optimum."""


def ladder_table(ts: tuple[int, ...] = TS) -> str:
    lines = ["| strategy | " + " | ".join(f"T={t}" for t in ts) + " |", "|---|" + "---|" * len(ts)]
    lines += [
        f"| {name} | " + " | ".join(f"{strategy_value(policy, t):.3f}" for t in ts) + " |"
        for name, policy in LADDER.items()
    ]
    return "\n".join(lines)


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
    rows = [
        ["", "optimum (dynamic programme)"] + [f"{first['by_T']['fixed-T10'][str(t)]['optimum']:.3f}" for t in TS],
        ["", "known best policy, played"] + [f"{first['best_policy'][str(t)]:.3f}" for t in TS],
    ]
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
    parser.add_argument(
        "--steps", type=int, default=8000, help="env steps per training run (the experiment's control_steps)"
    )
    parser.add_argument("--episodes", type=int, default=200, help="evaluation episodes per seed and T")
    parser.add_argument("--workers", type=int, default=2, help="processes for the (arm, seed) runs")
    parser.add_argument(
        "--setting",
        action="append",
        default=None,
        help="before, control or NAME:FIELD=VALUE,... (repeat; default: before and control)",
    )
    parser.add_argument("--json", default="", help="also write every result here")
    parser.add_argument(
        "--ladder", action="store_true", help="print only the exact values of the strategy ladder (no training)"
    )
    opts = parser.parse_args(argv)
    if opts.ladder:
        print(ladder_table())
        return 0
    seeds = tuple(int(s) for s in opts.seeds.split(",") if s)
    base = Args(**{**PRESETS["quick"], "preset": "quick", "progress": False, "workers": opts.workers})
    results: dict[str, dict[str, Any]] = {}
    for name, setting in (parse_setting(s) for s in opts.setting or ["before", "control"]):
        started = time.perf_counter()
        results[name] = run_control(
            opts.steps, seeds, t_short=2, t_long=10, eval_ts=TS, episodes=opts.episodes, base=base, setting=setting
        )
        results[name]["wall_seconds"] = time.perf_counter() - started
        print(f"[positive control] {name} {setting}: {time.perf_counter() - started:.0f} s", flush=True)
    print()
    print(
        f"Seeds {list(seeds)}, {opts.steps} env steps per run, {opts.episodes} episodes per seed and T; "
        "cells: success, mean over seeds [95% interval over seeds]."
    )
    print()
    print(table(results))
    print()
    print("Exact values of strategies a step apart (no training; `strategy_value`):")
    print()
    print(ladder_table())
    print()
    for name, res in results.items():
        runs = len(res["by_T"]) * len(seeds)
        print(
            f"- {name}: setting {res['setting']}; {runs} runs x {opts.steps} env steps; "
            f"{res['wall_seconds']:.0f} s wall with {opts.workers} workers; clone fit {res.get('clone_fit')}"
        )
    if opts.json:
        Path(opts.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
