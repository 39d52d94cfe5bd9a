"""Recovery by intervention in the report (issue 34): R_A(T) cells, (h1)-(h4) and the section."""

from __future__ import annotations

import dataclasses

from baselines.config import Args
from baselines.report.contrasts import named_contrasts
from baselines.report.recovery import after_cells, intervention_cells, recovery_rows, recovery_section

TASKS = [f"coding/one_bug/m{i % 4}/t{i}" for i in range(24)]
IVS = "wrong-patch,tool_error@turn=1"


def _records(rate: dict[int, float], **extra: object) -> list[dict[str, object]]:
    return [
        {
            "task": t,
            "T": T,
            "success": i < rate[T] * len(TASKS),
            "sample": 0,
            "cost": {"first_commit_right": int(i < 12)},
            **extra,
        }
        for T in rate
        for i, t in enumerate(TASKS)
    ]


def _evals() -> dict[str, dict[int, dict[str, object]]]:
    def agent(clean: dict[int, float], after: dict[int, float]) -> dict[str, object]:
        return {
            "records": _records(clean),
            "interventions": {
                "wrong-patch": _records(clean)
                + _records(after, intervention="wrong-patch")
                + [
                    {
                        "task": "coding/one_bug/m0/none",
                        "T": 5,
                        "success": False,
                        "intervention": "wrong-patch",
                        "no_candidate": True,
                    }
                ],
                "tool_error@turn=1": _records(after, faults="tool_error@turn=1"),
            },
        }

    return {
        "fixed-T3": {s: agent({5: 0.5, 16: 0.5}, {5: 0.0, 16: 0.25}) for s in (1, 2)},
        "fixed-T12": {s: agent({5: 0.5, 16: 0.75}, {5: 0.25, 16: 0.5}) for s in (1, 2)},
        "budgetmix": {s: agent({5: 0.5, 16: 0.75}, {5: 0.25, 16: 0.75}) for s in (1, 2)},
        "random": {0: {"records": _records({5: 0.0, 16: 0.0})}},
    }


def test_after_cells_keep_only_that_interventions_episodes() -> None:
    after = after_cells(_evals(), "wrong-patch")
    assert set(after) == {"fixed-T3", "fixed-T12", "budgetmix"}  # random played none
    assert after["fixed-T12"][1][(TASKS[0], 16)] == 1.0 and after["fixed-T12"][1][(TASKS[23], 16)] == 0.0
    assert sum(after["fixed-T12"][1][(t, 16)] for t in TASKS) == 12  # the clean twins are not counted
    assert ("coding/one_bug/m0/none", 5) not in after["fixed-T12"][1]  # no candidate: no cell


def test_recovery_rows_primary_in_the_family_variants_beside_it_and_the_section() -> None:
    args = dataclasses.replace(
        Args(workers=1), eval_interventions=IVS, eval_intervention_ts="5,16", eval_variant_ts="5,16"
    )
    evals = _evals()
    after = intervention_cells(args, evals)
    assert set(after) == {"wrong-patch", "tool_error@turn=1"} and after["wrong-patch"] == after_cells(
        evals, "wrong-patch"
    )
    family, described = recovery_rows(
        args, evals, after, TASKS, short="fixed-T3", long="fixed-T12", unit_of=lambda t: t.rsplit("/", 1)[0]
    )
    assert [r["label"] for r in family] == ["h1", "h2", "h3", "h4"]
    assert [r["label"] for r in described] == ["h1'", "h2'", "h3'"]
    by = {r["label"]: r for r in family}
    assert (
        abs(by["h1"]["diff"] - 0.25) < 1e-9
        and abs(by["h2"]["diff"] - 0.5) < 1e-9
        and abs(by["h3"]["diff"] - 0.25) < 1e-9
    )
    assert by["h1"]["units"] == 4
    # (f) = 0.75 - 0.5 at T=16; first commits are equally right, so the gain is not accuracy's
    assert abs(by["h4"]["decomposition"]["gain"] - 0.25) < 1e-9 and abs(by["h4"]["decomposition"]["accuracy"]) < 1e-9
    clean = {
        n: {s: {(r["task"], r["T"]): float(r["success"]) for r in ev["records"]} for s, ev in b.items()}  # type: ignore[index, union-attr]
        for n, b in evals.items()
    }
    rows = named_contrasts(
        clean, TASKS, [5, 16], short="fixed-T3", long="fixed-T12", mix="budgetmix", curricula=[], more=family
    )
    text = "\n".join(
        recovery_section(args, after, clean, TASKS, [r for r in rows if r["label"].startswith("h")], described)
    )
    assert "## Recovery by intervention" in text and "**`tool_error@turn=1`**" in text
    assert "outside the family" in text and "(h4) Where (f) comes from" in text
    assert "| fixed-T12 | 0.25 [" in text  # R(T=5) with its interval


def test_an_intervention_the_family_lacks_fails_before_training() -> None:
    import pytest

    from agentgym.errors import ConfigError
    from baselines.experiment.run import check_interventions

    args = Args(workers=1)  # the default: Coding-v0's wrong-patch first
    check_interventions(args, "agentgym/Coding-v0")
    with pytest.raises(ConfigError, match="defines no forced start"):
        check_interventions(args, "agentgym/ToolUse-v0")
    check_interventions(dataclasses.replace(args, eval_interventions="tool_error@turn=1"), "agentgym/ToolUse-v0")


def test_families_without_a_first_commit_get_no_recovery_share() -> None:
    """(h4) splits (f) by the first patch's rightness: ToolUse-v0 and MiniWoB-v0 have none, so every
    success would count as recovery (the first family runs printed 1.00 [1.00, 1.00])."""
    args = dataclasses.replace(
        Args(workers=1),
        env_ids="agentgym/ToolUse-v0",
        eval_interventions="tool_error@turn=1",
        eval_intervention_ts="5,16",
    )
    evals = _evals()
    family, _ = recovery_rows(args, evals, intervention_cells(args, evals), TASKS, short="fixed-T3", long="fixed-T12")
    assert [r["label"] for r in family] == ["h1", "h2", "h3"]
