"""The per-family contrasts side by side and the hypothesis verdicts (`baselines.report.families`)."""

from __future__ import annotations

import json

import pytest

from agentgym.errors import ConfigError
from baselines.report.families import families_report, families_table, hypothesis_rows, hypothesis_table, verdict


def _row(label: str, diff: float, lo: float, hi: float, p_holm: float, equivalent: bool = False) -> dict:
    return {
        "label": label,
        "name": label,
        "a": f"A{label} @T=3",
        "b": f"B{label} @T=14",
        "diff": diff,
        "lo": lo,
        "hi": hi,
        "p": p_holm / 2,
        "p_holm": p_holm,
        "equivalent": equivalent,
        "mean_a": 0.5,
        "mean_b": 0.4,
        "tasks": 96,
    }


CODING = [
    _row("a", -0.6, -0.7, -0.5, 0.01),
    _row("b", 0.4, 0.3, 0.5, 0.01),
    _row("c", 0.0, -0.1, 0.1, 1.0),
    _row("f", 0.17, 0.08, 0.26, 0.02),
    _row("g", 0.49, 0.34, 0.64, 0.02),
    {k: v for k, v in _row("h1'", 0.1, 0.0, 0.2, 0.5).items() if k != "p_holm"},
]  # described, outside the family
TOOLUSE = [
    _row("a", 0.1, 0.02, 0.2, 0.04),
    _row("b", 0.0, -0.02, 0.02, 1.0, equivalent=True),
    _row("f", 0.05, -0.05, 0.15, 0.6),
]


def test_the_verdict_follows_the_rule_named_in_advance():
    assert verdict(CODING[0], -1) == "held"  # (a) predicts a drop
    assert verdict(TOOLUSE[0], -1) == "not supported"  # the interval lies wholly above 0
    assert verdict(TOOLUSE[1], +1) == "not supported"  # equivalent to 0 within the margin
    assert verdict(TOOLUSE[2], +1) == "open"
    assert verdict(_row("f", 0.3, 0.01, 0.5, 0.2), +1) == "open"  # the raw interval excludes 0, Holm does not
    assert verdict(None, +1) == "open"
    floor = {**_row("a", 0.0, 0.0, 0.0, 1.0, equivalent=True), "mean_a": 0.0, "mean_b": 0.01}
    assert verdict(floor, -1) == "open"  # nothing succeeded: nothing to collapse
    g = {**_row("g", 0.0, -0.01, 0.01, 1.0, equivalent=True), "terms": {"x": 0.0, "y": 0.02, "z": 0.0, "w": 0.3}}
    assert verdict(g, +1) == "not supported"  # one term is off the floor
    assert [h["verdict"] for h in hypothesis_rows(TOOLUSE)] == ["not supported", "open", "open", "not supported"]


def test_the_families_table_puts_each_familys_contrasts_side_by_side():
    table = families_table({"Coding-v0": CODING, "ToolUse-v0": TOOLUSE})
    lines = table.splitlines()
    assert lines[0] == "| contrast | Coding-v0 | ToolUse-v0 |"
    (a_row,) = [line for line in lines if line.startswith("| (a)")]
    assert (
        "-0.60 [-0.70, -0.50], Holm p 0.010: held" in a_row
        and "+0.10 [+0.02, +0.20], Holm p 0.040: not supported" in a_row
    )
    (g_row,) = [line for line in lines if line.startswith("| (g)")]
    assert g_row.endswith("| – |")  # ToolUse's run has no (g) row here
    assert lines[-1] == "| Holm family (rows) | 5 | 3 |"
    assert "**held**" in hypothesis_table(CODING)


def test_families_report_reads_the_run_folders(tmp_path):
    for name, env_id, rows in (("coding", "agentgym/Coding-v0", CODING), ("tooluse", "agentgym/ToolUse-v0", TOOLUSE)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "contrasts.json").write_text(json.dumps(rows))
        (tmp_path / name / "provenance.json").write_text(json.dumps({"settings": {"env_ids": env_id}}))
    text = families_report([tmp_path / "coding", tmp_path / "tooluse"])
    assert "| contrast | Coding-v0 | ToolUse-v0 |" in text and "### Hypotheses: ToolUse-v0" in text
    with pytest.raises(ConfigError, match="contrasts.json"):
        families_report([tmp_path])


def test_the_all_families_suite_runs_each_preset_into_its_folder_then_tabulates(tmp_path, monkeypatch):
    import baselines.budgetmix as budgetmix
    from baselines.config import PRESET_SUITES

    ran = []

    def fake_run(args):
        folder = tmp_path / "out" / args.preset
        folder.mkdir(parents=True)
        (folder / "contrasts.json").write_text(json.dumps(CODING))
        (folder / "provenance.json").write_text(json.dumps({"settings": {"env_ids": args.env_ids}}))
        ran.append((args.preset, args.out, args.seeds))
        return 0

    monkeypatch.setattr(budgetmix, "run_experiment", fake_run)
    assert budgetmix.main(["--preset", "all-full", "--out", str(tmp_path / "out"), "--seeds", "5"]) == 0
    assert [p for p, _, _ in ran] == list(PRESET_SUITES["all-full"]) and all(s == "5" for _, _, s in ran)
    text = (tmp_path / "out" / "families.md").read_text()
    assert "| contrast | Coding-v0 | ToolUse-v0 | MiniWoB-v0 |" in text
