"""Container-free test envs for the wrappers: a key-value task, as an AgentEnv and as a plain env.

- `ScriptedAgentEnv`: an `AgentEnv` family whose "sandbox" is an in-process dict, so every base
  class path (faults, `end_by_budget`, the oracle, garbage survival) runs in microseconds. A task
  asks the agent to ``set`` one to three keys to given words, ``get`` one to check, and
  ``submit``; ``set`` on an unknown key is a failed tool call, ``get`` on an unset key a state
  mismatch, state drift deletes a key. Its `reference_action` is state-aware, so the oracle
  recovers from every fault kind.
- `ScriptedEnv`: a plain `gymnasium.Env` with pluggable ``reset_func`` / ``step_func`` (the
  pattern of Gymnasium's own generic test env). By default it plays the same task and emits the
  same agentgym events, but has none of the AgentEnv hooks, so wrappers must degrade on it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from agentgym import events as ev
from agentgym.core import FAULT_KINDS, ActionError, AgentEnv, Outcome, ParsedAction
from agentgym.spaces import AnyText
from agentgym.tasks import Task, TaskSet, stable_hash, stable_split

__all__ = ["KVTasks", "ScriptedAgentEnv", "ScriptedEnv", "kv_step"]

WORDS = ("amber", "birch", "coral", "delta", "ember", "fjord", "garnet", "harbor", "iris", "juniper")
KEYS = ("alpha", "beta", "gamma")
N_TASKS = 24


class KVTasks(TaskSet):
    family = "kv"
    submit_text = "submitted"

    def ids(self, split: str = "train", tier: str | None = None) -> list[str]:
        if tier is not None:  # no tiers here: the base class refuses it
            return list(super().ids(split, tier))
        return _ids(split)

    def get(self, task_id: str) -> Task:
        return _task(task_id)


# Cached per argument at module level (a cache on a method would keep every instance alive).
@cache
def _ids(split: str) -> list[str]:
    return [f"kv/{i}" for i in range(N_TASKS) if stable_split(f"kv/{i}", 0.34) == split]


@cache
def _task(task_id: str) -> Task:
    h = stable_hash(task_id)
    keys = KEYS[: 1 + h % 3]
    targets = {k: WORDS[(h >> (8 * (i + 1))) % len(WORDS)] for i, k in enumerate(keys)}
    solution = tuple(f"set {k} {v}" for k, v in targets.items()) + (f"get {keys[-1]}", "submit")
    return Task(
        task_id=task_id,
        family="kv",
        split=stable_split(task_id, 0.34),
        instruction="Set " + ", ".join(f"{k}={v}" for k, v in targets.items()) + "; check one; submit.",
        subtasks=keys,
        solution=solution,
        meta={"targets": targets},
    )


class DictStore:
    """Stands in for a sandbox: the task state, and a round-trip counter for cost accounting."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}
        self.calls = 0

    def close(self) -> None:
        self.data.clear()


def kv_parse(action: str) -> ParsedAction:
    verb, _, rest = action.strip().partition(" ")
    args = rest.split()
    if verb == "set" and len(args) == 2:
        return ParsedAction("set", {"key": args[0], "value": args[1]}, tool="set")
    if verb == "get" and len(args) == 1:
        return ParsedAction("get", {"key": args[0]}, tool="get")
    if verb in ("submit", "help") and not args:
        return ParsedAction(verb)
    raise ActionError("expected one of: set KEY VALUE | get KEY | submit | help")


KV_HELP = "set KEY VALUE | get KEY | submit | help"


def kv_execute(action: ParsedAction, data: dict[str, str], targets: dict[str, str]) -> Outcome:
    if action.name == "set":
        key, value = action.args["key"], action.args["value"]
        if key not in targets:
            return Outcome(f"error: no key {key!r}; keys: {sorted(targets)}", [ev.tool_call("set", False, "bad_args")])
        data[key] = value
        done = [ev.subtask(k, data.get(k) == v) for k, v in targets.items()]
        return Outcome("ok", [ev.tool_call("set", True), ev.mutation(key), *done])
    if action.name == "get":
        key = action.args["key"]
        if key not in data:
            return Outcome(f"{key} is not set", [ev.tool_call("get", True), ev.state_mismatch(f"{key} is not set")])
        return Outcome(data[key], [ev.tool_call("get", True), ev.verification(data[key] == targets.get(key), key)])
    if action.name == "help":
        return Outcome(KV_HELP)
    return Outcome("submitted", [ev.submit()], submitted=True)


def kv_menu(task: Task) -> list[str]:
    targets = task.meta["targets"]
    decoy = WORDS[stable_hash(task.task_id) % len(WORDS)]
    menu = [f"set {k} {v}" for k, v in targets.items()] + [f"set {k} {decoy}" for k in targets]
    return menu + [f"get {k}" for k in targets] + ["help", "submit"]


class ScriptedAgentEnv(AgentEnv):
    """The key-value task as an AgentEnv; its state is a dict, so no container or process starts."""

    family = "kv"
    fault_kinds = FAULT_KINDS

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._checked = False

    @classmethod
    def _taskset(cls) -> TaskSet:
        return KVTasks()

    def _ensure_sandbox(self) -> None:
        if self.sandbox is None:
            self.sandbox = DictStore()

    def _setup_task(self, task: Task) -> str:
        self.sandbox.data.clear()
        self._checked = False
        return task.instruction

    @property
    def _episode_task(self) -> Task:
        """The task of the episode under way (these helpers run only after a reset)."""
        assert self.task is not None, "no episode under way: call reset() first"
        return self.task

    def _parse(self, action: str) -> ParsedAction:
        return kv_parse(action)

    def _execute(self, action: ParsedAction) -> Outcome:
        self.sandbox.calls += action.tool is not None
        outcome = kv_execute(action, self.sandbox.data, self._episode_task.meta["targets"])
        kinds = {e["kind"] for e in outcome.events}
        if "mutation" in kinds:
            self._checked = False
        elif "verification" in kinds:
            self._checked = True
        return outcome

    def _verify(self) -> bool:
        self.sandbox.calls += 1
        return self.sandbox.data == dict(self._episode_task.meta["targets"])

    def _admissible(self) -> list[str]:
        return kv_menu(self._episode_task)

    def help_text(self) -> str:
        return KV_HELP

    def _reset_help(self) -> str:
        return ""  # the instruction states the grammar

    def _drift(self) -> str | None:
        data, self._checked = self.sandbox.data, False
        if data:
            key = sorted(data)[0]
            del data[key]
            return f"{key} removed"
        key = next(iter(self._episode_task.meta["targets"]))
        data[key] = "drifted"
        return f"{key} overwritten"

    def wrong_value(self, action: ParsedAction, text: str) -> str | None:
        """``get``'s answer is another of the task's words: a value of the right kind, not the stored one."""
        if action.name != "get" or text not in WORDS:
            return None
        self._checked = False  # the check the agent made showed it a wrong value: it checked nothing
        others = [w for w in WORDS if w != text]
        return others[int(self.np_random.integers(len(others)))]

    def reference_action(self) -> str:
        """State-aware oracle: fix the first wrong key, check once, then submit."""
        if self.task is None:
            return ""
        if (wait := self.oracle_wait()) is not None:
            return wait
        targets = self.task.meta["targets"]
        for key, value in targets.items():
            if self.sandbox.data.get(key) != value:
                return f"set {key} {value}"
        return "submit" if self._checked else f"get {list(targets)[-1]}"


def kv_step(env: ScriptedEnv, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
    """The default ``step_func`` of `ScriptedEnv`: the key-value task, with agentgym events."""
    task = env.task
    assert task is not None, "ScriptedEnv.step before reset"
    env.turn += 1
    try:
        parsed = kv_parse(str(action))
    except ActionError as exc:
        outcome = Outcome(f"error: {exc}", [ev.action(False, error=str(exc))])
    else:
        outcome = kv_execute(parsed, env.data, task.meta["targets"])
        outcome.events.insert(0, ev.action(True, parsed.name))
    info: dict[str, Any] = {"task_id": task.task_id, "turn": env.turn, "events": outcome.events}
    info["admissible_actions"] = kv_menu(task)
    reward = 0.0
    if outcome.submitted:
        success = env.data == dict(task.meta["targets"])
        reward, info["success"] = float(success), success
    return {"text": outcome.text}, reward, outcome.submitted, False, info


def kv_reset(env: ScriptedEnv, options: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The default ``reset_func`` of `ScriptedEnv`: draw a task with the env's seeded RNG."""
    tasks = KVTasks()
    options = options or {}
    env.task = tasks.get(options["task_id"]) if "task_id" in options else tasks.sample("train", env.np_random)
    env.data, env.turn = {}, 0
    info = {"task_id": env.task.task_id, "turn": 0, "events": [], "admissible_actions": kv_menu(env.task)}
    return {"text": env.task.instruction}, info


class ScriptedEnv(gym.Env[dict[str, Any], str]):
    """A plain gymnasium env with pluggable reset and step, emitting agentgym events.

    ``step_func(env, action)`` and ``reset_func(env, options)`` default to the key-value task.
    It has no ``inject_fault``, ``end_by_budget`` or ``reference_action``: the wrappers' fallbacks.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        reset_func: Callable[..., tuple[dict[str, Any], dict[str, Any]]] = kv_reset,
        step_func: Callable[..., tuple[dict[str, Any], float, bool, bool, dict[str, Any]]] = kv_step,
        observation_space: spaces.Space | None = None,
    ) -> None:
        self.reset_func, self.step_func = reset_func, step_func
        self.observation_space = observation_space or spaces.Dict({"text": AnyText(4096)})
        self.action_space = AnyText(4096)
        self.task: Task | None = None
        self.data: dict[str, str] = {}
        self.turn = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        return self.reset_func(self, options)

    def step(self, action: Any):
        return self.step_func(self, action)
