"""The agent cannot stall or bloat the host: what the env reads back per step is bounded and never blocks."""

from __future__ import annotations

import time

from support.attacks import oracle_episode, shell, unfixed_task


def test_a_fifo_in_place_of_a_tracked_file_does_not_block(env):
    task = unfixed_task()
    (bug,) = task.meta["bugs"]
    env.reset(options={"task_id": task.task_id})
    start = time.monotonic()
    out = shell(env, f"rm {bug.file} && mkfifo {bug.file} && mkfifo other.fifo")
    assert time.monotonic() - start < 3 and f"error: {bug.file} is not a regular file" in out, out
    obs, *_ = env.step("view other.fifo")
    assert time.monotonic() - start < 4 and obs["text"].startswith("error:"), obs["text"]
    assert oracle_episode(env, task.task_id) == 1.0


def test_a_huge_module_costs_the_host_a_bounded_read(env):
    task = unfixed_task()
    (bug,) = task.meta["bugs"]
    env.reset(options={"task_id": task.task_id})
    out = shell(env, f"head -c 30000000 /dev/zero | tr '\\0' 'x' >> {bug.file}")
    assert f"error: {bug.file} is " in out and "limit the env reads back" in out, out
    times = []
    for _ in range(5):
        start = time.monotonic()
        shell(env, "true")
        times.append(time.monotonic() - start)
    assert sorted(times)[2] < 0.5, times  # 30 MB are not shipped back and rescanned every step
    assert oracle_episode(env, task.task_id) == 1.0
