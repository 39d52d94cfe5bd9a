"""What the in-process model agent costs: decisions and tokens per second, memory, and the env's share.

    python benchmarks/llm_agent.py                       # SmolLM2-135M on ToolUse-v0, K = 1 and K = 4
    python benchmarks/llm_agent.py --env agentgym/MiniWoB-v0 --tasks 2 --t 4 --json
    python benchmarks/llm_agent.py --model tiny          # a random-weight 2-layer model (the agent's own overhead)

For each K, `agentgym.eval.evaluate` runs ``--tasks`` test tasks x K samples at budget ``--t`` with
`agentgym.agents.hf.HFAgent` (greedy for K = 1, temperature 1 for K = 4, which plays the K samples of
a cell as one batch). Every model call is timed: a **decision** is one action of one episode, so a
batched call of K rows makes K decisions. Reported: decisions/s and generated tokens/s over the
model's time, prefill tokens/s (the prompt tokens the model ran: not served from a kept prefix or
shared with the batch's other rows), the per-call wall time p50 / p95, peak resident memory, and the
share of the evaluation's wall time spent outside the model (env steps, sandbox, harness). Medians
and p95 side by side; the load average is quoted, since this machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from agentgym.agents.hf import HFAgent  # noqa: E402
from agentgym.agents.models import load_tokenizer, tiny_causal_lm  # noqa: E402
from agentgym.cli_args import add_backend_argument  # noqa: E402
from agentgym.eval import evaluate  # noqa: E402


class TimedAgent(HFAgent):
    """`HFAgent` that keeps the wall time and row count of every model call."""

    calls: list[tuple[float, int]]

    def _generate(self, prompts: Any, generators: Any) -> Any:
        start = time.perf_counter()
        out = super()._generate(prompts, generators)
        self.calls.append((time.perf_counter() - start, len(prompts)))
        return out


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def measure(args: argparse.Namespace, k: int) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "max_new_tokens": args.max_new_tokens,
        "device": "cpu",
        "threads": args.threads,
        "temperature": 0.0 if k == 1 else 1.0,
    }
    if args.model == "tiny":
        tokenizer = load_tokenizer("smollm2-135m")
        agent = TimedAgent((tiny_causal_lm(tokenizer), tokenizer), **kwargs)
    else:
        agent = TimedAgent(args.model, **kwargs)
    agent.calls = []
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        result = evaluate(
            args.env,
            agent,
            ks=[k],
            ts=[args.t],
            n=k,
            tasks=args.tasks,
            sandbox=args.backend,
            out=out,
            progress=False,
            report=False,
            seed=args.seed,
        )
        wall = time.perf_counter() - start
    records = result.records
    model_s = sum(s for s, _ in agent.calls)
    decisions = sum(rows for _, rows in agent.calls)
    completion = sum(r["cost"]["completion_tokens"] for r in records)
    prefill = sum(r["cost"]["prefilled_tokens"] for r in records)
    per_call = [s for s, _ in agent.calls]
    return {
        "K": k,
        "episodes": len(records),
        "decisions": decisions,
        "success": sum(bool(r["success"]) for r in records),
        "decisions_per_s": decisions / model_s,
        "completion_tokens_per_s": completion / model_s,
        "prefill_tokens_per_s": prefill / model_s,
        "call_s_p50": statistics.median(per_call),
        "call_s_p95": _pct(per_call, 0.95),
        "prompt_tokens_per_decision": sum(r["cost"]["prompt_tokens"] for r in records) / decisions,
        "cached_share": sum(r["cost"]["cached_tokens"] for r in records)
        / max(1, sum(r["cost"]["prompt_tokens"] for r in records)),
        "completion_tokens_per_decision": completion / decisions,
        "wall_s": wall,
        "model_s": model_s,
        "env_share": max(0.0, 1 - model_s / wall),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="agentgym/ToolUse-v0")
    p.add_argument("--model", default="smollm2-135m", help="smollm2-135m, a local folder, or 'tiny'")
    p.add_argument("--k", default="1,4")
    p.add_argument("--t", type=int, default=4)
    p.add_argument("--tasks", type=int, default=3)
    p.add_argument("--max-new-tokens", type=int, default=48)
    p.add_argument("--threads", type=int, default=2)
    add_backend_argument(p, old_names=("--sandbox",))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    rows = []
    for k in args.k.split(","):
        rows.append(measure(args, int(k)))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)  # each K as it finishes
    load = os.getloadavg()
    if args.json:
        print(
            json.dumps(
                {
                    "env": args.env,
                    "model": args.model,
                    "T": args.t,
                    "threads": args.threads,
                    "load": load,
                    "rows": rows,
                },
                indent=2,
            )
        )
        return
    print(
        f"{args.model} on {args.env}, T={args.t}, {args.tasks} tasks, {args.threads} threads, "
        f"max_new_tokens={args.max_new_tokens}; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"
    )
    print(
        "| K | decisions/s | gen tok/s | prefill tok/s | call s p50 / p95 | prompt tok/decision (cached) "
        "| env share | peak RSS MiB |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['K']} | {r['decisions_per_s']:.2f} | {r['completion_tokens_per_s']:.1f} | "
            f"{r['prefill_tokens_per_s']:.0f} "
            f"| {r['call_s_p50']:.2f} / {r['call_s_p95']:.2f} | {r['prompt_tokens_per_decision']:.0f} "
            f"({r['cached_share']:.0%}) | {r['env_share']:.1%} | {r['peak_rss_mib']:.0f} |"
        )


if __name__ == "__main__":
    main()
