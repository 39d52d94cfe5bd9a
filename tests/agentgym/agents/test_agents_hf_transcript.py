"""`HFAgent(transcript="adapter")`: the TRL adapter's transcript format, token for token.

The proof is a real TRL rollout: `GRPOTrainer` with agentgym's `environment_factory` plays a task
with a scripted decoder writing the oracle's calls, and every prompt it hands the model is compared,
token id for token id, with the prompts HFAgent builds for the same task, seed and T through
`agentgym.eval.evaluate`. The same decoder solves episodes through the harness in batches; a forced
action is rendered as the model's own call; a call naming no tool is answered as TRL answers it.
ToolUse-v0 (retail) on the local backend: no Docker.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import agentgym
from agentgym.agents.hf import PASS, HFAgent
from agentgym.agents.models import tiny_causal_lm
from agentgym.eval import evaluate
from agentgym.integrations import trl as agtrl
from agentgym.llm.tools import action_call, tool_schemas
from support.tiny_lm import ScriptedToolCalls, smollm2_tokenizer

pytest.importorskip("trl")

ENV = "agentgym/ToolUse-v0"
RETAIL = {"domains": ["retail"], "tiers": ["single"], "help_in_observation": False}


@pytest.fixture(scope="module")
def tokenizer():
    return smollm2_tokenizer()  # TRL's Qwen2.5 tool template over SmolLM2's tokenizer


def _call_text(name: str, arguments: Any) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"


def _oracle_call(env: Any) -> tuple[str, dict[str, Any]]:
    base = env.unwrapped
    return action_call(base.family, base.reference_action(), tool_schemas(env, probed=base.tools()))


class Scripted(HFAgent):
    """Its decoder writes ``script(env, turn)`` (default: the oracle's next call) as a model would, then
    the end-of-turn token; ``prompts[i]`` keeps every prompt episode ``i`` was given, as token ids."""

    script: Any = None

    def reset_batch(self, envs, obs, infos, seeds) -> None:
        super().reset_batch(envs, obs, infos, seeds)
        self._envs, self.prompts = list(envs), [[] for _ in envs]

    def _generate(self, prompts, generators):
        out = []
        for i, (prefix, rest) in zip(self._generating, prompts, strict=True):
            self.prompts[i].append(list(prefix) + list(rest))
            text = (self.script or (lambda env, turn: _call_text(*_oracle_call(env))))(
                self._envs[i], len(self.prompts[i])
            )
            out.append(
                (self.tokenizer.encode(text, add_special_tokens=False) + [self.tokenizer.eos_token_id], 0.0, 0.0)
            )
        return out


def _harness(agent: HFAgent, tasks: list[str], ts: list[int], n: int, tmp_path: Path, **kwargs: Any) -> list[dict]:
    result = evaluate(
        ENV,
        agent,
        ks=[1],
        ts=ts,
        n=n,
        tasks=tasks,
        sandbox="local",
        env_kwargs=RETAIL,
        out=tmp_path,
        progress=False,
        report=False,
        **kwargs,
    )
    return result.records


def _task_and_group(index: int = 0) -> tuple[str, str]:
    env = agentgym.make(ENV, split="test", backend="local", **RETAIL)
    try:
        tasks = env.unwrapped.tasks
        task = list(tasks.ids("test"))[index]
        return task, dict(tasks.tool_groups("test"))[task]
    finally:
        env.close()


class _Stop(Exception):
    pass


def _trl_rollout_prompts(tokenizer, task: str, group: str, seed: int, T: int, tmp_path: Path) -> list[list[int]]:
    """Every prompt TRL's tool loop hands the model in one GRPO rollout (its first row), stopped before
    the optimiser step."""
    import datasets
    from trl import GRPOConfig, GRPOTrainer

    factory = agtrl.environment_factory(ENV, split="test", backend="local", **RETAIL)
    rows = datasets.Dataset.from_dict(
        {
            "prompt": [[{"role": "user", "content": agtrl.PROMPT + "\n\n"}]],
            "task_id": [task],
            "seed": [seed],
            "budget": [T],
            "faults": [None],
            "environment": [group],
        }
    )
    config = GRPOConfig(
        output_dir=str(tmp_path),
        max_steps=1,
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=16384,
        max_tool_calling_iterations=T + 1,
        beta=0.0,
        activation_checkpointing=False,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        bf16=False,
        seed=0,
        dataloader_num_workers=0,
        disable_tqdm=True,
    )

    def no_reward(completions: Any, **_: Any) -> list[float]:
        return [0.0] * len(completions)

    trainer = GRPOTrainer(
        model=tiny_causal_lm(tokenizer, hidden=16),
        reward_funcs=[no_reward],
        args=config,
        train_dataset=rows,
        processing_class=tokenizer,
        environment_factory=factory,
    )
    prompts: list[list[int]] = []

    def oracle(env: Any, index: int) -> Any:
        return None if env.episode.done else _oracle_call(env.episode.env)

    class Recording(ScriptedToolCalls):
        def __call__(self, input_ids: Any = None, attention_mask: Any = None, **kw: Any) -> Any:
            prompts.append(input_ids[0][attention_mask[0].bool()].tolist())
            return super().__call__(input_ids=input_ids, attention_mask=attention_mask, **kw)

    Recording(tokenizer, lambda: trainer.environments, oracle).install(trainer.model)
    generate = trainer._generate

    def generate_then_stop(*args: Any, **kwargs: Any) -> Any:
        generate(*args, **kwargs)
        raise _Stop  # the rollout is all this test needs: no scoring, no optimiser step

    trainer._generate = generate_then_stop  # type: ignore[method-assign]
    try:
        with pytest.raises(_Stop):
            trainer.train()
    finally:
        for instance in trainer.environments or []:
            instance.episode.close()
    return prompts


@pytest.mark.timeout(600)
def test_prompts_are_token_for_token_those_of_a_trl_rollout(tokenizer, tmp_path, monkeypatch):
    """The adapter's own rendering during a GRPO rollout (TRL's ``_tokenize_prompts`` and tool loop) and
    HFAgent's with ``transcript="adapter"`` give the model the same token ids at every turn."""
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    task, group = _task_and_group()
    T = 8
    agent = Scripted((tiny_causal_lm(tokenizer, hidden=16), tokenizer), transcript="adapter")
    [record] = _harness(agent, [task], [T], 1, tmp_path / "eval")
    assert record["success"], record["actions"]
    ours = agent.prompts[0]
    assert len(ours) == record["turns"] == record["cost"]["model_calls"] >= 4
    theirs = _trl_rollout_prompts(tokenizer, task, group, record["env_seed"], T, tmp_path / "trl")
    assert len(theirs) == len(ours) + 1  # TRL shows the last call's result too, then the rollout ends
    for turn, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        assert a == b, (
            f"turn {turn}: first difference at token {next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)}"
        )
    text = tokenizer.decode(ours[-1])
    assert "<tool_response>" in text and " turns left]" in text and "# Tools" in text


def test_oracle_calls_solve_episodes_in_batches(tokenizer, tmp_path):
    """K=2 samples of a cell as one batch, parsed by TRL's parser, costs and labels by the harness."""
    agent = Scripted((tiny_causal_lm(tokenizer, hidden=16), tokenizer), transcript="adapter")
    tasks = [_task_and_group(i)[0] for i in (0, 1)]
    records = _harness(agent, tasks, [8], 2, tmp_path)
    assert len(records) == 4 and all(r["success"] and r["category"] == "success" for r in records), records
    for r in records:
        cost = r["cost"]
        assert cost["model_calls"] == r["turns"] and cost["completion_tokens"] > 0
        assert cost["cached_tokens"] > 0 and cost["prefilled_tokens"] + cost["cached_tokens"] == pytest.approx(
            cost["prompt_tokens"]
        )
    assert agent.prompts[0] == agent.prompts[1]  # the batch's two samples of the last cell saw the same transcript


def _play(agent: HFAgent, T: int, forced: int = 0) -> tuple[list[str], Any]:
    env = agentgym.make(ENV, budget=T, split="test", backend="local", **RETAIL)
    try:
        obs, info = env.reset(seed=0, options={"task_id": _task_and_group()[0]})
        agent.reset(env, obs, info)
        actions: list[str] = []
        for turn in range(T):
            if turn < forced:
                action = env.unwrapped.reference_action()
                agent.forced(obs, info, action)
            else:
                action = agent.act(obs, info)
            actions.append(action)
            obs, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        return actions, info
    finally:
        env.close()


def test_a_forced_action_is_the_models_own_call(tokenizer):
    """Forcing the oracle's first two actions leaves the same transcript, token for token, as the model
    writing them itself (the intervention hook, `forced`, in the adapter's format)."""
    model = (tiny_causal_lm(tokenizer, hidden=16), tokenizer)
    chosen = Scripted(model, transcript="adapter")
    actions, info = _play(chosen, 8)
    forced = Scripted(model, transcript="adapter")
    forced_actions, forced_info = _play(forced, 8, forced=2)
    assert info["success"] and forced_info["success"] and len(forced_actions) == len(actions)
    assert forced.prompts[0] == chosen.prompts[0][2:]
    assert forced.cost()["model_calls"] == chosen.cost()["model_calls"] - 2


def test_a_bad_call_is_answered_and_a_reply_without_a_call_ends_the_models_episode(tokenizer):
    """As in TRL's tool loop: a call naming no tool is answered with an error and costs no step; a reply
    without a call ends the model's episode, and the agent passes until T ends it."""
    agent = Scripted((tiny_causal_lm(tokenizer, hidden=16), tokenizer), transcript="adapter")
    agent.script = lambda env, turn: {1: _call_text("fly_away", {}), 2: _call_text(*_oracle_call(env))}.get(
        turn, "Done."
    )
    actions, info = _play(agent, 4)
    assert actions[1:] == [PASS] * 3 and actions[0].startswith('{"tool"') and not info["success"]
    assert agent.cost()["model_calls"] == 3
    second = tokenizer.decode(agent.prompts[0][1])
    assert "{'error': 'Tool fly_away not found.'}" in second and "[turns left:" not in second
    third = tokenizer.decode(agent.prompts[0][2])
    assert "[3 turns left]" in third


def test_an_env_that_shows_its_help_is_warned_about(tokenizer):
    """The adapter's envs leave the help out of the first observation (the template renders the tools)."""
    env = agentgym.make(ENV, budget=2, split="test", backend="local", domains=["retail"], tiers=["single"])
    agent = HFAgent((tiny_causal_lm(tokenizer, hidden=16), tokenizer), transcript="adapter")
    try:
        obs, info = env.reset(seed=0)
        with pytest.warns(UserWarning, match="help_in_observation=False"):
            agent.reset(env, obs, info)
    finally:
        env.close()
