"""`SWEEnv`: fix a bug in a real Python library, judged by the library's own tests."""

from __future__ import annotations

import hashlib
import os
import re
import shlex
from typing import Any, ClassVar

from agentgym import events as ev
from agentgym.core import FAULT_KINDS, AgentEnv, Outcome, ParsedAction
from agentgym.envs.swe import grammar, trees
from agentgym.envs.swe.build import STATEMENTS, Candidate, default_taskset
from agentgym.envs.swe.build import statement as write_statement
from agentgym.envs.swe.fix_rules import check_fix
from agentgym.envs.swe.sandboxing import RUNNER, RUNNER_MODULE, load_library
from agentgym.envs.swe.verdict import Verdict, changed_sources, read_sources, verify
from agentgym.errors import ConfigError, SandboxOpError
from agentgym.repo.diffs import PatchMismatch, apply_patch
from agentgym.repo.views import echo, full_diff, render_view
from agentgym.tasks import Task, TaskSet

__all__ = ["SWEEnv"]

_MAX_SHELL_OUTPUT = 16_384
_MAX_TEST_LINES = 40
_MAX_SEARCH_LINES = 40
_LIBRARY = "library"  # the snapshot of the library's pristine tree in the workspace


class SWEEnv(AgentEnv):
    """Fix a bug injected into a real open-source Python library so that its own tests pass.

    ## Description
    Each task is a pinned, permissively licensed pure-Python library (fetched by ``agentgym setup
    --only swe``) with one or two bugs injected by a procedural modifier (SWE-smith's method),
    kept only when the library's own tests show some test going from pass to fail and others still
    passing. The statement is written from the failing tests (their ids and what pytest printed),
    as a user would file it. Tiers: ``one_bug``, ``two_bugs`` (two functions of one file),
    ``two_files``.

    ## Action Space
    A ``str`` in the grammar printed by ``help`` (`agentgym.envs.swe.grammar.HELP`): ``view``,
    ``search``, ``find``, ``run``, ``replace``, ``patch``, ``test [IDS]``, ``revert``, ``submit``.
    ``info["admissible_actions"]`` holds a menu in the same grammar: run the failing tests, view each
    file with a failing function, search for the names the failures print, candidate patches (each
    bug's true fix and other modifications of the same function), revert, submit.

    ## Observation Space
    ``{"text": str}``: the statement and the repository's tree at reset, then each action's output.

    ## Rewards
    1.0 when every FAIL_TO_PASS test and the task's PASS_TO_PASS sample pass at ``submit``, run on a
    clean workspace with only the agent's source changes applied, else 0.0
    (`agentgym.envs.swe.verdict`). Subtask events (each buggy file restored, each failing test seen
    passing in a ``test`` run) feed `ProcessReward`.

    ## Starting State
    A task drawn from ``split`` (``train``, ``test``: held out by source file; ``heldout``: whole
    libraries never trained on), or ``options={"task_id": ...}``.

    ## Episode End
    ``terminated`` on ``submit``; ``truncated`` only by budget wrappers.

    ## Arguments
    ``split``, ``tiers``, ``libraries`` (sample only these), ``statement`` (``"full"`` or
    ``"minimal"``), ``test_timeout`` (seconds for a ``test`` run and for the verdict), ``shell_timeout``,
    ``full_pass_to_pass`` (the verdict runs every PASS_TO_PASS test of the validated files instead of
    a fixed sample of 30), ``backend``, ``score_on_truncation``, ``sandbox_options``.

    ## Interventions
    Forced starts for ``agentgym eval --intervention``, chosen from the task alone: ``wrong-patch``
    plays `wrong_patch` (a menu patch that fixes nothing) as the agent's first action;
    ``wrong-patch-tested`` plays it and then ``test``. ``state_drift`` faults put the last edited
    file back to its content at the task's start.

    ## Version History
    * v0: initial release.
    """

    family = "swe"
    fault_kinds = FAULT_KINDS
    action_form = "commands: view, search, find, run, replace, patch, test, revert, submit"
    image = "agentgym/swe:latest"
    sandbox_modules = (RUNNER_MODULE,)
    submit_text = "Submitted; the library's tests decide."
    verification_action = "test"
    interventions = ("wrong-patch", "wrong-patch-tested")
    backends: ClassVar[tuple[str, ...]] = ("docker",)
    """The sandbox backends this family runs on: the tasks were validated with the image's Python and
    pytest, and a host's differ (another pytest can collect, order or report the same tests otherwise)."""

    def __init__(
        self,
        *,
        statement: str = "full",
        test_timeout: float = 60.0,
        shell_timeout: float = 10.0,
        full_pass_to_pass: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)  # split, tiers, libraries, backend, render_mode, ...: see AgentEnv
        if statement not in STATEMENTS:
            raise ConfigError(f"statement={statement!r}; choose from {STATEMENTS}")
        if test_timeout <= 0 or shell_timeout <= 0:
            raise ConfigError(
                f"timeouts must be positive, got test_timeout={test_timeout}, shell_timeout={shell_timeout}"
            )
        self.statement = statement
        self.test_timeout = float(test_timeout)
        self.shell_timeout = float(shell_timeout)
        self.full_pass_to_pass = bool(full_pass_to_pass)
        self._library: str | None = None  # the library whose tree the workspace's snapshot holds
        self._files: dict[str, str | None] = {}
        self._history: list[dict[str, str | None]] = []
        self._tested = False
        self._last_edited: str | None = None
        self._subtasks: dict[str, bool] = {}
        self._reports: list[str] = []
        self._echoed: tuple[str, list[tuple[str, str, str]]] = ("", [])
        self.last_verdict: Verdict | None = None

    # ------------------------------------------------------------------ family hooks
    @classmethod
    def _taskset(cls) -> TaskSet:
        return default_taskset()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        chosen = os.environ.get("AGENTGYM_BACKEND") or "auto" if self.backend == "auto" else self.backend
        if chosen not in (*self.backends, "auto"):
            raise ConfigError(
                f"backend={self.backend!r}: SWE-v0 runs only in Docker (its tasks were validated with the "
                f"image's Python and pytest); use backend='docker' (or 'auto') after `agentgym setup --only swe`"
            )
        return super().reset(seed=seed, options=options)

    def _on_sandbox_start(self) -> None:
        self.sandbox.snapshot("empty")
        self._library = None

    def _setup_task(self, task: Task) -> str:
        name = task.meta["library"]
        if self._library != name:
            # preparing the sandbox for a library is its start-up, as starting it is: not the episode's cost
            before = getattr(self.sandbox, "calls", 0)
            self.sandbox.restore("empty")
            load_library(self.sandbox, name, warm=False)  # never: the pristine code would sit in test runs
            self.sandbox.snapshot(_LIBRARY)
            self._library = name
            self._env_calls -= getattr(self.sandbox, "calls", 0) - before
        self.sandbox.restore(_LIBRARY)
        self.sandbox.write_files(task.files)
        self._files = dict(task.files)
        self._history = []
        self._tested = False
        self._last_edited = None
        self._reports = []
        self._echoed = ("", [])
        self._subtasks = {name: False for name in task.subtasks}
        self.last_verdict = None
        return task.instruction if self.statement == "full" else write_statement(task.meta["record"], self.statement)

    @property
    def _episode_task(self) -> Task:
        assert self.task is not None, "no episode under way: call reset() first"
        return self.task

    def _parse(self, action: str) -> ParsedAction:
        return grammar.parse(action)

    def _execute(self, action: ParsedAction) -> Outcome:
        handler = getattr(self, f"_do_{action.name}")
        return handler(**action.args)

    def help_text(self) -> str:
        return grammar.HELP

    def _verify(self) -> bool:
        task = self._episode_task
        library = task.meta["library"]
        sources = trees.source_paths(library)
        current = read_sources(self.sandbox, sources)
        originals = {p: trees.text(library, p) for p in sources}
        changed, refusals = changed_sources(current, task.files, originals)
        tests = list(task.meta["fail_to_pass"]) + list(
            task.meta["pass_to_pass_all" if self.full_pass_to_pass else "pass_to_pass"]
        )
        self.last_verdict = verify(
            self.sandbox,
            runner=RUNNER,
            changed=changed,
            refusals=refusals,
            restore=_LIBRARY,
            task_files=task.files,
            tests=tests,
            timeout=self.test_timeout,
        )
        return self.last_verdict.passed

    # ------------------------------------------------------------------ the menu
    def _admissible(self) -> list[str]:
        task = self._episode_task
        menu = ["test"] + [f"view {path}" for path in task.meta["record"].files]
        menu += [f"search {shlex.quote(name)}" for name in self._failure_names()]
        seen: set[str] = set()
        for cand in self._candidates():
            action = cand.action(self._files.get(cand.path))
            if action is not None and action not in seen:
                seen.add(action)
                menu.append(action)
        if self._history:
            menu.append("revert")
        menu.append("submit")
        return menu

    def _candidates(self) -> list[Candidate]:
        """The task's candidate patches in an order fixed per task (the true fix is not always first)."""
        meta = self._episode_task.meta
        cands, seed = list(meta["candidates"]), meta["menu_seed"]
        return [c for _, c in sorted(enumerate(cands), key=lambda ic: (seed * (ic[0] + 1) * 2654435761) % (1 << 32))]

    def _failure_names(self) -> list[str]:
        """The useful searches, at most two: names the failures show (a traceback's frames, the calls in
        the failing lines) that the library itself defines."""
        task = self._episode_task
        text = "\n".join(task.meta["record"].failures.values())
        found = re.findall(r"\.py:\d+: in (\w+)", text) + re.findall(r"\b([A-Za-z_]\w*)\s*\(", text)
        defined = trees.definitions(task.meta["library"])
        names: list[str] = []
        for name in found:
            if name in defined and not name.startswith("test") and name not in names:
                names.append(name)
        return names[:2]

    # ------------------------------------------------------------------ interventions
    def wrong_patch(self) -> str | None:
        """The wrong patch the interventions force: among the reset menu's patches that fix no bug, the
        one with the lowest ``sha256(task_id + "\\n" + action)``; a function of the task alone. None
        when the menu has no wrong patch."""
        task = self._episode_task
        wrong = [
            a for c in task.meta["candidates"] if not c.fix and (a := c.action(task.files.get(c.path))) is not None
        ]
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
        """The oracle: restore each buggy file (the true fix when it applies), run the failing tests, submit.

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
                quoted = shlex.quote(path)
                body = original.rstrip("\n")
                return f"run rm -rf -- {quoted} && cat > {quoted} <<'AGENTGYM_EOF'\n{body}\nAGENTGYM_EOF"
            for cand in self.task.meta["candidates"]:
                if cand.fix and cand.path == path and (action := cand.action(current)) is not None:
                    return action
            return "patch\n" + full_diff(path, current, original)
        return "submit" if self._tested else "test"

    # ------------------------------------------------------------------ faults
    def _drift(self) -> str | None:
        """State drift: the last edited file silently goes back to its content at the task's start."""
        path = self._last_edited
        start = self._episode_task.files
        if path is None or path not in start or self._files.get(path) == start[path]:
            return None
        self.sandbox.write_files({path: start[path]})
        self._files[path] = start[path]
        self._tested = False
        return f"{path} reverted to its initial content"

    def rate_limit_text(self, tool: str, turns: int) -> str:
        what = {"shell": "command", "tests": "test run", "view": "read", "edit": "edit", "search": "search"}.get(
            tool, tool
        )
        return (
            f"error: {what} refused: too many requests to the sandbox (rate limit); nothing ran. "
            f"Retry in {turns} turn{'s' * (turns != 1)}."
        )

    def wrong_value(self, action: ParsedAction, text: str) -> str | None:
        """A stale copy: ``view`` shows the file as it was before its last change, an edit's echo the lines
        as they read before the edit, ``test`` the previous different report. None when there is no
        older state that differs."""
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
            self._tested = False
            return older[-1]
        return None

    def _stale_copy(self, path: str) -> str | None:
        current = self._files.get(path)
        for snapshot in reversed(self._history):
            if path in snapshot and snapshot[path] != current:
                return snapshot[path]
        start = self._episode_task.files.get(path)
        return start if start is not None and start != current else None

    # ------------------------------------------------------------------ actions
    def _do_view(self, path: str, start: int | None = None, end: int | None = None) -> Outcome:
        text = self._read(path)
        if text is None:
            return Outcome(
                f"error: {path} is not a file of the repository (see the tree at the start, or `find NAME`).",
                [ev.tool_call("view", False, "not_found"), ev.state_mismatch(f"missing path {path}")],
            )
        shown = render_view(path, text, start, end)
        if shown is None:
            lines = len(text.splitlines())
            return Outcome(
                f"error: {path} has {lines} lines; lines {start}-{end} are out of range.",
                [ev.tool_call("view", False, "not_found"), ev.state_mismatch(f"lines {start}-{end} outside {path}")],
            )
        return Outcome(shown, [ev.tool_call("view", True)])

    def _do_search(self, pattern: str, path: str = ".") -> Outcome:
        argv = ["grep", "-rnHIE", "--include=*.py", "-e", pattern, "--", path]
        r = self.sandbox.run(argv, timeout=self.shell_timeout, max_output=_MAX_SHELL_OUTPUT)
        if r.timed_out:
            return Outcome(
                f"error: the search timed out after {self.shell_timeout:g}s.",
                [ev.tool_call("search", False, "timeout")],
            )
        if r.exit_code not in (0, 1):
            return Outcome(
                f"error: bad pattern or path: {r.text.strip()[:300]}",
                [ev.tool_call("search", False, "bad_arguments")],
            )
        lines = sorted((line[2:] if line.startswith("./") else line for line in r.text.splitlines()), key=_grep_order)
        if not lines:
            return Outcome(f"no match for {pattern!r} in {path}.", [ev.tool_call("search", True)])
        more = len(lines) - _MAX_SEARCH_LINES
        shown = "\n".join(lines[:_MAX_SEARCH_LINES]) + (
            f"\n[{more} more matches; narrow the pattern or give a PATH]" if more > 0 else ""
        )
        return Outcome(shown, [ev.tool_call("search", True)])

    def _do_find(self, name: str) -> Outcome:
        """Files named ``name`` and the definitions (``def``/``class``) of ``name`` in the repository."""
        glob = name if any(c in name for c in "*?[") else f"*{name}*"
        found = self.sandbox.run(
            ["find", ".", "-name", glob, "-not", "-path", "*/__pycache__/*"], timeout=self.shell_timeout
        )
        files = sorted(line[2:] for line in found.text.splitlines() if line.startswith("./"))
        defs = self.sandbox.run(
            ["grep", "-rnE", "--include=*.py", rf"^\s*(async\s+)?(def|class)\s+{re.escape(name)}\b", "."],
            timeout=self.shell_timeout,
            max_output=_MAX_SHELL_OUTPUT,
        )
        definitions = sorted(
            (line[2:] if line.startswith("./") else line for line in defs.text.splitlines()), key=_grep_order
        )
        if not files and not definitions:
            return Outcome(f"nothing named {name!r} in the repository.", [ev.tool_call("search", True)])
        parts = []
        if files:
            parts.append("files:\n" + "\n".join(files[:_MAX_SEARCH_LINES]))
        if definitions:
            parts.append("definitions:\n" + "\n".join(definitions[:_MAX_SEARCH_LINES]))
        return Outcome("\n".join(parts), [ev.tool_call("search", True)])

    def _do_run(self, command: str) -> Outcome:
        r = self.sandbox.run(command, timeout=self.shell_timeout, max_output=_MAX_SHELL_OUTPUT)
        events = [ev.tool_call("shell", not r.timed_out, "timeout" if r.timed_out else None)]
        tracked = sorted(set(self._files) | set(self._episode_task.files))
        current = read_sources(self.sandbox, tracked)
        changed = {p: t for p, t in current.items() if t != self._files.get(p)}
        if changed:
            self._history.append({p: self._files.get(p) for p in changed})
            self._files.update(changed)
            self._last_edited = sorted(changed)[0]
            self._tested = False
            events += [ev.mutation(p) for p in sorted(changed)] + self._subtask_events()
        status = f"[timed out after {self.shell_timeout:g}s]" if r.timed_out else f"[exit code {r.exit_code}]"
        return Outcome(f"{r.text}{'' if r.text.endswith(chr(10)) or not r.text else chr(10)}{status}", events)

    def _do_replace(self, path: str, start: int, end: int, lines: list[str]) -> Outcome:
        text = self._read(path)
        if text is None:
            return Outcome(
                f"error: {path} is not a file of the repository.",
                [ev.tool_call("edit", False, "not_found"), ev.state_mismatch(f"missing path {path}")],
            )
        old = text.splitlines()
        if start > len(old) + 1 or end > len(old):
            return Outcome(
                f"error: {path} has {len(old)} lines; cannot replace lines {start}-{end}.",
                [ev.tool_call("edit", False, "not_found"), ev.state_mismatch(f"lines {start}-{end} outside {path}")],
            )
        new = old[: start - 1] + list(lines) + old[end:]
        after = "\n".join(new) + "\n" if new else ""
        self._write({path: after}, {path: text})
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
        before = {fp.path: self._read(fp.path) for fp in patches}
        try:
            new = apply_patch(before, patches)
        except PatchMismatch as exc:
            return Outcome(
                f"error: the patch does not apply: {exc}",
                [ev.tool_call("edit", False, "conflict"), ev.state_mismatch(str(exc).split(";")[0])],
            )
        self._write(new, before)
        hunks = sum(len(fp.hunks) for fp in patches)
        head = f"Patched {', '.join(sorted(new))} ({hunks} hunk{'s' * (hunks > 1)}).\n"
        self._echoed = (head, [(p, before.get(p) or "", new[p]) for p in sorted(new)])
        echoes = "\n".join(echo(p, before.get(p) or "", new[p]) for p in sorted(new))
        return Outcome(
            head + echoes,
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
            self.sandbox.write_files(present)
        for p in (p for p, t in previous.items() if t is None):
            self.sandbox.run(["rm", "-f", "--", p])
        self._files.update(previous)
        self._last_edited = sorted(previous)[0]
        self._tested = False
        return Outcome(
            f"Reverted the last edit to {', '.join(sorted(previous))}.",
            [ev.tool_call("edit", True)] + [ev.mutation(p) for p in sorted(previous)] + self._subtask_events(),
        )

    def _do_test(self, ids: tuple[str, ...] = ()) -> Outcome:
        task = self._episode_task
        chosen = list(ids) or list(task.meta["fail_to_pass"] if self.statement == "full" else ())
        r = self.sandbox.fork_call(
            RUNNER, "run", timeout=self.test_timeout, root=self.sandbox.workspace, ids=chosen or None
        )
        if r.timed_out:
            return Outcome(
                f"error: the test run timed out after {self.test_timeout:g}s (an infinite loop?) and was stopped.",
                [ev.tool_call("tests", False, "timeout"), ev.verification(False, "tests")],
            )
        if r.error is not None or not isinstance(r.value, dict):
            return Outcome(
                f"{r.text}\nerror: the test run crashed: {r.error}",
                [ev.tool_call("tests", False, "crash"), ev.verification(False, "tests")],
            )
        self._tested = True
        report = self._report(r.value, chosen)
        self._reports.append(report)
        outcomes = r.value.get("outcomes") or {}
        passed = bool(outcomes) and all(o in ("passed", "skipped") for o in outcomes.values())
        seen = {f"passes:{t}": outcomes.get(t) == "passed" for t in task.meta["fail_to_pass"] if t in outcomes}
        return Outcome(
            report,
            [ev.tool_call("tests", True), ev.verification(passed, "tests")] + self._subtask_events(seen),
        )

    def _report(self, value: dict[str, Any], chosen: list[str]) -> str:
        """The test report: failing tests with their excerpts first, then counts, and a warning when the
        current changes would be refused by the verdict's rule on what a fix may add."""
        outcomes: dict[str, str] = value.get("outcomes") or {}
        failures: dict[str, str] = value.get("failures") or {}
        missing = [t for t in chosen if t not in outcomes]
        counts: dict[str, int] = {}
        for o in outcomes.values():
            counts[o] = counts.get(o, 0) + 1
        lines = []
        bad = [t for t, o in outcomes.items() if o in ("failed", "error")]
        for t in bad[:_MAX_TEST_LINES]:
            lines.append(f"{outcomes[t].upper()} {t}")
            if failures.get(t) and len(lines) < 4 * _MAX_TEST_LINES:
                lines.append(failures[t].rstrip())
        if len(bad) > _MAX_TEST_LINES:
            lines.append(f"[{len(bad) - _MAX_TEST_LINES} more failing tests]")
        lines += [f"NOT FOUND {t}" for t in missing[:_MAX_TEST_LINES]]
        summary = ", ".join(f"{n} {o}" for o, n in sorted(counts.items())) or "no tests ran"
        lines.append(f"== {summary} ==")  # no timings: the same code gives the same report
        warning = self._rule_warning()
        return "\n".join(lines) + (f"\n{warning}" if warning else "")

    def _rule_warning(self) -> str:
        library = self._episode_task.meta["library"]
        refusals = []
        for path, text in self._files.items():
            if text is not None and path in self._episode_task.meta["originals"]:
                refusals += check_fix(path, self._episode_task.meta["originals"][path], text)
        if not refusals:
            return ""
        return (
            f"warning: the verdict would refuse your change to {library}: {refusals[0]} "
            "(see `help` for what a fix may add)."
        )

    # ------------------------------------------------------------------ state helpers
    def _read(self, path: str) -> str | None:
        path = path[2:] if path.startswith("./") else path
        if path in self._files:
            return self._files[path]
        try:
            return self.sandbox.read_file(path, max_bytes=1 << 20).decode("utf-8", "replace")
        except SandboxOpError:
            return None

    def _write(self, files: dict[str, str], before: dict[str, str | None]) -> None:
        self.sandbox.write_files(files)
        self._history.append({p: before.get(p) for p in files})
        self._files.update(files)
        self._last_edited = sorted(files)[0]
        self._tested = False

    def _subtask_events(self, seen: dict[str, bool] | None = None) -> list[dict[str, Any]]:
        """Subtasks this step changed: each buggy file back to its original text; each failing test
        by the last ``test`` run that included it."""
        state = dict(self._subtasks)
        state.update(seen or {})
        for path, original in self._episode_task.meta["originals"].items():
            state[f"fixed:{path}"] = self._files.get(path) == original
        return ev.subtask_changes(self._subtasks, state)


def _grep_order(line: str) -> tuple[str, int, str]:
    """``path:line:text`` by path, then line number: grep's own order follows the directory's, which
    need not be the same in two sandboxes."""
    path, _, rest = line.partition(":")
    number, _, text = rest.partition(":")
    return (path, int(number), text) if number.isdigit() else (path, 0, rest)
