"""The language-model warm start: packed sequences keep transcripts apart, the rows are balanced over the
split's units, and a saved LoRA adapter loads back (`--agent hf --adapter PATH`) as the weights it trained."""

from __future__ import annotations

import collections
import sys
from pathlib import Path

import pytest

pytest.importorskip("trl")
pytest.importorskip("datasets")

from agentgym.errors import ConfigError
from agentgym.integrations import trl as agtrl
from baselines.llm import budgetmix as lbm

ROOT = Path(__file__).resolve().parents[2]


def _tokenizer():
    sys.path.insert(0, str(ROOT / "tests"))
    from support.tiny_lm import smollm2_tokenizer

    return smollm2_tokenizer()


def test_a_packed_sequence_scores_each_transcript_as_if_alone():
    import torch

    from agentgym.agents.models import tiny_causal_lm

    model = tiny_causal_lm(_tokenizer(), hidden=32, seed=1)
    a = (list(range(100, 160)), [0] * 30 + [1] * 30)
    b = (list(range(300, 340)), [0] * 20 + [1] * 20)
    with torch.no_grad():
        alone = [lbm._assistant_loss(model, [x], "cpu") for x in (a, b)]
        packed, targets = lbm._assistant_loss(model, [a, b], "cpu")
    # the attack on packing: without per-transcript positions, b would attend to a and its loss would change
    assert float(packed) == pytest.approx(float(alone[0][0] + alone[1][0]), rel=1e-5)
    assert targets == alone[0][1] + alone[1][1] == 30 + 20


def test_pack_fills_sequences_up_to_max_length_and_drops_what_cannot_fit():
    data = [([1] * n, [0] * (n - 1) + [1]) for n in (900, 700, 400, 300, 120, 3000)]
    bins = lbm.pack(data, 1024)
    assert all(sum(len(ids) for ids, _ in b) <= 1024 for b in bins)
    assert sorted(len(ids) for b in bins for ids, _ in b) == [120, 300, 400, 700, 900]  # 3000 is dropped
    assert len(bins) == 3  # 900+120, 700+300, 400


def test_balanced_rows_go_round_robin_over_the_units():
    kwargs = {"domains": ["retail"], "tiers": ["single"], "backend": "local"}
    uniform = agtrl.dataset("agentgym/ToolUse-v0", n=40, seed=2, **kwargs)
    units_of = collections.Counter(t.rsplit("/", 1)[0] for t in uniform["task_id"])
    n = 3 * len(units_of)
    rows = agtrl.dataset("agentgym/ToolUse-v0", n=n, seed=2, balanced=True, **kwargs)
    per_unit = collections.Counter(t.rsplit("/", 1)[0] for t in rows["task_id"])
    assert set(per_unit.values()) == {3} and set(per_unit) == set(units_of)
    assert len(set(rows["task_id"])) == n  # no task twice while its unit has unused ones
    again = agtrl.dataset("agentgym/ToolUse-v0", n=n, seed=2, balanced=True, **kwargs)
    assert list(again["task_id"]) == list(rows["task_id"]) and list(again["seed"]) == list(rows["seed"])


@pytest.fixture(scope="module")
def saved_adapter(tmp_path_factory):
    """A tiny model saved as a model folder, and a LoRA adapter (non-zero) saved with its tokenizer."""
    torch = pytest.importorskip("torch")
    peft = pytest.importorskip("peft")
    from agentgym.agents.models import tiny_causal_lm

    root = tmp_path_factory.mktemp("adapter")
    tokenizer = _tokenizer()
    model = tiny_causal_lm(tokenizer, hidden=32, seed=3)
    model.save_pretrained(root / "base")
    tokenizer.save_pretrained(root / "base")
    lora = peft.get_peft_model(
        model, peft.LoraConfig(r=2, lora_alpha=4, target_modules="all-linear", task_type="CAUSAL_LM")
    )
    torch.manual_seed(0)
    with torch.no_grad():
        for name, p in lora.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.5)  # LoRA starts as a no-op: give it something to change
    lora.save_pretrained(root / "adapter")
    tokenizer.save_pretrained(root / "adapter")
    ids = torch.tensor([[5, 17, 99, 301, 7]])
    with torch.no_grad():
        tuned = lora(input_ids=ids).logits
        with lora.disable_adapter():
            plain = lora(input_ids=ids).logits
    return root, ids, tuned, plain


def test_a_saved_adapter_loads_back_merged(saved_adapter):
    import torch

    from agentgym.agents.hf import HFAgent
    from agentgym.agents.models import load_causal_lm

    root, ids, tuned, plain = saved_adapter
    assert not torch.allclose(tuned, plain, atol=1e-3)
    model, tokenizer = load_causal_lm(root / "base", device="cpu", adapter=root / "adapter")
    with torch.no_grad():
        assert torch.allclose(model(input_ids=ids).logits, tuned, atol=1e-4)
    assert "tools" in (tokenizer.chat_template or "")  # the tool template saved with the adapter comes along
    agent = HFAgent(str(root / "base"), device="cpu", adapter=str(root / "adapter"), max_new_tokens=4)
    with torch.no_grad():
        assert torch.allclose(agent.model(input_ids=ids).logits, tuned, atol=1e-4)
    assert agent.name.endswith(str(root / "adapter"))
    with pytest.raises(ConfigError, match="adapter= applies to a model loaded by name"):
        HFAgent((model, tokenizer), adapter=str(root / "adapter"))


def test_a_folder_without_an_adapter_is_refused_with_what_to_give(saved_adapter):
    from agentgym.agents.models import load_causal_lm

    root = saved_adapter[0]
    with pytest.raises(ConfigError, match="adapter_config.json.*warm_start/adapter"):
        load_causal_lm(root / "base", device="cpu", adapter=root / "base")


def test_the_eval_cli_takes_adapter_for_the_hf_agent_only(capsys, tmp_path):
    from agentgym.cli import main

    argv = [
        "eval",
        "--env",
        "agentgym/ToolUse-v0",
        "--agent",
        "random",
        "--adapter",
        "somewhere",
        "--out",
        str(tmp_path),
    ]
    code = main(argv)
    assert code == 2 and "--adapter applies to --agent hf only" in capsys.readouterr().err


def test_grpo_refuses_a_model_whose_weights_are_all_frozen(tmp_path):
    """A merged adapter comes back frozen (peft loads it for inference): GRPO on it would log a gradient norm
    of 0 and train nothing, as the first pilot from a saved warm start did, so it is refused."""
    from agentgym.agents.models import tiny_causal_lm

    tokenizer = _tokenizer()
    model = tiny_causal_lm(tokenizer, hidden=32, seed=0).requires_grad_(False)
    args = lbm.Args(env_kwargs='{"domains": ["retail"], "tiers": ["single"], "backend": "local"}')
    with pytest.raises(ConfigError, match="frozen"):
        lbm.train_schedule(model, tokenizer, args, "fixed-short", 1, tmp_path)


def test_group_spread_counts_differing_groups_and_leaves_infrastructure_failures_unscored():
    # a dead sandbox's rollout (None) is no 0: it neither makes nor breaks its group's spread
    out = lbm.group_spread([1.0, 0.0, None, 0.0, None, 1.0, 1.0, None], 4)
    assert out == {"groups": 2, "with_spread": 1, "mean_reward": 0.6, "unscored": 3}
    assert lbm.group_spread([None, None], 2)["with_spread"] == 0
