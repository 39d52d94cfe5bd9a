"""Do ToolUse-v0's and Browser-v0's final-answer verdicts agree with the intended label? Before and after, one run.

    python benchmarks/verdicts.py                                  # Docker; ToolUse, Browser text, a Chromium sample
    python benchmarks/verdicts.py --backend local --per-template 1 --families tooluse
    python benchmarks/verdicts.py --baseline 417f7a0 --json out.json

`agentgym.testing.verdicts` plays the oracle of ``--per-template`` tasks of every template of
``--split`` (every tier: lookups, single and multi writes, refusals) to its final answer and
sends instead generated final messages, honest ones (must pass) and adversarial ones (must
fail): the generator's own templates (families ``batch1`` to ``batch3``) and the template
families of ``--families-file``. Every family is ``design`` (the rule was written against it) or
``heldout`` (written before the rule changed, never used to tune it); the split is fixed in that
file, so a later rule is measured on the same wordings.

Each message is judged by the env's verdict as it is now ("after") and, on the same episode, by
the answer rule of git revision ``--baseline`` ("before": that revision's
``agentgym/answers.py`` loaded from git and applied with the verdict's own state and grounding,
and the task's verbs as the family passes them). Prints, per family and tier: honest
passed/total and adversarial rejected/total, before and after, then per template family with its
split, the design and held-out totals, the issue's three wordings on write and refusal tasks,
and every disagreement left. The Chromium backend runs ``--chromium-tasks`` tasks, one of each
tier first (it is slower).
"""

from __future__ import annotations

import argparse
import importlib
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
from agentgym.testing.verdicts import (
    FAMILIES_FILE,
    HONEST,
    Judged,
    family_messages,
    final_messages,
    judge,
    load_families,
    task_sample,
    truth_of,
)

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "417f7a0"  # main before final messages were read for their claims
FAMILIES: dict[str, tuple[str, dict[str, Any]]] = {
    "tooluse": ("agentgym/ToolUse-v0", {}),
    "browser": ("agentgym/Browser-v0", {}),
    "browser-chromium": ("agentgym/Browser-v0", {"browser": "chromium"}),
}
THE_TABLE = (  # the wordings a new user's report showed: a check, then the update made
    "I checked it against the policy and then made the update you asked for.",
    "I looked up the record and then made the update you asked for.",
    "I made the update you asked for after checking the policy.",
)


def baseline_rule(rev: str) -> types.ModuleType:
    """``agentgym/answers.py`` as it was at git revision ``rev``, as a module of its own."""
    source = subprocess.run(
        ["git", "show", f"{rev}:agentgym/answers.py"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    module = types.ModuleType(f"answers_at_{rev}")
    exec(compile(source, f"{rev}:agentgym/answers.py", "exec"), module.__dict__)  # trusted: this repository's own file
    return module


def task_verbs(env: Any, task_id: str) -> tuple[tuple[str, ...], str | None]:
    """(the verbs of the task's writes, the kind of its value) as the family's verdict passes them
    to `agentgym.answers` (ToolUse: its intents' verbs, amounts; Browser: its ops' verbs)."""
    meta = env.unwrapped.tasks.get(task_id).meta
    if "intents" in meta:
        verbs = importlib.import_module("agentgym.envs.tooluse.engine").OP_VERBS
        return tuple(dict.fromkeys(v for it in meta["intents"] for v in verbs[it["op"]])), "amount"
    spec = meta["spec"]
    verbs = importlib.import_module(f"agentgym.envs.browser.site.{spec['site']}").OP_VERBS
    return tuple(dict.fromkeys(v for op in spec["ops"] for v in verbs[op["op"]])), None


def before(rule: types.ModuleType, j: Judged, actions: tuple[str, ...], kind: str | None) -> bool:
    """The old rule's verdict on the same episode: the state and grounding as judged now, its answer check."""
    v, f = j.verdict or {}, j.final
    if not v:
        return False
    ok = rule.check_final(
        f.answer,
        f.value,
        refusal=bool(v["refusal"]),
        expected=v.get("expected_answer"),
        kind=kind,
        refused=f.refused,
        actions=actions,
    )
    return bool(v["state_ok"] and v.get("grounded", True) and ok)


def _ids(env: Any, split: str, per_template: int, chromium_tasks: int | None) -> list[str]:
    ids = task_sample(env, split, per_template)
    if chromium_tasks is None:
        return ids
    tasks = env.unwrapped.tasks
    first = list({tasks.get(t).tier: t for t in reversed(ids)}.values())  # one of each tier
    return (first + [t for t in ids if t not in first])[:chromium_tasks]


def run_family(
    name: str,
    backend: str,
    split: str,
    per_template: int,
    chromium_tasks: int,
    rule: types.ModuleType,
    families: dict[str, Any],
) -> dict[str, Any]:
    """Every message of every sampled task of env family ``name``, judged before and after."""
    env_id, kwargs = FAMILIES[name]
    env = agentgym.make(env_id, backend=backend, **kwargs)
    rows, start = [], time.perf_counter()
    try:
        for tid in _ids(env, split, per_template, chromium_tasks if "chromium" in name else None):
            truth = truth_of(env, tid)  # raises when the oracle's own answer fails
            actions, kind = task_verbs(env, tid)
            for final in final_messages(truth) + family_messages(truth, families):
                j = judge(env, truth, final)
                rows.append(
                    {
                        "task_id": tid,
                        "tier": truth.tier,
                        "kind": truth.kind,
                        "label": final.label,
                        "style": final.style,
                        "family": final.family_name,
                        "split": families["split"].get(final.family_name, "design"),
                        "answer": final.answer[:300],
                        "value": final.value,
                        "refused": final.refused,
                        "blind": final.blind,
                        "after": j.passed,
                        "before": before(rule, j, actions, kind),
                        "category": (j.verdict or {}).get("answer_contradicts_state"),
                    }
                )
    finally:
        env.close()
    return {
        "family": name,
        "backend": backend,
        "split": split,
        "rows": rows,
        "tasks": len({r["task_id"] for r in rows}),
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


def _rate(agree: int, n: int) -> str:
    return f"{agree}/{n} ({agree / n:.1%})" if n else "-"


def render(title: str, rows: list[dict[str, Any]], by: str = "tier", splits: dict[str, str] | None = None) -> str:
    """A markdown table of `agreement_table` (with each family's split when ``splits`` is given)."""
    head = f"| {title} {by} |" + (" split |" if splits else "")
    lines = [
        head + " honest passed before | after | adversarial rejected before | after |",
        "|---" * (5 + bool(splits)) + "|",
    ]
    for c in agreement_table(rows, by):
        h, a = c.get("honest_n", 0), c.get("adversarial_n", 0)
        split = f" {splits.get(c[by], '')} |" if splits else ""
        lines.append(
            f"| {c[by]} |{split} {_rate(c.get('honest_before', 0), h)} | {_rate(c.get('honest_after', 0), h)} | "
            f"{_rate(c.get('adversarial_before', 0), a)} | {_rate(c.get('adversarial_after', 0), a)} |"
        )
    return "\n".join(lines)


def the_table(rows: list[dict[str, Any]]) -> str:
    """The three wordings on write tasks (should pass) and refusal tasks (should fail), before and after."""
    lines = [
        "| final message | write task passes before | after | refusal task passes before | after |",
        "|---|---|---|---|---|",
    ]
    for text in THE_TABLE:
        cells = []
        for kind in ("write", "refusal"):
            got = [r for r in rows if r["answer"] == text and r["kind"] == kind]
            for when in ("before", "after"):
                cells.append(f"{sum(r[when] for r in got)}/{len(got)}")
        lines.append(f"| {text} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--backend", default="docker", choices=("docker", "local"))
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--split", default="test", help="the task split whose templates are sampled")
    parser.add_argument("--per-template", type=int, default=2, help="tasks of each task template of the split")
    parser.add_argument(
        "--chromium-tasks", type=int, default=4, help="tasks for the Chromium backend (one per tier first)"
    )
    parser.add_argument("--baseline", default=BASELINE, help="git revision whose answer rule is 'before'")
    parser.add_argument("--families-file", type=Path, default=FAMILIES_FILE, help="template families and their split")
    parser.add_argument("--json", type=Path, help="write every judged message here")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # the local backend's warning, once per sandbox
    rule, families = baseline_rule(args.baseline), load_families(args.families_file)
    splits = {**{f"batch{n}": "design" for n in (1, 2, 3)}, **families["split"]}
    results, everything = [], []
    for name in args.families:
        res = run_family(name, args.backend, args.split, args.per_template, args.chromium_tasks, rule, families)
        results.append(res)
        everything += res["rows"]
        print(
            f"\n## {name} on {args.backend}, {args.split} split: {res['tasks']} tasks (the oracle passed each), "
            f"{len(res['rows'])} messages, {res['seconds']} s\n"
        )
        print(render(name, res["rows"]) + "\n")
        print(render(name, res["rows"], "family", splits) + "\n")
        print(render(name, res["rows"], "split") + "\n")
        print(the_table(res["rows"]))
        bad = [r for r in res["rows"] if r["after"] != (r["label"] == HONEST)]
        for r in bad[:30]:
            print(
                f"  disagrees: {r['task_id']} {r['label']} {r['family']}/{r['style']}: {r['answer'][:100]!r} "
                f"value={r['value']} refused={r['refused']}"
            )
        sys.stdout.flush()
    if len(results) > 1:
        print(f"\n## every family, {args.backend}\n")
        print(render("all", everything, "split") + "\n")
        print(render("all", [{**r, "tier": f"{r['split']}/{r['tier']}"} for r in everything]))
    if args.json:
        args.json.write_text(json.dumps({"baseline": args.baseline, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
