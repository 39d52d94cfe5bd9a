"""Success with seed-and-task intervals, and contrasts paired by task."""

from __future__ import annotations

import numpy as np
import pytest

from baselines.report.contrasts import (
    EQUIVALENCE_MARGIN,
    cells_from_records,
    contrast,
    holm,
    linear_contrast,
    named_contrasts,
    success_at,
)

TASKS = [f"t{i}" for i in range(60)]


def _agent(p_by_seed: dict[int, np.ndarray], t: int = 2) -> dict:
    return {seed: {(task, t): float(p[i]) for i, task in enumerate(TASKS)} for seed, p in p_by_seed.items()}


def test_cells_average_episodes_and_skip_infra_errors_and_faults() -> None:
    records = [
        {"task": "a", "T": 2, "success": True},
        {"task": "a", "T": 2, "success": False},
        {"task": "a", "T": 2, "success": False, "infra_error": "lost"},
        {"task": "a", "T": 2, "success": True, "faults": "tool_error@turn=1"},
    ]
    assert cells_from_records(records) == {("a", 2): 0.5}


def test_pairing_by_task_separates_what_unpaired_intervals_cannot() -> None:
    rng = np.random.default_rng(0)
    hard = rng.random(len(TASKS)) < 0.5  # tasks differ a lot; B solves a few more of the same tasks
    a = (~hard).astype(float)
    b = a.copy()
    b[np.flatnonzero(hard)[:6]] = 1.0
    c = contrast(_agent({1: a}), 2, _agent({1: b}), 2, TASKS)
    assert c["diff"] == pytest.approx(-0.1) and c["hi"] < 0  # paired: supported
    sa, sb = success_at(_agent({1: a}), TASKS, 2), success_at(_agent({1: b}), TASKS, 2)
    assert sa["hi"] > sb["lo"]  # unpaired intervals overlap


def test_seed_variance_widens_the_interval() -> None:
    rng = np.random.default_rng(1)
    base = (rng.random(len(TASKS)) < 0.5).astype(float)
    steady = _agent({s: base for s in (1, 2, 3)})
    noisy = _agent({1: np.ones(len(TASKS)), 2: base, 3: np.zeros(len(TASKS))})
    w_steady = success_at(steady, TASKS, 2)
    w_noisy = success_at(noisy, TASKS, 2)
    assert w_noisy["hi"] - w_noisy["lo"] > 2 * (w_steady["hi"] - w_steady["lo"])


def test_named_contrasts_cover_a_to_e_and_the_same_agent_pairs_its_seeds() -> None:
    ones, zeros = np.ones(len(TASKS)), np.zeros(len(TASKS))

    def both(p2, p16):
        return {
            s: {
                **{(t, 2): float(p2[i]) for i, t in enumerate(TASKS)},
                **{(t, 16): float(p16[i]) for i, t in enumerate(TASKS)},
            }
            for s in (1, 2)
        }

    agents = {
        "short": both(ones, zeros),
        "long": both(zeros, ones),
        "budgetmix": both(ones, ones),
        "curriculum": both(zeros, zeros),
    }
    out = named_contrasts(agents, TASKS, [2, 16], short="short", long="long", mix="budgetmix", curricula=["curriculum"])
    by = {(c["label"], c["name"]): c for c in out}
    assert {c["label"] for c in out} == set("abcdefg")
    a = next(c for c in out if c["label"] == "a")
    assert a["diff"] == pytest.approx(-1.0) and a["lo"] == a["hi"] == pytest.approx(-1.0)
    d2 = by[("d", "BudgetMix vs the best fixed-T specialist at T=2")]
    assert d2["b"].startswith("short") and d2["diff"] == pytest.approx(0.0)
    assert all(c["diff"] == pytest.approx(1.0) for c in out if c["label"] == "e")


def test_f_and_g_on_a_known_case() -> None:
    """long: 0.9 at T=16, 0.1 at T=2 (drop 0.8); short: 0.5 at both (drop 0): (f) = +0.4, (g) = +0.8."""
    rng = np.random.default_rng(3)

    def agent(p2: float, p16: float) -> dict:
        return {
            s: {
                **{(t, 2): float(rng.random() < p2) for t in TASKS},
                **{(t, 16): float(rng.random() < p16) for t in TASKS},
            }
            for s in (1, 2, 3)
        }

    agents = {"short": agent(0.5, 0.5), "long": agent(0.1, 0.9), "budgetmix": agent(0.5, 0.5)}
    out = {
        c["label"]: c
        for c in named_contrasts(agents, TASKS, [2, 16], short="short", long="long", mix="budgetmix", curricula=[])
    }
    mean = lambda a, t: np.mean([agents[a][s][(k, t)] for s in agents[a] for k in TASKS])  # noqa: E731
    assert out["f"]["diff"] == pytest.approx(mean("long", 16) - mean("short", 16))
    g = (mean("long", 16) - mean("long", 2)) - (mean("short", 16) - mean("short", 2))
    assert out["g"]["diff"] == pytest.approx(g) and 0.6 < g < 1.0
    assert out["g"]["lo"] > 0.4 and out["g"]["p"] < 0.01 and out["g"]["p_holm"] >= out["g"]["p"]
    assert out["g"]["mean_a"] == pytest.approx(mean("long", 16) - mean("long", 2))


def test_difference_in_differences_pairs_tasks_and_seeds() -> None:
    """A task effect shared by both budgets and both agents cancels: the interval is exactly 0."""
    hard = (np.arange(len(TASKS)) % 3 == 0).astype(float)
    agent = {
        s: {**{(t, 2): hard[i] for i, t in enumerate(TASKS)}, **{(t, 16): hard[i] for i, t in enumerate(TASKS)}}
        for s in (1, 2)
    }
    c = linear_contrast(
        {"x": agent, "y": agent}, [("x", 16, 1.0), ("x", 2, -1.0), ("y", 16, -1.0), ("y", 2, 1.0)], TASKS
    )
    assert c["diff"] == 0.0 and c["lo"] == 0.0 and c["hi"] == 0.0


def test_holm_adjusts_step_down_and_keeps_order() -> None:
    adj = holm([0.01, 0.04, None, 0.03, 0.5])
    assert adj[2] is None
    assert adj[0] == pytest.approx(0.04) and adj[3] == pytest.approx(0.09) and adj[1] == pytest.approx(0.09)
    assert adj[4] == pytest.approx(0.5)


def test_equivalence_test_within_the_margin() -> None:
    """Equal agents on many tasks are equivalent within +-0.05; a 0.2 gap is not."""
    rng = np.random.default_rng(5)
    tasks = [f"u{i}" for i in range(400)]
    base = (rng.random(len(tasks)) < 0.5).astype(float)
    same = {s: {(t, 2): base[i] for i, t in enumerate(tasks)} for s in (1, 2)}
    shifted = base.copy()
    shifted[np.flatnonzero(base == 0)[:80]] = 1.0
    gap = {s: {(t, 2): shifted[i] for i, t in enumerate(tasks)} for s in (1, 2)}
    eq = contrast(same, 2, same, 2, tasks)
    assert eq["equivalent"] and eq["p_equiv"] < 0.05 and eq["margin"] == EQUIVALENCE_MARGIN
    far = contrast(gap, 2, same, 2, tasks)
    assert not far["equivalent"] and far["p_equiv"] > 0.5 and far["p"] < 0.01


def _decisions(
    pattern: list[tuple[float, float]], t: int = 16, seeds: int = 3
) -> dict[int, dict[tuple[str, int], tuple[float, float, float]]]:
    """Every seed alike: task i's (first commit right, success)."""
    return {s: {(f"t{i}", t): (r, ok, r * ok) for i, (r, ok) in enumerate(pattern)} for s in range(seeds)}


def test_recovery_share_is_one_when_the_gain_is_all_recovery_and_zero_when_it_is_all_accuracy() -> None:
    from baselines.report.contrasts import recovery_share

    tasks = [f"t{i}" for i in range(40)]
    # long: 20 right first commits that succeed, and 12 of 20 wrong ones recovered; short: none recovered
    long = _decisions([(1.0, 1.0)] * 20 + [(0.0, 1.0)] * 12 + [(0.0, 0.0)] * 8)
    short = _decisions([(1.0, 1.0)] * 20 + [(0.0, 0.0)] * 20)
    got = recovery_share({"long": long, "short": short}, "long", "short", tasks, 16)
    assert got["gain"] == pytest.approx(0.3) and got["share"] == pytest.approx(1.0)
    assert got["lo"] == pytest.approx(1.0) and got["held"]
    # long gains by committing right more often, recovering nothing
    long = _decisions([(1.0, 1.0)] * 32 + [(0.0, 0.0)] * 8)
    got = recovery_share({"long": long, "short": short}, "long", "short", tasks, 16)
    assert (
        got["gain"] == pytest.approx(0.3)
        and got["share"] == pytest.approx(0.0)
        and got["accuracy"] == pytest.approx(0.3)
    )
    assert not got["held"] and got["p"] == 1.0
    # the parts add up to the gain
    assert got["accuracy"] + got["follow_through"] + got["recovery"] == pytest.approx(got["gain"])


def test_recovery_contrasts_name_h1_to_h4_and_join_the_holm_family() -> None:
    from baselines.report.contrasts import decision_cells_from_records, named_contrasts, recovery_contrasts

    tasks = [f"t{i}" for i in range(30)]

    def agent(rate: dict[int, float]) -> dict[int, dict[tuple[str, int], float]]:
        return {s: {(t, T): float(i < rate[T] * 30) for i, t in enumerate(tasks) for T in rate} for s in range(3)}

    after = {"short": agent({5: 0.1, 16: 0.1}), "long": agent({5: 0.2, 16: 0.7}), "mix": agent({5: 0.2, 16: 0.6})}
    rows = recovery_contrasts(
        after, tasks, short="short", long="long", mix="mix", lo_t=5, hi_t=16, intervention="wrong_patch"
    )
    by = {r["label"]: r for r in rows}
    assert set(by) == {"h1", "h2", "h3"}  # h4 needs the clean episodes' decisions
    assert by["h1"]["diff"] == pytest.approx(0.6) and by["h2"]["diff"] == pytest.approx(0.4)
    assert by["h3"]["diff"] == pytest.approx(-0.1)
    clean = {"short": agent({2: 0.3, 16: 0.3}), "long": agent({2: 0.2, 16: 0.6}), "mix": agent({2: 0.4, 16: 0.6})}
    family = named_contrasts(clean, tasks, [2, 16], short="short", long="long", mix="mix", curricula=[], more=rows)
    assert [r["label"] for r in family][-3:] == ["h1", "h2", "h3"]
    assert all(r["p_holm"] is not None and r["p_holm"] >= r["p"] for r in family)
    # intervention and faulted episodes never count as clean decisions
    records = [
        {"task": "t0", "T": 16, "success": True, "cost": {"first_commit_right": 1}},
        {"task": "t0", "T": 16, "success": False, "cost": {"first_commit_right": 0}},
        {"task": "t0", "T": 16, "success": True, "intervention": "wrong_patch", "cost": {}},
    ]
    assert decision_cells_from_records(records) == {("t0", 16): (0.5, 0.5, 0.5)}


def _two_t(p_lo: np.ndarray, p_hi: np.ndarray, lo: int = 2, hi: int = 16, seeds: int = 3) -> dict:
    return {
        seed: {
            **{(task, lo): float(p_lo[i]) for i, task in enumerate(TASKS)},
            **{(task, hi): float(p_hi[i]) for i, task in enumerate(TASKS)},
        }
        for seed in range(seeds)
    }


def test_process_contrasts_name_their_rows_and_adjust_over_their_own_family() -> None:
    """(p1)-(p5): the long specialist with process reward still collapses (p2 < 0), BudgetMix beats it at
    the shortest T (p3 > 0), and the Holm adjustment runs over these rows only."""
    from baselines.report.contrasts import process_contrasts

    n = len(TASKS)
    ones, zeros, half = np.ones(n), np.zeros(n), (np.arange(n) % 2).astype(float)
    agents = {
        "fixed-T12": _two_t(zeros, ones),
        "fixed-T12+pr": _two_t(zeros, ones),
        "budgetmix": _two_t(half, ones),
        "budgetmix+pr": _two_t(half, ones),
    }
    after = {"fixed-T12": _two_t(zeros, half), "fixed-T12+pr": _two_t(zeros, ones)}
    rows = process_contrasts(
        agents,
        after,
        TASKS,
        [2, 16],
        long="fixed-T12",
        mix="budgetmix",
        suffix="+pr",
        intervention_ts=[5, 16],
        intervention="wrong-patch",
        resamples=200,
    )
    by = {(r["label"], r["b"]): r for r in rows}
    assert [r["label"] for r in rows] == ["p1", "p2", "p3", "p4", "p4", "p5"]
    assert by[("p1", "fixed-T12 @T=16")]["diff"] == 0.0
    p2 = by[("p2", "fixed-T12+pr @T=16")]
    assert p2["diff"] == -1.0 and p2["hi"] < 0  # the collapse stays
    assert by[("p3", "fixed-T12+pr @T=2")]["diff"] == pytest.approx(0.5)
    assert by[("p5", "fixed-T12 @T=16")]["diff"] == pytest.approx(0.5)
    assert all(r["p_holm"] >= r["p"] for r in rows if r["p"] is not None)
    assert (
        process_contrasts(
            {"fixed-T12": agents["fixed-T12"]}, None, TASKS, [2, 16], long="fixed-T12", mix="budgetmix", suffix="+pr"
        )
        == []
    )
