"""`evaluate(budget_mode="soft")`: every episode runs hard and soft with the same seeds, and the
summary, report and CLI pair the two per T."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from eval_envs import KV_ID, ExtendingOracle
from test_eval_cli import ROOT, cli_env
from test_eval_harness import summary_stats

from agentgym.errors import ConfigError
from agentgym.eval import evaluate
from agentgym.eval.episodes import EpisodeSpec, record_key
from agentgym.testing.kv_env import KVTasks

SOFT = {"extra": 3, "max_requests": 1, "cost": 0.25, "warn_at": 1}


def ids_and_turns(n=6):
    tasks = KVTasks()
    ids = tasks.ids("test")[:n]
    return ids, {t: tasks.get(t).min_turns for t in ids}


def test_soft_mode_pairs_every_episode_with_its_hard_twin(tmp_path):
    ids, min_turns = ids_and_turns()
    ts = [2, 3, 5]
    result = evaluate(
        KV_ID,
        ExtendingOracle(),
        ks=[1],
        ts=ts,
        n=1,
        tasks=ids,
        out=tmp_path,
        progress=False,
        budget_mode="soft",
        soft_budget=SOFT,
    )
    hard = {(r["task"], r["T"]): r for r in result.records if r["budget_mode"] == "hard"}
    soft = {(r["task"], r["T"]): r for r in result.records if r["budget_mode"] == "soft"}
    assert set(hard) == set(soft) and len(hard) == len(ids) * len(ts)
    for key, s in soft.items():
        h, need = hard[key], min_turns[key[0]]
        assert s["env_seed"] == h["env_seed"] and s["agent_seed"] == h["agent_seed"]
        assert "extensions" not in h and h["success"] == (key[1] >= need)
        # the extension buys 3 turns for one: the oracle then solves every task needing up to T + 2
        assert s["success"] == (key[1] + 2 >= need), s
        assert s["extensions"]["granted"] <= 1 and s["turns"] <= key[1] + 3
        asked = key[1] < need
        assert s["extensions"]["requested"] == int(asked) and s["extensions"]["cost"] == 0.25 * asked
        assert ("timeout_after_extension" in s["flags"]) == (asked and not s["success"])
    by_t = result.summary["soft_budget"]["clean"][KV_ID]
    for t in ts:
        row, pairs = by_t[str(t)], [(hard[(i, t)], soft[(i, t)]) for i in ids]
        assert row["pairs"] == len(ids) and row["success_hard"] == sum(h["success"] for h, _ in pairs) / len(ids)
        assert row["diff"]["mean"] == pytest.approx(row["success_soft"] - row["success_hard"])
        assert row["diff"]["lo"] <= row["diff"]["mean"] <= row["diff"]["hi"]
        assert row["asked"] == pytest.approx(sum(min_turns[i] > t for i in ids) / len(ids))
        assert row["net_soft"] == pytest.approx(row["success_soft"] - row["cost"])
        assert row["turns_soft"] >= row["turns_hard"] - 1e-9 or row["success_soft"] < row["success_hard"]
    # the hard statistics are those of a hard-only run on the same tasks and seeds
    alone = evaluate(KV_ID, ExtendingOracle(), ks=[1], ts=ts, n=1, tasks=ids, progress=False)
    assert summary_stats(alone.summary)[0] == summary_stats(result.summary)[0]
    report = (tmp_path / "report.md").read_text()
    assert "## Hard vs soft budget" in report and '"extra": 3' in report and f"**{KV_ID}, clean**" in report


def test_agents_that_never_extend_score_the_same_under_both(tmp_path):
    ids, _ = ids_and_turns(4)
    result = evaluate(
        KV_ID,
        "oracle",
        ks=[1],
        ts=[2, 4],
        n=1,
        tasks=ids,
        progress=False,
        budget_mode="soft",
        faults="tool_error@turn=1",
    )
    for cond in ("clean", "faulted"):
        by_t = result.summary["soft_budget"][cond][KV_ID]
        for row in by_t.values():
            assert row["diff"] == {"mean": 0.0, "lo": 0.0, "hi": 0.0} and row["asked"] == 0.0 and row["cost"] == 0.0
        assert by_t["2"]["warned"] == 1.0  # the default soft budget warns at one turn left; every task needs 3+
    assert result.summary["config"]["soft_budget"] == {"extra": 2, "max_requests": 1, "cost": 0.0, "warn_at": 1}


def test_resume_keeps_both_modes_and_refuses_another_soft_budget(tmp_path):
    ids, _ = ids_and_turns(3)
    kw = dict(ks=[1], ts=[3], n=1, tasks=ids, out=tmp_path, progress=False, report=False)
    evaluate(KV_ID, "oracle", **kw)
    first = evaluate(KV_ID, "oracle", budget_mode="soft", soft_budget=SOFT, **kw)
    assert first.ran == len(ids)  # only the soft twins: the hard episodes were there
    again = evaluate(KV_ID, "oracle", budget_mode="soft", soft_budget=SOFT, **kw)
    assert again.ran == 0 and len(again.records) == 2 * len(ids)
    with pytest.raises(ConfigError, match="soft_budget"):
        evaluate(KV_ID, "oracle", budget_mode="soft", soft_budget={**SOFT, "extra": 5}, **kw)
    assert len({record_key(r) for r in again.records}) == 2 * len(ids)


def test_spec_keys_and_old_records_default_to_hard():
    spec = EpisodeSpec(KV_ID, "kv/1", 3, 0, "", 0)
    assert spec.budget_mode == "hard" and spec.key[-2:] == ("hard", "")  # no intervention
    assert record_key({"env": KV_ID, "task": "kv/1", "T": 3, "sample": 0, "faults": ""}) == spec.key
    soft = EpisodeSpec(KV_ID, "kv/1", 3, 0, "", 0, "soft")
    assert soft.env_seed == spec.env_seed and soft.agent_seed == spec.agent_seed and soft.key != spec.key


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"budget_mode": "squishy"}, "budget_mode='squishy'"),
        ({"soft_budget": {"extra": 2}}, "budget_mode='soft' only"),
        ({"budget_mode": "soft", "soft_budget": {"extra": 0}}, "extra=0"),
        ({"budget_mode": "soft", "soft_budget": {"soft": 4, "extra": 1}}, "leave out 'soft'"),
        ({"budget_mode": "soft", "soft_budget": {"max_requests": 2}}, "needs 'extra'"),
    ],
)
def test_bad_budget_modes_fail_before_any_episode(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        evaluate(KV_ID, "oracle", ts=[3], progress=False, **kwargs)


def test_cli_budget_mode_soft(tmp_path):
    args = [
        sys.executable,
        "-m",
        "agentgym.cli",
        "eval",
        "--env",
        "eval_envs:test/EvalKV-v0",
        "--agent",
        "eval_envs:ExtendingOracle",
        "--t",
        "2,3",
        "--tasks",
        "3",
        "--no-progress",
    ]
    done = subprocess.run(
        [*args, "--budget-mode", "soft", "--extra", "3", "--warn-at", "0", "--out", str(tmp_path / "a")],
        capture_output=True,
        text=True,
        env=cli_env(),
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    run = json.loads((tmp_path / "a" / "run.json").read_text())
    assert run["budget_mode"] == "soft" and run["soft_budget"] == {"extra": 3, "max_requests": 1, "cost": 0.0}
    assert "--budget-mode soft --extra 3 --warn-at 0" in run["command"]
    assert "## Hard vs soft budget" in (tmp_path / "a" / "report.md").read_text()
    bad = subprocess.run(
        [*args, "--extra", "3", "--out", str(tmp_path / "b")],
        capture_output=True,
        text=True,
        env=cli_env(),
        cwd=ROOT,
        timeout=300,
    )
    assert bad.returncode == 2 and "--budget-mode soft" in bad.stderr
