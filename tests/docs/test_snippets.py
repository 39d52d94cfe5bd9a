"""Every Python snippet in README.md and docs/ runs, so the documentation cannot drift from the code.

A snippet is a fenced block whose info string is ``python`` (or ``py``). Each runs in a fresh
interpreter in a temporary folder (files a snippet writes land there), on the local sandbox backend
(``AGENTGYM_BACKEND=local``, which ``backend="auto"`` then picks) unless it is marked for Docker.
An HTML comment on the line just above the fence marks a snippet, and the reason is part of the mark:

- ``<!-- test: docker -->``: needs the Docker backend; run with Docker (skipped without it, failed
  under ``CI=true``, as every Docker test is);
- ``<!-- test: continue -->``: runs after the previous snippet of the same page, as one program;
- ``<!-- test: serve ARGS -->``: runs against ``agentgym serve ARGS`` started for it on the local
  backend (the snippet's ``http://127.0.0.1:8000`` is pointed at that server's port);
- ``<!-- test: skip: REASON -->``: not run (a GPU, a long training run, a model endpoint); the reason is
  required and stated on the page's source.

``tests/docs/test_snippets.py::test_marks`` checks that every mark is one of these and that every skip
gives a reason.
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.docker import require_docker

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^\n`]*)$")
MARK = re.compile(r"^\s*<!--\s*test:\s*(?P<mark>.*?)\s*-->\s*$")
TIMEOUT_S = 420
# a snippet that shows a pytest test (``def test_...``) is checked by calling it
CALL_TESTS = """
for _name, _fn in list(globals().items()):
    if _name.startswith("test_") and callable(_fn):
        _fn()
"""


@dataclass
class Snippet:
    path: Path
    line: int  # 1-based line of the opening fence
    code: str
    mark: str  # "", "docker", "continue", "skip: reason"

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def snippets(path: Path) -> list[Snippet]:
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Snippet] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, info = match["indent"], match["info"].strip()
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if info.split(" ")[0] in ("python", "py"):
            body = [line[len(indent) :] if line.startswith(indent) else line for line in lines[i + 1 : end]]
            mark = ""
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            if j >= 0 and (m := MARK.match(lines[j])):
                mark = m["mark"]
            out.append(Snippet(path, i + 1, "\n".join(body) + "\n", mark))
        i = end + 1
    return out


def programs() -> list[tuple[Snippet, str]]:
    """(snippet, the program it runs): a ``continue`` snippet runs after those it continues."""
    out = []
    for path in pages():
        previous = ""
        for snippet in snippets(path):
            code = previous + snippet.code if snippet.mark == "continue" else snippet.code
            previous = code
            out.append((snippet, code))
    return out


ALL = programs()


def test_there_are_snippets() -> None:
    assert len(ALL) >= 20, [s.id for s, _ in ALL]


def test_marks() -> None:
    bad = []
    for snippet, _ in ALL:
        mark = snippet.mark
        if mark in ("", "docker", "continue") or (mark.startswith("serve ") and len(mark.split()) >= 2):
            continue
        if mark.startswith("skip:") and len(mark[5:].strip()) >= 10:
            continue
        bad.append(f"{snippet.id}: {mark!r}")
    assert not bad, "unknown marks, or a skip without its reason: " + "; ".join(bad)


def _params() -> list:
    params = []
    for snippet, code in ALL:
        marks = []
        if snippet.mark.startswith("skip:"):
            marks.append(pytest.mark.skip(reason=snippet.mark[5:].strip()))
        if snippet.mark == "docker" or "docker" in snippet.mark:
            marks.append(pytest.mark.docker)
        params.append(pytest.param(snippet, code, id=snippet.id, marks=marks))
    return params


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def served(args: str, env: dict[str, str]) -> Iterator[str]:
    """``agentgym serve ARGS`` on a free loopback port, local backend; yields its URL."""
    port = _free_port()
    cmd = [sys.executable, "-m", "agentgym", "serve", *shlex.split(args), "--port", str(port), "--backend", "local"]
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/health", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    out = server.stdout.read() if server.stdout else ""
                    pytest.fail(f"agentgym serve {args} did not come up:\n{out[-3000:]}")
                time.sleep(0.3)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.mark.parametrize(("snippet", "code"), _params())
def test_snippet_runs(snippet: Snippet, code: str, tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["MPLBACKEND"] = "Agg"
    if snippet.mark == "docker":
        require_docker()
        env.pop("AGENTGYM_BACKEND", None)
    else:
        env["AGENTGYM_BACKEND"] = "local"
    if snippet.mark.startswith("serve "):
        env["AGENTGYM_SERVE_TOKEN"] = secrets.token_hex(16)
        env.pop("AGENTGYM_SERVE_TOKEN_FILE", None)
        with served(snippet.mark[len("serve ") :], env) as url:
            proc = _run(code.replace("http://127.0.0.1:8000", url), env, tmp_path)
    else:
        proc = _run(code, env, tmp_path)
    assert proc.returncode == 0, (
        f"{snippet.id} failed (exit {proc.returncode})\n--- code\n{code}\n--- stdout\n{proc.stdout[-3000:]}"
        f"\n--- stderr\n{proc.stderr[-5000:]}"
    )


def _run(code: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code + CALL_TESTS], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
    )
