"""Coding-v0's opt-in result cache: a hit rebuilds exactly what a run gives, and it never serves
a state its key cannot see (after a `run` or a free-text edit); on disk, it is shared by
processes, survives corruption and stays under its cap."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import threading
from pathlib import Path

import numpy as np
import pytest

from agentgym.envs.coding import CodingEnv, result_cache
from agentgym.envs.coding.result_cache import DiskStore, ResultCache, TestRun, process_cache
from agentgym.envs.coding.tasks import default_taskset
from agentgym.envs.coding.verifier import Verdict
from agentgym.errors import ConfigError
from support.docker import require_docker

TASKS = 25  # a small pool, so the cached env meets each (task, workspace) again and hits


@pytest.fixture(autouse=True)
def _own_cache_dir(tmp_path, monkeypatch):
    """No test reads or fills the user's cache folder, and the process cache a test makes (bound to
    that test's folder) does not outlive it."""
    monkeypatch.setenv("AGENTGYM_CACHE_DIR", str(tmp_path / "user-cache"))
    monkeypatch.setattr(result_cache, "_PROCESS_CACHE", None)


def _pool() -> list[str]:
    tasks = default_taskset()
    one, two = sorted(tasks.ids("test", "one_bug")), sorted(tasks.ids("test", "two_bugs"))
    rng = np.random.default_rng(7)
    return [one[i] for i in rng.choice(len(one), 20, replace=False)] + [
        two[i] for i in rng.choice(len(two), 5, replace=False)
    ]


def _episode(env: CodingEnv, task_id: str, seed: int, agent: str, turns: int = 12) -> list:
    """One episode's trajectory: every observation, reward, flag, event list, menu and verdict."""
    obs, info = env.reset(seed=seed, options={"task_id": task_id})
    traj = [obs["text"], info["events"], info["admissible_actions"]]
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(turns):
        if agent == "oracle":
            action = env.reference_action()
        else:  # seeded random menu agent; submits rarely so episodes test, revert and retry
            menu = info["admissible_actions"]
            options = [a for a in menu if a != "submit"] if rng.random() < 0.8 else menu
            action = options[int(rng.integers(len(options)))]
        obs, reward, terminated, truncated, info = env.step(action)
        hits += int(bool(info["cost"].get("cache_hit")))
        traj.append(
            (
                action,
                obs["text"],
                reward,
                terminated,
                truncated,
                info["events"],
                info["admissible_actions"],
                info.get("success"),
                env.last_verdict if terminated else None,
            )
        )
        if terminated:
            break
    return traj


@pytest.mark.slow
def test_cold_warm_and_no_cache_give_identical_trajectories(tmp_path):
    """>= 200 episodes (oracle and seeded random-menu agents) on a 25-task pool, local backend, each
    played three times: without a cache, over a cold disk cache, and over that disk cache warm (a new
    cache object, as a new process would have: every hit is read back from disk).

    Some mutants iterate a set of strings, so their visible test report differed between two
    sandboxes started with different string-hash seeds, cache or no cache (found by this test: a
    two-bug topological_sort task). Every step server now runs with one seed
    (`agentgym.sandbox.base.SERVER_HASH_SEED`), and test runs and the verifier's harness are its
    forks, so this test needs nothing special.
    """
    cold = ResultCache(disk=DiskStore(tmp_path / "disk"))
    plain = CodingEnv(split="test", backend="local")
    cached = CodingEnv(split="test", backend="local", result_cache=cold)
    pool = _pool()
    episodes = [(t, s, "oracle") for s in range(2) for t in pool] + [
        (t, 100 + s, "random") for s in range(6) for t in pool
    ]
    assert len(episodes) >= 200
    try:
        expected = {}
        for task_id, seed, agent in episodes:
            a, b = _episode(plain, task_id, seed, agent), _episode(cached, task_id, seed, agent)
            assert a == b, f"{agent} seed {seed} on {task_id}: trajectory over a cold disk cache differs"
            expected[task_id, seed] = a
        warm = cached.result_cache = ResultCache(disk=DiskStore(tmp_path / "disk"))
        for task_id, seed, agent in episodes:
            assert _episode(cached, task_id, seed, agent) == expected[task_id, seed], (
                f"{agent} seed {seed} on {task_id}: trajectory over a warm disk cache differs"
            )
    finally:
        plain.close()
        cached.close()
    for kind in ("test", "verify"):  # both really served (measured: 145/293 test and 27/72 verify lookups hit cold)
        stats = cold.stats()[kind]
        assert stats["hits"] >= 20 and stats["misses"] > 0 and stats["disk_hits"] == 0, stats
        stats = warm.stats()[kind]
        assert stats["disk_hits"] >= 20 and stats["hits"] > cold.stats()[kind]["hits"], stats
    assert warm.disk.errors == 0 and cold.disk.errors == 0


def test_info_reports_hits_and_a_shell_turns_the_cache_off():
    cache = ResultCache()
    env = CodingEnv(split="test", backend="local", result_cache=cache)
    task_id = _pool()[0]
    try:
        for _ in range(2):  # the second oracle episode is served from the cache
            env.reset(options={"task_id": task_id})
            hits = []
            while True:
                _, reward, terminated, _, info = env.step(env.reference_action())
                hits.append(info["cost"]["cache_hit"])
                if terminated:
                    break
        assert reward == 1.0 and hits[-2:] == [True, True]  # test, then submit
        before = cache.stats()
        # the same edits again, but a shell command first: nothing is looked up or stored, the
        # verification runs for real (the shell could have changed what the key does not see)
        env.reset(options={"task_id": task_id})
        env.step("run echo hello > notes.txt")
        while True:
            _, reward, terminated, _, info = env.step(env.reference_action())
            assert info["cost"]["cache_hit"] is False
            if terminated:
                break
        assert reward == 1.0 and cache.stats() == before
    finally:
        env.close()


def test_a_served_episode_makes_no_round_trip_and_the_sandbox_catches_up_before_anything_runs():
    """Coding-v0 holds back its resets and menu edits while the cache may serve
    (`Sandbox.write_files` with ``defer``): an episode the cache serves throughout sends nothing to
    the sandbox, and the first request after them finds exactly the files the env reports."""
    env = CodingEnv(split="test", backend="local", result_cache=ResultCache())
    first, second = _pool()[:2]
    try:
        played = _episode(env, first, 0, "oracle")  # fills the cache
        assert _episode(env, first, 0, "oracle") == played and played[-1][2] == 1.0
        calls = env.sandbox.calls  # (that reset ran at once: code had run in the sandbox since the last one)
        assert _episode(env, first, 0, "oracle") == played
        assert env.sandbox.calls == calls, "an episode the cache served made round trips"
        env.reset(options={"task_id": second})  # another task's files over the first one's
        patch = next(a for a in env.admissible_actions() if a.startswith("patch"))
        env.step(patch)
        env.step("revert")
        env.step(patch)
        assert env.sandbox.calls == calls
        files = {p: t for p, t in env._files.items() if t is not None}
        assert sorted(env.sandbox.list_files()) == sorted(files)
        assert {p: env.sandbox.read_file(p).decode() for p in files} == files
        assert env.sandbox.calls > calls
        _, _, _, _, info = env.step("test")  # a miss runs on those files
        assert info["cost"]["cache_hit"] is False
    finally:
        env.close()


def test_free_text_edits_turn_the_cache_off():
    """Agent-written code may keep state between runs or read a clock: the key cannot see that."""
    cache = ResultCache()
    env = CodingEnv(split="test", backend="local", result_cache=cache)
    task_id = _pool()[0]
    try:
        _, info = env.reset(options={"task_id": task_id})
        env.step("test")
        assert cache.stats()["test"]["misses"] == 1
        path = next(p for p in env.task.files if not p.startswith("test_"))
        env.step(f"replace {path} 1-0\n# a comment")
        before = cache.stats()
        _, _, _, _, info = env.step("test")
        _, _, _, _, info2 = env.step("submit")
        assert cache.stats() == before and not info["cost"]["cache_hit"] and not info2["cost"]["cache_hit"]
        # a patch that is not a menu entry (typed by hand) also turns it off
        env.reset(options={"task_id": task_id})
        menu_patch = next(a for a in env.admissible_actions() if a.startswith("patch"))
        _, _, _, _, info = env.step(menu_patch + "\n")
        assert "mutation" in [e["kind"] for e in info["events"]]
        before = cache.stats()
        env.step("test")
        assert cache.stats() == before
    finally:
        env.close()


def test_a_timeout_is_stored_only_once_it_repeats():
    cache = ResultCache()
    cache.put(("k",), "test", TestRun("x", {"passed": True}, False, None))
    got = cache.get(("k",), "test")
    got.value["passed"] = False  # a hit is a copy: changing it changes nothing stored
    assert cache.get(("k",), "test").value == {"passed": True}
    env = CodingEnv(split="test", backend="local", result_cache=cache, test_timeout=0.001)
    try:
        env.reset(options={"task_id": _pool()[0]})
        _, _, _, _, info = env.step("test")
        assert any(e.get("error_kind") == "timeout" for e in info["events"]), info["events"]
        assert len(cache) == 1  # only the entry put above: one timeout may be the machine's load
        _, _, _, _, again = env.step("test")
        assert len(cache) == 2 and not again["cost"]["cache_hit"]  # the second one is the code: stored
        _, _, _, _, third = env.step("test")
        assert third["cost"]["cache_hit"] and third["events"] == again["events"]
    finally:
        env.close()


def test_a_timeout_of_a_run_that_computed_is_stored_at_once():
    """A looping decoy costs its timeout once per cache, not twice; a starved run keeps the two-strike rule."""
    cache = ResultCache()
    cache.put(("loop",), "verify", "timed out", timed_out=True, cpu_bound=True)
    cache.put(("starved",), "verify", "timed out", timed_out=True, cpu_bound=False)
    assert cache.get(("loop",), "verify") == "timed out" and cache.get(("starved",), "verify") is None
    env = CodingEnv(split="test", backend="local", test_timeout=2.0)
    try:
        assert env._cpu_bound(1.5) and not env._cpu_bound(0.5) and not env._cpu_bound(None)
    finally:
        env.close()
    short = CodingEnv(split="test", backend="local", test_timeout=0.001)
    try:
        assert not short._cpu_bound(0.01)  # one clock tick says nothing about a 1 ms timeout
    finally:
        short.close()


def test_the_key_covers_the_sandbox_and_the_timeout():
    """Envs sharing a cache with different resource limits or timeouts never share an entry."""
    cache = ResultCache()
    envs = [
        CodingEnv(split="test", backend="local", result_cache=cache),
        CodingEnv(split="test", backend="local", result_cache=cache, sandbox_options={"memory_mb": 1024}),
        CodingEnv(split="test", backend="local", result_cache=cache, test_timeout=5.0),
    ]
    try:
        for env in envs:
            env.reset(options={"task_id": _pool()[0]})
            env.step("test")
        assert cache.stats()["test"] == {"hits": 0, "misses": 3, "disk_hits": 0} and len(cache) == 3
    finally:
        for env in envs:
            env.close()


def test_shared_cache_is_thread_safe_and_bounded():
    cache = ResultCache(max_entries=100)

    def work(offset: int) -> None:
        for i in range(2000):
            cache.put((offset, i % 150), "verify", i)
            cache.get((offset, (i * 7) % 150), "verify")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stats = cache.stats()["verify"]
    assert len(cache) == 100 and stats["hits"] + stats["misses"] == 8000


def test_arguments():
    assert CodingEnv(backend="local", result_cache=True).result_cache is process_cache()
    assert CodingEnv(backend="local", result_cache=False).result_cache is None
    shared = ResultCache()
    assert CodingEnv(backend="local", result_cache=shared).result_cache is shared  # empty, yet used
    with pytest.raises(ConfigError, match="result_cache"):
        CodingEnv(backend="local", result_cache="yes")
    with pytest.raises(ValueError, match="max_entries"):
        ResultCache(max_entries=0)


def test_the_verifiers_code_is_in_the_key(monkeypatch):
    """A cached verdict belongs to the code that reached it: change the verifier and the key changes."""
    from agentgym.envs.coding import result_cache

    meta = default_taskset().get(_pool()[0]).meta
    before = result_cache.task_digest(meta)
    monkeypatch.setattr(result_cache, "CODE_DIGEST", "another verifier")
    assert result_cache.task_digest(meta) != before


# ------------------------------------------------------------------------------------------ on disk
RUN = TestRun("1 passed", {"passed": True, "failures": [], "count": 1}, False, None)


def _only_entry(store: DiskStore) -> Path:
    (path,) = list(store.entries.rglob("*.json"))
    return path


@pytest.mark.parametrize(
    "damage", ["truncated", "not json", "another key", "edited value", "wrong checksum", "wrong type"]
)
def test_a_damaged_entry_is_never_returned_and_is_replaced(tmp_path, damage):
    store = DiskStore(tmp_path)
    assert store.put(("k",), "test", RUN)
    path = _only_entry(store)
    entry = json.loads(path.read_text())
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    elif damage == "not json":
        path.write_text("\x00garbage")
    elif damage == "another key":  # a whole, valid entry of another key copied over this one's file
        store.put(("other",), "test", TestRun("0 passed", {"passed": False}, False, None))
        other = next(p for p in store.entries.rglob("*.json") if p != path)
        path.write_bytes(other.read_bytes())
    elif damage == "edited value":  # a forged verdict without a matching checksum
        entry["value"]["value"]["passed"] = False
        path.write_text(json.dumps(entry))
    elif damage == "wrong checksum":
        entry["checksum"] = "0" * 64
        path.write_text(json.dumps(entry))
    else:
        entry["value"]["type"] = "mystery"
        entry["checksum"] = DiskStore._checksum(entry["key"], entry["value"])
        path.write_text(json.dumps(entry))
    cache = ResultCache(disk=store)
    assert cache.get(("k",), "test") is None and store.errors == 1 and not path.exists()
    cache.put(("k",), "test", RUN)  # the miss runs for real and replaces the entry
    assert ResultCache(disk=DiskStore(tmp_path)).get(("k",), "test") == RUN


def test_the_disk_key_covers_the_code(tmp_path, monkeypatch):
    """An entry written by other code (any source of the family or the sandbox) is a miss."""
    store = DiskStore(tmp_path)
    store.put(("k",), "verify", Verdict(True, "", 12))
    assert store.get(("k",), "verify") == Verdict(True, "", 12)
    monkeypatch.setattr(result_cache, "CODE_DIGEST", "other code")
    assert store.get(("k",), "verify") is None
    sources = result_cache._code_digest
    assert sources() == sources() != "other code"


def test_only_what_a_fresh_run_gives_again_is_written(tmp_path):
    """A timeout that merely repeated may be load: memory only. A computed-through one is the code's.
    A value JSON would change (a tuple, an int key, NaN) is not written at all."""
    store = DiskStore(tmp_path)
    cache = ResultCache(disk=store)
    timeout = TestRun("timed out", None, True, None)
    cache.put(("load",), "test", timeout, timed_out=True)
    cache.put(("load",), "test", timeout, timed_out=True)
    cache.put(("code",), "test", timeout, timed_out=True, cpu_bound=True)
    assert cache.get(("load",), "test") == timeout  # served from memory in this process
    fresh = ResultCache(disk=DiskStore(tmp_path))
    assert fresh.get(("load",), "test") is None and fresh.get(("code",), "test") == timeout
    for value in ({"passed": True, "pair": (1, 2)}, {1: "x"}, {"x": float("nan")}):
        assert not store.put(("odd", repr(value)), "test", TestRun("t", value, False, None))
    assert len(list(store.entries.rglob("*.json"))) == 1


def _writer(root: str, worker: int, n: int) -> None:
    store = DiskStore(root)
    for i in range(n):
        # both processes write the same keys (what a fresh run gives is the same) and their own
        store.put(("shared", i % 50), "test", TestRun(f"run {i % 50}", {"passed": i % 2 == 0}, False, None))
        store.put(("own", worker, i), "verify", Verdict(i % 3 == 0, f"reason {i}", i))
        got = store.get(("shared", (i * 7) % 50), "test")
        assert got is None or got == TestRun(f"run {(i * 7) % 50}", {"passed": (i * 7) % 50 % 2 == 0}, False, None)


def test_concurrent_writers_in_two_processes(tmp_path):
    ctx = mp.get_context("spawn")  # a fresh interpreter each: nothing shared but the folder
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w, 400)) for w in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0]
    store = DiskStore(tmp_path)
    for i in range(50):
        assert store.get(("shared", i), "test") == TestRun(f"run {i}", {"passed": i % 2 == 0}, False, None)
    for w in range(2):
        for i in range(400):
            assert store.get(("own", w, i), "verify") == Verdict(i % 3 == 0, f"reason {i}", i)
    assert store.errors == 0 and not list(tmp_path.rglob(".tmp-*"))
    assert store.info()["entries"] == 850


def test_eviction_keeps_the_folder_under_its_cap_least_recently_used_first(tmp_path):
    store = DiskStore(tmp_path, max_bytes=64 * 1024)
    big = "x" * 2000
    for i in range(10):
        store.put(("early", i), "test", TestRun(big, {"passed": True}, False, None))
    paths = sorted(store.entries.rglob("*.json"))
    for path in paths:  # written long ago...
        os.utime(path, (1, 1))
    assert store.get(("early", 0), "test") is not None  # ...but this one was used just now
    for i in range(20):  # 30 entries of about 2.3 kB: over the cap, so the oldest go
        store.put(("late", i), "test", TestRun(big, {"passed": True}, False, None))
    info = store.info()
    assert info["bytes"] <= 64 * 1024, info
    assert store.get(("early", 0), "test") is not None
    assert all(store.get(("late", i), "test") is not None for i in range(20))
    assert sum(store.get(("early", i), "test") is None for i in range(1, 10)) >= 3
    assert store.evict() == 0  # already under the cap


def test_the_default_folder_and_the_switch(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTGYM_CACHE_DIR", str(tmp_path / "here"))
    assert result_cache.default_cache_dir() == tmp_path / "here"
    monkeypatch.delenv("AGENTGYM_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert result_cache.default_cache_dir() == tmp_path / "xdg" / "agentgym"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert result_cache.default_cache_dir() == Path.home() / ".cache" / "agentgym"
    for off in ("0", "off", "false"):
        monkeypatch.setenv("AGENTGYM_DISK_CACHE", off)
        assert not result_cache.disk_enabled()
    monkeypatch.setenv("AGENTGYM_DISK_CACHE", "1")
    assert result_cache.disk_enabled()
    store = DiskStore(tmp_path / "fresh")
    store.put(("k",), "test", RUN)
    assert (tmp_path / "fresh").stat().st_mode & 0o777 == 0o700 and _only_entry(store).stat().st_mode & 0o777 == 0o600


@pytest.mark.skipif(os.geteuid() != 0, reason="as another user, the local backend runs agent code as that same user")
def test_agent_code_cannot_read_or_write_the_cache_folder(tmp_path):
    """Attack: plant a forged entry for a later episode, or read one. As root the local backend runs
    agent code as another user, and the folder is root's alone (Docker never mounts it)."""
    root = tmp_path / "store"
    store = DiskStore(root)
    store.put(("k",), "test", RUN)
    entry = _only_entry(store)
    os.chmod(tmp_path, 0o755)  # pytest's own tmp folders: searchable, so only the store's mode decides
    env = CodingEnv(split="test", backend="local", result_cache=ResultCache(disk=store))
    try:
        env.reset(options={"task_id": _pool()[0]})
        obs, *_ = env.step(f"run ls {entry.parent}; cat {entry}; echo forged > {entry.parent}/x.json; echo done")
        assert "Permission denied" in obs["text"] and "done" in obs["text"], obs["text"]
        assert '"checksum"' not in obs["text"]
        assert not (entry.parent / "x.json").exists()
    finally:
        env.close()


@pytest.mark.docker
def test_the_cache_folder_is_not_in_the_container(tmp_path):
    require_docker()
    store = DiskStore(tmp_path / "store")
    store.put(("k",), "test", RUN)
    env = CodingEnv(split="test", backend="docker", result_cache=ResultCache(disk=store))
    try:
        env.reset(options={"task_id": _pool()[0]})
        obs, *_ = env.step(f"run ls {_only_entry(store).parent} || echo absent")
        assert "absent" in obs["text"], obs["text"]
    finally:
        env.close()
