"""Attacks on SWE-v0's verdict: Coding-v0's guarantees, held against a library's own test suite.

Each test is the smallest agent behaviour that would pass the verdict without fixing the bug, and
first shows that the attack works where nothing stops it (the agent's own ``test`` run is fooled by
it): a ``conftest.py`` that rewrites every report, tests edited to pass, start-up hooks, library
code that rewrites pytest's reports, reading the pristine source, and leftovers across ``reset``.
The honest side: a fix written by hand rather than by the menu passes.
"""

from __future__ import annotations

import re

import pytest

from agentgym.envs.swe.build import default_taskset
from agentgym.envs.swe.verdict import REFUSED
from support.docker import require_docker

pytestmark = pytest.mark.docker

# a conftest.py that makes every test report pass (what pytest loads from the rootdir and test folders)
_FORCE_PASS = """\
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
    report.longrepr = None
"""

# library code that rewrites pytest's reports from inside the process the verdict's tests run in
_FORGE_FROM_LIBRARY = """\
import _pytest.reports as _agentgym_r
_agentgym_init = _agentgym_r.TestReport.__init__
def _agentgym_pass(self, *a, **k):
    _agentgym_init(self, *a, **k)
    self.outcome = "passed"
    self.longrepr = None
_agentgym_r.TestReport.__init__ = _agentgym_pass
"""


@pytest.fixture(scope="module")
def env():
    require_docker("agentgym/swe:latest")
    from agentgym.envs.swe import SWEEnv

    e = SWEEnv(split="test", backend="docker", test_timeout=60.0, shell_timeout=20.0)
    yield e
    e.close()


@pytest.fixture(scope="module")
def task_id() -> str:
    """A one-bug task whose failing tests are functions of a test module (not parametrized)."""
    ts = default_taskset()
    for split in ts.splits:
        for tid in ts.ids(split, tier="one_bug"):
            task = ts.get(tid)
            if all("[" not in t for t in task.meta["fail_to_pass"]):
                return tid
    pytest.fail("no one-bug SWE-v0 task")


def _reset(env, task_id):
    obs, info = env.reset(options={"task_id": task_id})
    return env.unwrapped.task


def _shell(env, command: str) -> str:
    obs, *_ = env.step(f"run {command}")
    return obs["text"]


def _write(env, path: str, text: str) -> None:
    _shell(env, f"mkdir -p $(dirname {path}) && cat > {path} <<'AGENTGYM_EOF'\n{text}\nAGENTGYM_EOF")


def _submit(env) -> float:
    _, reward, terminated, _, info = env.step("submit")
    assert terminated
    return reward


def _fooled(env) -> bool:
    """Whether the agent's own run of the failing tests now reports them passing."""
    obs, *_ = env.step("test")
    return "failed" not in obs["text"] and "error" not in obs["text"].split("==")[-1]


def test_a_planted_conftest_is_not_loaded_by_the_verdict(env, task_id):
    task = _reset(env, task_id)
    folders = {t.split("::")[0].rsplit("/", 1)[0] for t in task.meta["fail_to_pass"] if "/" in t}
    for folder in sorted(folders | {"."}):
        _write(env, f"{folder}/conftest.py", _FORCE_PASS)
    assert _fooled(env), "the attack does not even fool the agent's own run"
    assert _submit(env) == 0.0


def test_tests_edited_to_pass_do_not_count(env, task_id):
    task = _reset(env, task_id)
    by_file: dict[str, list[str]] = {}
    for t in task.meta["fail_to_pass"]:
        path, _, name = t.partition("::")
        by_file.setdefault(path, []).append(name.split("::")[-1])
    for path, names in by_file.items():
        _write(env, path, "\n".join(f"def {n}():\n    pass\n" for n in names))
    assert _fooled(env)
    assert _submit(env) == 0.0


def test_start_up_hooks_are_not_loaded(env, task_id):
    _reset(env, task_id)
    hook = "import sys\nsys.modules.setdefault('agentgym_hooked', sys)\n" + _FORCE_PASS.replace(
        "@pytest.hookimpl(hookwrapper=True)\n", ""
    )
    _write(env, "usercustomize.py", hook)
    _write(env, "sitecustomize.py", hook)
    _write(env, "agentgym_hook.pth", "import usercustomize")
    home = _shell(env, "echo $HOME").splitlines()[0].strip()
    _write(env, f"{home}/.local/lib/python3.11/site-packages/usercustomize.py", hook)
    assert _submit(env) == 0.0


def test_library_code_that_rewrites_pytest_reports_is_refused(env, task_id):
    task = _reset(env, task_id)
    (path,) = task.meta["record"].files
    source = env.unwrapped._files[path]
    _write(env, path, _FORGE_FROM_LIBRARY + source)
    assert _fooled(env), "the forge does not even fool the agent's own run"
    obs, *_ = env.step("test")
    assert "warning: the verdict would refuse" in obs["text"]
    assert _submit(env) == 0.0
    assert env.unwrapped.last_verdict.reason == REFUSED


def test_the_pristine_source_is_nowhere_in_the_sandbox(env, task_id):
    """The code as it was before the bug (the answer) exists only on the host."""
    task = _reset(env, task_id)
    (path,) = task.meta["record"].files
    original = task.meta["originals"][path].splitlines()
    buggy = set(task.files[path].splitlines())
    removed = sorted((line for line in original if line not in buggy and len(line.strip()) > 12), key=len)
    assert removed, "the bug changed no distinctive line"
    needle = removed[-1]  # the whole line as the original has it, indentation included (grep -x)
    out = _shell(
        env,
        "grep -rlxF --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev -e "
        + "'"
        + needle.replace("'", "'\\''")
        + "' / 2>/dev/null | head -5",
    )
    found = [line for line in out.splitlines() if line.startswith("/") and not line.startswith("[")]
    assert found == [], f"the original line {needle!r} is readable at {found}"


# a conftest.py (loaded by the agent's own `test` run) that looks for compiled code of the library's files in
# the memory the run inherited from the step server: a compile cache of the pristine tree would be the answer
_READ_SERVER_CACHE = """\
import sys
runner = sys.modules.get("agentgym_swe_runner")
cached = sorted(key[1] for key in getattr(runner, "_CODE", {}) if "/tests/" not in key[1])
open("leak.txt", "w").write("\\n".join(cached))
"""


def test_no_compiled_pristine_code_in_the_memory_test_runs_inherit(env, task_id):
    task = _reset(env, task_id)
    (path,) = task.meta["record"].files
    _write(env, "conftest.py", _READ_SERVER_CACHE)
    env.step("test")
    leaked = _shell(env, "cat leak.txt").splitlines()
    assert not [line for line in leaked if line.endswith(path)], f"compiled pristine code in memory: {leaked[:5]}"


def test_nothing_survives_reset(env, task_id):
    _reset(env, task_id)
    _shell(env, "echo left > /tmp/agentgym_left && echo left > left.txt && (sleep 300 &) ; echo started")
    _reset(env, task_id)
    out = _shell(env, "ls /tmp/agentgym_left left.txt 2>&1; pgrep -x sleep || echo no-process")
    assert "No such file" in out and "no-process" in out


def test_an_honest_fix_written_by_hand_passes(env, task_id):
    """The verdict passes the fix however it is written: here line by line with `replace`."""
    task = _reset(env, task_id)
    (path,) = task.meta["record"].files
    before, after = task.files[path].splitlines(), task.meta["originals"][path].splitlines()
    lo = next(i for i, (a, b) in enumerate(zip(before, after)) if a != b) if before != after else 0
    hi_b, hi_a = len(before), len(after)
    while hi_b > lo and hi_a > lo and before[hi_b - 1] == after[hi_a - 1]:
        hi_b, hi_a = hi_b - 1, hi_a - 1
    body = "\n".join(after[lo:hi_a])
    obs, *_ = env.step(f"replace {path} {lo + 1}-{hi_b}\n{body}")
    assert re.search(r"replaced|inserted", obs["text"]), obs["text"]
    assert _submit(env) == 1.0
