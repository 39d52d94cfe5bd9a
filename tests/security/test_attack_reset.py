"""Episodes are independent: after reset() nothing of the previous episode remains or can write."""

from __future__ import annotations

import time

from support.attacks import shell, unfixed_task

_ZOMBIE_LEADER = r"""setsid python3 - <<'EOF' >/dev/null 2>&1 &
import ctypes, threading, time
def writer():
    while True:
        try:
            with open("/workspace/ghost.txt", "a") as f:
                f.write("still here\n")
        except OSError:
            pass
        time.sleep(0.05)
threading.Thread(target=writer).start()
time.sleep(0.2)
ctypes.CDLL(None).pthread_exit(None)  # the main thread exits; the leader is a zombie with a live thread
EOF
sleep 0.6; ps -eo stat,comm | grep -c '^Z' ; ls ghost.txt"""


def test_zombie_leader_with_live_threads_does_not_survive_reset(env):
    task = unfixed_task()
    env.reset(options={"task_id": task.task_id})
    out = shell(env, _ZOMBIE_LEADER)
    assert "ghost.txt" in out, out  # the attack is live
    env.reset(options={"task_id": task.task_id})
    time.sleep(0.3)
    files = env.sandbox.list_files()
    assert "ghost.txt" not in files
    survivors = shell(
        env, "ps -eo ruser,stat,comm --no-headers | awk '$1 != \"root\"' | grep -v -e ps -e awk -e sh -e grep; true"
    )
    assert survivors.split() == ["[exit", "code", "0]"], survivors  # the agent's only processes are this command's


def test_tmp_shm_mqueue_and_home_are_emptied(env):
    task = unfixed_task()
    env.reset(options={"task_id": task.task_id})
    planted = shell(
        env,
        'touch /tmp/a /dev/shm/b "$HOME/c" && mkdir -p /tmp/d/e && '
        "python3 -c \"import os; os.close(os.open('/dev/mqueue/q', os.O_CREAT | os.O_RDWR, 0o600))\" "
        '&& ls -A /tmp /dev/shm /dev/mqueue "$HOME"',
    )
    assert "[exit code 0]" in planted and "q" in planted, planted
    env.reset(options={"task_id": task.task_id})
    listing = shell(env, 'ls -A /tmp /dev/shm /dev/mqueue "$HOME"')
    names = [line for line in listing.splitlines() if line and not line.endswith(":") and not line.startswith("[exit")]
    assert names == [], listing


def test_a_planted_usercustomize_does_not_run_in_the_next_episode(env):
    task = unfixed_task()
    env.reset(options={"task_id": task.task_id})
    site = shell(env, "python3 -c 'import site; print(site.getusersitepackages())'").split()[0]
    shell(env, f"mkdir -p {site} && echo 'print(\"PLANTED\")' > {site}/usercustomize.py")
    assert "PLANTED" in shell(env, "python3 -c 'pass'")  # the attack is live within the episode
    env.reset(options={"task_id": task.task_id})
    assert "PLANTED" not in shell(env, "python3 -c 'pass'")


def test_a_workspace_made_unreadable_restores(env):
    task = unfixed_task()
    env.reset(options={"task_id": task.task_id})
    shell(env, "mkdir -p a/b/c && touch a/b/c/f && chmod 000 a/b/c a/b a && chmod 000 . ; true")
    env.reset(options={"task_id": task.task_id})  # must not raise
    assert sorted(env.sandbox.list_files()) == sorted(task.files)
    assert env.sandbox.read_file(task.meta["bugs"][0].file).decode() == task.files[task.meta["bugs"][0].file]


_SYSV = r"""python3 - <<'PY'
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
shm = libc.shmget(0, 4096, 0o1666)  # IPC_PRIVATE, IPC_CREAT | 0666: outlives every process
msg = libc.msgget(0, 0o1666)
print("made", shm >= 0, msg >= 0)
PY
cat /proc/sysvipc/shm /proc/sysvipc/msg | wc -l"""


def test_system_v_ipc_objects_do_not_survive_reset(env):
    task = unfixed_task()
    env.reset(options={"task_id": task.task_id})
    out = shell(env, _SYSV)
    assert "made True True" in out and out.split()[-4] == "4", out  # two headers, two objects
    env.reset(options={"task_id": task.task_id})
    assert shell(env, "cat /proc/sysvipc/shm /proc/sysvipc/msg | wc -l").split()[0] == "2"
