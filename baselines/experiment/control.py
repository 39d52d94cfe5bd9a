"""Positive control: the BudgetMix trainer on the sandbox-free budget env, where the answers are known.

    python -m baselines.experiment.control            # about a minute on one core
    python -m baselines.experiment.control --steps 4000 --seeds 1

`baselines.experiment.budget_env` is Coding-v0's menu task in miniature with a known optimum per budget.
The control runs on its faithful variant (`RECOVER_ENV_ID`: a patch on top of another breaks
the code until ``revert``, the right patch's test fails 10% of the time), whose optimum is an
exact dynamic programme (`recover_optimum`: 0.60 / 0.69 / 0.80 at T = 2 / 5 / 10); ``--easy``
runs the original (a new patch replaces the old, a perfect test: 0.6 at T=2, 1.0 at T >= 10).
The control trains fixed-T short, fixed-T long and BudgetMix with the real trainer and features,
and scores each at short and long T against the optimum, with the recovery rate: success among
episodes whose first patch was wrong. If a schedule cannot approach the optimum here, a null
result on Coding-v0 says nothing about BudgetMix; if it can, the trainer and features are able
to learn both "commit when turns run low" and "recover after a failing test".

A fourth arm starts PPO from the optimum itself: the dynamic programme's policy behaviour-cloned
into the same network (`clone_optimum`), trained fixed-T long with the same PPO, seeds and steps.
It tells the two ways the control can fail apart: the update cannot hold the optimum (the arm
falls), or the search cannot find it (the arm holds and the arms from scratch do not). Every arm
runs with `CONTROL_SETTING`; benchmarks/positive_control.py measures both settings and prints the
exact values of the strategies between where PPO lands and the optimum.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch

import agentgym
from baselines.config import PRESETS, Args, TrainSettings
from baselines.experiment.budget_env import (
    BudgetChoiceEnv,
    optimum,
    recover_action_values,
    recover_best_action,
    recover_optimum,
)
from baselines.experiment.grid import Job, run_graph
from baselines.policy.agent import PolicyAgent, load_policy, save_checkpoint
from baselines.policy.features import EncodedStep, EpisodeMemory, stack_steps
from baselines.policy.model import MenuPolicy
from baselines.policy.ppo import make_optimizer
from baselines.policy.train import train

__all__ = [
    "run_control",
    "control_jobs",
    "CONTROL_COSTS",
    "CONTROL_ENV",
    "EASY_CONTROL_ENV",
    "best_policy_score",
    "optimum_demonstrations",
    "clone_optimum",
]

CONTROL_ENV = "baselines.experiment.budget_env:agentgym-test/BudgetRecover-v0"
"""The faithful variant (recovery needs a revert; a failing test is evidence, not proof); the
original, where a new patch replaces the old and the test is perfect, is `EASY_CONTROL_ENV`."""
EASY_CONTROL_ENV = "baselines.experiment.budget_env:agentgym-test/BudgetChoice-v0"


def _optimum(env_id: str, t: int) -> float:
    """The env's known optimum at budget ``t`` (its registered kwargs say which variant it is)."""
    import gymnasium as gym

    kwargs = gym.spec(env_id.split(":")[-1]).kwargs
    n, clue = int(kwargs.get("n", 5)), float(kwargs.get("clue_accuracy", 0.6))
    if kwargs.get("stacking"):
        return recover_optimum(t, n=n, clue_accuracy=clue, fn=float(kwargs.get("test_false_negative", 0.0)))
    return optimum(t, n=n, clue_accuracy=clue)


def best_policy_score(t: int, episodes: int, seed: int = 0) -> float:
    """Success of the known best policy (`recover_best_action`) played on the faithful env: the
    dynamic programme's value, checked by simulation."""

    env = agentgym.make(CONTROL_ENV, budget=t, split="test")
    rng = np.random.default_rng(seed)
    wins = 0
    try:
        for e in range(episodes):
            obs, info = env.reset(seed=seed * 100_000 + e)
            names = list(cast(BudgetChoiceEnv, env.unwrapped).names)
            clue = next(w for w in names if w in obs["text"])
            others = [w for w in names if w != clue]
            order = [clue] + [others[j] for j in rng.permutation(len(others))]  # the others are alike: a blind order
            cur: int | None = None
            fails = [0] * len(order)
            left, done, passed = t, False, False
            while not done:
                action = recover_best_action(left, cur, tuple(fails), passed=passed)
                if action.startswith("patch "):
                    cur = int(action.split()[1])
                    action = f"patch {order[cur]}"
                elif action == "revert":
                    cur = None
                elif action == "test":
                    action = "run tests"
                obs, _, terminated, truncated, info = env.step(action)
                done = terminated or truncated
                left -= 1
                if str(obs["text"]).startswith("tests fail") and cur is not None:
                    fails[cur] += 1
                passed = str(obs["text"]).startswith("tests pass")
            wins += bool(info.get("success", False))
    finally:
        env.close()
    return wins / episodes


# ---------------------------------------------------------------------- the optimum, cloned into the policy
_DP_TO_MENU = {"submit": "submit", "test": "run tests", "revert": "revert"}


def optimum_demonstrations(
    ts: tuple[int, ...],
    episodes: int,
    dim: int,
    max_actions: int = 32,
    seed: int = 0,
    forced_share: float = 0.5,
    forced_right: float = 0.5,
) -> tuple[list[EncodedStep], list[np.ndarray], list[float]]:
    """The known best policy (`recover_action_values`) played on the faithful env at each budget in ``ts``,
    ``episodes`` episodes each, encoded as the policy sees them (`EpisodeMemory`, as in training and
    evaluation): the steps, per step a 0/1 mask of the menu's best actions (ties: untried patches
    alike), and the programme's value of the state (the success the best policy then reaches).

    A share ``forced_share`` of the episodes with T >= 5 begins as the trainer's start-state curriculum
    begins them (`baselines.policy.rollout.EpisodeCollector._forced_start`: a patch, right in a share
    ``forced_right``, its test, and a revert half the time the test failed), so the clone also knows
    the best move in the states PPO's forced starts put it in; those steps are not demonstrations.
    """
    rng = np.random.default_rng(seed)
    steps: list[EncodedStep] = []
    targets: list[np.ndarray] = []
    values: list[float] = []
    memory = EpisodeMemory(dim, max_actions)
    for t in ts:
        env = agentgym.make(CONTROL_ENV, budget=t, split="train")
        try:
            for e in range(episodes):
                obs, info = env.reset(seed=int(rng.integers(2**31)))
                memory.reset()
                base = cast(BudgetChoiceEnv, env.unwrapped)
                names = list(base.names)
                clue = next(w for w in names if w in str(obs["text"]).split("\n")[0])
                others = [w for w in names if w != clue]
                order = [clue] + [others[j] for j in rng.permutation(len(others))]  # the programme's index -> name
                cur: int | None = None
                fails = [0] * len(order)
                left, done, passed = t, False, False
                forced: list[str] = []
                if t >= 5 and rng.random() < forced_share:
                    right = names[base.answer]
                    patch = right if rng.random() < forced_right else str(rng.choice([w for w in names if w != right]))
                    forced = [f"patch {patch}", "run tests", "revert"][: 2 + int(rng.integers(2))]
                while not done:
                    step = memory.encode(obs, info)
                    action = forced.pop(0) if forced else ""
                    if action == "revert" and passed:
                        action = ""  # the forced patch passed its test: nothing says to undo it
                    if not action:
                        q = recover_action_values(left, cur, tuple(fails), passed=passed)
                        best = max(q.values())
                        menu = {(_DP_TO_MENU.get(a) or f"patch {order[int(a.split()[1])]}"): v for a, v in q.items()}
                        mask = np.array([a in menu and menu[a] >= best - 1e-9 for a in step.actions], dtype=np.float32)
                        steps.append(step)
                        targets.append(mask)
                        values.append(best)
                        action = step.actions[int(rng.choice(np.flatnonzero(mask)))]
                    memory.record(action)
                    obs, _, terminated, truncated, info = env.step(action)
                    done, left = terminated or truncated, left - 1
                    if action.startswith("patch "):
                        cur = order.index(action[6:])
                    elif action == "revert":
                        cur = None
                    failed = str(obs["text"]).startswith("tests fail")
                    passed = str(obs["text"]).startswith("tests pass")
                    if failed and cur is not None:
                        fails[cur] += 1
        finally:
            env.close()
    return steps, targets, values


def clone_optimum(
    dim: int,
    hidden: int,
    ts: tuple[int, ...] = tuple(range(2, 11)),
    episodes: int = 100,
    epochs: int = 30,
    seed: int = 0,
    max_actions: int = 32,
) -> tuple[MenuPolicy, dict[str, float]]:
    """A `MenuPolicy` (the trainer's network, same sizes) behaviour-cloned from `optimum_demonstrations`:
    the policy maximises the probability of a best action (the log of the best actions' summed
    probability, so ties may be split any way), the value head regresses the programme's value.
    Returns the policy and its fit: the mean probability it gives the best actions, the share of
    states where that is >= 0.99, the value's mean squared error."""
    torch.manual_seed(seed)
    steps, targets, values = optimum_demonstrations(ts, episodes, dim, max_actions, seed)
    batch = {k: torch.as_tensor(v) for k, v in stack_steps(steps, max_actions).items()}
    width = batch["mask"].shape[1]
    best = torch.zeros(len(steps), width)
    for i, m in enumerate(targets):
        best[i, : len(m)] = torch.as_tensor(m)
    value = torch.as_tensor(values, dtype=torch.float32)
    policy = MenuPolicy(dim=dim, hidden=hidden)
    optimizer = make_optimizer(policy, 3e-3)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        for idx in torch.randperm(len(steps), generator=gen).split(256):
            logits, v = policy.forward_batch({k: x[idx] for k, x in batch.items()})
            logp = logits - logits.logsumexp(-1, keepdim=True)
            p_best = (logp + torch.log(best[idx].clamp_min(1e-30))).logsumexp(-1)
            loss = -p_best.mean() + 0.5 * ((v - value[idx]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        logits, v = policy.forward_batch(batch)
        p_best = (torch.softmax(logits, -1) * best).sum(-1)
    fit = {
        "demonstrations": len(steps),
        "p_best_mean": float(p_best.mean()),
        "p_best_min": float(p_best.min()),
        "share_p_best_ge_0.99": float((p_best >= 0.99).float().mean()),
        "value_mse": float(((v - value) ** 2).mean()),
    }
    return policy.eval(), fit


def _score(
    policy: Any, max_actions: int, t: int, episodes: int, seed: int, env_id: str = CONTROL_ENV
) -> dict[str, Any]:
    env = agentgym.make(env_id, budget=t, split="test")
    agent = PolicyAgent(policy, max_actions=max_actions, seed=seed)
    wins, wrong_first, recovered, reverts, fails = 0, 0, 0, 0, 0
    try:
        for e in range(episodes):
            obs, info = env.reset(seed=seed * 100_000 + e)
            agent.reset(env, obs, info)
            first_right: bool | None = None
            done, failed = False, False
            while not done:
                action = agent.act(obs, info)
                reverts += failed and action == "revert"
                if first_right is None and action.startswith("patch "):
                    base = cast(BudgetChoiceEnv, env.unwrapped)
                    first_right = action[6:] == base.names[base.answer]
                obs, _, terminated, truncated, info = env.step(action)
                failed = str(obs.get("text", "")).startswith("tests fail")
                fails += failed
                done = terminated or truncated
            success = bool(info.get("success", False))
            wins += success
            if first_right is False:
                wrong_first += 1
                recovered += success
    finally:
        env.close()
    return {
        "success": wins / episodes,
        "optimum": _optimum(env_id, t),
        "recovered": recovered,
        "wrong_first": wrong_first,
        "reverts_after_failing_test": reverts,
        "failing_tests": fails,
    }


def _start_from(config: TrainSettings, run_name: str, start: dict[str, Any]) -> TrainSettings:
    """``config`` set to begin PPO from the policy weights ``start`` instead of a fresh network: a
    checkpoint at step 0 in the run's folder (a fresh optimizer, the torch RNG where a fresh run's
    would be), continued by the trainer's own ``--resume`` path, so the PPO that follows is the
    same as a run from scratch in every other respect. A checkpoint already there (an interrupted
    run under ``--resume``) is kept."""
    path = Path(config.out) / run_name / "checkpoint.pt"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.manual_seed(config.seed)
        policy = MenuPolicy(dim=config.dim, hidden=config.hidden)  # what `trainer.make_policy` draws first
        rng_state = torch.get_rng_state()
        policy.load_state_dict(start)
        save_checkpoint(
            path,
            policy,
            optimizer=make_optimizer(policy, config.learning_rate, config.head_lr_scale).state_dict(),
            global_step=0,
            update=0,
            history=[],
            torch_rng=rng_state,
            max_actions=config.max_actions,
            args=dataclasses.asdict(config),
        )
    return dataclasses.replace(config, resume=True)


def _control_job(
    base: Any,
    spec: str,
    seed: int,
    run_name: str,
    eval_ts: tuple[int, ...],
    episodes: int,
    env_id: str,
    start: dict[str, Any] | None = None,
) -> dict[int, dict[str, Any]]:
    """Train one control run (from ``start``'s weights when given) and score it at each T (a
    `baselines.experiment.grid` job)."""

    config = dataclasses.replace(base, schedule=spec, seed=seed)
    if start is not None:
        config = _start_from(config, run_name, start)
    summary = train(config, run_name)
    policy, ckpt = load_policy(summary["checkpoint"])
    return {t: _score(policy, int(ckpt["max_actions"]), t, episodes, seed, env_id) for t in eval_ts}


CONTROL_SETTING: dict[str, Any] = {"learning_rate": 3e-4, "head_lr_scale": 10.0}
"""The trainer settings the control runs with, over the experiment's `TrainSettings` (benchmarks/positive_control.py
measures them): the network's trunk at a tenth of the trainer's learning rate, its linear and
bilinear scoring terms (`baselines.policy.ppo.HEADS`) at the trainer's 3e-3. At 3e-3 everywhere PPO does
not keep the optimum it is handed: from the cloned optimum it falls to "patch the clue, submit"
(0.6) within a few updates, as it converges there from scratch; with this setting it keeps it."""

_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131)
"""Student's t, two-sided 95%, for 1-15 degrees of freedom (no scipy on the GPU machine)."""


def seed_interval(values: list[float], lo: float = 0.0, hi: float = 1.0) -> list[float]:
    """Mean +- t x standard error over seeds (95%), clipped to [``lo``, ``hi``] (a success rate's
    range: with 3 seeds the t interval of a bimodal cell spills past it); one seed gives [mean, mean]."""
    mean = float(np.mean(values))
    if len(values) < 2:
        return [mean, mean]
    half = _T975[min(len(values) - 2, len(_T975) - 1)] * float(np.std(values, ddof=1)) / np.sqrt(len(values))
    return [max(lo, mean - half), min(hi, mean + half)]


def _cells(rs_by_t: dict[int, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    return {
        str(t): {
            "success": float(np.mean([r["success"] for r in rs])),
            "success_ci95": seed_interval([r["success"] for r in rs]),
            "success_per_seed": [r["success"] for r in rs],
            "optimum": rs[0]["optimum"],
            "recovered": sum(r["recovered"] for r in rs),
            "wrong_first": sum(r["wrong_first"] for r in rs),
            "reverts_after_failing_test": sum(r["reverts_after_failing_test"] for r in rs),
            "failing_tests": sum(r["failing_tests"] for r in rs),
        }
        for t, rs in rs_by_t.items()
    }


def run_control(
    steps: int = 6000,
    seeds: tuple[int, ...] = (1, 2),
    t_short: int = 2,
    t_long: int = 10,
    eval_ts: tuple[int, ...] = (2, 4, 6, 10),
    episodes: int = 200,
    out: str | None = None,
    env_id: str = CONTROL_ENV,
    base: TrainSettings | None = None,
    *,
    workers: int = 1,
    executor: str = "local",
    ray_address: str | None = None,
    setting: dict[str, Any] | None = None,
    from_optimum: bool = True,
    **overrides: Any,
) -> dict[str, Any]:
    """Train the three schedules per seed on the budget env with `baselines.policy.train.train`;
    success per T against the optimum.

    ``base``: the trainer's settings (the experiment passes its own; by default the quick preset's);
    ``workers`` and ``executor`` run the control's jobs in parallel (`baselines.experiment.grid`).
    ``setting``: trainer settings over ``base`` for every run (default `CONTROL_SETTING`; ``{}``:
    ``base`` as it is); ``overrides`` win over both. ``from_optimum`` (faithful env only): also run
    fixed-T-long from the known best policy cloned into the network (`clone_optimum`), with the same
    PPO, seeds and steps: does the trainer keep the optimum it is handed?

    Keys: ``by_T[name][T]`` (success, its 95% interval over seeds, per seed, the optimum, recovery
    counts) for the schedules from scratch and, as ``"fixed-T{t_long} from the optimum"``, the
    cloned start; ``arms`` (name -> ``scratch`` or ``cloned``); ``cloned_start`` (the clone's own
    success per T before PPO) and ``clone_fit``; ``best_policy``; ``setting`` (no timing: control.json is
    compared byte for byte across executors).
    """

    if base is None:
        base = TrainSettings.from_args(Args(**{**PRESETS["quick"], "preset": "quick"}))
    with tempfile.TemporaryDirectory() as tmp:
        jobs, assemble = control_jobs(
            steps,
            seeds,
            t_short,
            t_long,
            eval_ts,
            episodes,
            out or tmp,
            env_id,
            base,
            setting=setting,
            from_optimum=from_optimum,
            **overrides,
        )
        results, _ = run_graph(jobs, workers=workers, executor=executor, ray_address=ray_address)
    return assemble(results)


CONTROL_COSTS = {"step": 1.6, "scored_episode": 2.0, "clone": 30_000.0, "best_policy_episode": 0.3}
"""CPU milliseconds (a 2-core x86 machine, benchmarks/experiment_timeline.py) of a control run's env step
(rollout and update), of a scored episode, of `clone_optimum` at 100 demonstrations per T, and of an
episode of `best_policy_score`: what orders the control's jobs among the experiment's
(`baselines.experiment.grid.priorities`)."""


def control_jobs(
    steps: int,
    seeds: tuple[int, ...],
    t_short: int,
    t_long: int,
    eval_ts: tuple[int, ...],
    episodes: int,
    out: str,
    env_id: str,
    base: TrainSettings,
    *,
    setting: dict[str, Any] | None = None,
    from_optimum: bool = True,
    prefix: str = "control:",
    **overrides: Any,
) -> tuple[list[Job], Callable[[dict[str, Any]], dict[str, Any]]]:
    """`run_control`'s work as `baselines.experiment.grid` jobs (named with ``prefix``, ``out`` the runs'
    folder), and the function that turns their results (job name -> result) into `run_control`'s dict.
    The experiment runs these jobs in its own graph, beside its training runs and evaluations: the clone
    and the scoring of the cloned start are jobs like the runs."""

    setting = dict(CONTROL_SETTING if setting is None else setting)
    schedules = {
        f"fixed-T{t_short}": f"fixed:{t_short}",
        f"fixed-T{t_long}": f"fixed:{t_long}",
        "budgetmix": f"uniform:{t_short}-{t_long}",
    }
    arms = {name: "scratch" for name in schedules}
    from_optimum = from_optimum and env_id == CONTROL_ENV
    head: dict[str, Any] = {
        "env": env_id,
        "steps": steps,
        "seeds": list(seeds),
        "schedules": dict(schedules),
        "setting": {**setting, **overrides},
    }
    config = _control_settings(base, env_id, steps, out, {**setting, **overrides})
    plan = _ControlPlan(
        prefix, seeds, eval_ts, episodes, env_id, schedules, arms, from_optimum, f"fixed-T{t_long} from the optimum"
    )
    jobs: list[Job] = []
    if from_optimum:
        schedules[plan.cloned], arms[plan.cloned] = f"fixed:{t_long}", "cloned"
        jobs += _clone_jobs(plan, config)
    jobs += _run_jobs(plan, config, steps)
    if env_id == CONTROL_ENV:
        jobs += [
            Job(
                f"{prefix}best-policy-T{t}",
                best_policy_score,
                (t, episodes * len(seeds)),
                cost=CONTROL_COSTS["best_policy_episode"] * episodes * len(seeds),
            )
            for t in eval_ts
        ]
    return jobs, partial(_assemble, plan, head)


@dataclass(frozen=True)
class _ControlPlan:
    """What the control's jobs and their assembly share: names, seeds, budgets and arms."""

    prefix: str
    seeds: tuple[int, ...]
    eval_ts: tuple[int, ...]
    episodes: int
    env_id: str
    schedules: dict[str, str]
    arms: dict[str, str]
    from_optimum: bool
    cloned: str
    """the arm started from the cloned optimum"""

    @property
    def clone(self) -> str:
        return f"{self.prefix}clone"

    @property
    def runs(self) -> list[tuple[str, int]]:
        """(arm, seed) of every control run, seed-major."""
        return [(name, seed) for seed in self.seeds for name in self.schedules]


def _control_settings(base: TrainSettings, env_id: str, steps: int, out: str, setting: dict[str, Any]) -> TrainSettings:
    """The trainer's settings for a control run: the sandbox-free env, a smaller network, ``setting`` over all."""
    return dataclasses.replace(
        base,
        env_ids=env_id,
        backend="local",
        total_env_steps=steps,
        track=False,
        progress=False,
        dim=64,
        hidden=64,
        collect_mode="async",
        env_threads=1,
        out=out,
        **setting,
    )


def _clone_jobs(plan: _ControlPlan, config: TrainSettings) -> list[Job]:
    """The clone of the known optimum, and the cloned start's own score at each T before PPO."""
    # demonstrations per T: the evaluation's episodes, at most 100 (a smoke run's clone is cheap)
    demos = min(100, plan.episodes)
    scored = plan.episodes * len(plan.seeds)
    return [
        Job(
            plan.clone,
            _clone_job,
            (config.dim, config.hidden, demos, config.max_actions),
            cost=CONTROL_COSTS["clone"] * demos / 100,
        ),
        *(
            Job(
                f"{plan.prefix}cloned-start-T{t}",
                _cloned_start_job,
                partial(_with_clone, plan.clone, (config.max_actions, t, scored), weights=False),
                after=(plan.clone,),
                cost=CONTROL_COSTS["scored_episode"] * scored,
            )
            for t in plan.eval_ts
        ),
    ]


def _run_jobs(plan: _ControlPlan, config: TrainSettings, steps: int) -> list[Job]:
    """A job per control run (arm and seed): train, then score at each T; the cloned arm after the clone."""
    run_cost = CONTROL_COSTS["step"] * steps + CONTROL_COSTS["scored_episode"] * plan.episodes * len(plan.eval_ts)
    jobs = []
    for name, seed in plan.runs:
        job_args = (config, plan.schedules[name], seed, _run_name(name, seed), plan.eval_ts, plan.episodes, plan.env_id)
        if plan.arms[name] == "cloned":
            job = Job(
                f"{plan.prefix}{_run_name(name, seed)}",
                _control_job,
                partial(_with_clone, plan.clone, job_args),
                after=(plan.clone,),
                cost=run_cost,
            )
        else:
            job = Job(f"{plan.prefix}{_run_name(name, seed)}", _control_job, job_args, cost=run_cost)
        jobs.append(job)
    return jobs


def _assemble(plan: _ControlPlan, head: dict[str, Any], done: dict[str, Any]) -> dict[str, Any]:
    """`run_control`'s dict from the control's finished jobs (job name -> result)."""
    prefix, eval_ts = plan.prefix, plan.eval_ts
    results = {**head, "by_T": {}}
    if plan.from_optimum:
        results["clone_fit"] = done[plan.clone][1]
        results["cloned_start"] = {str(t): done[f"{prefix}cloned-start-T{t}"] for t in eval_ts}
    results["arms"] = plan.arms
    scores: dict[str, dict[int, list[dict[str, Any]]]] = {n: {t: [] for t in eval_ts} for n in plan.schedules}
    for name, seed in plan.runs:  # seed-major, as the runs were listed
        by_t = done[f"{prefix}{_run_name(name, seed)}"]
        for t in eval_ts:
            scores[name][t].append(by_t[t])
    if plan.env_id == CONTROL_ENV:
        results["best_policy"] = {str(t): done[f"{prefix}best-policy-T{t}"] for t in eval_ts}
    results["by_T"] = {name: _cells(by_t) for name, by_t in scores.items()}
    return results


def _clone_job(dim: int, hidden: int, episodes: int, max_actions: int) -> tuple[MenuPolicy, dict[str, float]]:
    """`clone_optimum` as a job (the clone's demonstrations per T: ``episodes``)."""
    return clone_optimum(dim, hidden, episodes=episodes, max_actions=max_actions)


def _with_clone(clone: str, args: tuple[Any, ...], done: dict[str, Any], weights: bool = True) -> tuple[Any, ...]:
    """A job's arguments once the clone (job ``clone``) is done: ``args`` and then the cloned policy
    (``weights=False``: before ``args``) or a copy of its weights, the cloned arm's start."""
    policy = done[clone][0]
    if not weights:
        return (policy, *args)
    return (*args, {k: v.detach().clone() for k, v in policy.state_dict().items()})


def _cloned_start_job(policy: MenuPolicy, max_actions: int, t: int, episodes: int) -> float:
    """The cloned start's own success at ``t`` (seed 0), before any PPO."""
    return float(_score(policy, max_actions, t, episodes, 0)["success"])


def _run_name(name: str, seed: int) -> str:
    return f"control-{name.replace(' ', '-')}-s{seed}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=6000, help="env steps per training run")
    parser.add_argument("--seeds", default="1,2", help="training seeds")
    parser.add_argument("--episodes", type=int, default=200, help="evaluation episodes per T")
    parser.add_argument(
        "--easy", action="store_true", help="the original env (a new patch replaces the old, a perfect test)"
    )
    parser.add_argument(
        "--recovery-starts", type=float, default=None, help="the trainer's start-state curriculum share"
    )
    opts = parser.parse_args(argv)
    extra = {} if opts.recovery_starts is None else {"recovery_starts": opts.recovery_starts}
    print(
        json.dumps(
            run_control(
                opts.steps,
                tuple(int(s) for s in opts.seeds.split(",")),
                episodes=opts.episodes,
                env_id=EASY_CONTROL_ENV if opts.easy else CONTROL_ENV,
                **extra,
            ),
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
