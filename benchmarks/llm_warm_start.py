"""Training throughput of the language-model warm start: LoRA against full fine-tuning, and packing lengths.

    python benchmarks/llm_warm_start.py                        # SmolLM2-135M, MiniWoB-v0 transcripts, 2 threads
    python benchmarks/llm_warm_start.py --steps 6 --json out.json

The oracle plays training tasks of MiniWoB-v0's ordinary-control pages through the TRL adapter
(`baselines.llm.budgetmix.oracle_transcripts`), as the warm start does; then each configuration (full
fine-tuning or LoRA of a rank; sequences packed up to a length) runs the same optimiser steps over the
same transcripts (`baselines.llm.budgetmix._assistant_loss`: the loss the warm start computes, forward and
backward, AdamW). Configurations are interleaved over ``--rounds`` rounds so that a noisy machine's load
falls on all of them; the table gives, over the steps of every round, tokens per second (median) and the
seconds a step of ``--batch`` packed sequences took (median and p95).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any


def _configs(text: str) -> list[tuple[str, int, int]]:
    """``full@1280,lora16@1280`` as ``[(name, rank, max_length), ...]`` (rank 0: full fine-tuning)."""
    out = []
    for item in text.split(","):
        name, _, length = item.strip().partition("@")
        rank = 0 if name == "full" else int(name.removeprefix("lora"))
        out.append((item.strip(), rank, int(length or 1280)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", default="full@1280,lora16@1280,lora16@2048")
    parser.add_argument("--transcripts", type=int, default=24, help="oracle transcripts (balanced over pages)")
    parser.add_argument("--steps", type=int, default=4, help="optimiser steps per configuration and round")
    parser.add_argument("--batch", type=int, default=2, help="packed sequences per step")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", default=None, help="write the results here")
    args = parser.parse_args()

    import numpy as np
    import torch
    from peft import LoraConfig, get_peft_model

    from agentgym.agents.models import load_causal_lm
    from agentgym.integrations import trl as agtrl
    from baselines.llm.budgetmix import _assistant_loss, _training_template, encode_transcript, oracle_transcripts, pack

    torch.set_num_threads(args.threads)
    kwargs = {"tiers": ["controls"]}
    rows = agtrl.dataset("agentgym/MiniWoB-v0", n=args.transcripts, budget=12, seed=5, balanced=True, **kwargs)
    transcripts = [t for t in oracle_transcripts("agentgym/MiniWoB-v0", rows, kwargs) if t["reward"] > 0]
    rates: dict[str, list[float]] = {}
    seconds: dict[str, list[float]] = {}
    meta: dict[str, Any] = {}
    for _ in range(args.rounds):
        for name, rank, length in _configs(args.configs):
            model, tokenizer = load_causal_lm("smollm2-135m", device="cpu", tool_template=True)
            template = _training_template(tokenizer)
            data = [encode_transcript(tokenizer, t, template) for t in transcripts]
            bins = pack(data, length)
            if rank:
                model = get_peft_model(
                    model, LoraConfig(r=rank, lora_alpha=2 * rank, target_modules="all-linear", task_type="CAUSAL_LM")
                )
            params = [p for p in model.parameters() if p.requires_grad]
            optimizer = torch.optim.AdamW(params, lr=1e-5)
            model.train()
            for step in range(args.steps + 1):  # the first step warms up, and is not counted
                batch = [bins[(step * args.batch + i) % len(bins)] for i in range(args.batch)]
                started = time.perf_counter()
                for seq in batch:
                    loss, _ = _assistant_loss(model, seq, "cpu")
                    loss.backward()
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
                if step:
                    took = time.perf_counter() - started
                    tokens = sum(len(ids) for seq in batch for ids, _ in seq)
                    rates.setdefault(name, []).append(tokens / took)
                    seconds.setdefault(name, []).append(took)
            meta[name] = {
                "trainable_parameters": sum(p.numel() for p in params),
                "packed_sequences": len(bins),
                "transcripts_kept": sum(len(b) for b in bins),
                "mean_sequence_tokens": float(np.mean([sum(len(i) for i, _ in b) for b in bins])),
            }
    print(f"{len(transcripts)} transcripts, {args.steps} steps of {args.batch} packed sequences x {args.rounds} rounds")
    print(
        "| configuration | trainable weights | sequences (transcripts kept) | tokens/s (median) | s a step p50 / p95 |"
    )
    print("|---|---|---|---|---|")
    out = {}
    for name, values in rates.items():
        m, took = meta[name], seconds[name]
        p50, p95 = statistics.median(took), float(np.percentile(took, 95))
        out[name] = {**m, "tokens_per_second": values, "step_seconds": took, "step_p50": p50, "step_p95": p95}
        print(
            f"| {name} | {m['trainable_parameters']:,} | {m['packed_sequences']} ({m['transcripts_kept']}) "
            f"| {statistics.median(values):.0f} | {p50:.1f} / {p95:.1f} |"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
