"""baselines.policy.env_pool: training runs borrow warm bare envs and lend them back."""

from __future__ import annotations

import gc
import os

import pytest

from agentgym.errors import SandboxTimeout
from agentgym.make import wrap
from baselines.config import TrainSettings
from baselines.policy import env_pool

ENV = "agentgym/Coding-v0"
KW = {"backend": "local", "split": "train", "test_timeout": 2.0}


@pytest.fixture(autouse=True)
def empty_pool():
    env_pool.close_idle()
    yield
    env_pool.close_idle()


def _played(env) -> None:
    env.reset(seed=3)
    env.step("test")


def test_a_closed_stack_lends_its_warm_env_to_the_next_borrower():
    first = wrap(env_pool.borrow(ENV, **KW), budget=3, labels=True, cost=True)
    _played(first)
    sandbox = first.unwrapped.sandbox
    first.close()
    assert env_pool.idle_count() == 1 and not sandbox.closed
    second = wrap(env_pool.borrow(ENV, **KW), budget={"uniform": [2, 6]}, labels=True)
    assert second.unwrapped.sandbox is sandbox and env_pool.idle_count() == 0
    obs, info = second.reset(seed=4)  # a new run's stack: its own budget, a clean episode
    assert info["budget"] in range(2, 7) and "Patched" not in obs["text"]
    second.close()


def test_other_settings_get_other_envs():
    a = env_pool.borrow(ENV, **KW)
    a.close()
    b = env_pool.borrow(ENV, **{**KW, "test_timeout": 3.0})
    assert b.env is not a.env
    b.close()
    assert env_pool.idle_count() == 2


def test_an_env_whose_sandbox_failed_is_closed_not_lent():
    env = env_pool.borrow(ENV, **KW)
    _played(env)
    sandbox = env.unwrapped.sandbox
    sandbox.close()  # as after an infrastructure failure
    env.close()
    assert env_pool.idle_count() == 0
    fresh = env_pool.borrow(ENV, **KW)
    _played(fresh)
    assert fresh.unwrapped.sandbox is not sandbox
    fresh.close()


def test_an_env_whose_reset_failed_is_closed_not_lent(monkeypatch):
    """A reset that raised (a MiniWoB page that did not load in time under load) leaves Gymnasium's
    env checker half-done: lent again, the env's first step raised TypeError inside the checker."""
    env = wrap(env_pool.borrow(ENV, **KW), budget=3)
    base = env.unwrapped

    def slow_page(**_):
        raise SandboxTimeout("the page did not load in time")

    monkeypatch.setattr(base, "reset", slow_page)
    with pytest.raises(SandboxTimeout):
        env.reset(seed=1)
    monkeypatch.undo()
    env.close()
    assert env_pool.idle_count() == 0
    fresh = wrap(env_pool.borrow(ENV, **KW), budget=3)
    assert fresh.unwrapped is not base
    _played(fresh)
    fresh.close()


def test_close_idle_stops_every_sandbox():
    env = env_pool.borrow(ENV, **KW)
    _played(env)
    sandbox = env.unwrapped.sandbox
    env.close()
    env_pool.close_idle()
    assert env_pool.idle_count() == 0 and sandbox.closed


def test_a_forked_child_never_closes_the_parents_idle_envs():
    env = env_pool.borrow(ENV, **KW)
    _played(env)
    base = env.env
    env.close()
    pid = os.fork()
    if pid == 0:  # the child drops what it inherited and collects garbage, as a worker may
        try:
            env_pool.close_idle()
            gc.collect()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    again = env_pool.borrow(ENV, **KW)
    assert again.env is base
    _played(again)  # the parent's sandbox still answers
    again.close()


def test_a_run_on_borrowed_envs_trains_exactly_as_one_on_new_envs(tmp_path):
    """Same seed, lockstep collection: the second run, on the first run's lent envs, gives the same policy."""
    import dataclasses

    import torch

    from baselines.config import Args
    from baselines.policy.train import train

    args = dataclasses.replace(
        Args(),
        schedule="uniform:2-6",
        seed=7,
        total_env_steps=48,
        num_envs=2,
        env_threads=2,
        steps_per_update=16,
        collect_mode="lockstep",
        backend="local",
        track=False,
        progress=False,
        dim=32,
        hidden=16,
        out=str(tmp_path),
    )
    runs = [train(TrainSettings.from_args(args), name) for name in ("fresh", "borrowed")]
    assert env_pool.idle_count() == 2  # both runs' envs: lent back
    weights = [torch.load(r["checkpoint"], weights_only=False)["policy"] for r in runs]
    assert weights[0].keys() == weights[1].keys()
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    assert [h["charts/success_rate"] for h in runs[0]["history"]] == [
        h["charts/success_rate"] for h in runs[1]["history"]
    ]
