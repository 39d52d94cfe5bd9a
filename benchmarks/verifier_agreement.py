"""Does Coding-v0's verdict agree with the hidden tests? Versions of each module, judged both ways.

    python benchmarks/verifier_agreement.py --json [--limit 300] [--backend docker] [--tasks ID ...]
    python benchmarks/verifier_agreement.py --json --baseline 883286f   # and that commit's verifier, side by side

For a fixed sample of one-bug tasks of the ``test`` and ``heldout`` splits (the first ``--limit``
in a hash order, so a smaller run is a prefix of a larger one), it builds final versions of the
task's module of two sorts:

- versions the hidden tests should accept: the ``reference``; ``reformatted`` (``ast.unparse``);
  ``renamed_locals``; ``reworded_messages`` (every exception message in new words, same types
  and flow); ``private_attribute`` (``self._memo = {}`` at the end of each ``__init__``);
  ``private_cache`` (that, plus a per-method call counter kept in it); ``extra_helpers``
  (unused module-level helper and cache); ``alternative_fix`` (the reference with the buggy
  function's comparisons written the other way round, ``a < b`` as ``b > a``, where it has one);
- versions they should reject: the ``buggy`` module, every ``wrong_patch`` of the menu applied to
  it, and ``other_mutant``s of the same function (other kept mutants applied to the reference).

Each version is submitted through the env's grammar (``replace`` of the whole file, then
``submit``) and also run under pytest with the task's hidden tests on the host (trusted code,
outside the sandbox, in a forked warm interpreter as `build_tasks` does). A version is judged once
per distinct source (module versions repeat across tasks). Per version kind it prints how many
the verifier passed, how many the hidden tests passed, and how many agree, then every
disagreement, and the verifier's submit time (p50/p95). What each kind "should" get is only a
label: agreement is what is measured, so a transformation that breaks a module still counts.

``--baseline REV`` also judges every version with the verifier of git revision ``REV`` (its
``verifier.py`` and ``harness.py``, the harness loaded into the same sandbox under another name),
on the same workspace right before the submit: both tables and both verification times (the
verifier's own call, p50/p95) come from one run on one machine.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import time
import types
import warnings
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from agentgym.envs.coding.corpus_loader import SourceModule
from agentgym.envs.coding.tasks import CodingTasks, default_taskset
from agentgym.tasks import stable_hash

ACCEPT_KINDS = (
    "reference",
    "reformatted",
    "renamed_locals",
    "reworded_messages",
    "private_attribute",
    "private_cache",
    "extra_helpers",
    "alternative_fix",
)
REJECT_KINDS = ("buggy", "wrong_patch", "other_mutant")
OTHER_MUTANTS_PER_TASK = 3
HOST_TIMEOUT = 20.0


# ------------------------------------------------------------------------------------------ versions
class _RenameLocals(ast.NodeTransformer):
    """Every local variable of each function (not its parameters) gets a new name."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.generic_visit(node)
        params = {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
        params |= {a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None}
        declared = {n for s in ast.walk(node) if isinstance(s, (ast.Global, ast.Nonlocal)) for n in s.names}
        local = (
            {n.id for s in node.body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            - params
            - declared
        )
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id in local:
                n.id = f"{n.id}_renamed"
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]


def _reword(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return ast.Constant("the request was refused")
    if isinstance(node, ast.JoinedStr):
        values = [v for v in node.values if isinstance(v, ast.FormattedValue)]
        parts: list[ast.expr] = [ast.Constant("refused: ")]
        for i, v in enumerate(values):
            parts += ([ast.Constant(" / ")] if i else []) + [v]
        return ast.JoinedStr(parts)
    return node


def _reword_messages(tree: ast.Module) -> bool:
    changed = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            new = _reword(node.exc.args[0])
            if new is not node.exc.args[0]:
                node.exc.args[0] = new
                changed = True
    return changed


def _class_inits(tree: ast.Module) -> Iterator[tuple[ast.ClassDef, ast.FunctionDef]]:
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            for item in cls.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__" and item.args.args:
                    yield cls, item


def _private_attribute(tree: ast.Module, count_calls: bool) -> bool:
    changed = False
    for cls, init in _class_inits(tree):
        me = init.args.args[0].arg
        init.body.append(ast.parse(f"{me}._memo = {{}}").body[0])
        changed = True
        if not count_calls:
            continue
        for item in cls.body:
            if (
                isinstance(item, ast.FunctionDef)
                and not item.name.startswith("__")
                and item.args.args
                and not item.decorator_list
            ):
                self_name = item.args.args[0].arg
                stmt = ast.parse(f"{self_name}._memo[{item.name!r}] = {self_name}._memo.get({item.name!r}, 0) + 1")
                at = (
                    1
                    if item.body
                    and isinstance(item.body[0], ast.Expr)
                    and isinstance(getattr(item.body[0], "value", None), ast.Constant)
                    else 0
                )
                item.body.insert(at, stmt.body[0])
    return changed


_MIRROR = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}


def _find_function(tree: ast.Module, qualname: str) -> ast.FunctionDef | None:
    parts = qualname.split(".")
    body: list[ast.stmt] = tree.body
    found: Any = None
    for part in parts:
        found = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == part), None)
        if found is None:
            return None
        body = found.body
    return found if isinstance(found, ast.FunctionDef) else None


def _alternative_fix(tree: ast.Module, func: str) -> bool:
    fn = _find_function(tree, func)
    if fn is None:
        return False
    changed = False
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _MIRROR:
            node.left, node.comparators = node.comparators[0], [node.left]
            node.ops = [_MIRROR[type(node.ops[0])]()]
            changed = True
    return changed


def _transformed(source: str, kind: str, func: str = "") -> str | None:
    tree = ast.parse(source)
    if kind == "reformatted":
        changed = True
    elif kind == "renamed_locals":
        before = ast.dump(tree)
        tree = _RenameLocals().visit(tree)
        changed = ast.dump(tree) != before
    elif kind == "reworded_messages":
        changed = _reword_messages(tree)
    elif kind in ("private_attribute", "private_cache"):
        changed = _private_attribute(tree, kind == "private_cache")
    elif kind == "alternative_fix":
        changed = _alternative_fix(tree, func)
    else:
        raise ValueError(kind)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n" if changed else None


EXTRA_HELPERS = '''

_HELPER_CACHE = {}


def _unused_helper(value, default=None):
    """A private helper no test calls."""
    return _HELPER_CACHE.setdefault(repr(value), default)
'''


def versions(tasks: CodingTasks, task_id: str) -> list[tuple[str, str]]:
    """``(kind, module source)`` for one task; sources may repeat across tasks (same module)."""
    task = tasks.get(task_id)
    (bug,) = task.meta["bugs"]
    reference = task.meta["reference"][bug.module]
    buggy = task.files[bug.file]
    out = [("reference", reference)]
    for kind in ("reformatted", "renamed_locals", "reworded_messages", "private_attribute", "private_cache"):
        text = _transformed(reference, kind)
        if text is not None:
            out.append((kind, text))
    out.append(("extra_helpers", reference + EXTRA_HELPERS))
    alt = _transformed(reference, "alternative_fix", bug.mutant.func)
    if alt is not None:
        out.append(("alternative_fix", alt))
    out.append(("buggy", buggy))
    for cand in task.meta["candidates"]:
        if cand.fix:
            continue
        at = cand.locate(buggy)
        if at is not None:
            lines = buggy.splitlines()
            lines[at : at + len(cand.old)] = list(cand.new)
            out.append(("wrong_patch", "\n".join(lines) + "\n"))
    others = [
        (stable_hash(f"other/{task_id}/{k}"), m)
        for k, (m, _) in tasks._mutants[bug.module].items()
        if m.func == bug.mutant.func and m != bug.mutant
    ]
    for _, m in sorted(others, key=lambda x: x[0])[:OTHER_MUTANTS_PER_TASK]:
        out.append(("other_mutant", m.apply(reference)))
    return out


def sample(tasks: CodingTasks, limit: int) -> list[str]:
    ids = [i for split in ("test", "heldout") for i in tasks.ids(split, "one_bug")]
    return sorted(ids, key=lambda i: stable_hash(f"agreement/{i}"))[:limit]


# ------------------------------------------------------------------------------------------ judging
def hidden_tests_pass(module: SourceModule, source: str) -> dict[str, Any]:
    """The hidden tests under pytest on the host, against ``source`` (trusted: our own versions)."""
    from agentgym.envs.coding.build_tasks import run_hidden_forked

    workspace = tempfile.mkdtemp(prefix="agreement-")
    try:
        result = run_hidden_forked(workspace, module, source, direct=False, timeout=HOST_TIMEOUT)
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    return result if result is not None else {"passed": False, "failed": ["<timed out or crashed>"]}


def baseline_verifier(rev: str) -> types.ModuleType:
    """The verifier of git revision ``rev``, importable beside today's; its harness gets its own name."""
    from agentgym.sandbox.modules import SandboxModule

    root = Path(__file__).resolve().parent.parent
    folder = Path(tempfile.mkdtemp(prefix="baseline-verifier-"))
    for name in ("harness", "verifier"):
        text = subprocess.run(
            ["git", "-C", str(root), "show", f"{rev}:envs/coding/{name}.py"], check=True, capture_output=True, text=True
        ).stdout
        (folder / f"{name}.py").write_text(text)
    modules = {}
    for name in ("harness", "verifier"):
        spec = importlib.util.spec_from_file_location(f"_baseline_{name}", folder / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up while defining classes
        if name == "verifier":  # its `from agentgym.envs.coding import harness as h` gets the baseline harness
            pkg = sys.modules["agentgym.envs.coding"]
            today, pkg.harness = pkg.harness, modules["harness"]  # type: ignore[attr-defined]
            try:
                spec.loader.exec_module(module)
            finally:
                pkg.harness = today  # type: ignore[attr-defined]
        else:
            spec.loader.exec_module(module)
        modules[name] = module
    verifier = modules["verifier"]
    verifier.HARNESS_MODULE = SandboxModule.from_file(  # type: ignore[attr-defined]
        "agentgym_coding_harness_baseline", folder / "harness.py"
    )
    return verifier


def verifier_passes(
    env: Any, task_id: str, file: str, source: str, baseline: types.ModuleType | None = None
) -> dict[str, Any]:
    """Submit ``source`` as ``file`` through the grammar: passed, the verdict's reason, the submit's
    and the verifier's seconds; with ``baseline``, that verifier's verdict and seconds first."""
    env.reset(options={"task_id": task_id})
    n = len(env.unwrapped.task.files[file].splitlines())
    body = source[:-1] if source.endswith("\n") else source
    env.step(f"replace {file} 1-{n}\n{body}")
    out: dict[str, Any] = {}
    if baseline is not None:
        sandbox, meta = env.unwrapped.sandbox, env.unwrapped.task.meta
        if getattr(sandbox, "_agreement_baseline", None) is not baseline:
            sandbox.load_module(baseline.HARNESS_MODULE.name, baseline.HARNESS_MODULE.source)
            sandbox._agreement_baseline = baseline
        start = time.perf_counter()
        old = baseline.verify(sandbox, meta["reference"], meta["hidden"], timeout=env.unwrapped.test_timeout)
        out["baseline"], out["baseline_seconds"] = bool(old.passed), time.perf_counter() - start
        out["baseline_reason"] = old.reason
    from agentgym.envs.coding import verifier

    calls: list[float] = []
    today = verifier.verify

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return today(*args, **kwargs)
        finally:
            calls.append(time.perf_counter() - start)

    verifier.verify = timed  # type: ignore[assignment]
    try:
        start = time.perf_counter()
        _, reward, terminated, _, _ = env.step("submit")
        out["submit_seconds"] = time.perf_counter() - start
    finally:
        verifier.verify = today  # type: ignore[assignment]
    verdict = env.unwrapped.last_verdict
    out["passed"] = bool(terminated and reward == 1.0)
    out["reason"] = verdict.reason if verdict is not None else ""
    out["seconds"] = calls[0] if calls else None
    return out


def _table(
    judged: dict[tuple[str, str], dict[str, Any]], rows: dict[str, set[tuple[str, str]]], key: str
) -> dict[str, dict[str, int]]:
    table = {}
    for kind in ACCEPT_KINDS + REJECT_KINDS:
        keys = rows.get(kind, set())
        table[kind] = {
            "versions": len(keys),
            "verifier_passes": sum(judged[k][key] for k in keys),
            "hidden_tests_pass": sum(judged[k]["tests"] for k in keys),
            "agree": sum(judged[k][key] == judged[k]["tests"] for k in keys),
        }
    return table


def _ms(xs: list[float]) -> dict[str, Any]:
    arr = np.asarray([x for x in xs if x is not None]) * 1000.0
    if not len(arr):
        return {"p50": None, "p95": None, "n": 0}
    return {
        "p50": round(float(np.percentile(arr, 50)), 3),
        "p95": round(float(np.percentile(arr, 95)), 3),
        "n": len(arr),
    }


def run(
    limit: int, backend: str, task_ids: list[str] | None = None, progress: bool = False, baseline_rev: str | None = None
) -> dict[str, Any]:
    from agentgym.envs.coding import CodingEnv
    from agentgym.errors import InfrastructureError

    tasks = default_taskset()
    ids = task_ids or sample(tasks, limit)
    baseline = baseline_verifier(baseline_rev) if baseline_rev else None
    env = CodingEnv(split="test", backend=backend, test_timeout=10.0)
    judged: dict[tuple[str, str], dict[str, Any]] = {}
    rows: dict[str, set[tuple[str, str]]] = defaultdict(set)
    disagreements: list[dict[str, Any]] = []
    try:
        for n, task_id in enumerate(ids):
            (bug,) = tasks.bugs_of(task_id)
            module = tasks.corpus[bug.module]
            for kind, source in versions(tasks, task_id):
                key = (bug.module, source)
                if key not in judged:
                    try:
                        v = verifier_passes(env, task_id, bug.file, source, baseline)
                    except InfrastructureError as exc:  # the sandbox itself failed: a new one, once
                        print(f"{task_id}: {exc}; retrying in a new sandbox", file=sys.stderr, flush=True)
                        env.close()
                        env = CodingEnv(split="test", backend=backend, test_timeout=10.0)
                        v = verifier_passes(env, task_id, bug.file, source, baseline)
                    host = hidden_tests_pass(module, source)
                    v["tests"], v["tests_failed"] = bool(host["passed"]), list(host.get("failed", []))[:5]
                    judged[key] = v
                    for which in ("passed", "baseline"):
                        if which in v and v[which] != v["tests"]:
                            disagreements.append(
                                {
                                    "verifier": "today" if which == "passed" else baseline_rev,
                                    "kind": kind,
                                    "task_id": task_id,
                                    "verifier_passes": v[which],
                                    "hidden_tests_pass": v["tests"],
                                    "verifier_reason": v["reason" if which == "passed" else "baseline_reason"],
                                    "tests_failed": v["tests_failed"],
                                }
                            )
                rows[kind].add(key)
            if progress:
                print(f"[{n + 1}/{len(ids)}] {task_id}: {len(judged)} versions", file=sys.stderr, flush=True)
    finally:
        env.close()
    out: dict[str, Any] = {"tasks": len(ids), "backend": backend, "versions": len(judged)}
    for name, key in (("today", "passed"), ("baseline", "baseline")):
        if key == "baseline" and baseline is None:
            continue
        table = _table(judged, rows, key)
        seconds_key = "seconds" if key == "passed" else "baseline_seconds"
        out[name] = {
            "by_kind": table,
            "verify_ms_by_kind": {
                kind: _ms([judged[k][seconds_key] for k in rows.get(kind, set())])
                for kind in ACCEPT_KINDS + REJECT_KINDS
            },
            "agreement": sum(r["agree"] for r in table.values()) / max(1, sum(r["versions"] for r in table.values())),
            "verify_ms": _ms([v[seconds_key] for v in judged.values()]),
        }
    out["today"]["submit_ms"] = _ms([v["submit_seconds"] for v in judged.values()])
    if baseline is not None:
        out["baseline"]["revision"] = baseline_rev
    out["disagreements"] = disagreements
    return out


def _print_table(out: dict[str, Any]) -> None:
    print(f"{out['tasks']} tasks, {out['versions']} distinct versions, backend {out['backend']}")
    for name in ("baseline", "today"):
        if name not in out:
            continue
        r_all = out[name]
        label = f"verifier of {r_all['revision']}" if name == "baseline" else "today's verifier"
        print(
            f"\n{label}: agreement {r_all['agreement']:.4f}, verify p50 {r_all['verify_ms']['p50']} ms, "
            f"p95 {r_all['verify_ms']['p95']} ms"
        )
        print(f"{'version kind':<20} {'versions':>8} {'verifier':>9} {'tests':>7} {'agree':>7}")
        for kind, r in r_all["by_kind"].items():
            print(
                f"{kind:<20} {r['versions']:>8} {r['verifier_passes']:>9} {r['hidden_tests_pass']:>7} {r['agree']:>7}"
            )
    for d in out["disagreements"]:
        print(
            f"DISAGREE ({d['verifier']}) {d['kind']} {d['task_id']}: verifier {d['verifier_passes']} "
            f"({d['verifier_reason']}), tests {d['hidden_tests_pass']} {d['tests_failed']}"
        )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--limit", type=int, default=300, help="tasks in the sample (a prefix of a fixed hash order)")
    p.add_argument("--tasks", nargs="*", default=None, help="these task ids instead of the sample")
    p.add_argument("--backend", default="auto", help="sandbox backend (auto, docker, local)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--progress", action="store_true", help="a line per task on stderr")
    p.add_argument(
        "--baseline",
        default=None,
        metavar="REV",
        help="also judge with the verifier of this git revision, side by side",
    )
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    out = run(args.limit, args.backend, args.tasks, args.progress, args.baseline)
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        _print_table(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
