"""Recovery by intervention: forced starts played as the agent's own turns, counted against T,
recorded per episode, paired with clean twins, summarized, resumable; and Coding-v0's through the CLI."""

from __future__ import annotations

import json

import pytest
from eval_envs import INTERVENE_ID, KV_ID, BatchHistoryOracle, HistoryOracle, InterveneKVEnv, SlowOracle

from agentgym.errors import ConfigError
from agentgym.eval import evaluate
from agentgym.eval.cli import main as eval_main
from agentgym.eval.harness import select_tasks


def run(tmp_path, agent="oracle", name="wrong-set-checked", **kwargs):
    kwargs = {"ts": [1, 2, 8], "tasks": 8, "n": 1, "progress": False, "report": False, **kwargs}
    return evaluate(INTERVENE_ID, agent, intervention=name, out=tmp_path, **kwargs)


def forced_by_task(records) -> dict[str, list[str]]:
    out: dict[str, set[tuple[str, ...]]] = {}
    for r in records:
        if r.get("intervention") and not r.get("no_candidate"):
            out.setdefault(r["task"], set()).add(tuple(r["forced_actions"]))
    assert all(len(v) == 1 for v in out.values()), out  # one forced start per task, whatever the T
    return {task: list(next(iter(v))) for task, v in out.items()}


def test_forced_turns_count_against_t_and_are_recorded_beside_a_paired_clean_twin(tmp_path):
    result = run(tmp_path)
    clean = {(r["task"], r["T"], r["sample"]): r for r in result.records if not r.get("intervention")}
    forced = [r for r in result.records if r.get("intervention") and not r.get("no_candidate")]
    assert forced and len(clean) == len(result.records) - len(forced) - result.summary["counts"]["no_candidate"]
    for r in forced:
        twin = clean[(r["task"], r["T"], r["sample"])]
        assert (r["env_seed"], r["agent_seed"]) == (twin["env_seed"], twin["agent_seed"])  # paired by seeds
        assert r["intervention"] == "wrong-set-checked"
        assert len(r["forced_actions"]) == 2 and r["forced_turns"] == min(2, r["T"]) and r["turns"] <= r["T"]
        assert r["actions"][: r["forced_turns"]] == r["forced_actions"][: r["forced_turns"]]
        if r["T"] < 3:  # the forced start took every turn: no room to recover, nothing submitted
            assert not r["success"] and r["budget_exhausted"] and r["turns"] == r["T"]
        else:  # the oracle recovers within the turns left
            assert r["success"] and r["turns"] > twin["turns"]
    assert all("intervention" not in r for r in clean.values())  # clean records are unchanged
    by_t = result.summary["intervention"]["by_group"][INTERVENE_ID]
    assert by_t["8"]["success_intervened"] == by_t["8"]["success_clean"] == 1.0
    assert by_t["1"]["success_intervened"] == 0.0 and by_t["1"]["ended_in_start"] == by_t["1"]["pairs"]
    assert result.summary["results"]["intervened"][INTERVENE_ID]["success"]["8"] == 1.0


def test_the_forced_start_is_the_same_for_every_agent_seed_and_t(tmp_path):
    oracle = run(tmp_path / "oracle")
    random = run(tmp_path / "random", agent="random", seed=0)
    other_seed = run(tmp_path / "seed", seed=1, tasks=select_tasks(INTERVENE_ID, "test", 8, seed=0))
    assert forced_by_task(oracle.records) == forced_by_task(random.records) == forced_by_task(other_seed.records)


def test_a_task_without_candidate_is_recorded_and_counted_never_scored(tmp_path):
    result = run(tmp_path, tasks=None)
    missing = [r for r in result.records if r.get("no_candidate")]
    tasks = {r["task"] for r in missing}
    assert tasks == {t for t in select_tasks(INTERVENE_ID, "test", None, 0) if InterveneKVEnv.no_candidate(t)} != set()
    assert all(r["success"] is None and r["intervention"] == "wrong-set-checked" and r["turns"] == 0 for r in missing)
    iv = result.summary["intervention"]
    assert iv["no_candidate"] == len(missing) == result.summary["counts"]["no_candidate"] == 3 * len(tasks)
    assert iv["scored"] == iv["episodes"] - len(missing)
    assert len(iv["no_candidate_tasks"]) == len(tasks)
    intervened = result.summary["results"]["intervened"][INTERVENE_ID]
    assert intervened["episodes"] == iv["scored"]  # no-candidate episodes are left out of every statistic


def test_a_run_with_an_intervention_resumes(tmp_path):
    first = run(tmp_path)
    again = run(tmp_path)
    assert again.ran == 0 and again.summary["intervention"] == first.summary["intervention"]
    lines = (tmp_path / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == len(first.records)


def with_candidate() -> str:
    return next(t for t in select_tasks(INTERVENE_ID, "test", None, 0) if not InterveneKVEnv.no_candidate(t))


def test_a_batching_agent_is_shown_the_forced_start_in_one_batch(tmp_path):
    agent = BatchHistoryOracle()
    result = run(tmp_path, agent=agent, ts=[8], n=2, tasks=[with_candidate()])
    forced = [r for r in result.records if r.get("intervention")]
    assert len(forced) == 2 and all(r["success"] and r["forced_turns"] == 2 for r in forced)
    first, second = forced[0]["forced_actions"]
    assert agent.forced_calls == [([0, 1], [first, first]), ([0, 1], [second, second])]


def test_the_agent_sees_the_forced_actions_as_its_own_before_it_acts(tmp_path):
    from agentgym.eval.episodes import EpisodeSpec
    from agentgym.eval.runner import run_episode
    from agentgym.eval.stack import make_base_env, wrap_for_eval

    task = with_candidate()
    env = wrap_for_eval(make_base_env(INTERVENE_ID), budget=8)
    agent = HistoryOracle()
    record = run_episode(env, agent, EpisodeSpec(INTERVENE_ID, task, 8, 0, "", 0, "hard", "wrong-set"))
    assert agent.seen[0] == ("forced", record["forced_actions"][0]) and agent.seen[1][0] == "act"
    assert [a for _, a in agent.seen] == record["actions"]


def test_unknown_interventions_and_agents_without_the_hook_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match=r"'right-set'.*\['wrong-set', 'wrong-set-checked'\]"):
        run(tmp_path, name="right-set")
    with pytest.raises(ConfigError, match="defines none"):
        evaluate(KV_ID, "oracle", intervention="wrong-set", out=tmp_path / "kv", progress=False)
    with pytest.raises(ConfigError, match=r"faults="):
        run(tmp_path, name="tool_error@turn=1")
    with pytest.raises(ConfigError, match=r"no forced\(\.\.\.\)"):
        run(tmp_path, agent=SlowOracle())


def test_coding_wrong_patch_tested_through_the_cli(tmp_path, capsys):
    out = tmp_path / "run"
    code = eval_main(
        [
            "eval",
            "--env",
            "agentgym/Coding-v0",
            "--agent",
            "oracle",
            "--t",
            "2,6",
            "--tasks",
            "2",
            "--backend",
            "local",
            "--intervention",
            "wrong-patch-tested",
            "--out",
            str(out),
            "--no-report",
            "--no-progress",
        ]
    )
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["intervention"] == "wrong-patch-tested"
    assert "--intervention wrong-patch-tested" in summary["config"]["command"]
    forced = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    forced = [r for r in forced if r.get("intervention") and not r.get("no_candidate")]
    assert forced
    for r in forced:
        assert r["forced_actions"][0].startswith("patch") and r["forced_actions"][1:] == ["test"]
        assert r["success"] == (r["T"] == 6), r  # T=2: the forced start spends both turns; T=6: the oracle recovers
