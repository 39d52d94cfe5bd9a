"""The statistics: pass@k against brute force, bootstrap intervals, cost and recovery curves."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgym.eval import metrics


def brute_force_pass_at_k(n: int, c: int, k: int) -> float:
    """Share of all k-subsets of n episodes (c of them successes) that hold a success."""
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    return sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)


@st.composite
def nck(draw):
    n = draw(st.integers(1, 10))
    return n, draw(st.integers(0, n)), draw(st.integers(1, n))


@given(nck())
@settings(max_examples=200, deadline=None)
def test_pass_at_k_matches_enumeration(args):
    n, c, k = args
    assert metrics.pass_at_k(n, c, k) == pytest.approx(brute_force_pass_at_k(n, c, k), abs=1e-12)


def test_pass_at_k_edges_and_errors():
    assert metrics.pass_at_k(5, 0, 3) == 0.0
    assert metrics.pass_at_k(5, 5, 1) == 1.0
    assert metrics.pass_at_k(4, 1, 1) == pytest.approx(0.25)
    assert metrics.pass_at_k(200, 3, 100) == pytest.approx(1 - (100 * 99 * 98) / (200 * 199 * 198))
    with pytest.raises(ValueError):
        metrics.pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        metrics.pass_at_k(3, 1, 4)


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.integers(0, 10_000))
@settings(max_examples=100, deadline=None)
def test_bootstrap_interval_contains_the_estimate(values, seed):
    mean, lo, hi = metrics.bootstrap_mean(values, resamples=300, seed=seed)
    assert mean == pytest.approx(float(np.mean(values)))
    assert lo <= mean <= hi
    assert 0.0 <= lo and hi <= 1.0


def test_bootstrap_interval_narrows_with_more_tasks():
    rng = np.random.default_rng(0)
    small = metrics.bootstrap_mean(rng.random(10), seed=1)
    large = metrics.bootstrap_mean(rng.random(400), seed=1)
    assert (large[2] - large[1]) < (small[2] - small[1]) / 3


def _rec(task, t, sample, success, faults="", **kw):
    base = {
        "env": "e",
        "task": task,
        "T": t,
        "sample": sample,
        "faults": faults,
        "success": success,
        "latency_s": 0.1,
        "cost": {"env_calls": 3},
        "category": "success" if success else "timeout",
    }
    return {**base, **kw}


def test_pass_grid_averages_tasks_and_skips_short_cells():
    rs = [_rec("a", 4, i, i == 0) for i in range(4)] + [_rec("b", 4, i, True) for i in range(2)]
    grid = metrics.pass_grid(rs, ks=[1, 4], ts=[4], resamples=200)
    assert grid[4][1]["mean"] == pytest.approx((0.25 + 1.0) / 2)
    assert grid[4][4]["tasks"] == 1 and grid[4][4]["skipped"] == 1  # task b has only 2 episodes
    assert grid[4][4]["mean"] == pytest.approx(1.0)


def test_infrastructure_failures_are_not_scored():
    rs = [_rec("a", 2, 0, True), _rec("a", 2, 1, None, infra_error="SandboxCrashed: x")]
    assert metrics.task_counts(rs) == {"e::a": (1, 1)}
    assert metrics.exhaustion_rate(rs) == {2: 0.0}


def test_success_at_cost_and_cost_at_success():
    grid = {2: {1: {"mean": 0.2}, 2: {"mean": 0.35}}, 4: {1: {"mean": 0.6}, 2: {"mean": 0.8}}}
    at_cost = metrics.success_at_cost(grid, [1, 2, 4, 8])
    assert at_cost[1] is None
    assert at_cost[2]["success"] == 0.2
    assert at_cost[4] == {"success": 0.6, "K": 1, "T": 4, "cost": 4.0}  # beats K=2,T=2 at equal cost
    assert at_cost[8]["success"] == 0.8
    at_success = metrics.cost_at_success(grid, [0.3, 0.7, 0.9])
    assert at_success[0.3] == {"cost": 4.0, "K": 1, "T": 4, "success": 0.6}  # equal cost: higher success
    assert at_success[0.7]["cost"] == 8.0 and at_success[0.9] is None


def test_budget_extrapolation():
    assert metrics.budget_extrapolation({2: 0.2, 4: 0.4, 8: 0.8}, 8) == {2: 0.25, 4: 0.5, 8: 1.0}
    assert metrics.budget_extrapolation({2: 0.0, 4: 0.0}, 4) == {2: None, 4: None}


def test_recovery_is_paired_on_task_and_sample():
    rs = [
        _rec("a", 4, 0, True),
        _rec("a", 4, 0, True, faults="f", n_faults=1),
        _rec("a", 4, 1, True),
        _rec("a", 4, 1, False, faults="f", n_faults=1),
        _rec("b", 4, 0, False, n_errors=2),
        _rec("b", 4, 0, False, faults="f", n_faults=0),
        _rec("c", 4, 0, True, n_errors=1),  # no faulted twin: not a pair
    ]
    r = metrics.recovery(rs)["by_t"][4]
    assert r["pairs"] == 3
    assert r["paired_rate"] == pytest.approx(1 / 2)
    assert r["paired_conditional"] == pytest.approx(1 / 2)
    assert r["natural_episodes"] == 2 and r["natural_rate"] == pytest.approx(1 / 2)
    assert r["fault_episodes"] == 2 and r["fault_rate"] == pytest.approx(1 / 2)


def test_categories_and_latency():
    rs = [_rec("a", 2, i, i < 1, latency_s=float(i + 1)) for i in range(4)]
    cats = metrics.category_breakdown(rs)[2]
    assert cats["success"] == 0.25 and cats["timeout"] == 0.75 and sum(cats.values()) == pytest.approx(1.0)
    lat = metrics.latency_percentiles(rs)[2]
    assert lat["p50"] == pytest.approx(2.5) and lat["p50"] <= lat["p95"] <= lat["p99"] <= 4.0


def brute_force_pass_hat_k(n: int, c: int, k: int) -> float:
    """Share of all k-subsets of n episodes (c of them successes) that are all successes."""
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    return sum(all(outcomes[i] for i in s) for s in subsets) / len(subsets)


@given(nck())
@settings(max_examples=200, deadline=None)
def test_pass_hat_k_matches_enumeration(args):
    n, c, k = args
    assert metrics.pass_hat_k(n, c, k) == pytest.approx(brute_force_pass_hat_k(n, c, k))


def test_pass_hat_k_is_unbiased_where_the_plug_in_is_not():
    # a task solved with probability 1/2, n = 2: E[pass^2] must be p^2 = 0.25
    expected = sum(metrics.pass_hat_k(2, c, 2) * w for c, w in ((0, 0.25), (1, 0.5), (2, 0.25)))
    assert expected == pytest.approx(0.25)
    assert metrics.pass_hat_k(4, 4, 4) == 1.0 and metrics.pass_hat_k(4, 3, 4) == 0.0
    with pytest.raises(ValueError):
        metrics.pass_hat_k(2, 1, 3)
    records = [_rec("a", 8, i, s) for i, s in enumerate((True, True, False, False))] + [
        _rec("b", 8, i, True) for i in range(4)
    ]
    grid = metrics.pass_grid(records, [1, 2, 4], [8], estimator=metrics.pass_hat_k)
    assert grid[8][1]["mean"] == pytest.approx((0.5 + 1) / 2)
    assert grid[8][2]["mean"] == pytest.approx((1 / 6 + 1) / 2)
    assert grid[8][4]["mean"] == pytest.approx(0.5)


def test_time_to_recover_distribution():
    def faulted(i, turns, n_faults=1):
        return _rec("a", 8, i, turns is not None, faults="f", n_faults=n_faults, recover_turns=turns)

    rs = [faulted(0, 1), faulted(1, 1), faulted(2, 3), faulted(3, None), faulted(4, None, n_faults=0)]
    ttr = metrics.time_to_recover(rs)
    assert ttr["episodes"] == 4 and ttr["never"] == 1 and ttr["recovered"] == 0.75
    assert ttr["hist"] == {1: 2, 3: 1} and ttr["mean"] == pytest.approx(5 / 3) and ttr["p50"] == 1.0
    assert metrics.time_to_recover([])["recovered"] is None
