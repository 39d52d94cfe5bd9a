"""`baselines.experiment.provenance`:
what an experiment folder records about the code, settings and tasks that made it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from agentgym.errors import ConfigError
from baselines.config import Args
from baselines.experiment import provenance


def test_the_record_keeps_what_decides_results_and_drops_where_it_ran() -> None:
    args = Args(seeds="1,2", out="/tmp/x", device="cuda", workers=7)
    rec = provenance.record(args, {"primary": ["a", "b"], "split2": []}, ["t1", "t2"])
    assert not provenance.EXECUTION_ONLY & set(rec["settings"])
    assert {"t_short", "t_long", "mix", "total_env_steps", "learning_rate", "collect_mode"} <= set(rec["settings"])
    assert set(rec["tasks"]) == {"eval/primary", "eval/split2", "train"}
    assert rec["code"]["sources"] == provenance.source_digest() and rec["code"]["git"]  # this checkout is git
    other_part = provenance.record(
        dataclasses.replace(args, seeds="3,4", out="/tmp/y", device="cpu", workers=1),
        {"split2": [], "primary": ["a", "b"]},
        ["t2", "t1"],
    )
    assert provenance.differences(rec, other_part) == []  # seeds, folder, device, workers and order do not matter
    changed = provenance.record(dataclasses.replace(args, mix="uniform:2-16"), {"primary": ["a"], "split2": []}, ["t1"])
    assert provenance.differences(rec, changed) == [
        "settings.mix: 'uniform:2-12' != 'uniform:2-16'",
        f"tasks.eval/primary: {rec['tasks']['eval/primary']!r} != {changed['tasks']['eval/primary']!r}",
        f"tasks.train: {rec['tasks']['train']!r} != {changed['tasks']['train']!r}",
    ]
    json.dumps(rec)  # written as JSON


def test_the_source_digest_sees_every_file_of_the_packages(tmp_path: Path, monkeypatch) -> None:
    pkg = tmp_path / "baselines"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "data.json").write_text("{}")
    monkeypatch.setattr(provenance, "_package_roots", lambda: [("baselines", pkg)])
    before = provenance.source_digest()
    (pkg / "__pycache__" / "a.cpython-312.pyc").write_bytes(b"bytecode")  # not a source
    assert provenance.source_digest() == before
    (pkg / "data.json").write_text('{"tasks": 1}')  # task data is part of the code version
    assert provenance.source_digest() != before
    (pkg / "data.json").write_text("{}")
    (pkg / "a.py").write_text("x = 2\n")
    assert provenance.source_digest() != before


def test_resume_refuses_a_folder_of_other_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run"
    out.mkdir()
    rec = provenance.record(Args(), {}, [])
    rec["code"] = {"sources": "0" * 32, "git": "v0.1-3-gabcdef"}
    (out / provenance.FILE).write_text(json.dumps(rec))

    from baselines.experiment import run as experiment

    def train_all(*_, **__):  # never reached: the check comes before any training
        raise AssertionError("trained despite other code")

    monkeypatch.setattr(experiment, "run_graph", train_all)
    with pytest.raises(ConfigError, match=r"written by other code: code: v0.1-3-gabcdef .*start a new --out"):
        experiment.run_experiment(dataclasses.replace(Args(**{"preset": "smoke"}), out=str(out), resume=True))
