"""Build ``data/mutants.json``: which mutants of each corpus module some hidden test catches.

Run ``python -m agentgym.envs.coding.build_tasks`` after changing the corpus or mutations.py
(the task set warns about modules whose data is stale). For each module it checks that the
original passes its hidden tests, enumerates mutants (`enumerate_mutants`), keeps up to
``--limit`` per module spread over the mutation kinds, and executes the hidden tests against
each one in a forked copy of a warm interpreter (the same runner the sandbox uses). A mutant is
kept only if a hidden test fails on it, and then the names of those tests are recorded: they
are the bug's covering tests. Pairs of kept mutants for the two-bug tier are checked the same
way. The output is deterministic: rerunning on the same corpus gives the same file.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import select
import signal
import sys
import tempfile
import time
import types
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from agentgym.envs.coding.corpus_loader import CORPUS_DIR, SourceModule, load_corpus
from agentgym.envs.coding.env import RUNNER_MODULE
from agentgym.envs.coding.mutations import Mutant, enumerate_mutants, select_mutants
from agentgym.envs.coding.tasks import DATA_PATH, MUTATOR_VERSION, mutant_split
from agentgym.sandbox.modules import load_on_host
from agentgym.tasks import stable_hash

__all__ = ["build", "validate_module", "main"]

LIMIT = 40
PAIRS = 8
TIMEOUT = 5.0


def _runner() -> types.ModuleType:
    return load_on_host([RUNNER_MODULE])[RUNNER_MODULE.name]


def run_hidden_forked(
    workspace: str, module: SourceModule, source: str, *, direct: bool = True, timeout: float = TIMEOUT
) -> dict[str, Any] | None:
    """Hidden-test outcome for ``source`` standing in for the module, on the host in a forked warm
    interpreter that imports it fresh; None on timeout or crash. ``direct`` calls plain test
    functions without pytest (the fast path of task building); False always runs pytest."""
    runner = _runner()
    with open(os.path.join(workspace, module.file), "w") as f:
        f.write(source)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.close(r)
            os.setsid()
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            os.chdir(workspace)
            tempfile.tempdir = workspace  # run_hidden's folder for the test files goes with the workspace
            result = _run_direct(workspace, module) if direct and _plain_tests(module) else None
            if result is None:
                result = runner.run_hidden({module.test_file: module.tests})
            os.write(w, json.dumps(result).encode())
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0 and select.select([r], [], [], left)[0]:
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.close(r)
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    os.waitpid(pid, 0)
    return json.loads(data) if data else None


def _plain_tests(module: SourceModule) -> bool:
    """True when every test is a plain function without arguments or decorators (callable directly)."""
    tree = ast.parse(module.tests)
    return (
        all(
            not node.args.args and not node.decorator_list
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name in module.test_names
        )
        and "pytestmark" not in module.tests
    )


def _run_direct(workspace: str, module: SourceModule) -> dict[str, Any] | None:
    """Call each test function directly (pytest's collection costs ten times the tests here).

    The verdict is the same as pytest's for plain test functions; the sandbox verifier always
    uses pytest. Returns the `run_hidden` result shape, or None if the test module fails to import.
    """
    sys.dont_write_bytecode = True
    sys.path.insert(0, workspace)
    namespace: dict[str, Any] = {"__name__": f"hidden_{module.name}_tests"}
    try:
        exec(compile(module.tests, module.test_file, "exec"), namespace)
    except BaseException:
        return {"passed": False, "counts": {}, "collection_errors": 1, "failed": []}
    failed = []
    for name in module.test_names:
        try:
            namespace[name]()
        except BaseException:
            failed.append(name)
    return {"passed": not failed, "counts": {}, "collection_errors": 0, "failed": failed}


def _fails(module: SourceModule, result: dict[str, Any] | None) -> list[str] | None:
    """Hidden tests that fail, in file order; None when the run timed out or crashed (unusable mutant)."""
    if result is None:
        return None
    if result["collection_errors"]:
        return list(module.test_names)
    failed = set(result["failed"])
    return [t for t in module.test_names if t in failed]


def validate_module(module: SourceModule, limit: int = LIMIT, pairs: int = PAIRS) -> dict[str, Any]:
    """The module's entry in mutants.json (``mutants`` empty if the original fails its own tests)."""
    entry: dict[str, Any] = {"digest": module.digest, "mutants": [], "pairs": [], "candidates": 0}
    with tempfile.TemporaryDirectory(prefix="agentgym-build-") as workspace:
        base = _fails(module, run_hidden_forked(workspace, module, module.source))
        if base is None or base:
            entry["error"] = f"the original module fails its hidden tests: {base}"
            return entry
        candidates = select_mutants(module.name, enumerate_mutants(module.source), limit)
        entry["candidates"] = len(candidates)
        kept: list[Mutant] = []
        for mutant in candidates:
            fails = _fails(module, run_hidden_forked(workspace, module, mutant.apply(module.source)))
            if fails:
                kept.append(mutant)
                entry["mutants"].append(
                    {
                        **mutant.to_json(),
                        "key": mutant.key,
                        "fails": fails,
                        "visible_fails": [t for t in fails if t in module.visible],
                    }
                )
        entry["pairs"] = _pairs(workspace, module, kept, pairs)
    return entry


def _pairs(workspace: str, module: SourceModule, kept: list[Mutant], limit: int) -> list[list[str]]:
    """Up to ``limit`` pairs of mutants in different functions, same split, that tests still catch together."""
    order = sorted(kept, key=lambda m: stable_hash(f"two/{module.name}/{m.key}"))
    out: list[list[str]] = []
    used: set[str] = set()
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            if len(out) >= limit:
                return out
            if a.key in used or b.key in used or a.func == b.func or "<module>" in (a.func, b.func):
                continue
            if mutant_split(module.name, a.key) != mutant_split(module.name, b.key):
                continue
            lo, hi = sorted((a, b), key=lambda m: m.start)
            if lo.end + 2 > hi.start:
                continue
            source = lo.apply(hi.apply(module.source))
            if _fails(module, run_hidden_forked(workspace, module, source)):
                first, second = sorted((a, b), key=lambda m: m.start)
                out.append([first.key, second.key])
                used.update((a.key, b.key))
                break
    return out


def _validate_named(args: tuple[str, str, int]) -> tuple[str, dict[str, Any]]:
    corpus_dir, name, limit = args
    return name, validate_module(load_corpus(corpus_dir)[name], limit)


def build(
    corpus_dir: Path | str = CORPUS_DIR,
    out: Path | str = DATA_PATH,
    *,
    jobs: int = 2,
    limit: int = LIMIT,
    only_stale: bool = True,
) -> dict[str, Any]:
    """Validate every (stale) corpus module and write the mutant data file; returns its content."""
    corpus = load_corpus(corpus_dir)
    out = Path(out)
    old = json.loads(out.read_text()) if out.exists() else {}
    modules: dict[str, Any] = {}
    todo = []
    for name, module in corpus.items():
        entry = old.get("modules", {}).get(name) if old.get("version") == MUTATOR_VERSION else None
        if only_stale and entry and entry.get("digest") == module.digest and entry.get("limit") == limit:
            modules[name] = entry
        else:
            todo.append(name)
    start = time.monotonic()
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        for name, entry in pool.map(_validate_named, [(str(corpus_dir), n, limit) for n in todo]):
            entry["limit"] = limit
            modules[name] = entry
            print(
                f"{name}: {len(entry['mutants'])}/{entry['candidates']} mutants kept, {len(entry['pairs'])} pairs"
                + (f"  ERROR {entry['error']}" if "error" in entry else ""),
                file=sys.stderr,
            )
    data = {"version": MUTATOR_VERSION, "modules": {n: modules[n] for n in sorted(modules)}}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"validated {len(todo)} module(s) in {time.monotonic() - start:.0f}s -> {out}", file=sys.stderr)
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agentgym.envs.coding.build_tasks", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--corpus", default=str(CORPUS_DIR), help="corpus folder (default: the packaged one)")
    parser.add_argument("--out", default=str(DATA_PATH), help="output JSON (default: the packaged data file)")
    parser.add_argument("--jobs", type=int, default=2, help="modules validated in parallel")
    parser.add_argument("--limit", type=int, default=LIMIT, help="candidate mutants tried per module")
    parser.add_argument("--all", action="store_true", help="revalidate every module, not only stale ones")
    args = parser.parse_args(argv)
    build(args.corpus, args.out, jobs=args.jobs, limit=args.limit, only_stale=not args.all)
    return 0


if __name__ == "__main__":
    sys.exit(main())
