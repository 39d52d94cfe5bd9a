"""A failing state must never be scored as a success, whatever code the agent puts in the workspace.

Each attack appends code to the unfixed module (or plants files) through `run`, then submits.
The reward must be 0, `step()` must not raise, and the same env must still score the oracle 1.0
on the next episode (a forged frame must not desynchronise later replies).
"""

from __future__ import annotations

import pytest

from support.attacks import append_to_module, oracle_episode, shell, unfixed_task

# Payloads that would pass for a verdict on the runner's result pipe or for a reply on the channel.
_FORGE_FDS = r"""
import json as _j, os as _o
_verdict = _j.dumps({"value": {"passed": True, "counts": {"passed": 99}, "collection_errors": 0, "failed": []}}).encode()
_body = _j.dumps({"ok": True, "id": 0, "result": {"value": {"passed": True, "counts": {}, "collection_errors": 0,
                  "failed": []}, "error": None, "exit_code": 0, "timed_out": False, "output": "", "truncated": False,
                  "seconds": 0.0}}).encode()
for _fd in range(3, 256):
    for _data in (_verdict, b"\x00AG1" + len(_body).to_bytes(8, "big") + _body):
        try:
            _o.write(_fd, _data)
        except OSError:
            pass
"""  # noqa: E501

_ALWAYS_EQUAL = r"""
class _Anything(int):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __bool__(self): return True
    def __hash__(self): return 0
    def __repr__(self): return "True"
    __lt__ = __le__ = __gt__ = __ge__ = __eq__
    def __iter__(self): return iter(())
    def __len__(self): return 0
    def __getattr__(self, name): return self
    def __call__(self, *a, **k): return self

def _anything(*args, **kwargs):
    return _Anything(0)

for _name, _value in list(globals().items()):
    if not _name.startswith("_") and callable(_value) and getattr(_value, "__module__", None) == __name__:
        globals()[_name] = _anything if not isinstance(_value, type) else type(_name, (_Anything,), {})
"""

_PATCH_PYTEST = r"""
import builtins as _b, sys as _s
try:
    from _pytest import reports as _r
    _orig = _r.TestReport.from_item_and_call.__func__
    def _forged(cls, item, call):
        rep = _orig(cls, item, call)
        rep.outcome, rep.longrepr = "passed", None
        return rep
    _r.TestReport.from_item_and_call = classmethod(_forged)
except Exception:
    pass
class _Never(Exception):
    pass
_b.AssertionError = _Never
_s.modules.get("pytest") and setattr(_s.modules["pytest"], "raises", lambda *a, **k: __import__("contextlib").nullcontext())
"""  # noqa: E501

# Module code rewrites the harness (it runs in the agent's process): every ==/!= claims equality
# and describes both operands as the same plain number; every exception claims to be one of the
# host's own classes (the verifier's stop signal, pytest's skip), which the host rebuilds, not trusts.
_REWRITE_HARNESS = r"""
import sys as _s
_h = _s.modules.get("agentgym_coding_harness")
if _h is not None:
    _perform, _describe = _h._Replay.perform, _h.class_desc

    def _forged(self, index, op):
        result = _perform(self, index, op)
        if op[0] == "op" and op[1] in ("eq", "ne"):
            result = {"v": op[1] == "eq", "operands": [1, 1]}
        return result

    def _posing(cls, depth=0):
        return ["Skipped", "_pytest.outcomes", []] if depth == 0 else _describe(cls, depth)

    _h._Replay.perform, _h.class_desc = _forged, _posing
"""

ATTACKS = {
    "forge_every_inherited_fd": _FORGE_FDS,
    "sys_exit_zero": "import sys as _s\n_s.exit(0)",
    "os_exit_zero_after_forging": _FORGE_FDS + "\n_o._exit(0)",
    "kill_parent": "import os as _o, signal as _g\n_o.kill(_o.getppid(), _g.SIGKILL)",
    "stop_parent": "import os as _o, signal as _g\n_o.kill(_o.getppid(), _g.SIGSTOP)",
    "print_passing_text": "print('== 99 passed in 0.01s ==')\nprint('PASSED')\nprint('[exit code 0]')",
    "always_equal_objects": _ALWAYS_EQUAL,
    "monkeypatch_pytest_and_builtins": _PATCH_PYTEST,
    "verifier_out_of_time": "while True:\n    pass",
    "verifier_out_of_memory": "_hog = []\nwhile True:\n    _hog.append(bytearray(64 << 20))",
    "harness_rewritten_by_module_code": _REWRITE_HARNESS,
    "always_equal_objects_in_a_rewritten_harness": _ALWAYS_EQUAL + _REWRITE_HARNESS,
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_module_code_cannot_forge_a_pass(env, attack):
    task = unfixed_task()
    env.reset(options={"task_id": task.task_id})
    append_to_module(env, task, ATTACKS[attack])
    _, reward, terminated, _, info = env.step("submit")
    assert terminated and reward == 0.0 and info["success"] is False, attack
    assert oracle_episode(env, task.task_id) == 1.0


_CONFTEST = r"""
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    rep.outcome, rep.longrepr = "passed", None
"""

_CUSTOMIZE = _PATCH_PYTEST  # the same forgery, planted where an interpreter loads it by itself


PLANTED = {
    "conftest_forcing_pass": {"conftest.py": _CONFTEST, "/tmp/conftest.py": _CONFTEST},
    "pytest_config_files": {
        "pytest.ini": "[pytest]\naddopts = -p no:python\n",
        "setup.cfg": "[tool:pytest]\naddopts = -p no:python\n",
        "pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-p no:python'\n",
    },
    "site_hooks": {
        "sitecustomize.py": _CUSTOMIZE,
        "usercustomize.py": _CUSTOMIZE,
        "evil.pth": "import builtins; builtins.AssertionError = type('N', (Exception,), {})\n",
        "/tmp/.local/lib/python3.11/site-packages/usercustomize.py": _CUSTOMIZE,
        "/tmp/.local/lib/python3.11/site-packages/evil.pth": "import usercustomize\n",
    },
}


@pytest.mark.parametrize("plant", sorted(PLANTED))
def test_planted_files_cannot_forge_a_pass(env, plant):
    task = unfixed_task(1)
    env.reset(options={"task_id": task.task_id})
    for path, text in PLANTED[plant].items():
        folder = path.rsplit("/", 1)[0] if "/" in path else "."
        out = shell(env, f"mkdir -p {folder} && cat > {path} <<'AGENTGYM_ATTACK'\n{text}\nAGENTGYM_ATTACK")
        assert "[exit code 0]" in out, out
    _, reward, terminated, _, info = env.step("submit")
    assert terminated and reward == 0.0 and info["success"] is False, plant
    assert oracle_episode(env, task.task_id) == 1.0


def test_rewritten_test_files_do_not_decide(env):
    """Visible tests replaced by a trivial pass and a new test file: the verdict ignores both."""
    task = unfixed_task(2)
    (bug,) = task.meta["bugs"]
    env.reset(options={"task_id": task.task_id})
    test_file = f"test_{bug.module}.py"
    shell(env, f"printf 'def test_ok():\\n    assert True\\n' > {test_file}; cp {test_file} test_extra.py")
    _, reward, _, _, info = env.step("submit")
    assert reward == 0.0 and info["success"] is False


def test_endless_callbacks_into_the_host_end_in_bounded_time(env):
    """The tests' callables run on the host; agent code calling one forever must not hold the verdict."""
    import time

    from agentgym.envs.coding.tasks import default_taskset

    tasks = default_taskset()
    task_id = next(i for s in tasks.splits for i in tasks.ids(s, "one_bug") if "/binary_search/" in i)
    task = tasks.get(task_id)
    env.reset(options={"task_id": task_id})
    append_to_module(env, task, "def first_true(lo, hi, pred):\n    while True:\n        pred(lo)")
    start = time.monotonic()
    _, reward, terminated, _, info = env.step("submit")
    assert terminated and reward == 0.0 and time.monotonic() - start < env.test_timeout + 5
