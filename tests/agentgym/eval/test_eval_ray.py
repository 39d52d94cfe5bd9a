"""The Ray backend gives the same per-episode records as the local runner for the same seeds."""

from __future__ import annotations

import pytest
from eval_envs import FLAKY_ID, KV_ID
from test_eval_harness import strip_timing

from agentgym.eval import evaluate
from agentgym.testing.kv_env import KVTasks
from support.docker import IN_CI

try:
    import ray
except ImportError:  # the `ray` extra; CI installs it, so there a missing Ray is a failure
    if IN_CI:
        raise
    pytest.skip("the Ray backend needs `pip install ray`", allow_module_level=True)


@pytest.fixture(scope="module")
def ray_session():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.slow
def test_ray_and_local_records_agree_and_infra_failures_are_retried(ray_session, tmp_path):
    kw = dict(ks=[1, 2], ts=[3, 6], n=2, tasks=4, seed=5, faults="tool_error@turn=2", progress=False, report=False)
    local = evaluate(KV_ID, "random", out=tmp_path / "local", workers=2, **kw)
    on_ray = evaluate(KV_ID, "random", out=tmp_path / "ray", workers=2, executor="ray", **kw)
    assert len(on_ray.records) == 2 * 2 * 4 * 2
    assert strip_timing(on_ray.records) == strip_timing(local.records)
    for cond in ("clean", "faulted"):
        assert on_ray.summary["results"][cond][KV_ID]["pass"] == local.summary["results"][cond][KV_ID]["pass"]

    ids = KVTasks().ids("test")[:2]
    result = evaluate(
        FLAKY_ID,
        "oracle",
        ks=[1],
        ts=[8],
        n=1,
        tasks=ids,
        executor="ray",
        workers=2,
        out=tmp_path / "flaky",
        env_kwargs={"always_crash": [ids[0]]},
        retries=1,
        progress=False,
        report=False,
    )
    assert result.summary["counts"]["infra_errors"] == 1 and result.grid() == {8: {1: 1.0}}
    crashed = next(r for r in result.records if r["task"] == ids[0])
    assert crashed["attempts"] == 2 and crashed["success"] is None
