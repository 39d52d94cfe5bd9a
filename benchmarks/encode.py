"""What a decision costs (feature encoding, one-row act), and whether a change to them keeps every bit.

    python benchmarks/encode.py --record /tmp/trace.pkl           # play episodes once, keep the decision points
    python benchmarks/encode.py --trace /tmp/trace.pkl --save /tmp/before.npz    # time, keep the outputs
    python benchmarks/encode.py --trace /tmp/trace.pkl --check /tmp/before.npz   # time, compare bit for bit

`baselines.policy.features.EpisodeMemory.encode` and `baselines.policy.model.MenuPolicy.act` run once per
decision point, in training (the trainer's rollouts), in the evaluation
(`baselines.policy.agent.PolicyAgent.act`) and in the positive control; with `stack_steps` it was about a
third of the trainer's own CPU (issue 34 item 7). ``--record`` plays ``--episodes`` episodes of
random menu actions on each env of ``--envs`` (Coding-v0 on the local backend at T=12, and the
sandbox-free budget env) and pickles every decision point (observation, info, the action taken), so
that every later run replays the same inputs. A replay encodes the whole trace with fresh memories,
as training does (each episode: ``reset``, then ``encode`` and ``record`` per decision),
``--repeats`` times; the first pass starts with empty feature caches (cold: the trace's menus are
new to the process), the later ones find them filled (warm: as the trainer finds the menus of tasks
it saw). Then `MenuPolicy.act` on each decision point alone (one row, as the evaluation and the
positive control's scoring act), with a seeded policy and generator. Reported (``--json``): per
decision point, the median and p95 microseconds of a cold and of a warm encoding pass and of an act
pass (each pass's mean over the trace; medians and p95 over passes), and of `stack_steps` on
batches of 8. ``--save`` writes every output array (features, chosen index, log-probability,
value); ``--check`` compares a replay with such a file bit for bit and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np

ENVS = ("agentgym/Coding-v0", "baselines.experiment.budget_env:agentgym-test/BudgetRecover-v0")
DIMS = {"agentgym/Coding-v0": 128, "baselines.experiment.budget_env:agentgym-test/BudgetRecover-v0": 64}
"""The quick preset's text dim, and the positive control's."""


def record(envs: list[str], episodes: int, budget: int, seed: int) -> list[dict[str, Any]]:
    """Per env: the decision points of ``episodes`` random-menu episodes, as plain picklable data."""
    import copy

    import agentgym
    from agentgym.make import wrap

    traces = []
    for env_id in envs:
        kwargs = {"backend": "local"} if "Coding" in env_id else {}
        env = wrap(agentgym.make(env_id, **kwargs), budget=budget, labels=True, cost=True)
        rng = np.random.default_rng(seed)
        eps = []
        try:
            for e in range(episodes):
                obs, info = env.reset(seed=seed + e)
                steps, done = [], False
                while not done:
                    menu = list(info.get("admissible_actions") or []) or ["help"]
                    action = menu[int(rng.integers(len(menu)))]
                    steps.append((copy.deepcopy(obs), copy.deepcopy(info), action))
                    obs, _, terminated, truncated, info = env.step(action)
                    done = terminated or truncated
                eps.append(steps)
        finally:
            env.close()
        traces.append({"env": env_id, "dim": DIMS.get(env_id, 128), "episodes": eps})
    return traces


def replay(traces: list[dict[str, Any]], max_actions: int = 32) -> tuple[float, list[Any], float]:
    """Encode every decision point with fresh memories: (seconds, outputs, stack_steps seconds on batches of 8)."""
    from baselines.policy.features import EpisodeMemory, stack_steps

    outputs: list[Any] = []
    seconds = 0.0
    encoded = []
    for trace in traces:
        memory = EpisodeMemory(trace["dim"], max_actions)
        for steps in trace["episodes"]:
            memory.reset()
            for obs, info, action in steps:
                t0 = time.perf_counter()
                step = memory.encode(obs, info)
                memory.record(action)
                seconds += time.perf_counter() - t0
                outputs.append(step)
                encoded.append(step)
    stack_seconds = 0.0
    by_width: dict[int, list[Any]] = {}
    for step in encoded:
        by_width.setdefault(step.candidates.shape[1], []).append(step)
    for group in by_width.values():
        for i in range(0, len(group) - 7, 8):
            t0 = time.perf_counter()
            stack_steps(group[i : i + 8], max_actions)
            stack_seconds += time.perf_counter() - t0
    return seconds, outputs, stack_seconds


def act_replay(
    outputs: list[Any], traces: list[dict[str, Any]], max_actions: int = 32
) -> tuple[float, dict[str, np.ndarray]]:
    """`MenuPolicy.act` on each decision point alone (one row, as the evaluation acts), with a
    seeded policy per dim and one seeded generator: (seconds, the chosen indices, log-probabilities
    and values)."""
    import torch

    from baselines.policy.features import stack_steps
    from baselines.policy.model import MenuPolicy

    policies = {}
    for dim in sorted({t["dim"] for t in traces}):
        torch.manual_seed(dim)
        policies[dim] = MenuPolicy(dim=dim, hidden=64).eval()
    generator = torch.Generator().manual_seed(0)
    seconds, chosen = 0.0, []
    for step in outputs:
        if not step.actions:
            continue
        batch = stack_steps([step], max_actions)
        policy = policies[step.candidates.shape[1] // 2]
        t0 = time.perf_counter()
        index, logp, value = policy.act(batch, generator=generator)
        seconds += time.perf_counter() - t0
        chosen.append((index[0], logp[0], value[0]))
    return seconds, {
        "act.index": np.array([c[0] for c in chosen]),
        "act.logp": np.array([c[1] for c in chosen]),
        "act.value": np.array([c[2] for c in chosen]),
    }


def _clear_caches() -> None:
    """Empty every feature cache of this process (a cold pass)."""
    import agentgym.features as hashing
    import baselines.policy.features as features

    for module in (features, hashing):
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()


def _arrays(outputs: list[Any]) -> dict[str, np.ndarray]:
    out = {}
    for i, step in enumerate(outputs):
        for name in ("observation", "budget", "progress", "candidates", "candidate_extras"):
            out[f"{i}.{name}"] = getattr(step, name)
        out[f"{i}.actions"] = np.array(step.actions, dtype=object)
    return out


def _differences(now: dict[str, np.ndarray], saved: Any) -> list[str]:
    if set(now) != set(saved.files):
        return [f"keys differ: {len(now)} now, {len(saved.files)} saved"]
    bad = []
    for key, value in now.items():
        old = saved[key]
        if value.dtype == object:
            same = list(value) == list(old)
        else:
            same = value.dtype == old.dtype and value.shape == old.shape and value.tobytes() == old.tobytes()
        if not same:
            bad.append(key)
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", default="", help="play episodes and pickle their decision points here")
    parser.add_argument("--trace", default="", help="the pickled decision points to replay")
    parser.add_argument("--envs", default=",".join(ENVS))
    parser.add_argument("--episodes", type=int, default=60, help="episodes per env (--record)")
    parser.add_argument("--budget", type=int, default=12, help="turn budget of the recorded episodes")
    parser.add_argument("--repeats", type=int, default=7, help="replays: the first cold, the rest warm")
    parser.add_argument("--save", default="", help="write every output array (.npz)")
    parser.add_argument("--check", default="", help="compare the outputs with a --save file, bit for bit")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args(argv)
    if opts.record:
        traces = record([e for e in opts.envs.split(",") if e], opts.episodes, opts.budget, seed=7)
        with open(opts.record, "wb") as fh:
            pickle.dump(traces, fh)
        print(f"recorded {sum(len(s) for t in traces for s in t['episodes'])} decision points to {opts.record}")
        return 0
    with open(opts.trace, "rb") as fh:
        traces = pickle.load(fh)
    n = sum(len(s) for t in traces for s in t["episodes"])
    cold, warm, stack = [], [], []
    outputs: list[Any] = []
    for r in range(max(2, opts.repeats)):
        if r == 0:
            _clear_caches()
        seconds, outputs, stack_seconds = replay(traces)
        (cold if r == 0 else warm).append(1e6 * seconds / n)
        stack.append(1e6 * stack_seconds / max(1, n // 8))
    acts = []
    for _ in range(max(2, opts.repeats)):
        seconds, decisions = act_replay(outputs, traces)
        acts.append(1e6 * seconds / len(decisions["act.index"]))
    cold_more = []
    for _ in range(2):  # two more cold passes, for a median
        _clear_caches()
        seconds, _, _ = replay(traces)
        cold_more.append(1e6 * seconds / n)
    cold += cold_more

    def p95(v: list[float]) -> float:
        return float(np.percentile(v, 95))

    result: dict[str, Any] = {
        "decision_points": n,
        "encode_us_cold": {"median": statistics.median(cold), "p95": p95(cold), "passes": len(cold)},
        "encode_us_warm": {"median": statistics.median(warm), "p95": p95(warm), "passes": len(warm)},
        "stack_steps_us_per_batch_of_8": {"median": statistics.median(stack), "p95": p95(stack)},
        "act_us_one_row": {"median": statistics.median(acts), "p95": p95(acts), "passes": len(acts)},
    }
    arrays = {**_arrays(outputs), **decisions}
    if opts.save:
        np.savez(opts.save, **arrays)
        result["saved"] = opts.save
    status = 0
    if opts.check:
        bad = _differences(arrays, np.load(opts.check, allow_pickle=True))
        result["identical"] = not bad
        result["differences"] = bad[:20]
        status = 1 if bad else 0
    print(json.dumps(result, indent=None if opts.json else 1))
    return status


if __name__ == "__main__":
    sys.exit(main())
