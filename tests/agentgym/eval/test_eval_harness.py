"""`evaluate` end to end on test envs: the oracle grid, determinism, resume, infrastructure
failures, faults and recovery, and the report files."""

from __future__ import annotations

import json
import os
import struct
import sys
from pathlib import Path

import matplotlib.image
import pytest
from eval_envs import FLAKY_ID, KV_ID, TOY_ID

from agentgym.errors import ConfigError
from agentgym.eval import evaluate, read_episodes
from agentgym.eval.episodes import TIMING_FIELDS
from agentgym.eval.plots import PLOT_FILES
from agentgym.testing.kv_env import KVTasks


def strip_timing(records):
    """Records without the fields that vary between identical runs, sorted by episode."""
    out = []
    for r in records:
        r = {k: v for k, v in r.items() if k not in TIMING_FIELDS}
        r["cost"] = {k: v for k, v in r.get("cost", {}).items() if not k.endswith("seconds")}
        out.append(r)
    return sorted(out, key=lambda r: (r["env"], r["task"], r["T"], r["sample"], r["faults"]))


def summary_stats(summary):
    """The statistics of a summary that must not depend on timing."""
    out = {}
    for cond, groups in summary["results"].items():
        for g, res in groups.items():
            out[(cond, g)] = {k: res[k] for k in ("pass", "success", "extrapolation", "exhaustion", "categories")}
    return out, summary["counts"], summary["recovery"]


def test_oracle_grid_is_one_from_min_turns_and_zero_below(tmp_path):
    tasks = KVTasks()
    ids = tasks.ids("test")[:6]
    min_turns = {t: tasks.get(t).min_turns for t in ids}
    ts = sorted({*min_turns.values(), min(min_turns.values()) - 1, max(min_turns.values()) + 2})
    result = evaluate(KV_ID, "oracle", ks=[1, 2], ts=ts, n=2, tasks=ids, out=tmp_path, progress=False, report=False)
    for r in result.records:
        assert r["success"] == (r["T"] >= min_turns[r["task"]]), r
        assert r["category"] == ("success" if r["success"] else "timeout")
        assert r["budget_exhausted"] == (not r["success"])
    grid = result.grid()
    for t in ts:
        if t >= max(min_turns.values()):
            assert grid[t] == {1: 1.0, 2: 1.0}
        if t < min(min_turns.values()):
            assert grid[t] == {1: 0.0, 2: 0.0}
    assert result.summary["counts"] == {
        "episodes": 2 * len(ids) * len(ts),
        "scored": 2 * len(ids) * len(ts),
        "successes": sum(r["success"] for r in result.records),
        "infra_errors": 0,
        "infra_retried": 0,
        "infra_error_kinds": {},
        "no_candidate": 0,
    }


def test_oracle_on_a_sandboxed_env(tmp_path, backend):
    """The toy family runs in a real sandbox (both backends); its tasks take 3 turns."""
    result = evaluate(
        TOY_ID, "oracle", ks=[1], ts=[2, 3], n=1, out=tmp_path, sandbox=backend, progress=False, report=False
    )
    assert result.grid() == {2: {1: 0.0}, 3: {1: 1.0}}
    assert all(r["cost"]["env_calls"] > 0 and r["cost"]["env_seconds"] > 0 for r in result.records)


def test_same_seed_same_records_in_process_and_in_a_pool(tmp_path):
    kw = dict(ks=[1, 2], ts=[3, 6], n=2, tasks=4, seed=7, progress=False, report=False)
    a = evaluate(KV_ID, "random", out=tmp_path / "a", **kw)
    b = evaluate(KV_ID, "random", out=tmp_path / "b", **kw)
    c = evaluate(KV_ID, "random", out=tmp_path / "c", workers=2, **kw)
    assert strip_timing(a.records) == strip_timing(b.records) == strip_timing(c.records)
    assert os.getpid() not in {r["worker"] for r in c.records}  # ran in pool processes
    d = evaluate(KV_ID, "random", out=tmp_path / "d", **{**kw, "seed": 8})
    assert [r["actions"] for r in strip_timing(d.records)] != [r["actions"] for r in strip_timing(a.records)]


BUILT: list[str] = []


def _pooled_base_env(env_id, **kwargs):
    """A lender of bare envs, as `baselines.policy.env_pool.borrow` is: counts what it builds."""
    from agentgym.eval.stack import make_base_env

    BUILT.append(env_id)
    return make_base_env(env_id, **kwargs)


def test_a_base_env_factory_builds_the_envs_and_changes_no_episode(tmp_path):
    kw = dict(ks=[1, 2], ts=[3, 6], n=2, tasks=4, seed=7, progress=False, report=False)
    a = evaluate(KV_ID, "random", out=tmp_path / "a", **kw)
    BUILT.clear()
    b = evaluate(KV_ID, "random", out=tmp_path / "b", base_env=_pooled_base_env, **kw)
    assert BUILT and set(BUILT) == {KV_ID}
    assert strip_timing(a.records) == strip_timing(b.records)


def test_resume_skips_finished_episodes_and_gives_the_same_summary(tmp_path):
    kw = dict(ks=[1, 2], ts=[3, 5], n=2, tasks=4, seed=3, progress=False, report=False)
    full = evaluate(KV_ID, "random", out=tmp_path / "full", **kw)
    part = tmp_path / "part"
    evaluate(KV_ID, "random", out=part, **kw)
    lines = (part / "episodes.jsonl").read_text().splitlines(keepends=True)
    keep = len(lines) // 3
    # as if killed mid-write: a third of the episodes, then a torn line
    (part / "episodes.jsonl").write_text("".join(lines[:keep]) + lines[keep][: len(lines[keep]) // 2])
    resumed = evaluate(KV_ID, "random", out=part, **kw)
    assert resumed.ran == len(lines) - keep
    assert strip_timing(resumed.records) == strip_timing(full.records)
    assert summary_stats(resumed.summary) == summary_stats(full.summary)
    again = evaluate(KV_ID, "random", out=part, **kw)
    assert again.ran == 0
    with pytest.raises(ConfigError, match="seed"):
        evaluate(KV_ID, "random", out=part, **{**kw, "seed": 4})


def test_infrastructure_failure_is_retried_and_counted_apart(tmp_path):
    ids = KVTasks().ids("test")[:3]
    env_kwargs = {"crash_once": str(tmp_path / "crashed"), "always_crash": [ids[0]]}
    result = evaluate(
        FLAKY_ID,
        "oracle",
        ks=[1],
        ts=[8],
        n=2,
        tasks=ids,
        out=tmp_path / "run",
        env_kwargs=env_kwargs,
        retries=2,
        progress=False,
        report=False,
    )
    by_task = {}
    for r in result.records:
        by_task.setdefault(r["task"], []).append(r)
    for r in by_task[ids[0]]:
        assert r["success"] is None and r["infra_error"].startswith("SandboxCrashed")
        assert r["attempts"] == 3 and len(r["infra_retries"]) == 3
    scored = [r for t in ids[1:] for r in by_task[t]]
    assert all(r["success"] and not r["infra_error"] for r in scored)
    assert sum(r["attempts"] == 2 for r in scored) == 1  # the one-off crash, retried once
    counts = result.summary["counts"]
    assert counts["infra_errors"] == 2 and counts["scored"] == 4 and counts["infra_retried"] == 3
    assert counts["infra_error_kinds"] == {"SandboxCrashed": 2}
    # crashed episodes are not agent failures: the oracle's pass@1 over scored tasks stays 1.0
    assert result.grid() == {8: {1: 1.0}}
    assert result.summary["results"]["clean"][FLAKY_ID]["pass"]["8"]["1"]["tasks"] == 2
    # a resumed run retries the infrastructure failures, and only them
    again = evaluate(
        FLAKY_ID,
        "oracle",
        ks=[1],
        ts=[8],
        n=2,
        tasks=ids,
        out=tmp_path / "run",
        env_kwargs={"always_crash": []},
        retries=0,
        progress=False,
        report=False,
    )
    assert again.ran == 2 and again.summary["counts"]["infra_errors"] == 0 and again.grid() == {8: {1: 1.0}}


def test_faults_run_paired_with_clean_episodes(tmp_path):
    tasks = KVTasks()
    ids = tasks.ids("test")[:4]
    top = max(tasks.get(t).min_turns for t in ids)
    result = evaluate(
        KV_ID,
        "oracle",
        ks=[1],
        ts=[top, top + 1],
        n=1,
        tasks=ids,
        faults="tool_error@turn=1",
        out=tmp_path,
        progress=False,
        report=False,
    )
    faulted = [r for r in result.records if r["faults"]]
    assert len(faulted) == len(result.records) // 2
    assert all(r["n_faults"] == 1 and r["faults_fired"] == ["tool_error"] for r in faulted)
    clean = {(r["task"], r["T"]): r for r in result.records if not r["faults"]}
    for r in faulted:  # the twin shares seeds
        assert r["env_seed"] == clean[(r["task"], r["T"])]["env_seed"]
    rec = result.summary["recovery"][KV_ID]["by_t"]
    # the oracle needs one extra turn to redo the spoiled step: it recovers only with a spare turn
    assert rec[str(top + 1)]["paired_rate"] == 1.0
    assert rec[str(top)]["success_clean"] == 1.0 and rec[str(top)]["paired_rate"] < 1.0
    assert result.grid(condition="faulted")[top + 1] == {1: 1.0}


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_report_files_are_written(tmp_path):
    evaluate(
        [KV_ID, TOY_ID],
        "random",
        ks=[1, 2],
        ts=[2, 4],
        n=2,
        tasks=3,
        faults="timeout@first=1",
        out=tmp_path,
        sandbox="local",
        progress=False,
    )
    report = (tmp_path / "report.md").read_text()
    for name in PLOT_FILES.values():
        png = tmp_path / name
        w, h = _png_size(png)
        assert w > 300 and h > 200
        assert matplotlib.image.imread(png).ndim == 3
        assert f"({name})" in report
    for section in (
        "## Pass@(K,T)",
        "## Budget extrapolation",
        "## Why episodes fail",
        "## Recovery",
        "## Cost",
        "## Latency",
        "## Infrastructure failures",
    ):
        assert section in report
    assert "faulted" in report and "timeout@first=1" in report
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert set(summary["results"]) == {"clean", "faulted"}
    assert set(summary["results"]["clean"]) == {KV_ID, TOY_ID, "all"}  # per env, and pooled over envs
    assert summary["results"]["clean"]["all"]["tasks"] == 6
    assert f"**{TOY_ID}, clean**" in report and "**all, faulted**" in report
    assert len(read_episodes(tmp_path / "episodes.jsonl")) == 2 * 2 * 2 * 3 * 2


def test_bad_arguments_fail_early(tmp_path):
    with pytest.raises(ConfigError, match="n=1"):
        evaluate(KV_ID, "oracle", ks=[1, 2], ts=[4], n=1, progress=False)
    with pytest.raises(ConfigError, match="executor"):
        evaluate(KV_ID, "oracle", executor="dask", progress=False)
    with pytest.raises(ConfigError, match="unknown env id"):
        evaluate("test/Nope-v0", "oracle", progress=False)
    with pytest.raises(ConfigError):
        evaluate(KV_ID, "oracle", faults="explode@turn=1", progress=False)
    with pytest.raises(ConfigError, match="module:factory|factory"):
        evaluate(KV_ID, "nonsense", progress=False)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_broken_agent_factory_fails_once_and_never_hangs(workers, tmp_path):
    with pytest.raises(ConfigError, match="lacks reset"):
        evaluate(
            KV_ID,
            "eval_envs:not_an_agent",
            ks=[1],
            ts=[4],
            n=1,
            tasks=2,
            workers=workers,
            out=tmp_path,
            progress=False,
            report=False,
        )


def test_pass_hat_and_time_to_recover_reach_summary_report_and_compare(tmp_path):
    from agentgym.eval.compare import compare

    tasks = KVTasks()
    ids = tasks.ids("test")[:3]
    top = max(tasks.get(t).min_turns for t in ids)
    result = evaluate(
        KV_ID,
        "oracle",
        ks=[1, 2],
        ts=[top + 2],
        n=2,
        tasks=ids,
        faults="tool_error@turn=1",
        out=tmp_path / "a",
        progress=False,
    )
    faulted = [r for r in result.records if r["faults"]]
    # the tool error spoils the first tool call; the oracle's next one succeeds a turn later
    assert all(r["recover_turns"] == 1 for r in faulted)
    assert all(r["recover_turns"] is None for r in result.records if not r["faults"])
    cell = result.summary["results"]["clean"][KV_ID]["pass_hat"][str(top + 2)]["2"]
    assert cell["mean"] == 1.0 and cell["tasks"] == 3
    ttr = result.summary["recovery"][KV_ID]["by_t"][str(top + 2)]["time_to_recover"]
    assert ttr["episodes"] == 6 and ttr["recovered"] == 1.0 and ttr["hist"] == {"1": 6}
    report = (tmp_path / "a" / "report.md").read_text()
    assert "## pass^k (consistency)" in report and "Time to recover" in report
    assert (tmp_path / "a" / PLOT_FILES["pass_hat"]).stat().st_size > 0
    text, _ = compare(tmp_path / "a", tmp_path / "a")
    assert "pass^k (all K attempts succeed)" in text and "time to recover" in text


def test_plots_are_readable(tmp_path, monkeypatch):
    """The heatmap is big enough for its title; log cost axes carry several tick labels; the
    recovery hint names the real flag; the compare legend says which line style is which run."""
    from agentgym.eval import plots

    figs = {}
    real_save = plots._save

    def keep(fig, path):  # what each figure shows, read before it is saved
        fig.canvas.draw()
        title = fig._suptitle
        box, frame = (title.get_window_extent(), fig.bbox) if title is not None else (None, None)
        figs[Path(path).name] = {
            "texts": [t.get_text() for ax in fig.axes for t in ax.texts],
            "ticks": [[t.get_text() for t in ax.get_xticklabels() if t.get_text()] for ax in fig.axes],
            "legends": [ax.get_legend() for ax in fig.axes],
            "title_inside": box is None or (box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y1 <= frame.y1),
        }
        return real_save(fig, path)

    monkeypatch.setattr(plots, "_save", keep)
    result = evaluate(KV_ID, "random", ks=[1], ts=[4], n=1, tasks=2, out=tmp_path / "a", progress=False)
    w, h = _png_size(tmp_path / "a" / PLOT_FILES["pass_heatmap"])
    assert w >= 600 and h >= 300 and figs[PLOT_FILES["pass_heatmap"]]["title_inside"]
    assert all(len(ticks) >= 1 for ticks in figs[PLOT_FILES["success_vs_cost"]]["ticks"][:3])  # one cell, labelled
    evaluate(KV_ID, "random", ks=[1, 2, 4], ts=[2, 4, 8], n=4, tasks=2, out=tmp_path / "b", progress=False)
    assert all(len(ticks) >= 3 for ticks in figs[PLOT_FILES["success_vs_cost"]]["ticks"][:3])
    texts = figs[PLOT_FILES["recovery"]]["texts"]
    assert any("--faults" in t for t in texts) and not any("faults=SPEC" in t for t in texts)
    plots.plot_compare(result.summary, result.summary, ("A", "B"), KV_ID, tmp_path / "cmp.png")
    legend = figs["cmp.png"]["legends"][0]
    assert {"solid: A", "dashed: B"} <= {t.get_text() for t in legend.get_texts()}


def test_executor_is_named_apart_from_the_sandbox_backend(tmp_path):
    """backend= means the sandbox everywhere in agentgym; where episodes run is executor=."""
    result = evaluate(KV_ID, "oracle", ks=[1], ts=[4], n=1, tasks=1, executor="local", out=tmp_path, progress=False)
    assert result.summary["config"]["executor"] == "local" and "backend" not in result.summary["config"]
    assert "local executor" in (tmp_path / "report.md").read_text()
    with pytest.warns(DeprecationWarning, match="executor"):
        evaluate(KV_ID, "oracle", ks=[1], ts=[4], n=1, tasks=1, backend="local", progress=False, report=False)


def test_agent_module_is_found_in_the_current_directory(tmp_path, monkeypatch):
    """`agentgym eval --agent my_agent:factory` from the folder holding my_agent.py (the console
    script's sys.path does not hold the current directory), in spawned workers too."""
    (tmp_path / "my_cwd_agent.py").write_text(
        "from agentgym.agents import OracleAgent\n\ndef factory():\n    return OracleAgent()\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    result = evaluate(
        KV_ID, "my_cwd_agent:factory", ks=[1], ts=[8], n=1, tasks=2, workers=2, progress=False, report=False
    )
    assert result.grid()[8] == {1: 1.0}


def test_progress_in_a_log_is_a_few_plain_lines(capsys):
    """In a CI log or through tee, tqdm would write a carriage-return update per episode."""
    evaluate(KV_ID, "random", ks=[1], ts=[2, 4], n=10, tasks=3, progress=True, report=False)
    err = capsys.readouterr().err
    assert "\r" not in err
    lines = [line for line in err.splitlines() if line.startswith("eval:")]
    assert 2 <= len(lines) <= 12 and lines[-1].startswith("eval: 60/60 episodes (100%)")


def test_a_batching_agent_plays_each_cell_as_one_batch(tmp_path):
    """An agent with ``act_batch`` gets a cell's n samples together, on n warm envs; its records are
    the one-by-one oracle's; a batch hit by a crash is replayed one episode at a time, with retries."""
    from eval_envs import BatchOracle

    ids = KVTasks().ids("test")[:3]
    agent = BatchOracle()
    batched = evaluate(KV_ID, agent, ks=[1, 3], ts=[8], n=3, tasks=ids, progress=False, report=False)
    assert set(agent.batches) == {3}
    single = evaluate(KV_ID, "oracle", ks=[1, 3], ts=[8], n=3, tasks=ids, progress=False, report=False)
    fields = ("task", "T", "sample", "env_seed", "success", "turns", "actions", "category")
    assert [{k: r[k] for k in fields} for r in batched.records] == [{k: r[k] for k in fields} for r in single.records]
    crashy = BatchOracle()
    env_kwargs = {"crash_once": str(tmp_path / "crashed"), "always_crash": [ids[0]]}
    result = evaluate(
        FLAKY_ID, crashy, ks=[1], ts=[8], n=2, tasks=ids, env_kwargs=env_kwargs, retries=1, progress=False, report=False
    )
    by_task = {t: [r for r in result.records if r["task"] == t] for t in ids}
    assert all(r["infra_error"] and r["attempts"] == 2 for r in by_task[ids[0]])
    assert all(r["success"] for t in ids[1:] for r in by_task[t])
    assert result.summary["counts"]["infra_errors"] == 2
