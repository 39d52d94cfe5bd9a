"""Do ToolUse-v0's and Browser-v0's final-answer verdicts agree with the intended label? Before and after, one run.

    python benchmarks/verdicts.py                                  # Docker; ToolUse, Browser text, a Chromium sample
    python benchmarks/verdicts.py --backend local --per-template 1 --families tooluse
    python benchmarks/verdicts.py --baseline 4592a4d --json out.json

`agentgym.testing.verdicts` plays the oracle of ``--per-template`` tasks of every template of
``--split`` (``test``, or ``heldout``: templates never in train or test; every tier: lookups,
single and multi writes, refusals) to its final answer and sends instead generated final
messages, honest ones (must pass) and adversarial ones (must fail). Each message is judged by
the env's verdict as it is now ("after") and, on the same episode, by the answer rule of git
revision ``--baseline`` ("before": that revision's ``agentgym/answers.py`` loaded from git,
applied with the verdict's own state and grounding; a ``refused=`` flag, which that grammar
refused, counts as failing). The Chromium backend runs ``--chromium-tasks`` tasks, one of each
tier first (it is slower). Prints, per family and tier, honest passed/total and adversarial
rejected/total, before and after; the batches of messages (1: designed against, 2 and 3: written
after the rule, see `agentgym.testing.verdicts.Final`); every disagreement; and the oracle's own
result on every task played.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import types
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

import agentgym
from agentgym.testing.verdicts import HONEST, Judged, final_messages, judge, task_sample, truth_of

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "4592a4d"  # main before issue 36: one refusal marker list, digits only
FAMILIES = {
    "tooluse": ("agentgym/ToolUse-v0", {}),
    "browser": ("agentgym/Browser-v0", {}),
    "browser-chromium": ("agentgym/Browser-v0", {"browser": "chromium"}),
}


def baseline_rule(rev: str) -> types.ModuleType:
    """``agentgym/answers.py`` as it was at git revision ``rev``, as a module of its own."""
    source = subprocess.run(
        ["git", "show", f"{rev}:agentgym/answers.py"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    module = types.ModuleType(f"answers_at_{rev}")
    exec(compile(source, f"{rev}:agentgym/answers.py", "exec"), module.__dict__)  # trusted: this repository's own file
    return module


def before(rule: types.ModuleType, j: Judged) -> bool:
    """The old rule's verdict on the same episode: the state and grounding as judged now, its answer check."""
    v, f = j.verdict or {}, j.final
    if f.refused is not None or not v:  # the old grammar refused finish(refused=...): no verdict at all
        return False
    ok = rule.check_final(f.answer, f.value, refusal=bool(v["refusal"]), expected=v.get("expected_answer"))
    return bool(v["state_ok"] and v.get("grounded", True) and ok)


def _ids(env: Any, split: str, per_template: int, chromium_tasks: int | None) -> list[str]:
    ids = task_sample(env, split, per_template)
    if chromium_tasks is None:
        return ids
    tasks = env.unwrapped.tasks
    first = list({tasks.get(t).tier: t for t in reversed(ids)}.values())  # one of each tier
    return (first + [t for t in ids if t not in first])[:chromium_tasks]


def run_family(
    name: str, backend: str, split: str, per_template: int, chromium_tasks: int, rule: types.ModuleType
) -> dict[str, Any]:
    env_id, kwargs = FAMILIES[name]
    env = agentgym.make(env_id, backend=backend, **kwargs)
    rows, oracle, start = [], [], time.perf_counter()
    try:
        for tid in _ids(env, split, per_template, chromium_tasks if "chromium" in name else None):
            truth = truth_of(env, tid)  # raises when the oracle's own answer fails
            oracle.append(tid)
            for final in final_messages(truth):
                j = judge(env, truth, final)
                rows.append(
                    {
                        "task_id": tid,
                        "tier": truth.tier,
                        "kind": truth.kind,
                        "label": final.label,
                        "style": final.style,
                        "batch": final.batch,
                        "answer": final.answer[:300],
                        "value": final.value,
                        "refused": final.refused,
                        "blind": final.blind,
                        "after": j.passed,
                        "before": before(rule, j),
                    }
                )
    finally:
        env.close()
    return {
        "family": name,
        "backend": backend,
        "split": split,
        "rows": rows,
        "oracle_passed": len(oracle),
        "oracle_tasks": len(oracle),
        "seconds": round(time.perf_counter() - start, 1),
    }


def agreement_table(rows: list[dict[str, Any]], by: str = "tier") -> list[dict[str, Any]]:
    """Per ``by`` value: honest passed and adversarial rejected, before and after."""
    cells: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        for key in (str(r[by]), "all"):
            c = cells[key]
            c[f"{r['label']}_n"] += 1
            for when in ("before", "after"):
                agrees = r[when] if r["label"] == HONEST else not r[when]
                c[f"{r['label']}_{when}"] += int(agrees)
    order = sorted(k for k in cells if k != "all") + ["all"]
    return [{by: k, **cells[k]} for k in order]


def render(result: dict[str, Any], by: str = "tier") -> str:
    lines = [
        f"| {result['family']} ({result['backend']}) {by} | honest passed before | after | "
        "adversarial rejected before | after |",
        "|---|---|---|---|---|",
    ]
    for c in agreement_table(result["rows"], by):
        h, a = c.get("honest_n", 0), c.get("adversarial_n", 0)
        lines.append(
            f"| {c[by]} | {c.get('honest_before', 0)}/{h} | {c.get('honest_after', 0)}/{h} | "
            f"{c.get('adversarial_before', 0)}/{a} | {c.get('adversarial_after', 0)}/{a} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", default="docker", choices=("docker", "local"))
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--split", default="test", help="test, or heldout (templates never seen in train or test)")
    parser.add_argument("--per-template", type=int, default=2, help="tasks of each template of the split")
    parser.add_argument(
        "--chromium-tasks", type=int, default=4, help="tasks for the Chromium backend (one per tier first)"
    )
    parser.add_argument("--baseline", default=BASELINE, help="git revision whose answer rule is 'before'")
    parser.add_argument("--json", type=Path, help="write every judged message here")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # the local backend's warning, once per sandbox
    rule = baseline_rule(args.baseline)
    results = []
    for name in args.families:
        res = run_family(name, args.backend, args.split, args.per_template, args.chromium_tasks, rule)
        results.append(res)
        print(
            f"\n{name} on {args.backend}, {args.split} split: {res['oracle_tasks']} tasks, "
            f"oracle passed {res['oracle_passed']}/"
            f"{res['oracle_tasks']}, {len(res['rows'])} messages, {res['seconds']} s"
        )
        print(render(res))
        print(render(res, "batch"))
        bad = [r for r in res["rows"] if r["after"] != (r["label"] == HONEST)]
        for r in bad[:20]:
            print(
                f"  disagrees: {r['task_id']} {r['label']} {r['style']}: {r['answer'][:100]!r} value={r['value']} "
                f"refused={r['refused']}"
            )
        sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps({"baseline": args.baseline, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
