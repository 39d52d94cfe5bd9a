"""Generate SWE-v0's tasks: bugs injected into each library, kept only when its own tests catch them.

    python -m agentgym.envs.swe.generate                      # every usable library, 2 workers
    python -m agentgym.envs.swe.generate --libraries boltons --per-library 40 --workers 1
    python -m agentgym.envs.swe.generate --ray-address auto   # the workers as Ray actors

SWE-smith's method, offline. For each library whose committed baseline (``data/baseline/<name>.json``:
its passing, non-flaky tests per test file) says it is usable, and whose suite runs within
``--max-suite-seconds``:

1. **Candidates.** Every modification of the package's source files (`modifiers`; never its tests)
   is ordered by a hash of the seed and its name, round-robin over modifiers and, within one, over
   files, at most ``--per-function`` from one function, so any prefix is spread over both. A
   modification of a module no test file reaches is left out.
2. **Validation, in the sandbox.** A worker holds a sandbox on the library
   (`sandboxing.open_library_sandbox`), writes the buggy file into its workspace, runs the tests
   and writes the original back. The tests run are the whole suite when the baseline suite takes at
   most `WHOLE_SUITE_SECONDS`, otherwise every test file that imports the modified module, directly
   or through the library's own modules, package ``__init__`` files included (found statically; the
   manifest names the files). A candidate is kept when at least one baseline-passing test now fails
   (FAIL_TO_PASS) and at least one still passes (PASS_TO_PASS); one that runs past its deadline or
   crashes the sandbox is dropped.
3. **Rounds and budget.** Candidates are validated in rounds, each sized from the library's yield
   so far, until it has its share of tasks (``--per-library``, 70/15/15 by tier), runs out of
   candidates, or of budget. The budget is in *estimated* seconds (`Target.estimate`: the baseline
   suite's time by the share of its tests run, plus `OVERHEAD_SECONDS`; committed data, so the same
   seed validates the same candidates): each library has a floor, the rest is a pool the libraries
   draw from cheapest first. What a library falls short of moves to the libraries that can still
   grow, so a slow or small library gives its share to fast ones.
4. **Deduplication** (in candidate order): no two tasks with the same patch, and none with the
   same FAIL_TO_PASS set on the same function(s).
5. **Harder tiers.** ``two_bugs``: two kept bugs in different functions of one file;
   ``two_files``: two kept bugs in two files; each pair validated together.

The manifest, ``data/tasks/<library>.json``, holds no library text: each bug is (file, function,
modifier, site, sha256 of the file and of the patch), rebuilt by `bugs.buggy_files`. Per task: its
id ``swe/<tier>/<library>/<path>:<function>/<modifier>@<site>[+...]``, the bugs, FAIL_TO_PASS, the
test files run (PASS_TO_PASS is the baseline's passing tests of those files minus FAIL_TO_PASS,
counted in ``PASS_TO_PASS_count``), up to `MAX_FAILURES` failure excerpts of `FAILURE_CHARS` the
statement is written from, and the validation's seconds. Its header names the runner and the
baseline it was validated with. ``data/tasks/yield.json`` holds the yield per library, modifier and
tier and every validation's seconds (`benchmarks/swe_yield.py` reports them).

Validations are cached on disk (key: library, version, patch hash, runner code hash, tests run),
so an interrupted run resumes where it stopped and a rerun with the same seed rebuilds the same
manifest without running anything. Workers are processes (``--workers``, one sandbox each, spawned)
or Ray actors (``--ray-address``).
"""

from __future__ import annotations

import argparse
import ast
import functools
import hashlib
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import util as mp_util
from pathlib import Path
from typing import Any

from agentgym.envs.swe.baseline import load_baseline
from agentgym.envs.swe.bugs import Bug, apply_bugs, combined_patch, read_source, sha256
from agentgym.envs.swe.libraries import LIBRARIES, library
from agentgym.envs.swe.modifiers import MODIFIERS, Modification, enumerate_modifications, is_test_path
from agentgym.envs.swe.sandboxing import RUNNER, open_library_sandbox
from agentgym.errors import AgentGymError, ConfigError
from agentgym.ray_support import require_ray
from agentgym.sandbox import Sandbox
from agentgym.setup.swe_images import library_tree
from agentgym.tasks import stable_hash

__all__ = [
    "TIERS",
    "WHOLE_SUITE_SECONDS",
    "Target",
    "Job",
    "Outcome",
    "Validator",
    "ValidationCache",
    "candidate_order",
    "load_target",
    "usable_libraries",
    "generate",
    "main",
]

DATA = Path(__file__).with_name("data")
TASKS_DIR = DATA / "tasks"
TIERS = ("one_bug", "two_bugs", "two_files")
SHARES = {"one_bug": 0.70, "two_bugs": 0.15, "two_files": 0.15}
WHOLE_SUITE_SECONDS = 1.0
"""A library whose baseline suite runs this fast is run whole for every candidate."""
MAX_SUITE_SECONDS = 20.0
"""A library whose suite takes longer is left out by default: a few validations would spend the budget
(and an agent's every test run would cost as much)."""
OVERHEAD_SECONDS = 0.5
"""A validation's cost beside the tests: writing the files, forking the runner, importing the library."""
MAX_REPORT_BYTES = 1 << 22
"""What a run's report may take on the channel: a suite of thousands of tests reports more than 64 KiB
(the child's report past the cap reads as a crash)."""
FAILURE_CHARS = 600
MAX_FAILURES = 3
MAX_ROUNDS = 5
"""Rounds sized from the yield so far; one more then takes every candidate left within the budget."""
FORMAT = 1


def runner_digest() -> str:
    """sha256 of the in-sandbox runner's code: a cached validation is valid only for the same runner."""
    return hashlib.sha256(Path(__file__).with_name("runner.py").read_bytes()).hexdigest()


# --------------------------------------------------------------------------- libraries
@dataclass(frozen=True)
class Target:
    """One library as generation sees it: its host tree, what its sources are, which tests pass."""

    name: str
    version: str
    root: Path
    """The host copy of the library's tree (the sandbox's workspace layout)."""
    packages: tuple[str, ...]
    python_path: tuple[str, ...]
    baseline: Mapping[str, tuple[str, ...]]
    """Test file -> its passing, non-flaky test ids."""
    suite_seconds: float
    """How long the baseline's whole suite took."""

    def sources(self) -> list[str]:
        """The package's source files (relative paths, sorted): every ``.py`` of `packages`, tests excluded."""
        out = []
        for prefix in (*self.python_path, ""):
            base = self.root / prefix if prefix else self.root
            for pkg in self.packages:
                single = base / f"{pkg}.py"
                if single.is_file():
                    out.append(single.relative_to(self.root).as_posix())
                if (base / pkg).is_dir():
                    out.extend(p.relative_to(self.root).as_posix() for p in (base / pkg).rglob("*.py"))
        return sorted({p for p in out if not is_test_path(p) and "__pycache__" not in p})

    def module_of(self, path: str) -> str:
        """The dotted module name of a source file (``src/pkg/mod.py`` -> ``pkg.mod``)."""
        for prefix in self.python_path:
            if path.startswith(prefix.rstrip("/") + "/"):
                path = path[len(prefix.rstrip("/")) + 1 :]
                break
        parts = path[: -len(".py")].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        return ".".join(parts)

    @functools.cached_property
    def _dependents(self) -> dict[str, set[str]]:
        """Source module -> the test files that import it, directly or through the library's modules."""
        modules = {self.module_of(p): p for p in self.sources()}
        imports = {m: _imports(read_source(self.root / p), m, p.endswith("__init__.py")) for m, p in modules.items()}
        reach: dict[str, set[str]] = {}

        def closure(names: Iterable[str]) -> set[str]:
            seen: set[str] = set()
            stack = [n for name in names for n in _with_parents(name) if n in modules]
            while stack:
                mod = stack.pop()
                if mod not in seen:
                    seen.add(mod)
                    stack.extend(n for name in imports[mod] for n in _with_parents(name) if n in modules)
            return seen

        for test_file in self.baseline:
            names = set()
            for file in (test_file, *_conftests(self.root, test_file)):
                if (self.root / file).is_file():
                    names |= _imports(read_source(self.root / file), "", False)
            for mod in closure(names):
                reach.setdefault(mod, set()).add(test_file)
        return reach

    def test_files(self, paths: Iterable[str]) -> tuple[str, ...]:
        """The baseline test files a change to ``paths`` is validated with (sorted): all of them when
        the suite is fast, else those that import a changed module."""
        if self.suite_seconds <= WHOLE_SUITE_SECONDS:
            return tuple(sorted(self.baseline))
        files: set[str] = set()
        for path in paths:
            files |= self._dependents.get(self.module_of(path), set())
        return tuple(sorted(files))

    def estimate(self, files: Sequence[str]) -> float:
        """Expected seconds of a validation running ``files``: the baseline suite's time, by their share
        of its tests, plus `OVERHEAD_SECONDS` (from committed data, so budgets spent on it are deterministic)."""
        total = sum(len(ids) for ids in self.baseline.values()) or 1
        share = sum(len(self.baseline.get(f, ())) for f in files) / total
        return self.suite_seconds * share + OVERHEAD_SECONDS

    @property
    def baseline_sha256(self) -> str:
        """sha256 of the baseline's passing tests per file (not its timings): which baseline a manifest used."""
        return hashlib.sha256(
            json.dumps({f: list(ids) for f, ids in self.baseline.items()}, sort_keys=True).encode()
        ).hexdigest()

    def whole_suite(self, files: Sequence[str]) -> bool:
        return tuple(files) == tuple(sorted(self.baseline))


def _with_parents(name: str) -> list[str]:
    """``a.b.c`` -> ``a``, ``a.b``, ``a.b.c`` (importing a module runs its packages' ``__init__``)."""
    parts = name.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def _conftests(root: Path, test_file: str) -> list[str]:
    """The ``conftest.py`` files pytest loads for ``test_file`` (its folder and those above it)."""
    parts = test_file.split("/")[:-1]
    return ["/".join([*parts[:i], "conftest.py"]) for i in range(len(parts) + 1)]


def _imports(source: str, module: str, is_package: bool) -> set[str]:
    """Dotted names a module imports (``from a import b`` gives ``a`` and ``a.b``; relative imports resolved)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".") if package else []
                if node.level - 1 > len(base_parts):
                    continue
                base = ".".join(base_parts[: len(base_parts) - (node.level - 1)])
                base = f"{base}.{node.module}" if node.module and base else (node.module or base)
            else:
                base = node.module or ""
            if base:
                names.add(base)
                names.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    return names


def load_target(name: str) -> Target:
    """The library ``name`` with its committed baseline and its host tree; errors say which command
    makes what is missing (``agentgym setup --only swe``, ``python -m agentgym.envs.swe.baseline``)."""
    lib = library(name)
    baseline = load_baseline(name)
    if baseline.get("version") != lib.version:
        raise ConfigError(
            f"the baseline of {name} is for version {baseline.get('version')}, the pin is {lib.version}: "
            f"run `python -m agentgym.envs.swe.baseline --only {name}`"
        )
    if not baseline.get("usable"):
        raise ConfigError(f"{name} is not usable ({baseline.get('why_unusable')}); leave it out of --libraries")
    return Target(
        lib.name,
        lib.version,
        library_tree(lib),
        lib.packages,
        lib.python_path,
        {f: tuple(ids) for f, ids in sorted(baseline["files"].items())},
        float(baseline["seconds"]),
    )


def usable_libraries() -> list[str]:
    """Every pinned library whose committed baseline says it is usable."""
    out = []
    for lib in LIBRARIES:
        try:
            if load_baseline(lib.name).get("usable"):
                out.append(lib.name)
        except ConfigError:
            continue
    return out


# --------------------------------------------------------------------------- candidates
def candidate_order(target: Target, seed: int, per_function: int = 5) -> list[Modification]:
    """Every candidate of ``target`` in validation order (see the module docstring, step 1)."""
    by_modifier: dict[str, dict[str, list[Modification]]] = {}
    for path in target.sources():
        try:
            mods = enumerate_modifications(read_source(target.root / path), path)
        except (SyntaxError, ValueError):  # a file this Python cannot parse (a version-specific module)
            continue
        for mod in mods:
            by_modifier.setdefault(mod.modifier, {}).setdefault(path, []).append(mod)

    def rank(key: str) -> int:
        return stable_hash(f"{seed}/{target.name}/{key}")

    streams: list[list[Modification]] = []
    for modifier in sorted(by_modifier, key=rank):
        files = by_modifier[modifier]
        lists = [sorted(files[p], key=lambda m: rank(m.key)) for p in sorted(files, key=rank)]
        streams.append(_round_robin(lists))
    out: list[Modification] = []
    per: Counter[tuple[str, str]] = Counter()
    for mod in _round_robin(streams):
        if per[(mod.path, mod.function)] < per_function:
            per[(mod.path, mod.function)] += 1
            out.append(mod)
    return out


def _round_robin(lists: Sequence[Sequence[Any]]) -> list[Any]:
    out: list[Any] = []
    for i in range(max((len(items) for items in lists), default=0)):
        out.extend(items[i] for items in lists if i < len(items))
    return out


# --------------------------------------------------------------------------- validation (worker side)
@dataclass(frozen=True)
class Job:
    """One validation: write ``files`` into the library's workspace, run ``test_files``, put them back."""

    library: str
    key: str
    """The cache key (`ValidationCache.key`)."""
    files: tuple[tuple[str, str], ...]
    """(path, buggy text) of every changed file."""
    test_files: tuple[str, ...]
    whole_suite: bool
    timeout: float


@dataclass(frozen=True)
class Outcome:
    """What a validation showed, in terms of the baseline."""

    status: str
    """``ok`` (the run finished), ``timeout``, ``crash`` (sandbox or runner died) or ``error``."""
    fail_to_pass: tuple[str, ...] = ()
    pass_to_pass: int = 0
    failures: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    detail: str = ""

    @property
    def valid(self) -> bool:
        return self.status == "ok" and bool(self.fail_to_pass) and self.pass_to_pass > 0

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "fail_to_pass": list(self.fail_to_pass),
            "pass_to_pass": self.pass_to_pass,
            "failures": dict(self.failures),
            "seconds": self.seconds,
            "detail": self.detail,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Outcome:
        return cls(
            d["status"],
            tuple(d["fail_to_pass"]),
            int(d["pass_to_pass"]),
            tuple(sorted(d["failures"].items())),
            float(d["seconds"]),
            d.get("detail", ""),
        )


Opener = Callable[[str], Sandbox]
"""Opens a sandbox on a library by name, its tree in the workspace and the runner configured."""


class Validator:
    """A worker's side: warm sandboxes (the two last libraries used) and the validation itself."""

    def __init__(self, targets: Mapping[str, Target], opener: Opener, keep: int = 2) -> None:
        self.targets = dict(targets)
        self.opener = opener
        self.keep = keep
        self.sandboxes: OrderedDict[str, Sandbox] = OrderedDict()

    def sandbox(self, name: str) -> Sandbox:
        if name in self.sandboxes and self.sandboxes[name].broken is None and not self.sandboxes[name].closed:
            self.sandboxes.move_to_end(name)
            return self.sandboxes[name]
        self.drop(name)
        while len(self.sandboxes) >= self.keep:
            self.drop(next(iter(self.sandboxes)))
        self.sandboxes[name] = self.opener(name)
        return self.sandboxes[name]

    def drop(self, name: str) -> None:
        sandbox = self.sandboxes.pop(name, None)
        if sandbox is not None:
            sandbox.close()

    def close(self) -> None:
        for name in list(self.sandboxes):
            self.drop(name)

    def run(self, job: Job) -> Outcome:
        target = self.targets[job.library]
        start = time.perf_counter()
        originals = {path: read_source(target.root / path) for path, _ in job.files}
        try:
            sandbox = self.sandbox(job.library)
            sandbox.write_files({path: text.encode("utf-8", "surrogateescape") for path, text in job.files})
            try:
                r = sandbox.fork_call(
                    RUNNER,
                    "run",
                    timeout=job.timeout,
                    max_output=MAX_REPORT_BYTES,
                    root=sandbox.workspace,
                    files=None if job.whole_suite else list(job.test_files),
                    max_failure_chars=FAILURE_CHARS,
                    nonce=job.key[:16],
                )
            finally:
                sandbox.write_files({p: t.encode("utf-8", "surrogateescape") for p, t in originals.items()})
        except AgentGymError as exc:  # the sandbox died or refused: start a new one for the next job
            self.drop(job.library)
            return Outcome("crash", seconds=time.perf_counter() - start, detail=f"{type(exc).__name__}: {exc}"[:300])
        seconds = round(time.perf_counter() - start, 3)
        if r.timed_out:
            return Outcome("timeout", seconds=seconds, detail=f"over {job.timeout:g} s")
        if r.error is not None or not isinstance(r.value, dict) or r.value.get("nonce") != job.key[:16]:
            return Outcome("crash", seconds=seconds, detail=f"runner: {r.error or 'no report'}"[:300])
        return summarize(target, job.test_files, r.value, seconds)


def summarize(target: Target, test_files: Sequence[str], report: Mapping[str, Any], seconds: float) -> Outcome:
    """FAIL_TO_PASS and the PASS_TO_PASS count of a runner report, over the baseline tests of ``test_files``."""
    outcomes: Mapping[str, str] = report["outcomes"]
    failing, passing = [], 0
    for file in test_files:
        for test_id in target.baseline.get(file, ()):
            outcome = outcomes.get(test_id)
            if outcome == "passed":
                passing += 1
            elif outcome != "skipped":  # failed, error, or never ran (its file did not import)
                failing.append(test_id)
    failing.sort()
    texts = report.get("failures", {})
    excerpts = []
    for test_id in failing[:MAX_FAILURES]:
        text = texts.get(test_id) or texts.get(test_id.split("::", 1)[0]) or outcomes.get(test_id, "not run")
        excerpts.append((test_id, str(text)[:FAILURE_CHARS]))
    return Outcome("ok", tuple(failing), passing, tuple(excerpts), seconds)


_WORKER: Validator | None = None


def _init_worker(targets: Mapping[str, Target], opener: Opener) -> None:
    global _WORKER
    _WORKER = Validator(targets, opener)
    # pool workers leave through os._exit, past atexit: close the sandboxes on the pool's own exit hook
    mp_util.Finalize(None, _WORKER.close, exitpriority=10)


def _run_indexed(item: tuple[int, Job]) -> tuple[int, Outcome]:
    assert _WORKER is not None, "the pool's initializer did not run"
    return item[0], _WORKER.run(item[1])


class _RayActor:
    def __init__(self, targets: Mapping[str, Target], opener: Opener) -> None:
        self.validator = Validator(targets, opener)

    def run(self, job: Job) -> Outcome:
        return self.validator.run(job)

    def close(self) -> None:
        self.validator.close()


class Executor:
    """Runs jobs in this process (one worker), in worker processes, or on Ray actors; keeps them warm
    between rounds. Use as a context manager: leaving it closes every sandbox."""

    def __init__(
        self, targets: Mapping[str, Target], opener: Opener, *, workers: int = 2, ray_address: str | None = None
    ) -> None:
        if workers < 1:
            raise ConfigError(f"workers={workers!r}: at least 1")
        self.workers = workers
        self.local: Validator | None = None
        self.pool: ProcessPoolExecutor | None = None
        self.ray: Any = None
        self.actors: list[Any] = []
        if ray_address is not None:
            self.ray = require_ray()
            if not self.ray.is_initialized():
                self.ray.init(address=ray_address, log_to_driver=False)
            actor = self.ray.remote(num_cpus=1)(_RayActor)
            self.actors = [actor.remote(targets, opener) for _ in range(workers)]
        elif workers == 1:
            self.local = Validator(targets, opener)
        else:
            self.pool_args = (targets, opener)
            self.pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawned, not forked: the parent may hold threads (the progress bar's) and Docker clients
        return ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=self.pool_args,
        )

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[int, Outcome]]:
        """(index, outcome) of every job, as they finish."""
        if self.local is not None:
            for i, job in enumerate(jobs):
                yield i, self.local.run(job)
        elif self.pool is not None:
            yield from self._run_pool(jobs)
        else:
            yield from self._run_ray(jobs)

    def _run_pool(self, jobs: Sequence[Job]) -> Iterator[tuple[int, Outcome]]:
        """At most ``2 x workers`` jobs queued at once; a worker process that dies fails the jobs it
        had (``crash``, not cached) and the pool is started again for the rest."""
        assert self.pool is not None
        pending = iter(enumerate(jobs))
        inflight: dict[Future[tuple[int, Outcome]], int] = {}
        while True:
            assert self.pool is not None
            while len(inflight) < 2 * self.workers:
                item = next(pending, None)
                if item is None:
                    break
                inflight[self.pool.submit(_run_indexed, item)] = item[0]
            if not inflight:
                return
            done, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
            broken = False
            for future in done:
                index = inflight.pop(future)
                try:
                    yield future.result()
                except BrokenProcessPool as exc:
                    broken = True
                    yield index, Outcome("crash", detail=f"worker process died: {exc}"[:300])
            if broken:
                for future, index in list(inflight.items()):
                    yield index, Outcome("crash", detail="worker process died")
                inflight.clear()
                self.pool.shutdown(wait=False, cancel_futures=True)
                self.pool = self._new_pool()

    def _run_ray(self, jobs: Sequence[Job]) -> Iterator[tuple[int, Outcome]]:
        ray = self.ray
        pending = iter(enumerate(jobs))
        inflight: dict[Any, tuple[int, Any]] = {}

        def submit(actor: Any) -> None:
            item = next(pending, None)
            if item is not None:
                inflight[actor.run.remote(item[1])] = (item[0], actor)

        for actor in self.actors:
            submit(actor)
        while inflight:
            (ref,), _ = ray.wait(list(inflight), num_returns=1)
            index, actor = inflight.pop(ref)
            submit(actor)
            yield index, ray.get(ref)

    def close(self) -> None:
        if self.local is not None:
            self.local.close()
        if self.pool is not None:
            self.pool.shutdown(wait=True)
        if self.actors:
            self.ray.get([a.close.remote() for a in self.actors])
            for a in self.actors:
                self.ray.kill(a)

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --------------------------------------------------------------------------- cache
def default_cache_path() -> Path:
    """``swe-validations-v1.jsonl`` in ``$AGENTGYM_CACHE_DIR``, else ``$XDG_CACHE_HOME/agentgym``, else
    ``~/.cache/agentgym`` (the folder every agentgym cache uses)."""
    root = os.environ.get("AGENTGYM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "agentgym"
    )
    return Path(root) / f"swe-validations-v{FORMAT}.jsonl"


class ValidationCache:
    """Validations already run, one JSON line each, appended as they finish (an interrupted run keeps them)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, Outcome] = {}
        if path is not None and path.is_file():
            for line in path.read_text().splitlines():
                try:
                    record = json.loads(line)
                    self.entries[record["key"]] = Outcome.from_json(record["outcome"])
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut short by a kill

    @staticmethod
    def key(target: Target, patch: str, test_files: Sequence[str], runner: str) -> str:
        spec = json.dumps([target.name, target.version, sha256(patch), runner, list(test_files)])
        return hashlib.sha256(spec.encode()).hexdigest()

    def get(self, key: str) -> Outcome | None:
        return self.entries.get(key)

    def put(self, key: str, outcome: Outcome) -> None:
        if outcome.status == "crash":
            return  # an infrastructure failure says nothing about the bug: run it again next time
        self.entries[key] = outcome
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as f:
                f.write(json.dumps({"key": key, "outcome": outcome.to_json()}, sort_keys=True) + "\n")


# --------------------------------------------------------------------------- generation (driver side)
@dataclass
class _Candidate:
    """A single bug or a pair, with what validating it showed."""

    tier: str
    mods: tuple[Modification, ...]
    patch: str
    test_files: tuple[str, ...]
    key: str
    outcome: Outcome | None = None

    @property
    def functions(self) -> tuple[str, ...]:
        return tuple(f"{m.path}:{m.function}" for m in self.mods)


@dataclass
class _Budget:
    """Estimated validation seconds (`Target.estimate`): each library's own floor, then a shared pool.

    The floor gives every library some tasks; the pool goes to whichever library asks first, and
    libraries ask cheapest first, so the budget buys as many tasks as it can."""

    pool: dict[str, float]
    """Per tier, what is left of the shared pool."""

    def charge(self, own: dict[str, float], tier: str, cost: float) -> bool:
        """Pay ``cost`` from ``own`` (the library's floor), else from the pool; False once both are spent."""
        if own[tier] > 0:
            own[tier] -= cost
        elif self.pool[tier] > 0:
            self.pool[tier] -= cost
        else:
            return False
        return True

    def left(self, own: dict[str, float], tier: str) -> bool:
        return own[tier] > 0 or self.pool[tier] > 0


@dataclass
class _Library:
    target: Target
    order: list[Modification]
    originals: dict[str, str]
    runner: str
    want: dict[str, int]
    budget: dict[str, float]
    """Per tier, what is left of this library's floor (`_Budget`)."""
    shared: _Budget
    next: int = 0
    singles: list[_Candidate] = field(default_factory=list)
    pairs: dict[str, list[_Candidate]] = field(default_factory=dict)

    def candidate(self, tier: str, mods: Sequence[Modification]) -> _Candidate:
        patch = combined_patch(self.originals, mods)
        files = self.target.test_files(sorted({m.path for m in mods}))
        return _Candidate(tier, tuple(mods), patch, files, ValidationCache.key(self.target, patch, files, self.runner))

    def take(self, tier: str, bugs: Sequence[Sequence[Modification]]) -> list[_Candidate]:
        """Candidates for ``bugs``, in order, while the tier's budget lasts (the one that crosses it included)."""
        out = []
        for mods in bugs:
            c = self.candidate(tier, mods)
            if not self.shared.charge(self.budget, tier, self.target.estimate(c.test_files)):
                break
            out.append(c)
        return out

    @functools.cached_property
    def cost(self) -> float:
        """The mean estimated cost of a single-bug validation here (libraries ask for budget cheapest first)."""
        files = {m.path: self.target.test_files([m.path]) for m in self.order}
        return statistics.mean(self.target.estimate(f) for f in files.values()) if files else math.inf

    def job(self, c: _Candidate) -> Job:
        by_path: dict[str, list[Modification]] = {}
        for m in c.mods:
            by_path.setdefault(m.path, []).append(m)
        files = tuple((p, apply_bugs(self.originals[p], ms)) for p, ms in sorted(by_path.items()))
        timeout = max(10.0, 2.5 * self.target.suite_seconds + 5)  # a bug that makes a loop endless: dropped
        return Job(self.target.name, c.key, files, c.test_files, self.target.whole_suite(c.test_files), timeout)


def _kept(candidates: Iterable[_Candidate]) -> list[_Candidate]:
    """The valid candidates, in order, without a repeated patch or a repeated (functions, FAIL_TO_PASS)."""
    out, patches, signatures = [], set(), set()
    for c in candidates:
        if c.outcome is None or not c.outcome.valid:
            continue
        signature = (tuple(sorted(c.functions)), c.outcome.fail_to_pass)
        if c.patch in patches or signature in signatures:
            continue
        patches.add(c.patch)
        signatures.add(signature)
        out.append(c)
    return out


def _pairs(lib: _Library, tier: str, seed: int) -> list[_Candidate]:
    """Pairs of kept single bugs for ``tier``, in a seeded order, each bug in at most one pair."""
    singles = [c.mods[0] for c in _kept(lib.singles)]
    options = []
    for i, a in enumerate(singles):
        for b in singles[i + 1 :]:
            same_file = a.path == b.path
            if tier == "two_bugs" and (not same_file or a.function == b.function or not _apart(a, b)):
                continue
            if tier == "two_files" and same_file:
                continue
            first, second = sorted((a, b), key=lambda m: (m.path, m.first))
            options.append((stable_hash(f"{seed}/{tier}/{first.key}+{second.key}"), first, second))
    used: set[str] = set()
    out = []
    for _, a, b in sorted(options, key=lambda o: o[0]):
        if a.key in used or b.key in used:
            continue
        used.update((a.key, b.key))
        out.append(lib.candidate(tier, (a, b)))
    return out


def _apart(a: Modification, b: Modification) -> bool:
    return a.last < b.first or b.last < a.first


def _rebalance(libs: Sequence[_Library], tier: str, can_grow: Callable[[_Library], bool]) -> None:
    """Move what libraries that cannot grow will fall short of (in ``tier``) to those that can, evenly
    (a library with few functions, or a slow suite, gives its share to the others)."""
    short = 0
    for lib in libs:
        have = len(_kept(lib.singles if tier == "one_bug" else lib.pairs.get(tier, [])))
        if not can_grow(lib) and lib.want[tier] > have:
            short += lib.want[tier] - have
            lib.want[tier] = have
    growing = [lib for lib in libs if can_grow(lib)]
    for i, lib in enumerate(growing):
        lib.want[tier] += short // len(growing) + (1 if i < short % len(growing) else 0)


def _has_more(tier: str, taken: Mapping[str, int], options: Mapping[str, Sequence[_Candidate]], lib: _Library) -> bool:
    """Whether ``lib`` has pairs for ``tier`` not yet validated, and budget to validate them."""
    return taken[lib.target.name] < len(options[lib.target.name]) and lib.shared.left(lib.budget, tier)


def _round_size(need: int, tried: int, valid: int) -> int:
    rate = max(valid / tried, 0.15) if tried >= 10 else 0.5
    return max(8, math.ceil(need / rate * 1.2))


ProgressFactory = Callable[[int, str], Any]


def _tqdm(total: int, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="val", dynamic_ncols=True, file=sys.stderr)


def _validate(
    work: list[tuple[_Library, _Candidate]],
    executor: Executor,
    cache: ValidationCache,
    seconds: dict[str, list[float]],
    progress: ProgressFactory,
    desc: str,
) -> int:
    """Give every candidate of ``work`` its outcome (the cache's, else a run); how many were run."""
    todo: list[tuple[_Library, _Candidate]] = []
    for lib, c in work:
        c.outcome = cache.get(c.key)
        if c.outcome is None:
            todo.append((lib, c))
    todo.sort(key=lambda item: item[0].target.name)  # one library after another: workers switch sandboxes rarely
    jobs = [lib.job(c) for lib, c in todo]
    bar = progress(len(jobs), desc)
    try:
        for index, outcome in executor.run(jobs):
            lib, c = todo[index]
            c.outcome = outcome
            cache.put(c.key, outcome)
            bar.update(1)
    finally:
        bar.close()
    for lib, c in work:
        assert c.outcome is not None
        if c.outcome.status != "crash":
            seconds.setdefault(lib.target.name, []).append(c.outcome.seconds)
    return len(jobs)


def generate(
    targets: Sequence[Target],
    *,
    seed: int = 0,
    per_library: int = 100,
    per_function: int = 5,
    workers: int = 2,
    ray_address: str | None = None,
    budget: float = 3000.0,
    floor: float = 40.0,
    opener: Opener | None = None,
    cache: ValidationCache | None = None,
    progress: ProgressFactory = _tqdm,
) -> dict[str, Any]:
    """Validate candidates of every target and return ``{"manifests": {library: manifest}, "yield": ...}``
    (nothing is written; `write` does that)."""
    started = time.perf_counter()
    runner = runner_digest()
    cache = cache if cache is not None else ValidationCache(None)
    opener = opener if opener is not None else functools.partial(open_library_sandbox, backend="docker")
    want = {tier: round(per_library * share) for tier, share in SHARES.items()}
    libs = []
    # what the floors leave of the budget is shared (by tier: 70/15/15, as the tasks)
    shared = _Budget({tier: max(0.0, (budget - floor * len(targets)) * share) for tier, share in SHARES.items()})
    for t in sorted(targets, key=lambda t: t.name):
        originals = {p: read_source(t.root / p) for p in t.sources()}
        order = [m for m in candidate_order(t, seed, per_function) if t.test_files([m.path])]  # no test, no task
        own = {tier: floor * share for tier, share in SHARES.items()}
        libs.append(_Library(t, order, originals, runner, dict(want), own, shared))
    libs.sort(key=lambda lib: (lib.cost, lib.target.name))  # cheapest first: they ask for the pool first
    seconds: dict[str, list[float]] = {}
    ran = 0
    with Executor(
        {lib.target.name: lib.target for lib in libs}, opener, workers=workers, ray_address=ray_address
    ) as ex:
        # single bugs, in rounds sized from each library's yield so far
        for round_no in range(1, MAX_ROUNDS + 2):
            _rebalance(libs, "one_bug", lambda lib: lib.next < len(lib.order) and shared.left(lib.budget, "one_bug"))
            work: list[tuple[_Library, _Candidate]] = []
            for lib in libs:
                need = lib.want["one_bug"] - len(_kept(lib.singles))
                if need <= 0 or lib.next >= len(lib.order) or not shared.left(lib.budget, "one_bug"):
                    continue
                tried = len(lib.singles)
                valid = sum(1 for c in lib.singles if c.outcome is not None and c.outcome.valid)
                size = _round_size(need, tried, valid) if round_no <= MAX_ROUNDS else len(lib.order)
                batch = lib.take("one_bug", [(m,) for m in lib.order[lib.next : lib.next + size]])
                lib.next += len(batch)
                lib.singles.extend(batch)
                work.extend((lib, c) for c in batch)
            if not work:
                break
            ran += _validate(work, ex, cache, seconds, progress, f"one bug, round {round_no}")
        _rebalance(libs, "one_bug", lambda lib: False)
        # pairs: two bugs in one file, two bugs in two files; rounds as above, every library at once
        for tier in ("two_bugs", "two_files"):
            options = {lib.target.name: _pairs(lib, tier, seed) for lib in libs}
            taken = dict.fromkeys(options, 0)
            for lib in libs:
                lib.pairs[tier] = []
            for round_no in range(1, MAX_ROUNDS + 2):
                _rebalance(libs, tier, functools.partial(_has_more, tier, taken, options))
                work = []
                for lib in libs:
                    pairs = lib.pairs[tier]
                    need = lib.want[tier] - len(_kept(pairs))
                    start = taken[lib.target.name]
                    if need <= 0 or not _has_more(tier, taken, options, lib):
                        continue
                    chosen = options[lib.target.name][start : start + math.ceil(need * 1.3) + 1]
                    batch = lib.take(tier, [c.mods for c in chosen])
                    taken[lib.target.name] += len(batch)
                    pairs.extend(batch)
                    work.extend((lib, c) for c in batch)
                if not work:
                    break
                ran += _validate(work, ex, cache, seconds, progress, f"{tier}, round {round_no}")
            _rebalance(libs, tier, lambda lib: False)
    manifests = {lib.target.name: _manifest(lib, seed) for lib in libs}
    return {
        "manifests": manifests,
        "yield": _yield(libs, manifests, seconds, ran, time.perf_counter() - started, seed, per_library),
    }


def _task_id(tier: str, lib: str, mods: Sequence[Modification]) -> str:
    return f"swe/{tier}/{lib}/" + "+".join(m.key for m in mods)


def _task(lib: _Library, c: _Candidate) -> dict[str, Any]:
    assert c.outcome is not None
    return {
        "id": _task_id(c.tier, lib.target.name, c.mods),
        "library": lib.target.name,
        "version": lib.target.version,
        "tier": c.tier,
        "bugs": [Bug.of(m).to_json() for m in c.mods],
        "details": [m.detail for m in c.mods],
        "patch_sha256": sha256(c.patch),
        "FAIL_TO_PASS": list(c.outcome.fail_to_pass),
        "PASS_TO_PASS_count": c.outcome.pass_to_pass,
        "test_files": list(c.test_files),
        "whole_suite": lib.target.whole_suite(c.test_files),
        "failures": dict(c.outcome.failures),
        "seconds": c.outcome.seconds,
    }


def _manifest(lib: _Library, seed: int) -> dict[str, Any]:
    tasks = [_task(lib, c) for c in _kept(lib.singles)[: lib.want["one_bug"]]]
    for tier in ("two_bugs", "two_files"):
        tasks += [_task(lib, c) for c in _kept(lib.pairs.get(tier, []))[: lib.want[tier]]]
    return {
        "format": FORMAT,
        "library": lib.target.name,
        "version": lib.target.version,
        "seed": seed,
        "runner_sha256": lib.runner,
        "baseline_sha256": lib.target.baseline_sha256,
        "whole_suite_seconds": WHOLE_SUITE_SECONDS,
        "tasks": sorted(tasks, key=lambda t: t["id"]),
    }


def _yield(
    libs: Sequence[_Library],
    manifests: Mapping[str, Mapping[str, Any]],
    seconds: Mapping[str, list[float]],
    ran: int,
    wall: float,
    seed: int,
    per_library: int,
) -> dict[str, Any]:
    per_lib: dict[str, Any] = {}
    per_mod: dict[str, Counter[str]] = {m: Counter() for m in MODIFIERS}
    per_tier: dict[str, Counter[str]] = {t: Counter() for t in TIERS}
    for lib in libs:
        name = lib.target.name
        kept_ids = {t["id"] for t in manifests[name]["tasks"]}
        row: Counter[str] = Counter()
        groups = [lib.singles] + [lib.pairs.get(t, []) for t in ("two_bugs", "two_files")]
        for group in groups:
            deduped = {id(c) for c in _kept(group)}
            for c in group:
                assert c.outcome is not None
                counts = [row, per_tier[c.tier]] + ([per_mod[c.mods[0].modifier]] if c.tier == "one_bug" else [])
                for counter in counts:
                    counter["candidates"] += 1
                    counter[c.outcome.status] += 1
                    counter["valid"] += c.outcome.valid
                    counter["deduplicated"] += id(c) in deduped
                    counter["kept"] += _task_id(c.tier, name, c.mods) in kept_ids
        times = sorted(seconds.get(name, []))
        per_lib[name] = {
            **{k: row[k] for k in ("candidates", "valid", "deduplicated", "kept", "ok", "timeout", "crash")},
            "enumerated": len(lib.order),
            "tasks": {t: sum(1 for task in manifests[name]["tasks"] if task["tier"] == t) for t in TIERS},
            "seconds": [round(s, 3) for s in times],
            "median_seconds": round(statistics.median(times), 3) if times else None,
        }
    return {
        "seed": seed,
        "per_library": per_library,
        "libraries": per_lib,
        "modifiers": {m: dict(c) for m, c in per_mod.items()},
        "tiers": {t: dict(c) for t, c in per_tier.items()},
        "tasks": sum(len(m["tasks"]) for m in manifests.values()),
        "validations_run": ran,
        "wall_seconds": round(wall, 1),
    }


def dump_manifest(manifest: Mapping[str, Any]) -> str:
    """Compact JSON, one task a line (sorted keys: the same manifest gives the same bytes)."""
    head = {k: v for k, v in manifest.items() if k != "tasks"}
    lines = [json.dumps(t, sort_keys=True, separators=(",", ":"), ensure_ascii=False) for t in manifest["tasks"]]
    body = ",\n".join(lines)
    return json.dumps(head, sort_keys=True, separators=(",", ":"))[:-1] + ',"tasks":[\n' + body + "\n]}\n"


def write(result: Mapping[str, Any], out: Path = TASKS_DIR) -> list[Path]:
    """Write each library's manifest and ``yield.json`` under ``out``; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, manifest in sorted(result["manifests"].items()):
        path = out / f"{name}.json"
        path.write_text(dump_manifest(manifest))
        written.append(path)
    path = out / "yield.json"
    path.write_text(json.dumps(result["yield"], sort_keys=True, indent=1) + "\n")
    written.append(path)
    return written


def yield_table(data: Mapping[str, Any]) -> str:
    """The yield as Markdown tables: per library (with validation seconds) and per modifier."""
    lines = [
        "| library | candidates | valid | kept | timeouts | median s | p95 s | one_bug | two_bugs | two_files |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in sorted(data["libraries"].items()):
        times = row["seconds"]
        p95 = times[min(len(times) - 1, math.ceil(0.95 * len(times)) - 1)] if times else float("nan")
        median = statistics.median(times) if times else float("nan")
        tasks = row["tasks"]
        lines.append(
            f"| {name} | {row['candidates']} | {row['valid']} | {row['kept']} | {row['timeout']} | {median:.2f} | "
            f"{p95:.2f} | {tasks['one_bug']} | {tasks['two_bugs']} | {tasks['two_files']} |"
        )
    lines += ["", "| modifier | candidates | valid | kept (one bug) | yield |", "|---|---:|---:|---:|---:|"]
    for name, row in data["modifiers"].items():
        n = row.get("candidates", 0)
        lines.append(
            f"| {name} | {n} | {row.get('valid', 0)} | {row.get('kept', 0)} | "
            f"{row.get('valid', 0) / n if n else 0:.0%} |"
        )
    lines += ["", "| tier | candidates | valid | kept |", "|---|---:|---:|---:|"]
    for name, row in data["tiers"].items():
        lines.append(f"| {name} | {row.get('candidates', 0)} | {row.get('valid', 0)} | {row.get('kept', 0)} |")
    return "\n".join(lines)


# --------------------------------------------------------------------------- command line
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agentgym.envs.swe.generate", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    parser.add_argument("--libraries", nargs="*", help="library names (default: every library with a baseline)")
    parser.add_argument("--seed", type=int, default=0, help="orders the candidates and the pairs")
    parser.add_argument("--per-library", type=int, default=100, help="tasks wanted per library (70/15/15 by tier)")
    parser.add_argument("--per-function", type=int, default=5, help="at most this many candidates from one function")
    parser.add_argument(
        "--budget",
        type=float,
        default=3000.0,
        help="estimated validation seconds in all (a validation: its library's suite time by the share of tests "
        "run, plus overhead; 70/15/15 by tier); measured here, a validation took 1.3-1.7x its estimate",
    )
    parser.add_argument(
        "--floor", type=float, default=40.0, help="of --budget, estimated seconds each library gets before the pool"
    )
    parser.add_argument(
        "--max-suite-seconds",
        type=float,
        default=MAX_SUITE_SECONDS,
        help="without --libraries, leave out libraries whose baseline suite is slower",
    )
    parser.add_argument("--workers", type=int, default=2, help="worker processes (one sandbox each), or Ray actors")
    parser.add_argument("--ray-address", default=None, help="run the workers as Ray actors on this cluster ('auto')")
    parser.add_argument("--backend", default="docker", help="sandbox backend (docker; local runs library code here)")
    parser.add_argument("--cache", type=Path, default=None, help=f"validation cache (default {default_cache_path()})")
    parser.add_argument("--no-cache", action="store_true", help="run every validation again")
    parser.add_argument("--out", type=Path, default=TASKS_DIR, help="where the manifests and yield.json go")
    args = parser.parse_args(argv)
    names = args.libraries or [
        name for name in usable_libraries() if load_baseline(name)["seconds"] <= args.max_suite_seconds
    ]
    if not names:
        raise ConfigError("no library has a usable baseline: run `python -m agentgym.envs.swe.baseline` first")
    targets = [load_target(name) for name in names]
    cache = ValidationCache(None if args.no_cache else (args.cache or default_cache_path()))
    opener = functools.partial(open_library_sandbox, backend=args.backend)
    result = generate(
        targets,
        seed=args.seed,
        per_library=args.per_library,
        per_function=args.per_function,
        budget=args.budget,
        floor=args.floor,
        workers=args.workers,
        ray_address=args.ray_address,
        opener=opener,
        cache=cache,
    )
    for path in write(result, args.out):
        print(f"wrote {path}")
    print(yield_table(result["yield"]))
    y = result["yield"]
    print(f"{y['tasks']} tasks; {y['validations_run']} validations run in {y['wall_seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    # through the module's own name, so worker processes unpickle the same classes this one made
    from agentgym.envs.swe.generate import main as _main

    sys.exit(_main())
