"""`CodingEnv`: fix injected bugs in a small Python repository inside the sandbox."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from agentgym import events as ev
from agentgym.core import FAULT_KINDS, AgentEnv, Outcome, ParsedAction
from agentgym.envs.coding import grammar, verifier
from agentgym.envs.coding.result_cache import (
    ResultCache,
    TestRun,
    cache_key,
    environment_id,
    process_cache,
    task_digest,
    workspace_digest,
)
from agentgym.envs.coding.tasks import Candidate, default_taskset
from agentgym.errors import ConfigError, SandboxOpError
from agentgym.repo.diffs import PatchMismatch, apply_patch
from agentgym.repo.views import echo, full_diff, render_view
from agentgym.sandbox.modules import SandboxModule
from agentgym.tasks import Task, TaskSet

__all__ = ["CodingEnv"]

RUNNER_MODULE = SandboxModule.from_file("agentgym_coding_runner", Path(__file__).with_name("runner.py"))
RUNNER = RUNNER_MODULE.name
_MAX_SHELL_OUTPUT = 16_384


class CodingEnv(AgentEnv):
    """Fix the bugs injected into a small Python repository so that its hidden tests pass.

    ## Description
    Each task is a corpus module (string and text utilities, parsers, numeric helpers, data
    structures, dates and units, small algorithms) with one or two bugs injected by AST
    mutation, and its visible tests; the hidden tests are a superset of them. Tiers:
    ``one_bug``, ``two_bugs`` (one module), ``cross_file`` (two modules, a bug in each).

    ## Action Space
    A ``str`` in the grammar printed by ``help`` (`agentgym.envs.coding.grammar.HELP`): ``view``,
    ``run``, ``replace``, ``patch``, ``test``, ``revert``, ``submit``. ``info["admissible_actions"]``
    holds a menu in the same grammar: run the tests, view each file, candidate patches (each
    bug's true fix and plausible wrong patches nearby), revert, submit.

    ## Observation Space
    ``{"text": str}``: the bug report at reset, then each action's output (file views with line
    numbers, test reports, command output, errors that say what the grammar expects).

    ## Rewards
    1.0 when the hidden tests pass at ``submit``, else 0.0, decided outside every process that
    runs agent code: the hidden tests' operations on the reference are replayed on the agent's
    modules and the results compared on the host (`agentgym.envs.coding.verifier`). Subtask
    events (each bug's fix in place, the visible tests passing) feed `ProcessReward`.

    ## Starting State
    A task drawn from ``split`` (``train``, ``test`` or ``heldout``; held-out modules never appear
    in training) with the env's seeded generator, or ``options={"task_id": ...}``.

    ## Episode End
    ``terminated`` on ``submit``; ``truncated`` only by budget wrappers.

    ## Arguments
    ``split``, ``tiers`` (sample only these tiers), ``backend`` (``docker``, ``local``, ``auto``),
    ``test_timeout`` (seconds, for a visible test run and for the verifier's replay) and
    ``shell_timeout``, ``test_runner`` (``"auto"`` calls plain test functions directly with
    pytest's assertion rewriting; ``"pytest"`` starts a pytest session per run),
    ``score_on_truncation``, ``sandbox_options``, ``result_cache`` (opt-in: ``True`` for this
    process's cache, kept on disk too unless ``AGENTGYM_DISK_CACHE=0``, or a shared
    `agentgym.envs.coding.result_cache.ResultCache`, with or without a ``DiskStore``): visible test
    runs and verifications are looked up by task, what ran, runner, timeout, sandbox backend and
    options, and the exact content of every workspace file, and a hit rebuilds the same
    observation, events and reward as a run.
    The cache serves an episode only until its first ``run`` or free-text edit (see that module);
    a run that timed out is stored only once it timed out twice. ``info["cost"]["cache_hit"]`` says whether a step's
    test run or verification came from it.

    ## Interventions
    Forced starts for ``agentgym eval --intervention`` (`forced_start`), chosen from the task alone:
    ``wrong-patch`` plays `wrong_patch` as the agent's first action; ``wrong-patch-tested`` plays it
    and then ``test``. ``state_drift@mutation=1`` (a fault spec, `agentgym.wrappers.parse_faults`)
    silently undoes the agent's first edit: `_drift` puts the file back to its initial content.

    ## Version History
    * v0: initial release.
    """

    family = "coding"
    fault_kinds = FAULT_KINDS
    action_form = "commands: view, run, replace, patch, test, revert, submit"
    """What an action looks like, in a few words (`agentgym list`); ``help`` shows the whole grammar."""
    image = "agentgym/coding:latest"
    sandbox_modules = (RUNNER_MODULE, verifier.HARNESS_MODULE)
    submit_text = "Submitted; the hidden tests decide."
    verification_action = "test"  # what benchmarks/envs.py times as a test run
    interventions = ("wrong-patch", "wrong-patch-tested")

    def __init__(
        self,
        *,
        test_timeout: float = 10.0,
        shell_timeout: float = 10.0,
        test_runner: str = "auto",
        result_cache: bool | ResultCache | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)  # split, tiers, backend, render_mode, ...: see AgentEnv
        if test_timeout <= 0 or shell_timeout <= 0:
            raise ConfigError(
                f"timeouts must be positive, got test_timeout={test_timeout}, shell_timeout={shell_timeout}"
            )
        if test_runner not in ("auto", "pytest"):
            raise ConfigError(f"test_runner={test_runner!r}; choose 'auto' (plain tests called directly) or 'pytest'")
        self.test_runner = test_runner
        self.test_timeout = float(test_timeout)
        self.shell_timeout = float(shell_timeout)
        self._files: dict[str, str | None] = {}
        self._history: list[dict[str, str | None]] = []
        self._tested = False
        self._last_edited: str | None = None
        self._subtasks: dict[str, bool] = {}
        self._menu_cache: tuple[int, list[str]] | None = None
        self._version = 0
        self.last_verdict: verifier.Verdict | None = None  # host-side detail of the last verification
        if result_cache is not None and not isinstance(result_cache, (bool, ResultCache)):
            raise ConfigError(
                f"result_cache={result_cache!r}; pass True (this process's cache), a ResultCache, or None"
            )
        self.result_cache: ResultCache | None = (
            process_cache() if result_cache is True else result_cache if isinstance(result_cache, ResultCache) else None
        )
        self._cache_ok = False  # the cache may serve this episode (no `run`, no free-text edit yet)
        self._cache_hit = False  # this step's test run or verification came from the cache
        self._menu_step = False  # this step's action is a menu entry
        self._task_hashes: dict[str, str] = {}
        self._warm_tests: set[tuple[tuple[str, str], ...]] = set()  # test files the step server has compiled

    # ------------------------------------------------------------------ family hooks
    @classmethod
    def _taskset(cls) -> TaskSet:
        return default_taskset()

    def _on_sandbox_start(self) -> None:
        self.sandbox.snapshot("empty")
        self._warm_tests = set()

    def _setup_task(self, task: Task) -> str:
        self._cache_ok, self._cache_hit = self.result_cache is not None, False
        # held back until something runs or reads in the sandbox: an episode the result cache
        # serves throughout never needs its files there (`Sandbox.restore`'s ``defer``)
        self.sandbox.restore("empty", defer=self._cache_ok)
        self.sandbox.write_files(task.files, defer=self._cache_ok)
        self._files = dict(task.files)
        self._history = []
        self._tested = False
        self._last_edited = None
        self._echoed: tuple[str, list[tuple[str, str, str]]] = (
            "",
            [],
        )  # the last edit's (head, [(path, before, after)])
        self._reports: list[str] = []  # the visible tests' reports this episode, oldest first
        self._subtasks = {name: False for name in task.subtasks}
        self._changed()
        return task.instruction

    @property
    def _episode_task(self) -> Task:
        """The task of the episode under way: the helpers that read it run only after a reset."""
        assert self.task is not None, "no episode under way: call reset() first"
        return self.task

    def _parse(self, action: str) -> ParsedAction:
        return grammar.parse(action)

    def _execute(self, action: ParsedAction) -> Outcome:
        handler = getattr(self, f"_do_{action.name}")
        return handler(**action.args)

    def _verify(self) -> bool:
        """The hidden tests' operations replayed on the agent's modules and compared here (verifier.py)."""
        meta = self._episode_task.meta
        key, cache = self._cache_key("verify"), self.result_cache
        cached = cache.get(key, "verify") if key is not None and cache is not None else None
        if cached is not None:
            self.last_verdict, self._cache_hit = cached, True
            return cached.passed
        self.last_verdict = verifier.verify(self.sandbox, meta["reference"], meta["hidden"], timeout=self.test_timeout)
        if key is not None and cache is not None:
            cache.put(
                key,
                "verify",
                self.last_verdict,
                timed_out=self.last_verdict.reason == verifier.TIMED_OUT,
                cpu_bound=self._cpu_bound(self.last_verdict.busy_seconds),
            )
        return self.last_verdict.passed

    def _admissible(self) -> list[str]:
        if self._menu_cache is not None and self._menu_cache[0] == self._version:
            return list(self._menu_cache[1])
        menu = ["test"] + [f"view {path}" for path in self._episode_task.files]
        menu += list(self._menu_patches(self._files))
        if self._history:
            menu.append("revert")
        menu.append("submit")
        self._menu_cache = (self._version, menu)
        return list(menu)

    def _menu_patches(self, files: dict[str, str | None]) -> dict[str, bool]:
        """The menu's patch actions on ``files``, in menu order, each mapped to whether it is a bug's
        true fix (a text both a fix and a decoy produce counts as a fix)."""
        patches: dict[str, bool] = {}
        for cand in self._candidates():
            text = files.get(cand.file)
            diff = cand.patch(text) if text is not None else None
            if diff is not None:
                action = "patch\n" + diff
                patches[action] = patches.get(action, False) or bool(cand.fix)
        return patches

    def _drift(self) -> str | None:
        """State drift: the last edited file silently goes back to its initial (buggy) content."""
        path = self._last_edited
        initial = self._episode_task.files
        if path is None or self._files.get(path) == initial[path]:
            return None
        self.sandbox.write_files({path: initial[path]}, defer=self._cache_ok)
        self._files[path] = initial[path]
        self._changed()
        return f"{path} reverted to its initial content"

    def rate_limit_text(self, tool: str, turns: int) -> str:
        """The sandbox's command quota refusing the run: nothing ran, and when it will run again."""
        what = {"shell": "command", "tests": "test run", "view": "read", "edit": "edit"}.get(tool, tool)
        return (
            f"error: {what} refused: too many requests to the sandbox (rate limit); nothing ran. "
            f"Retry in {turns} turn{'s' * (turns != 1)}."
        )

    def wrong_value(self, action: ParsedAction, text: str) -> str | None:
        """A stale copy: ``view`` shows the file as it was before its last change, an edit's echo the
        lines as they read before the edit, ``test`` the previous different report. None when there
        is no older state that differs (a file never edited, a first test run)."""
        if action.name == "view":
            path = action.args["path"]
            stale = self._stale_copy(path)
            if stale is None:
                return None
            return render_view(path, stale, action.args.get("start"), action.args.get("end"))
        if action.name in ("patch", "replace"):
            head, edits = self._echoed
            if not edits:
                return None
            return head + "\n".join(echo(p, after, before) for p, before, after in edits)
        if action.name == "test":
            older = [r for r in self._reports[:-1] if r != text]
            if not older:
                return None
            self._tested = False  # the agent saw an old report: the oracle runs the tests again
            return older[-1]
        return None

    def _stale_copy(self, path: str) -> str | None:
        """The content ``path`` had before its last change (None: never changed, or it did not exist)."""
        current = self._files.get(path)
        for snapshot in reversed(self._history):
            if path in snapshot and snapshot[path] != current:
                return snapshot[path]
        initial = self._episode_task.files.get(path)
        return initial if initial != current else None

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.result_cache is not None:
            self._cache_hit = False
            self._menu_step = (
                isinstance(action, str) and self.task is not None and not self._done and action in self._admissible()
            )
        return super().step(action)

    def _info(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        info = super()._info(events)
        if self.result_cache is not None:
            info["cost"]["cache_hit"] = self._cache_hit
        return info

    def _cache_key(self, kind: str) -> tuple[Any, ...] | None:
        """The result-cache key of running ``kind`` now, or None when the cache may not serve this episode."""
        if not self._cache_ok or self.result_cache is None or self.task is None:
            return None
        task_hash = self._task_hashes.get(self.task.task_id)
        if task_hash is None:
            task_hash = self._task_hashes[self.task.task_id] = task_digest(self.task.meta)
        # the backend, its limits and what runs the code (image or host interpreter): each can change an outcome
        sandbox = (
            f"{getattr(self.sandbox, 'backend', self.backend)}:{sorted(self.sandbox_options.items())!r}:"
            f"{environment_id(self.sandbox)}"
        )
        return cache_key(
            self.task.task_id,
            task_hash,
            kind,
            self.test_runner,
            self.test_timeout,
            workspace_digest(self._files),
            sandbox,
        )

    # ------------------------------------------------------------------ interventions
    def wrong_patch(self) -> str | None:
        """The wrong patch the interventions force: among the patches of the task's reset menu that
        fix no bug (so never `reference_action`'s fix), the one with the lowest
        ``sha256(task_id + "\\n" + action)``. A function of the task alone (not the seed, the
        state, the agent or the budget); None when the menu has no wrong patch."""
        task = self._episode_task
        wrong = [a for a, fix in self._menu_patches(dict(task.files)).items() if not fix]
        if not wrong:
            return None
        return min(wrong, key=lambda a: hashlib.sha256(f"{task.task_id}\n{a}".encode()).hexdigest())

    def forced_start(self, name: str) -> list[str] | None:
        """``wrong-patch``: `wrong_patch`; ``wrong-patch-tested``: it, then ``test`` (see `AgentEnv.forced_start`)."""
        if name not in self.interventions:
            return super().forced_start(name)
        patch = self.wrong_patch()
        if patch is None:
            return None
        return [patch, "test"] if name == "wrong-patch-tested" else [patch]

    # ------------------------------------------------------------------ the oracle
    def reference_action(self) -> str:
        """The oracle: fix what differs from the correct code (true fixes first), test once, submit.

        It reads the true state, so it recovers from faults, drift and wrong patches.
        """
        if self.task is None:
            return ""
        if (wait := self.oracle_wait()) is not None:
            return wait
        originals: dict[str, str] = self.task.meta["originals"]
        for path in sorted(originals):
            current, original = self._files.get(path), originals[path]
            if current == original:
                continue
            if current is None:
                return (
                    f"run rm -rf -- {path} && cat > {path} <<'AGENTGYM_EOF'\n{original.rstrip(chr(10))}\nAGENTGYM_EOF"
                )
            for cand in self.task.meta["candidates"]:
                if cand.fix and cand.file == path:
                    diff = cand.patch(current)
                    if diff is not None:
                        return "patch\n" + diff
            return "patch\n" + full_diff(path, current, original)
        return "submit" if self._tested else "test"

    # ------------------------------------------------------------------ actions
    def help_text(self) -> str:
        """What ``help`` shows (the action grammar), for agents that prompt with it without spending a turn."""
        return grammar.HELP

    def _do_view(self, path: str, start: int | None = None, end: int | None = None) -> Outcome:
        text = self._read(path)
        if text is None:
            return Outcome(
                f"error: {path} does not exist. Files: {', '.join(self._existing())}.",
                [ev.tool_call("view", False, "not_found"), ev.state_mismatch(f"missing path {path}")],
            )
        shown = render_view(path, text, start, end)
        if shown is None:
            lines = len(text.splitlines())
            first, last = (start or 1), (end if end is not None else lines)
            return Outcome(
                f"error: {path} has {lines} lines; lines {first}-{last} are out of range.",
                [ev.tool_call("view", False, "not_found"), ev.state_mismatch(f"lines {first}-{last} outside {path}")],
            )
        return Outcome(shown, [ev.tool_call("view", True)])

    def _do_run(self, command: str) -> Outcome:
        self._cache_ok = False  # a shell can change state the cache key does not see
        r = self.sandbox.run(command, timeout=self.shell_timeout, max_output=_MAX_SHELL_OUTPUT)
        events = [ev.tool_call("shell", not r.timed_out, "timeout" if r.timed_out else None)]
        current = self.sandbox.call(RUNNER, "read_files", paths=sorted(self._files))
        refused = {p: t["error"] for p, t in current.items() if isinstance(t, dict)}
        current = {p: (None if p in refused else t) for p, t in current.items()}  # unreadable counts as gone
        changed = {p: t for p, t in current.items() if t != self._files.get(p)}
        if changed:
            self._history.append({p: self._files.get(p) for p in changed})
            self._files.update(changed)
            self._last_edited = sorted(changed)[0]
            self._changed()
            events += [ev.mutation(p) for p in sorted(changed)] + self._subtask_events()
        status = f"[timed out after {self.shell_timeout:g}s]" if r.timed_out else f"[exit code {r.exit_code}]"
        status += "".join(f"\nerror: {p} {why}; the env treats it as missing." for p, why in sorted(refused.items()))
        events += [ev.state_mismatch(f"{p} {why}") for p, why in sorted(refused.items())]
        return Outcome(f"{r.text}{'' if r.text.endswith(chr(10)) or not r.text else chr(10)}{status}", events)

    def _do_replace(self, path: str, start: int, end: int, lines: list[str]) -> Outcome:
        text = self._read(path)
        if text is None:
            return Outcome(
                f"error: {path} does not exist. Files: {', '.join(self._existing())}.",
                [ev.tool_call("edit", False, "not_found"), ev.state_mismatch(f"missing path {path}")],
            )
        old = text.splitlines()
        if start > len(old) + 1 or end > len(old):
            return Outcome(
                f"error: {path} has {len(old)} lines; cannot replace lines {start}-{end}.",
                [ev.tool_call("edit", False, "not_found"), ev.state_mismatch(f"lines {start}-{end} outside {path}")],
            )
        new = old[: start - 1] + list(lines) + old[end:]
        self._cache_ok = False  # agent-written code: it may keep state or read clocks (result_cache.py)
        after = "\n".join(new) + "\n" if new else ""
        self._write({path: after})
        what = (
            f"inserted {len(lines)} line(s) before line {start}"
            if end < start
            else f"replaced lines {start}-{end} with {len(lines)} line(s)"
        )
        self._echoed = (f"{path}: {what}.\n", [(path, text, after)])
        return Outcome(
            f"{path}: {what}.\n{echo(path, text, after)}",
            [ev.tool_call("edit", True), ev.mutation(path)] + self._subtask_events(),
        )

    def _do_patch(self, patches: list) -> Outcome:
        files = {fp.path: self._read(fp.path) for fp in patches}
        try:
            new = apply_patch(files, patches)
        except PatchMismatch as exc:
            return Outcome(
                f"error: the patch does not apply: {exc}",
                [ev.tool_call("edit", False, "conflict"), ev.state_mismatch(str(exc).split(";")[0])],
            )
        self._cache_ok = self._cache_ok and self._menu_step  # only menu patches keep the cache valid
        self._write(new)
        hunks = sum(len(fp.hunks) for fp in patches)
        self._echoed = (
            f"Patched {', '.join(sorted(new))} ({hunks} hunk{'s' * (hunks > 1)}).\n",
            [(p, files.get(p) or "", new[p]) for p in sorted(new)],
        )
        echoes = "\n".join(echo(p, files.get(p) or "", new[p]) for p in sorted(new))
        return Outcome(
            f"Patched {', '.join(sorted(new))} ({hunks} hunk{'s' * (hunks > 1)}).\n{echoes}",
            [ev.tool_call("edit", True)] + [ev.mutation(p) for p in sorted(new)] + self._subtask_events(),
        )

    def _do_revert(self) -> Outcome:
        if not self._history:
            return Outcome(
                "error: there is no edit to revert.",
                [ev.tool_call("edit", False, "not_found"), ev.state_mismatch("no edit to revert")],
            )
        previous = self._history.pop()
        present = {p: t for p, t in previous.items() if t is not None}
        if present:
            self.sandbox.write_files(present, defer=self._cache_ok)
        for p in (p for p, t in previous.items() if t is None):
            self.sandbox.run(["rm", "-f", "--", p])
        self._files.update(previous)
        self._last_edited = sorted(previous)[0]
        self._changed()
        return Outcome(
            f"Reverted the last edit to {', '.join(sorted(previous))}.",
            [ev.tool_call("edit", True)] + [ev.mutation(p) for p in sorted(previous)] + self._subtask_events(),
        )

    def _do_test(self) -> Outcome:
        r = self._visible_run()
        if r.timed_out:
            return Outcome(
                f"{r.text}\nerror: the test run timed out after {self.test_timeout:g}s "
                "(an infinite loop?) and was stopped.",
                [ev.tool_call("tests", False, "timeout"), ev.verification(False, "visible tests")],
            )
        if r.error is not None or not isinstance(r.value, dict):
            return Outcome(
                f"{r.text}\nerror: the test runner crashed: {r.error}",
                [ev.tool_call("tests", False, "crash"), ev.verification(False, "visible tests")],
            )
        self._tested = True
        self._reports.append(r.text.rstrip("\n"))
        result = r.value
        events = [ev.tool_call("tests", True), ev.verification(bool(result["passed"]), "visible tests")]
        return Outcome(r.text.rstrip("\n"), events + self._subtask_events(visible_tests=bool(result["passed"])))

    def _visible_run(self) -> Any:
        """The visible tests' run (text, value, timed_out, error): from the result cache when it may serve."""
        key, cache = self._cache_key("test"), self.result_cache
        cached = cache.get(key, "test") if key is not None and cache is not None else None
        if cached is not None:
            self._cache_hit = True
            return cached
        task = self._episode_task
        tests = tuple((p, task.files[p]) for p in task.meta["visible_test_files"] if p in task.files)
        if tests not in self._warm_tests:  # the task's own test files, compiled once per sandbox (runner.warm)
            self.sandbox.call(RUNNER, "warm", files=dict(tests))
            self._warm_tests.add(tests)
        r = self.sandbox.fork_call(
            RUNNER,
            "run_visible",
            timeout=self.test_timeout,
            test_files=list(task.meta["visible_test_files"]),
            runner=self.test_runner,
        )
        if key is not None and cache is not None:  # a timeout is stored once it repeats, or at once if it computed
            cache.put(
                key,
                "test",
                TestRun(r.text, r.value, r.timed_out, r.error),
                timed_out=r.timed_out,
                cpu_bound=self._cpu_bound(r.busy_seconds),
            )
        return r

    def _cpu_bound(self, busy_seconds: float | None) -> bool:
        """A timed-out run that used at least half its timeout in CPU was looping, not starved by load
        (never for timeouts too short to tell: CPU time is counted in 10 ms ticks)."""
        return busy_seconds is not None and busy_seconds >= max(0.5 * self.test_timeout, 0.1)

    # ------------------------------------------------------------------ state helpers
    def _read(self, path: str) -> str | None:
        path = path[2:] if path.startswith("./") else path
        if path in self._files:
            return self._files[path]
        try:
            return self.sandbox.read_file(path, max_bytes=1 << 20).decode("utf-8", "replace")
        except SandboxOpError:
            return None

    def _existing(self) -> list[str]:
        return [p for p, t in self._files.items() if t is not None]

    def _write(self, files: dict[str, str]) -> None:
        # menu edits while the cache may serve are held back (`_setup_task`); an agent-written
        # edit (the cache off) is sent at once, so a refused path fails its own step
        self.sandbox.write_files(files, defer=self._cache_ok)
        self._history.append({p: self._files.get(p) for p in files})
        for p in files:
            if p not in self._files:
                self._files[p] = None  # now tracked, so shell edits to it are seen
        self._files.update(files)
        self._last_edited = sorted(files)[0]
        self._changed()

    def _changed(self) -> None:
        self._tested = False
        self._version += 1

    def _candidates(self) -> list[Candidate]:
        """The task's candidate patches in an order fixed per task (the true fix is not always first)."""
        meta = self._episode_task.meta
        cands, seed = list(meta["candidates"]), meta["menu_seed"]
        return [c for _, c in sorted(enumerate(cands), key=lambda ic: (seed * (ic[0] + 1) * 2654435761) % (1 << 32))]

    def _subtask_events(self, visible_tests: bool | None = None) -> list[dict[str, Any]]:
        """Subtasks whose status this step changed (as in every family): each bug counts as fixed
        when its fix is in place (a text check: hidden tests never run during the episode), the
        visible tests by their last run."""
        state = dict(self._subtasks)
        if visible_tests is not None:
            state["visible_tests"] = visible_tests
        meta = self._episode_task.meta
        bugs = meta["bugs"]
        for bug, fix in zip(bugs, meta["candidates"][: len(bugs)]):
            text = self._files.get(fix.file) or ""
            if fix.locate(text) is not None:
                state[bug.subtask] = False
            elif Candidate(fix.file, fix.line, fix.new, fix.old, False).locate(text) is not None:
                state[bug.subtask] = True
        return ev.subtask_changes(self._subtasks, state)
