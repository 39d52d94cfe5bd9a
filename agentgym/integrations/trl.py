"""TRL: agentgym episodes in ``GRPOTrainer(environment_factory=...)``, budgets and faults chosen per row.

    from agentgym.integrations import trl as agtrl
    factory = agtrl.environment_factory("agentgym/ToolUse-v0")             # or remote="http://host:8000"
    rows = agtrl.dataset("agentgym/ToolUse-v0", n=256, budget={"uniform": [2, 16]})   # BudgetMix
    trainer = GRPOTrainer(model, args=GRPOConfig(max_tool_calling_iterations=16, ...),
                          train_dataset=rows, environment_factory=factory)

- `environment_factory(env_id, remote=None, **make_kwargs)`: the class TRL instantiates once per
  rollout (``Cls()``), or, when the env's tools are the task's (ToolUse: one tool set per domain;
  BFCL: per set of API classes), a dict of classes keyed by tool group (`TaskSet.tool_groups`) that
  TRL selects with the dataset's ``environment`` column.
  Each class has one typed method with an ``Args:`` docstring per tool (`agentgym.llm.tools`),
  ``reset(**row)`` reading ``seed``, ``task_id``, ``budget`` and ``faults``, and ``get_reward()``;
  ``.episode`` (`agentgym.integrations.episode.Episode`) holds the info for ``reward_funcs`` and logs.
- Infrastructure failures (a sandbox or server that died; never an agent's own crash): the tool call
  that met one answers `INFRA_FAILURE` (a short neutral text, not the exception), every later call
  `EPISODE_OVER`, and ``get_reward()`` returns None, so TRL counts the completion unscorable (every
  reward function None: out of the group's baseline, advantage 0). A reset that fails is tried again
  on a fresh env (``reset_attempts``, ``reset_backoff``), then raises `agentgym.errors.ResetFailed`.
  `skip_infra_failures` makes a reward function of yours return None for those completions too;
  `log_infra_failures` (a reward function that scores nothing) logs their count per step.
- `dataset(env_id, split=, n=, budget=, faults=, seed=)`: rows with a task and a seed each, T drawn
  per row from a `RandomBudget` spec (BudgetMix: ``{"uniform": [lo, hi]}``, ``{"loguniform": ...}``),
  faults cycled over a list of specs (a fault sweep).

TRL's tool loop catches every exception a tool method raises and shows the model
``{"error": str(e)}``: an adapter that let an infrastructure failure through would have it scored
as the policy's. TRL's tool loop never asks the env whether to stop: it stops at a reply without a tool call, at
``max_tool_calling_iterations`` or at the length limits. The env's state and reward are fixed at
the episode's end (every later call answers `EPISODE_OVER`), but tokens can still be spent: set
``max_tool_calling_iterations`` to the largest T. TRL itself is not imported here; `dataset`
needs ``datasets`` (a TRL dependency).
"""

from __future__ import annotations

import functools
import inspect
import keyword
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from agentgym.errors import ConfigError, InfrastructureError
from agentgym.integrations import require
from agentgym.integrations.episode import EPISODE_OVER, INFRA_FAILURE, Episode
from agentgym.llm.tools import GRAMMAR_TOOLS, brief, call_action, function, tool_schemas
from agentgym.llm.view import PROMPT  # the row's user message; ``reset`` appends the task to it
from agentgym.make import make
from agentgym.wrappers.budget import draw_turns, parse_budget

__all__ = [
    "environment_factory",
    "dataset",
    "AgentGymToolEnv",
    "tool_method",
    "chat_tools",
    "skip_infra_failures",
    "log_infra_failures",
    "EPISODE_OVER",
    "INFRA_FAILURE",
    "PROMPT",
]


_JSON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}
_RESERVED = ("reset", "get_reward")


class AgentGymToolEnv:
    """Base of the classes `environment_factory` builds: TRL's environment contract over an `Episode`.

    TRL lists the public methods of the class as tools, so the only public names here are
    ``reset``, ``get_reward`` and the generated tools (``episode`` is a plain attribute).
    """

    env_id: str = ""
    remote: str | None = None
    make_kwargs: Mapping[str, Any] = {}
    family: str = ""
    group: str | None = None
    reset_attempts: int = 3
    reset_backoff: float = 1.0

    def __init__(self) -> None:
        self.episode = Episode(
            self.env_id,
            remote=self.remote,
            reset_attempts=self.reset_attempts,
            reset_backoff=self.reset_backoff,
            **self.make_kwargs,
        )

    def reset(self, **row: Any) -> str:
        """Start the row's episode: ``seed``, ``task_id``, ``budget`` (T) and ``faults`` from the row."""
        return self.episode.reset(
            seed=row.get("seed"), task_id=row.get("task_id"), budget=row.get("budget"), faults=row.get("faults")
        )

    def get_reward(self) -> float | None:
        """The episode's reward (the verifier's verdict; 0 for work never submitted), or None after an
        infrastructure failure: TRL then leaves the completion out of the group's baseline, advantage 0."""
        return None if self.episode.infra_failures else float(self.episode.reward)

    def _call(self, name: str, args: Mapping[str, Any]) -> str:
        try:
            return self.episode.step(call_action(self.family, name, args))
        except InfrastructureError:  # recorded by the episode; the model sees a neutral text, not the error
            return INFRA_FAILURE


def tool_method(schema: Mapping[str, Any]) -> Any:
    """A method for one OpenAI-style tool: typed keyword arguments and a Google-style ``Args:`` docstring
    (what TRL and transformers read to render the tool), calling `AgentGymToolEnv._call`."""
    fn = function(schema)
    name = str(fn["name"])
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_") or name in _RESERVED:
        raise ConfigError(f"tool name {name!r} cannot be a TRL tool method (reserved or not an identifier)")
    params = fn.get("parameters") or {}
    props: Mapping[str, Any] = params.get("properties") or {}
    required = set(params.get("required") or ())
    signature = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    doc_args = []
    for arg, prop in props.items():
        if not arg.isidentifier() or keyword.iskeyword(arg) or arg == "self":
            raise ConfigError(f"tool {name!r}: argument {arg!r} is not a Python identifier")
        hint: Any = Literal[tuple(prop["enum"])] if prop.get("enum") else _JSON_TYPES.get(prop.get("type", ""), str)
        annotations[arg] = hint
        default = inspect.Parameter.empty if arg in required else None
        signature.append(inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint))
        doc_args.append(f"    {arg}: {brief(prop.get('description')) or arg}")
    # no return annotation: transformers would render a ``"return": {"type": "string"}`` per tool, every turn

    def method(self: AgentGymToolEnv, **kwargs: Any) -> str:
        return self._call(name, kwargs)

    method.__name__ = method.__qualname__ = name
    method.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    description = brief(fn.get("description")) or name  # the view's: the first sentence, the rest in `help`
    method.__doc__ = description + ("\n\nArgs:\n" + "\n".join(doc_args) if doc_args else "")
    return method


def _tool_class(
    env_id: str,
    family: str,
    schemas: list[dict[str, Any]],
    group: str | None,
    remote: str | None,
    make_kwargs: Mapping[str, Any],
    retries: tuple[int, float] = (3, 1.0),
) -> type[AgentGymToolEnv]:
    body: dict[str, Any] = {
        "env_id": env_id,
        "remote": remote,
        "make_kwargs": dict(make_kwargs),
        "reset_attempts": retries[0],
        "reset_backoff": retries[1],
        "family": family,
        "group": group,
        "__module__": __name__,
        "__doc__": f"{env_id}{f' ({group})' if group else ''} for TRL: one method per tool.",
    }
    for schema in schemas:
        method = tool_method(schema)
        body[method.__name__] = method
    suffix = "".join(c for c in f"{env_id.split('/')[-1]}_{group or ''}".title() if c.isalnum())
    return type(f"AgentGym{suffix}", (AgentGymToolEnv,), body)


def chat_tools(tool_env: AgentGymToolEnv | tuple[str, Sequence[Mapping[str, Any]]]) -> list[Any]:
    """The tools TRL's ``GRPOTrainer`` hands the chat template for an instance of an `environment_factory`
    class (or ``(family, schemas)``, for the class built from those schemas): the class's public methods
    but ``reset`` and ``get_reward``, bound, in ``inspect.getmembers`` order (by name). transformers
    renders each with ``get_json_schema`` (types from the annotations, a ``return`` entry), not as the
    schema it was built from, so whatever renders a prompt of the adapter's (the warm start's
    transcripts, `agentgym.agents.hf.HFAgent` with ``transcript="adapter"``) renders these."""
    if isinstance(tool_env, tuple):
        family, schemas = tool_env
        tool_env = _tool_class(
            "", family, [dict(x) for x in schemas], None, None, {}
        )()  # no env is built before a reset
    return [
        getattr(tool_env, name)
        for name, _ in inspect.getmembers(type(tool_env), predicate=inspect.isfunction)
        if name not in _RESERVED and not name.startswith("_")
    ]


def _infra_failed(environment: Any) -> bool:
    episode = getattr(environment, "episode", None)
    return bool(getattr(episode, "infra_failures", None))


def skip_infra_failures(reward_func: Any) -> Any:
    """``reward_func`` (a TRL reward function) answering None for every completion whose episode met an
    infrastructure failure, so that, with ``get_reward``'s None, every reward function says None and
    TRL leaves the completion unscored. Wrap each of your ``reward_funcs`` that scores episodes::

        GRPOTrainer(..., reward_funcs=[skip_infra_failures(my_reward), log_infra_failures], ...)
    """
    if inspect.iscoroutinefunction(reward_func):
        raise ConfigError(f"skip_infra_failures({reward_func!r}): wrap a plain function, not a coroutine function")

    @functools.wraps(reward_func)
    def scored(*args: Any, **kwargs: Any) -> list[Any]:
        rewards = list(reward_func(*args, **kwargs))
        environments = kwargs.get("environments")
        if not environments:
            return rewards
        return [None if _infra_failed(env) else r for env, r in zip(environments, rewards, strict=True)]

    return scored


def log_infra_failures(
    prompts: Sequence[Any] | None = None,
    environments: Sequence[Any] | None = None,
    log_metric: Any = None,
    **_: Any,
) -> list[None]:
    """A TRL reward function that scores nothing (None for every completion, so it never changes a
    reward) and logs, through TRL's ``log_metric``, ``agentgym/infra_failures`` (completions of the
    batch whose episode met an infrastructure failure) and ``agentgym/reset_retries`` (resets tried
    again); TRL averages them over each logging step."""
    episodes = [getattr(env, "episode", None) for env in environments or []]
    if log_metric is not None:
        log_metric("agentgym/infra_failures", float(sum(bool(getattr(e, "infra_failures", None)) for e in episodes)))
        log_metric("agentgym/reset_retries", float(sum(getattr(e, "reset_retries", 0) for e in episodes)))
    return [None] * (len(prompts) if prompts is not None else len(episodes))


_CACHE: dict[tuple[Any, ...], Any] = {}


def environment_factory(
    env_id: str,
    *,
    remote: str | None = None,
    reset_attempts: int = 3,
    reset_backoff: float = 1.0,
    **make_kwargs: Any,
) -> type[AgentGymToolEnv] | dict[str, type[AgentGymToolEnv]]:
    """TRL's ``environment_factory`` for an agentgym id: a class, or a dict of classes keyed by group.

    ``remote``: an ``agentgym serve`` URL (the token from ``AGENTGYM_SERVE_TOKEN[_FILE]``); else the
    env is built in process with ``make_kwargs`` (`agentgym.make`'s: ``budget``, ``faults``,
    ``split``, ``backend``...; a row's ``budget``/``faults`` override them per episode).
    ``reset_attempts``, ``reset_backoff``: a reset that meets an infrastructure failure is tried
    again on a fresh env, this many times in all, waiting this many seconds (doubled each time).

    Tools the env knows before a reset (Browser, MiniWoB) or a grammar's verbs (Coding) give one
    class. Tools that are the task's (ToolUse: the domain's; BFCL: the API classes') are read by
    resetting one env on a task of each tool group, once per process: a dict ``{group: class}``,
    selected per row by the ``environment`` column that `dataset` writes.
    """
    if remote is None:  # a served env's text is the server's: serve it with help_in_observation=False
        make_kwargs.setdefault("help_in_observation", False)  # TRL renders the tools' schemas itself
    Episode(env_id, reset_attempts=reset_attempts, reset_backoff=reset_backoff)  # checks both now, not per rollout
    retries = (reset_attempts, float(reset_backoff))
    key = (env_id, remote, retries, repr(sorted(make_kwargs.items())))
    if key in _CACHE:
        return _CACHE[key]
    local = make(env_id, **({} if remote is not None else make_kwargs))  # no sandbox starts before a reset
    family = getattr(local.unwrapped, "family", "")
    try:
        if not _tools_per_task(local):
            out: Any = _tool_class(env_id, family, tool_schemas(local), None, remote, make_kwargs, retries)
        else:
            probed = _probe_groups(env_id, local, remote, make_kwargs)
            if list(probed) == [""]:  # no groups: the first task's tools stand for all
                out = _tool_class(env_id, family, probed[""], None, remote, make_kwargs, retries)
            else:
                out = {
                    group: _tool_class(env_id, family, schemas, group, remote, make_kwargs, retries)
                    for group, schemas in probed.items()
                }
    finally:
        local.close()
    _CACHE[key] = out
    return out


def _tools_per_task(env: Any) -> bool:
    """Whether the env's tools are known only after a reset: no tools before it, and no grammar verbs."""
    return not env.unwrapped.tools() and getattr(env.unwrapped, "family", "") not in GRAMMAR_TOOLS


def _probe_groups(
    env_id: str, local: Any, remote: str | None, make_kwargs: Mapping[str, Any]
) -> dict[str, list[dict[str, Any]]]:
    """Each tool group's tools (`TaskSet.tool_groups`), from one reset on the first task listed for it
    (one env, one sandbox), for the groups of the env's tasks."""
    tasks = local.unwrapped.tasks
    listed = [pair for split in tasks.splits for pair in tasks.tool_groups(split)]
    held = {task_id for split in tasks.splits for task_id in tasks.ids(split)}
    wanted = {group for task_id, group in listed if task_id in held}
    first: dict[str, str] = {}
    for task_id, group in listed:  # the first listed shows every tool (a BFCL miss_func task withholds one)
        if group in wanted:
            first.setdefault(group, task_id)
    probe = Episode(env_id, remote=remote, **({} if remote is not None else make_kwargs))
    out = {}
    try:
        for group, task_id in first.items():
            probe.reset(seed=0, task_id=task_id)
            served: Any = probe.env  # a family env under wrappers, or a RemoteEnv: both answer tools()
            out[group] = tool_schemas(served, probed=served.unwrapped.tools())
    finally:
        probe.close()
    return out


def dataset(
    env_id: str,
    split: str = "train",
    n: int = 64,
    *,
    budget: Any = None,
    faults: str | Sequence[str] | None = None,
    seed: int = 0,
    prompt: str = PROMPT,
    balanced: bool = False,
    **env_kwargs: Any,
) -> Any:
    """A ``datasets.Dataset`` of ``n`` rows for `environment_factory`'s classes, seeded.

    ``balanced``: draw the tasks round-robin over the split's units (a task id without its last part: a
    MiniWoB page, a ToolUse template), each unit's tasks without repeats while it has any, instead of
    uniformly over tasks (where a unit with many seeds crowds out the rest): what a warm start wants.

    Each row: ``prompt`` (one user message), ``task_id`` (uniform over ``split``'s tasks, narrowed by
    ``env_kwargs`` such as ``tiers=``/``domains=``), ``seed``, ``budget`` (T drawn per row from a
    `RandomBudget` spec, or None: the env's own), ``faults`` (row i gets ``faults[i % len(faults)]``
    for a list, the spec itself for a string, None for none) and, for an env whose tools are the
    task's, ``environment`` (the task's tool group, which selects the class).
    """
    datasets = require("datasets", "agentgym.integrations.trl.dataset")
    if not isinstance(n, int) or n < 1:
        raise ConfigError(f"n={n!r}; expected an int >= 1 (rows)")
    env = make(env_id, **env_kwargs)
    try:
        base: Any = env.unwrapped  # an AgentEnv (gym.Env declares no task set)
        tasks = base.tasks
        ids = list(tasks.ids(tasks.check_split(split)))
        group_of = dict(tasks.tool_groups(split))
        grouped = _tools_per_task(env) and any(group_of[task_id] for task_id in ids)
    finally:
        env.close()
    sampler, top = parse_budget(budget) if budget is not None else (None, 0)
    plans = [faults] if faults is None or isinstance(faults, str) else list(faults)
    if not plans:
        raise ConfigError('faults=[]; give at least one spec ("" for none)')
    rng = np.random.default_rng(seed)
    rows: dict[str, list[Any]] = {"prompt": [], "task_id": [], "seed": [], "budget": [], "faults": []}
    if grouped:
        rows["environment"] = []
    drawn = _balanced(ids, n, rng) if balanced else None
    for i in range(n):
        # uniform draws interleave with the row's seed and budget: the rows of a given seed stay what they were
        task_id = drawn[i] if drawn is not None else ids[int(rng.integers(len(ids)))]
        rows["prompt"].append([{"role": "user", "content": prompt + "\n\n"}])
        rows["task_id"].append(task_id)
        rows["seed"].append(int(rng.integers(2**31)))
        rows["budget"].append(None if sampler is None else draw_turns(sampler, rng, top, "dataset", "budget"))
        rows["faults"].append(plans[i % len(plans)] or None)
        if grouped:
            rows["environment"].append(group_of[task_id])
    return datasets.Dataset.from_dict(rows)


def _balanced(ids: Sequence[str], n: int, rng: np.random.Generator) -> list[str]:
    """``n`` task ids round-robin over their units (the id without its last ``/`` part), in a shuffled unit
    order, each unit's ids shuffled and used in turn (again from the start once all are used)."""
    units: dict[str, list[str]] = {}
    for task_id in ids:
        units.setdefault(task_id.rsplit("/", 1)[0], []).append(task_id)
    order = sorted(units)
    rng.shuffle(order)
    pools = {u: [units[u][int(i)] for i in rng.permutation(len(units[u]))] for u in order}
    return [pools[order[i % len(order)]][(i // len(order)) % len(pools[order[i % len(order)]])] for i in range(n)]
