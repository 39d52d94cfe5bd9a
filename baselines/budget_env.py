"""A sandbox-free env whose best strategy depends on the turn budget: trainer tests and the positive control.

The shape of a Coding-v0 menu task in miniature: one of ``n`` patches is the fix. The
instruction carries a clue that names the right patch with probability ``clue_accuracy``
(imperfect evidence). ``run tests`` says whether the applied patch fixes the bug (a
verification that costs a turn); ``revert`` undoes a patch; ``submit`` ends the episode.
With many turns the careful strategy (patch, test, revert and retry, submit) wins; with two
turns only "patch the clue, submit" can succeed.

It emits agentgym's info keys and events and implements ``end_by_budget`` and
``reference_action``, so the agentgym wrappers work on it. Registered as
``agentgym-test/BudgetChoice-v0`` when this module is imported (``agentgym.make`` does that for
``"baselines.budget_env:agentgym-test/BudgetChoice-v0"``).

Its right answers are known (`optimum`), which makes it the positive control of the trainer
(`baselines.positive_control`): with five patches and a clue right 60% of the time, patching the
clue and submitting scores 0.6 at any T; patching and testing candidates in turn, committing
to the last one patched when turns run out, scores 0.6 + 0.4 * min(k - 1, 4) / 4 where k
= (T - 2) // 2 + 1 patches fit (T = 8: 0.9; T >= 10: 1.0).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from agentgym import events as ev
from agentgym.spaces import AnyText

__all__ = ["ENV_ID", "WORDS", "BudgetChoiceEnv", "BudgetChoiceTasks", "optimum"]

ENV_ID = "agentgym-test/BudgetChoice-v0"
WORDS = ("alpha", "bravo", "delta", "gamma", "kilo", "lima", "oscar", "sierra", "tango", "zulu")


def optimum(turns: int, n: int = 5, clue_accuracy: float = 0.6) -> float:
    """The best success at budget ``turns``: patch the clue, then test and patch the others in turn.

    k patches fit when each but the last is followed by a test and a submit ends the episode
    (patch, test, patch, test, ..., patch, submit): k = (turns - 2) // 2 + 1 for turns >= 2.
    """
    if turns < 2:
        return 0.0
    k = min((turns - 2) // 2 + 1, n)
    return clue_accuracy + (1 - clue_accuracy) * (k - 1) / (n - 1)


class BudgetChoiceTasks:
    """Task ids per split, like an agentgym `TaskSet` (a quarter of the ids are test tasks)."""

    def ids(self, split: str) -> list[str]:
        return [f"budgetchoice/{i}" for i in range(200) if (i % 4 == 0) == (split == "test")]


class BudgetChoiceEnv(gym.Env[dict[str, Any], str]):
    metadata = {"render_modes": []}

    def __init__(self, n: int = 5, clue_accuracy: float = 0.6, split: str = "train", backend: str = "local") -> None:
        self.n, self.clue_accuracy, self.split = n, clue_accuracy, split
        self.action_space = AnyText(64)
        self.observation_space = gym.spaces.Dict({"text": AnyText(512)})
        self._done = True
        self.turn = 0
        self.tasks = BudgetChoiceTasks()

    def _task_ids(self, split: str) -> list[int]:
        return [int(t.split("/")[1]) for t in self.tasks.ids(split)]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        options = options or {}
        ids = self._task_ids(options.get("split", self.split))
        tid = int(str(options["task_id"]).split("/")[-1]) if "task_id" in options else ids[int(self.np_random.integers(len(ids)))]
        self.task_id = f"budgetchoice/{tid}"
        rng = np.random.default_rng(tid)
        self.names = [str(w) for w in rng.choice(WORDS, self.n, replace=False)]
        self.answer = int(rng.integers(self.n))
        clue_ok = self.np_random.random() < self.clue_accuracy
        clue = self.answer if clue_ok else int((self.answer + 1 + self.np_random.integers(self.n - 1)) % self.n)
        self.applied: int | None = None
        self.turn, self._done, self._tried = 0, False, set()
        text = f"The failing test mentions {self.names[clue]}. Fix the bug, then submit."
        return {"text": text}, self._info([])

    def _menu(self) -> list[str]:
        return ["run tests"] + [f"patch {w}" for w in self.names] + ["revert", "submit"]

    def _info(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "turn": self.turn,
            "min_turns": 2,
            "events": events,
            "admissible_actions": [] if self._done else self._menu(),
            "cost": {"env_calls": self.turn},
        }

    def step(self, action: str):
        self.turn += 1
        events = [ev.action(action in self._menu(), action)]
        reward, terminated, extra = 0.0, False, {}
        if action == "run tests":
            ok = self.applied == self.answer
            events += [ev.tool_call("tests", True), ev.verification(ok, "tests")]
            text = "tests pass" if ok else "tests fail"
        elif action.startswith("patch ") and action[6:] in self.names:
            self.applied = self.names.index(action[6:])
            self._tried.add(self.applied)
            events += [ev.tool_call("patch", True), ev.mutation("code")]
            text = f"applied {action[6:]}"
        elif action == "revert":
            self.applied = None
            events += [ev.tool_call("patch", True), ev.mutation("code")]
            text = "reverted"
        elif action == "submit":
            success = self.applied == self.answer
            events.append(ev.submit())
            reward, terminated, self._done = float(success), True, True
            extra["success"] = success
            text = "submitted"
        else:
            text = "error: unknown action"
        info = self._info(events)
        info.update(extra)
        return {"text": text}, reward, terminated, False, info

    def end_by_budget(self) -> bool:
        self._done = True
        return False

    def reference_action(self) -> str:
        return "submit" if self.applied == self.answer else f"patch {self.names[self.answer]}"

    def inject_fault(self, kind: str, *, transient: bool = True) -> None:
        pass

    @property
    def episode_over(self) -> bool:
        return self._done


if ENV_ID not in gym.registry:
    gym.register(ENV_ID, entry_point=BudgetChoiceEnv, disable_env_checker=True)
