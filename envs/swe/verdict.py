"""SWE-v0's verdict: the library's own FAIL_TO_PASS and PASS_TO_PASS tests, on a clean workspace with
only the agent's source changes applied.

After the agent's last turn:

1. The host reads every source file of the library's package(s) from the workspace (bounded reads;
   a file that is not a regular file, or not UTF-8, counts as the agent's change and will not parse).
2. Each file that differs from the task's start is checked against the pristine library file by
   `agentgym.envs.swe.fix_rules`: what the fix adds may not import, reach the interpreter or use
   names its code did not use. A refused change fails the verdict before anything runs.
3. The workspace is restored to the library's tree (every agent process killed, ``/tmp``, ``/dev/shm``
   and HOME wiped: `Sandbox.restore`), the task's buggy files and then the agent's checked source files
   are written over it. So the tests, ``conftest.py`` files and settings the verdict runs are the
   pristine ones; a test the agent edited, a ``conftest.py``, plugin, ``usercustomize`` or ``.pth`` it
   planted, and any file outside the package's sources are gone.
4. The runner (`agentgym.envs.swe.runner`) runs the FAIL_TO_PASS tests and the task's PASS_TO_PASS
   sample in a forked child of the warm step server (no interpreter start-up, so no start-up hook
   runs; plugin autoloading off), as the agent's user, under a deadline. Success needs every one of
   them reported ``passed`` in a result that carries this run's nonce; a missing, skipped, failed or
   errored test, a timeout or a crash is a failure. Exit codes and printed text never count.

What the agent could still do is write a wrong fix that the tests do not catch: that is the tests'
limit, as in every benchmark judged by a repository's tests.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentgym.envs.swe.fix_rules import Refusal, check_fix
from agentgym.errors import SandboxOpError

__all__ = ["Verdict", "read_sources", "verify", "TIMED_OUT", "REFUSED"]

TIMED_OUT = "the tests timed out"
REFUSED = "the fix breaks the rule on what a fix may add"
_MAX_SOURCE = 4 << 20


@dataclass(frozen=True)
class Verdict:
    """The outcome: ``passed``, and for a failure why, which tests and which refused constructs (host side)."""

    passed: bool
    reason: str = ""
    failed: tuple[str, ...] = ()
    refusals: tuple[Refusal, ...] = field(default=())
    seconds: float = 0.0


def read_sources(sandbox: Any, paths: Sequence[str]) -> dict[str, str | None]:
    """The workspace's text of each source file (None: missing, not a regular file, or not UTF-8)."""
    out: dict[str, str | None] = {}
    for path in paths:
        try:
            out[path] = sandbox.read_file(path, max_bytes=_MAX_SOURCE).decode("utf-8")
        except (SandboxOpError, UnicodeDecodeError):
            out[path] = None
    return out


def changed_sources(
    current: Mapping[str, str | None], start: Mapping[str, str], originals: Mapping[str, str]
) -> tuple[dict[str, str | None], list[Refusal]]:
    """The agent's changes to the source files (path -> new text, None: deleted) and what the rule refuses."""
    changed: dict[str, str | None] = {}
    refusals: list[Refusal] = []
    for path, text in current.items():
        if text == start.get(path, originals.get(path)):
            continue
        changed[path] = text
        if text is None:
            continue
        refusals += check_fix(path, originals.get(path, ""), text)
    return changed, refusals


def verify(
    sandbox: Any,
    *,
    runner: str,
    changed: Mapping[str, str | None],
    refusals: Sequence[Refusal],
    restore: str,
    task_files: Mapping[str, str],
    tests: Sequence[str],
    timeout: float,
) -> Verdict:
    """The verdict on the agent's ``changed`` sources (see the module docstring): ``restore`` names the
    library's snapshot, ``task_files`` the task's buggy files, ``tests`` FAIL_TO_PASS + PASS_TO_PASS."""
    start = time.monotonic()
    if refusals:
        return Verdict(False, REFUSED, refusals=tuple(refusals), seconds=time.monotonic() - start)
    sandbox.restore(restore)  # kills every agent process, wipes scratch, puts the pristine tree back
    sandbox.write_files(dict(task_files))
    written = {p: t for p, t in changed.items() if t is not None}
    if written:
        sandbox.write_files(written)
    for path in sorted(p for p, t in changed.items() if t is None):
        sandbox.run(["rm", "-f", "--", path], timeout=10)
    nonce = secrets.token_hex(16)
    r = sandbox.fork_call(
        runner, "run", timeout=timeout, root=sandbox.workspace, ids=list(tests), nonce=nonce, max_failure_chars=400
    )
    seconds = time.monotonic() - start
    if r.timed_out:
        return Verdict(False, TIMED_OUT, seconds=seconds)
    value = r.value
    if r.error is not None or not isinstance(value, dict) or value.get("nonce") != nonce:
        return Verdict(False, f"the test run did not report ({r.error or 'no result'})", seconds=seconds)
    outcomes = value.get("outcomes") or {}
    failed = tuple(t for t in tests if outcomes.get(t) != "passed")
    if failed:
        return Verdict(False, f"{len(failed)} of {len(tests)} tests did not pass", failed=failed, seconds=seconds)
    return Verdict(True, seconds=seconds)
