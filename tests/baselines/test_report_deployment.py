"""The report's all-seed numbers and deployment table on hand-made episodes (`baselines.report.cells`,
`baselines.report.deployment`): every expected value is worked out by hand in the comments."""

from __future__ import annotations

from typing import Any

import pytest

from agentgym.eval.metrics import exhaustion_rate
from baselines.report.cells import at_each_t, category_share, fmt_interval, over_seeds, pass_at, task_cells
from baselines.report.deployment import agent_costs, deployment, exposure, trained_decisions
from baselines.report.markdown import fault_numbers


def ep(
    task: str,
    t: int,
    success: bool,
    *,
    turns: int = 2,
    env_s: float = 0.1,
    agent_s: float = 0.02,
    latency: float = 1.0,
    exhausted: bool = False,
    category: str | None = None,
) -> dict[str, Any]:
    return {
        "env": "e",
        "task": task,
        "T": t,
        "sample": 0,
        "success": success,
        "turns": turns,
        "latency_s": latency,
        "budget_exhausted": exhausted,
        "category": category or ("success" if success else "planning_mistake"),
        "infra_error": None,
        "faults": "",
        "cost": {"model_calls": turns, "env_seconds": env_s, "agent_seconds": agent_s},
    }


TASKS = ["a", "b"]


def test_rates_are_means_over_tasks_of_means_over_seeds() -> None:
    records = {
        1: [ep("a", 2, False, exhausted=True), ep("a", 2, False), ep("b", 2, True)],  # a: 1/2 exhausted, b: 0
        2: [ep("a", 2, False, exhausted=True), ep("b", 2, False, exhausted=True)],  # a: 1, b: 1
    }
    cells = task_cells(records, exhaustion_rate)
    assert cells == {1: {("a", 2): 0.5, ("b", 2): 0.0}, 2: {("a", 2): 1.0, ("b", 2): 1.0}}
    c = at_each_t(cells, TASKS, [2])[2]
    assert c["mean"] == pytest.approx((0.75 + 0.5) / 2) and c["lo"] <= c["mean"] <= c["hi"] and c["seeds"] == 2
    share = task_cells(records, category_share("success"))
    assert share[1] == {("a", 2): 0.0, ("b", 2): 1.0} and share[2] == {("a", 2): 0.0, ("b", 2): 0.0}


def test_pass_at_k_per_task_uses_the_unbiased_estimator_and_skips_short_cells() -> None:
    records = {1: [ep("a", 5, True), ep("a", 5, False), ep("b", 5, False)]}
    assert task_cells(records, pass_at(1)) == {1: {("a", 5): 0.5, ("b", 5): 0.0}}
    assert task_cells(records, pass_at(2)) == {1: {("a", 5): 1.0}}  # b has one episode: no pass@2


def test_over_seeds_and_its_format() -> None:
    assert over_seeds([None]) == {"mean": None, "lo": None, "hi": None, "seeds": 0}
    one = over_seeds([3.0])
    assert one == {"mean": 3.0, "lo": 3.0, "hi": 3.0, "seeds": 1} and fmt_interval(one, 0) == "3"
    two = over_seeds([1.0, 3.0])
    assert two["mean"] == 2.0 and 1.0 <= two["lo"] <= two["hi"] <= 3.0 and fmt_interval(two, 1).startswith("2.0 [")
    # success_at's interval is shown even with one seed: it has task variance
    assert fmt_interval({"mean": 0.5, "lo": 0.5, "hi": 0.5, "tasks": 2, "seeds": 1}) == "0.50 [0.50, 0.50]"


def test_exposure_reads_trained_decisions_or_falls_back_to_unforced_steps() -> None:
    old = {
        "env_steps": 100,
        "forced_start_steps": 30,
        "updates": 3,
        "forced_start_episodes": 10,
        "seconds": 2.0,
        "schedule": "fixed:3",
        "history": [{"charts/episodes": 15}, {"charts/episodes": 25}],
    }
    assert trained_decisions(old) == 70
    assert trained_decisions({**old, "trained_decisions": 64}) == 64
    [run] = exposure([("fixed-T3", 1, old)])
    assert run == {
        "run": "fixed-T3",
        "seed": 1,
        "schedule": "fixed:3",
        "env_steps": 100,
        "updates": 3,
        "trained_decisions": 70,
        "episodes": 40,
        "forced_start_episodes": 10,
        "forced_start_steps": 30,
        "seconds": 2.0,
    }
    assert exposure([("x", 1, {**old, "history": [{"global_step": 1}]})])[0]["episodes"] is None  # not counted


def test_deployment_table_by_hand() -> None:
    # one seed, two tasks, T in {2, 4}; at T=2 one of four episodes succeeds, at T=4 three of four
    recs = {
        "agent": {
            1: [
                ep("a", 2, True, turns=2, env_s=0.1, latency=1.0),
                ep("a", 2, False, turns=2, env_s=0.1, latency=2.0),
                ep("b", 2, False, turns=2, env_s=0.1, latency=3.0, exhausted=True),
                ep("b", 2, False, turns=2, env_s=0.1, latency=4.0, exhausted=True),
                ep("a", 4, True, turns=3, env_s=0.2, latency=5.0),
                ep("a", 4, True, turns=3, env_s=0.2, latency=6.0),
                ep("b", 4, True, turns=3, env_s=0.2, latency=7.0),
                ep("b", 4, False, turns=3, env_s=0.2, latency=8.0),
            ]
        }
    }
    grid = {t: {k: at_each_t(task_cells(recs["agent"], pass_at(k)), TASKS, [t])[t] for k in (1, 2)} for t in (2, 4)}
    assert grid[2][1]["mean"] == 0.25 and grid[2][2]["mean"] == 0.5  # a: pass@2 = 1, b: 0
    assert grid[4][1]["mean"] == 0.75 and grid[4][2]["mean"] == 1.0
    d = deployment(recs, {"agent": grid}, TASKS, [2, 4])
    c2 = d.by_t["agent"][2]
    assert c2["exhausted"]["mean"] == 0.5 and c2["turns"] == 2.0 and c2["env_seconds"] == pytest.approx(0.1)
    assert c2["latency_s"]["p50"] == pytest.approx(2.5) and c2["episodes"] == 4
    assert c2["latency_s"]["p99"] == pytest.approx(3.97)  # numpy's linear percentile of 1, 2, 3, 4
    # success at fixed cost in turns: a cell costs K x T; C in {K x T} = {2, 4, 8}
    assert d.turn_budgets == [2.0, 4.0, 8.0]
    at = d.at_cost["agent"]["turns"]
    assert at[2.0] == {"success": 0.25, "K": 1, "T": 2, "cost": 2.0}
    assert at[4.0] == {"success": 0.75, "K": 1, "T": 4, "cost": 4.0}  # beats K=2, T=2 (0.5) at the same cost
    assert at[8.0] == {"success": 1.0, "K": 2, "T": 4, "cost": 8.0}
    # average cost at fixed success in turns used: K x mean turns (2 at T=2, 3 at T=4)
    by_target = d.at_success["agent"]["turns"]
    assert by_target[0.25] == {"cost": 2.0, "K": 1, "T": 2, "success": 0.25}
    assert by_target[0.5] == {"cost": 3.0, "K": 1, "T": 4, "success": 0.75}  # 3 turns < K=2,T=2's 4
    assert by_target[1.0] == {"cost": 6.0, "K": 2, "T": 4, "success": 1.0}
    # env seconds: K x mean env seconds (0.1 at T=2, 0.2 at T=4); the columns span 0.1 .. 0.4
    assert d.second_budgets[0] == pytest.approx(0.1) and d.second_budgets[-1] >= 0.4
    assert d.at_cost["agent"]["env_seconds"][d.second_budgets[-1]]["success"] == 1.0
    assert d.at_success["agent"]["env_seconds"][0.75] == {"cost": pytest.approx(0.2), "K": 1, "T": 4, "success": 0.75}


def test_cross_budget_success_is_the_mean_and_the_minimum_over_t_per_seed() -> None:
    cells = {
        "agent": {
            1: {("a", 2): 0.0, ("b", 2): 0.5, ("a", 4): 1.0, ("b", 4): 1.0},  # per T: 0.25, 1.0
            2: {("a", 2): 0.5, ("b", 2): 0.5, ("a", 4): 0.5, ("b", 4): 1.0},
        }
    }  # per T: 0.5, 0.75
    recs = {"agent": {1: [ep("a", 2, False, turns=2, agent_s=0.004)], 2: [ep("a", 2, False, turns=4, agent_s=0.004)]}}
    runs = exposure(
        [
            ("agent", 1, {"env_steps": 100, "updates": 2, "seconds": 1.0}),
            ("agent", 2, {"env_steps": 110, "updates": 3, "seconds": 3.0}),
        ]
    )
    c = agent_costs(runs, recs, cells, TASKS, [2, 4])["agent"]
    assert c["seeds"] == 2
    assert c["cross_budget"]["mean_over_T"]["mean"] == pytest.approx((0.625 + 0.625) / 2)
    assert c["cross_budget"]["min_over_T"]["mean"] == pytest.approx((0.25 + 0.5) / 2)
    assert c["training"]["env_steps"]["mean"] == 105 and c["training"]["updates"]["mean"] == 2.5
    assert c["training"]["trained_decisions"]["mean"] == 105  # no forced starts recorded
    assert c["training"]["forced_share"]["mean"] is None  # no episode counts in the history
    assert c["inference"]["turns"]["mean"] == 3.0
    assert c["inference"]["ms_per_decision"]["mean"] == pytest.approx((2.0 + 1.0) / 2)  # 4 ms / 2 turns, / 4 turns
    untrained = agent_costs(runs, {"random": recs["agent"]}, {"random": cells["agent"]}, TASKS, [2, 4])["random"]
    assert untrained["training"] is None


def test_fault_numbers_pool_the_seeds_pairs() -> None:
    def ev(pairs: int, clean: float, faulted: float) -> dict[str, Any]:
        return {
            "faults": {
                "recovery": {"e": {"by_t": {"6": {"pairs": pairs, "success_clean": clean, "success_faulted": faulted}}}}
            }
        }

    f = fault_numbers({1: ev(4, 0.5, 0.25), 2: ev(4, 1.0, 0.5), 3: {}}, 6)  # seed 3 ran no faults
    assert f["seeds"] == 2 and f["pairs"] == 8
    assert f["success_clean"] == 0.75 and f["success_faulted"] == 0.375 and f["paired_rate"] == 0.5
    assert f["difference"]["mean"] == pytest.approx((-0.25 - 0.5) / 2)
