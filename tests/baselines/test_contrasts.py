"""Success with seed-and-task intervals, and contrasts paired by task."""

from __future__ import annotations

import numpy as np
import pytest

from baselines.contrasts import cells_from_records, contrast, named_contrasts, success_at

TASKS = [f"t{i}" for i in range(60)]


def _agent(p_by_seed: dict[int, np.ndarray], t: int = 2) -> dict:
    return {seed: {(task, t): float(p[i]) for i, task in enumerate(TASKS)} for seed, p in p_by_seed.items()}


def test_cells_average_episodes_and_skip_infra_errors_and_faults() -> None:
    records = [
        {"task": "a", "T": 2, "success": True}, {"task": "a", "T": 2, "success": False},
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
    both = lambda p2, p16: {s: {**{(t, 2): float(p2[i]) for i, t in enumerate(TASKS)},  # noqa: E731
                                **{(t, 16): float(p16[i]) for i, t in enumerate(TASKS)}} for s in (1, 2)}
    agents = {"short": both(ones, zeros), "long": both(zeros, ones), "budgetmix": both(ones, ones),
              "curriculum": both(zeros, zeros)}
    out = named_contrasts(agents, TASKS, [2, 16], short="short", long="long", mix="budgetmix", curricula=["curriculum"])
    by = {(c["label"], c["name"]): c for c in out}
    assert {c["label"] for c in out} == set("abcde")
    a = next(c for c in out if c["label"] == "a")
    assert a["diff"] == pytest.approx(-1.0) and a["lo"] == a["hi"] == pytest.approx(-1.0)
    d2 = by[("d", "BudgetMix vs the best fixed-T specialist at T=2")]
    assert d2["b"].startswith("short") and d2["diff"] == pytest.approx(0.0)
    assert all(c["diff"] == pytest.approx(1.0) for c in out if c["label"] == "e")
