"""Hidden tests stay hidden: not in the memory of a process that runs agent code, not left in files."""

from __future__ import annotations

from agentgym.envs.coding.tasks import default_taskset
from support.attacks import append_to_module, shell, unfixed_task

# Runs inside the agent's module whenever it is imported (e.g. by the visible tests): scans the
# whole address space of its own process, frames and objects included, for test-function names.
_SCAN_MEMORY = r"""
import ctypes as _c, os as _o, re as _re
_c.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE 1: a process may always make itself readable again
def _scan():
    found = set()
    pattern = _re.compile(rb"test_[a-z0-9_]{3,60}")
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
        for line in maps:
            addr, perms = line.split()[:2]
            if "r" not in perms:
                continue
            lo, hi = (int(x, 16) for x in addr.split("-"))
            if hi - lo > 1 << 30:
                continue
            try:
                mem.seek(lo)
                found.update(pattern.findall(mem.read(hi - lo)))
            except (OSError, ValueError, OverflowError):
                pass
    with open(_o.path.join(_o.environ.get("AGENTGYM_LEAK_DIR", "."), "leak.txt"), "a") as f:
        f.write("\n".join(sorted(x.decode() for x in found)) + "\n")
try:
    _scan()
except Exception as _exc:
    open("leak.txt", "a").write("scan failed: %r\n" % (_exc,))
"""


def _hidden_only_names(task) -> set[str]:
    (bug,) = task.meta["bugs"]
    module = default_taskset().corpus[bug.module]
    return set(module.test_names) - set(module.visible) - {bug.covering[0]}  # the bug report names that one


def test_test_run_process_holds_no_hidden_test(env):
    """The visible-test run imports agent code: nothing of the hidden suite may be in that process."""
    task = unfixed_task()
    env.reset(options={"task_id": task.task_id})
    env.step("submit")  # a verification ran in this sandbox: its data must not linger either
    env.reset(options={"task_id": task.task_id})
    append_to_module(env, task, _SCAN_MEMORY)
    env.step("test")
    leak = env.sandbox.read_file("leak.txt").decode()
    assert "scan failed" not in leak and "test_" in leak  # the scan ran and saw the visible names
    assert not _hidden_only_names(task) & set(leak.split()), "hidden test names readable by agent code"


def test_verification_leaves_nothing_for_the_next_episode(env):
    task = unfixed_task()
    env.reset(options={"task_id": task.task_id})
    env.step("submit")
    env.reset(options={"task_id": task.task_id})
    listing = shell(env, "ls -A /tmp /dev/shm; grep -rl 'def test_' /tmp /dev/shm 2>/dev/null; true")
    assert "hidden" not in listing and "test_" not in listing, listing
