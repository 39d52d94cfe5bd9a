"""`evaluate`: run an agent over a Pass@(K,T) grid and write episodes, summary and report.

Each budget T is its own set of episodes (a budget-aware agent plays differently at each T),
with ``n >= max(K)`` samples per task, so every pass@K comes from the unbiased estimator. With
``faults`` every episode also runs clean, under the same seeds, which pairs the two for the
recovery rate. With ``intervention`` every episode also runs with the family's forced start (the
same first actions for every agent, seed and T, played as the agent's own and counted against T),
under the same seeds as its clean twin. With ``budget_mode="soft"`` every episode also runs under a soft budget (T with
the ``soft_budget`` warning and extension), under the same seeds, which pairs hard against soft.
A run is resumable: episodes already in ``episodes.jsonl`` are skipped, and
infrastructure failures recorded there are run again.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numpy as np

from agentgym.agents.base import check_forced
from agentgym.agents.loading import batches, check_agent
from agentgym.core import AgentEnv
from agentgym.errors import ConfigError
from agentgym.eval.agent_identity import REDACTED, agent_identity, identity_mismatch, public_kwargs, redact_text
from agentgym.eval.episodes import EpisodeSpec, append_episode, read_episodes, record_key, write_episodes
from agentgym.eval.report import write_report
from agentgym.eval.runner import AgentSpec, WorkerConfig, env_entry, iter_local, resolve_env_id
from agentgym.eval.summary import summarize
from agentgym.wrappers import parse_faults, parse_soft_budget

__all__ = [
    "evaluate",
    "EvalResult",
    "select_tasks",
    "plan_episodes",
    "check_intervention",
    "EXECUTORS",
    "BUDGET_MODES",
    "DEFAULT_SOFT_BUDGET",
]

EXECUTORS = ("local", "ray")
"""Where episodes run: a local process pool or Ray actors (``executor=``, ``--executor``)."""

BUDGET_MODES = ("hard", "soft")
"""``hard``: a turn limit of T. ``soft``: each episode also runs with T made soft, paired."""

DEFAULT_SOFT_BUDGET = {"extra": 2, "max_requests": 1, "cost": 0.0, "warn_at": 1}
"""The soft budget of ``budget_mode="soft"`` unless ``soft_budget`` is given (keys of
`agentgym.wrappers.parse_soft_budget`, less ``soft``, which is each cell's T)."""


@dataclass
class EvalResult:
    """What `evaluate` returns: the summary (as in ``summary.json``), the records and the folder."""

    summary: dict[str, Any]
    records: list[dict[str, Any]]
    out: Path | None = None
    ran: int = 0
    seconds: float = 0.0
    files: list[Path] = field(default_factory=list)

    def grid(self, env: str | None = None, condition: str = "clean") -> dict[int, dict[int, float]]:
        """Pass@(K,T) means as ``{T: {K: mean}}`` for one env (default: the only env, or "all")."""
        groups = self.summary["results"][condition]
        group = env or (next(iter(groups)) if len(groups) == 1 else "all")
        return {int(t): {int(k): c["mean"] for k, c in row.items()} for t, row in groups[group]["pass"].items()}


def select_tasks(env_id: str, split: str, tasks: int | Sequence[str] | None, seed: int) -> list[str]:
    """Task ids of ``split``: all of them, ``tasks`` of them drawn with ``seed`` (kept in the
    family's order), or the given ids."""
    env = gym.make(env_id, split=split, backend="local", disable_env_checker=True)
    try:
        ids = list(cast(AgentEnv, env.unwrapped).tasks.ids(split))
    finally:
        env.close()  # no sandbox was started: building an env is cheap
    if tasks is None:
        return ids
    if isinstance(tasks, int):
        if tasks < 1:
            raise ConfigError(f"tasks={tasks}; need at least 1")
        if tasks >= len(ids):
            return ids
        picked = np.random.default_rng(seed).choice(len(ids), size=tasks, replace=False)
        return [ids[i] for i in sorted(picked)]
    unknown = [t for t in tasks if t not in set(ids)]
    if unknown:
        raise ConfigError(f"tasks {unknown} are not in {env_id}'s {split!r} split")
    return list(tasks)


def check_intervention(env_id: str, name: str) -> None:
    """Raise `ConfigError` unless ``env_id``'s family defines intervention ``name`` (the error lists
    the ones it does)."""
    env = gym.make(env_id, backend="local", disable_env_checker=True)
    try:
        base = env.unwrapped
        choices = list(getattr(base, "interventions", ()))
    finally:
        env.close()  # no sandbox was started
    if not isinstance(base, AgentEnv) or name not in choices:
        raise ConfigError(
            f"intervention {name!r} is not one of {env_id}'s: {choices or 'it defines none'}"
            + (
                "; fault interventions such as 'tool_error@turn=1' or 'state_drift@mutation=1' go to faults= (--faults)"
                if "@" in name
                else ""
            )
        )


def plan_episodes(
    env_tasks: Mapping[str, Sequence[str]],
    ts: Sequence[int],
    n: int,
    faults: str | None,
    seed: int,
    modes: Sequence[str] = ("hard",),
    intervention: str | None = None,
) -> list[EpisodeSpec]:
    """Every episode of the grid, clean and hard first, grouped by env and T so workers reuse warm envs.
    Conditions: clean, with ``faults``, with ``intervention`` (each paired with the clean one)."""
    conditions = [("", "")] + ([(faults, "")] if faults else []) + ([("", intervention)] if intervention else [])
    return [
        EpisodeSpec(env_id, task, int(t), i, cond, seed, mode, forced)
        for mode in modes
        for cond, forced in conditions
        for env_id, task_ids in env_tasks.items()
        for t in ts
        for task in task_ids
        for i in range(n)
    ]


def _soft_budget(budget_mode: str, soft_budget: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The soft budget the run uses (None in hard mode), checked before any worker starts."""

    if budget_mode not in BUDGET_MODES:
        raise ConfigError(f"budget_mode={budget_mode!r}; choose one of {BUDGET_MODES}")
    if budget_mode == "hard":
        if soft_budget:
            raise ConfigError(f"soft_budget={dict(soft_budget)!r} applies to budget_mode='soft' only")
        return None
    soft = dict(DEFAULT_SOFT_BUDGET if soft_budget is None else soft_budget)
    if "soft" in soft:
        raise ConfigError(f"soft_budget={soft!r}: leave out 'soft'; each cell's T is the budget made soft")
    try:
        parse_soft_budget({"soft": 1, **soft})
    except ConfigError as exc:
        raise ConfigError(f"soft_budget={soft!r}: {exc}") from None
    return soft


def _parse_ints(values: Sequence[int] | str, name: str) -> list[int]:
    if isinstance(values, str):
        values = [int(v) for v in values.split(",") if v.strip()]
    out = sorted({int(v) for v in values})
    if not out or out[0] < 1:
        raise ConfigError(f"{name}={values!r}; need positive integers, e.g. {name}=1,2,4")
    return out


def _agent_config(agent: Any, agent_kwargs: Mapping[str, Any]) -> tuple[Any, str]:
    if isinstance(agent, str):
        check_agent(agent, **dict(agent_kwargs))  # fail here, not in every worker
        return AgentSpec(agent, dict(agent_kwargs)), agent
    if agent_kwargs:
        raise ConfigError("agent_kwargs apply only to an agent given by name")
    return agent, f"{type(agent).__module__}.{type(agent).__qualname__}"


def evaluate(
    env_ids: str | Sequence[str],
    agent: Any,
    ks: Sequence[int] | str = (1,),
    ts: Sequence[int] | str = (8,),
    n: int | None = None,
    split: str = "test",
    tasks: int | Sequence[str] | None = None,
    faults: str | None = None,
    workers: int = 1,
    executor: str = "local",
    seed: int = 0,
    out: str | os.PathLike[str] | None = None,
    *,
    sandbox: str = "auto",
    backend: str | None = None,
    agent_kwargs: Mapping[str, Any] | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
    retries: int = 2,
    t_ref: int | None = None,
    resamples: int = 2000,
    progress: bool = True,
    report: bool = True,
    command: str | None = None,
    budget_mode: str = "hard",
    soft_budget: Mapping[str, Any] | None = None,
    intervention: str | None = None,
    base_env: Callable[..., Any] | None = None,
    turn_log: int = 0,
) -> EvalResult:
    """Evaluate ``agent`` on ``env_ids`` over the K x T grid; see the module docstring.

    ``agent``: a name for `load_agent` (with ``agent_kwargs``), an agent instance (copied into
    each worker) or a zero-argument factory. ``executor`` says where episodes run (``local``
    process pool or ``ray``); ``sandbox`` is the sandbox backend (``auto``/``docker``/``local``),
    what ``backend=`` means everywhere else in agentgym. ``backend="ray"`` is still read as the
    executor, with a DeprecationWarning.
    ``retries``: attempts after an infrastructure failure before the episode is recorded as one.
    ``t_ref``: the budget that budget extrapolation divides by (default the largest T).
    ``budget_mode="soft"`` also runs every episode with T made soft by ``soft_budget`` (default
    `DEFAULT_SOFT_BUDGET`), paired with its hard twin in ``summary["soft_budget"]``; the other
    statistics stay those of the hard-budget episodes.
    ``intervention``: a forced start the env's family defines (``env.unwrapped.interventions``,
    e.g. Coding-v0's ``wrong-patch``, ``wrong-patch-tested``); every episode also runs with it,
    recorded with ``intervention``, ``forced_actions`` and ``forced_turns``, and summarized in
    ``summary["results"]["intervened"]`` and ``summary["intervention"]``. A task where the rule
    has no candidate gets a ``no_candidate`` record, never scored, counted in the summary. The agent
    needs the ``forced`` hook (`agentgym.agents.base`).
    ``base_env``: builds each worker's bare envs in place of `agentgym.eval.stack.make_base_env`
    (same arguments), e.g. a pool that lends warm envs (``baselines.policy.env_pool.borrow``); the episodes
    are the same, the sandbox start-ups fewer.
    ``turn_log``: keep every turn (observation cut to that many characters, events, turns left, tokens,
    time) in each record, what ``agentgym view`` shows turn by turn; 0 (the default) keeps the actions only.
    """
    started = time.perf_counter()
    envs = [resolve_env_id(e) for e in ([env_ids] if isinstance(env_ids, str) else list(env_ids))]
    if not envs:
        raise ConfigError("no env given: pass at least one env id, e.g. agentgym/Coding-v0")
    ks_, ts_ = _parse_ints(ks, "ks"), _parse_ints(ts, "ts")
    n = int(n) if n is not None else max(ks_)
    if n < max(ks_):
        raise ConfigError(f"n={n} samples per cell is below the largest k={max(ks_)}; pass n >= {max(ks_)}")
    if backend is not None:  # the old name of executor
        warnings.warn(
            "evaluate(backend=...) is now executor=...; the sandbox backend is sandbox=...",
            DeprecationWarning,
            stacklevel=2,
        )
        executor = backend
    if executor not in EXECUTORS:
        raise ConfigError(f"executor={executor!r}; choose one of {EXECUTORS} (the sandbox is chosen by sandbox=)")
    if faults:
        _check_faults(faults)
    soft = _soft_budget(budget_mode, soft_budget)
    entries = {e: env_entry(e) for e in envs}
    agent_obj, agent_name = _agent_config(agent, agent_kwargs or {})
    if intervention:
        for e in envs:
            check_intervention(e, intervention)
        if not isinstance(agent_obj, AgentSpec) and hasattr(agent_obj, "act"):  # a factory is checked in the worker
            check_forced(agent_obj, intervention)
    env_tasks = {e: select_tasks(e, split, tasks, seed) for e in envs}
    config: dict[str, Any] = {
        "envs": envs,
        "agent": agent_name,
        "agent_kwargs": public_kwargs(agent_kwargs or {}),
        "agent_identity": agent_identity(agent, agent_kwargs or {}),
        "ks": ks_,
        "ts": ts_,
        "n": n,
        "split": split,
        "tasks": env_tasks,
        "faults": faults or "",
        "seed": int(seed),
        "workers": int(workers),
        "executor": executor,
        "sandbox": sandbox,
        "retries": int(retries),
        "t_ref": int(t_ref or max(ts_)),
        "resamples": int(resamples),
        "env_kwargs": dict(env_kwargs or {}),
        "command": redact_text(command) if command else command,
        "budget_mode": budget_mode,
        "soft_budget": soft,
        "intervention": intervention or "",
    }
    specs = plan_episodes(env_tasks, ts_, n, faults, int(seed), ("hard", "soft") if soft else ("hard",), intervention)

    out_dir = Path(out) if out is not None else None
    previous: list[dict[str, Any]] = []
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        previous = _resume(out_dir, config)
    done = {record_key(r) for r in previous if not r.get("infra_error")}
    todo = [s for s in specs if s.key not in done]

    wconfig = WorkerConfig(
        envs=entries,
        agent=agent_obj,
        split=split,
        sandbox=sandbox,
        env_kwargs=dict(env_kwargs or {}),
        retries=int(retries),
        sys_path=tuple(sys.path),
        soft_budget=soft,
        batch=batches(agent_obj),
        base_env=base_env,
        turn_log=int(turn_log),
    )
    run = _executor(executor)
    fresh: list[dict[str, Any]] = []
    fh = (out_dir / "episodes.jsonl").open("a", encoding="utf-8") if out_dir is not None else None
    arrivals: list[float] = []
    loop_start = time.perf_counter()
    try:
        bar = _progress(len(todo), len(specs), progress)
        for record in run(wconfig, todo, int(workers)):
            arrivals.append(time.perf_counter() - loop_start)
            fresh.append(record)
            if fh is not None:
                append_episode(fh, record)
            bar.update(1)
            if record.get("infra_error"):
                bar.set_postfix_str(f"infra errors: {sum(1 for r in fresh if r.get('infra_error'))}")
        bar.close()
    finally:
        if fh is not None:
            fh.close()

    loop_seconds = time.perf_counter() - loop_start
    records = _dedupe(previous + fresh)
    summary = summarize(records, config)
    summary["timing"] = _timing(fresh, arrivals, loop_seconds, time.perf_counter() - started, int(workers))
    result = EvalResult(
        summary=summary, records=records, out=out_dir, ran=len(fresh), seconds=time.perf_counter() - started
    )
    if out_dir is not None:
        write_episodes(out_dir / "episodes.jsonl", records)
        (out_dir / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
        result.files = [out_dir / "episodes.jsonl", out_dir / "summary.json"]
        if report:
            result.files += write_report(out_dir, summary)
    return result


def _timing(
    fresh: list[dict[str, Any]], arrivals: list[float], loop_seconds: float, seconds: float, workers: int
) -> dict[str, Any]:
    """Throughput and the harness's own share of the time, for this invocation's episodes.

    ``steady_episodes_per_s`` counts from the first finished episode to the last, leaving out
    worker start-up. With one worker, where episodes run back to back, ``overhead_fraction`` is
    the run loop's time beyond the episodes' own latency, as a share of it, and
    ``steady_overhead_fraction`` the same after the first episode, once envs are warm; with
    several workers episodes overlap and both are None.
    """
    latency = [float(r.get("latency_s") or 0.0) for r in fresh]
    total, later = sum(latency), sum(latency[1:])
    serial = workers <= 1
    return {
        "seconds": seconds,
        "episodes_run": len(fresh),
        "loop_seconds": loop_seconds,
        "episode_seconds": total,
        "first_episode_s": arrivals[0] if arrivals else None,
        "episodes_per_s": len(fresh) / loop_seconds if fresh and loop_seconds > 0 else None,
        "steady_episodes_per_s": (len(arrivals) - 1) / (arrivals[-1] - arrivals[0])
        if len(arrivals) > 1 and arrivals[-1] > arrivals[0]
        else None,
        "overhead_fraction": (loop_seconds - total) / total if serial and total > 0 else None,
        "steady_overhead_fraction": (arrivals[-1] - arrivals[0] - later) / later if serial and later > 0 else None,
    }


def _dedupe(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per episode: a later record replaces an earlier one, except that an
    infrastructure failure never replaces a scored episode."""
    best: dict[tuple, dict[str, Any]] = {}
    for r in records:
        key = record_key(r)
        if key not in best or not r.get("infra_error") or best[key].get("infra_error"):
            best[key] = r
    return list(best.values())


def _resume(out_dir: Path, config: dict[str, Any]) -> list[dict[str, Any]]:
    """Records already in ``out_dir``, after checking the run there is the same experiment:
    the same seed, split and sandbox, and the same agent (name, settings, code version)."""
    run_file = out_dir / "run.json"
    if run_file.exists():
        old = json.loads(run_file.read_text())
        for key in ("seed", "agent", "split", "sandbox", "soft_budget"):
            if key == "soft_budget" and not (old.get(key) and config[key]):
                continue  # a hard run resumed in soft mode keeps its hard episodes, and the reverse
            if old.get(key) != config[key]:
                raise ConfigError(
                    f"{out_dir} holds a run with {key}={old.get(key)!r}, not {config[key]!r}: "
                    "pass a new --out folder, or the same settings to resume"
                )
        new_id = old_id = config["agent_identity"]
        if "agent_identity" in old:
            old_id = old["agent_identity"]
        else:  # a run.json from before agent identities: compare the settings it kept (secrets were dropped)
            old_id = {**new_id, "kwargs": old.get("agent_kwargs") or {}, "digest": None}
            new_id = {**new_id, "kwargs": {k: v for k, v in new_id["kwargs"].items() if v != REDACTED}}
        differs = identity_mismatch(old_id, new_id) if old_id.get("digest") != new_id["digest"] else []
        if differs:
            raise ConfigError(
                f"{out_dir} holds a run of another agent configuration ({'; '.join(differs)}); "
                "resuming would mix two agents' episodes in one result. Pass a new --out folder, or the run's "
                "own agent settings (see its run.json) to resume"
            )
    run_file.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    return [
        r for r in read_episodes(out_dir / "episodes.jsonl") if int(r.get("seed", config["seed"])) == config["seed"]
    ]


def _check_faults(spec: str) -> None:
    parse_faults(spec)  # raises ConfigError echoing a bad spec, before any worker starts


def _executor(name: str) -> Callable[..., Any]:
    if name == "ray":
        from agentgym.eval.ray_backend import iter_ray

        return iter_ray
    return iter_local


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str) -> None:
        pass

    def close(self) -> None:
        pass


class _LineProgress:
    """Progress for a log file or CI (stderr is not a terminal): a plain line at most every 10%
    of the episodes or 30 s, where tqdm would write thousands of carriage-return updates."""

    def __init__(self, todo: int, total: int, file: Any) -> None:
        self.todo, self.done, self.file = todo, 0, file
        self.start = self.last = time.monotonic()
        self.step = max(1, -(-todo // 10))
        self.postfix = f" (resumed: {total - todo} of {total} already done)" if total > todo else ""
        print(f"eval: {todo} episode(s) to run{self.postfix}", file=file, flush=True)

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.done == self.todo or self.done % self.step == 0 or now - self.last >= 30:
            self.last = now
            rate = self.done / max(now - self.start, 1e-9)
            print(
                f"eval: {self.done}/{self.todo} episodes ({100 * self.done // max(self.todo, 1)}%), "
                f"{rate:.1f} ep/s{self.postfix}",
                file=self.file,
                flush=True,
            )

    def set_postfix_str(self, s: str) -> None:
        self.postfix = f" ({s})"

    def close(self) -> None:
        pass


def _progress(todo: int, total: int, enabled: bool, file: Any = None) -> Any:
    if not enabled:
        return _NoBar()
    file = sys.stderr if file is None else file
    if not (hasattr(file, "isatty") and file.isatty()):
        return _LineProgress(todo, total, file)
    from tqdm.auto import tqdm

    class _Bar(tqdm):  # no monitor thread: worker processes may be forked after the bar starts
        monitor_interval = 0

    bar = _Bar(total=todo, desc="eval", unit="ep", dynamic_ncols=True, file=file)
    if total > todo:
        bar.set_postfix_str(f"resumed: {total - todo} of {total} already done")
    return bar
