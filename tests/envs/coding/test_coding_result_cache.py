"""Coding-v0's opt-in result cache: a hit rebuilds exactly what a run gives, and it never serves
a state its key cannot see (after a `run` or a free-text edit)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from agentgym.envs.coding import CodingEnv
from agentgym.envs.coding.result_cache import ResultCache, TestRun, process_cache
from agentgym.envs.coding.tasks import default_taskset
from agentgym.errors import ConfigError

TASKS = 25  # a small pool, so the cached env meets each (task, workspace) again and hits


def _pool() -> list[str]:
    tasks = default_taskset()
    one, two = sorted(tasks.ids("test", "one_bug")), sorted(tasks.ids("test", "two_bugs"))
    rng = np.random.default_rng(7)
    return [one[i] for i in rng.choice(len(one), 20, replace=False)] + [two[i] for i in rng.choice(len(two), 5, replace=False)]


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
        traj.append((action, obs["text"], reward, terminated, truncated, info["events"], info["admissible_actions"],
                     info.get("success"), env.last_verdict if terminated else None))
        if terminated:
            break
    return traj


def test_cached_and_uncached_runs_give_identical_trajectories():
    """>= 200 episodes (oracle and seeded random-menu agents) on a 25-task pool, local backend.

    Some mutants iterate a set of strings, so their visible test report differed between two
    sandboxes started with different string-hash seeds, cache or no cache (found by this test: a
    two-bug topological_sort task). Every step server now runs with one seed
    (`agentgym.sandbox.base.SERVER_HASH_SEED`), and test runs and the verifier's harness are its
    forks, so this test needs nothing special.
    """
    cache = ResultCache()
    plain = CodingEnv(split="test", backend="local")
    cached = CodingEnv(split="test", backend="local", result_cache=cache)
    pool = _pool()
    episodes = [(t, s, "oracle") for s in range(2) for t in pool] + [(t, 100 + s, "random") for s in range(6) for t in pool]
    assert len(episodes) >= 200
    try:
        for task_id, seed, agent in episodes:
            a, b = _episode(plain, task_id, seed, agent), _episode(cached, task_id, seed, agent)
            assert a == b, f"{agent} seed {seed} on {task_id}: cached trajectory differs"
    finally:
        plain.close()
        cached.close()
    stats = cache.stats()
    for kind in ("test", "verify"):  # the cache really served (measured: 145/293 test and 27/72 verify lookups hit)
        assert stats[kind]["hits"] >= 20 and stats[kind]["misses"] > 0, stats


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
    envs = [CodingEnv(split="test", backend="local", result_cache=cache),
            CodingEnv(split="test", backend="local", result_cache=cache, sandbox_options={"memory_mb": 1024}),
            CodingEnv(split="test", backend="local", result_cache=cache, test_timeout=5.0)]
    try:
        for env in envs:
            env.reset(options={"task_id": _pool()[0]})
            env.step("test")
        assert cache.stats()["test"] == {"hits": 0, "misses": 3} and len(cache) == 3
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
    monkeypatch.setattr(result_cache, "JUDGES_DIGEST", "another verifier")
    assert result_cache.task_digest(meta) != before
