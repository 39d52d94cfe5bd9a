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
``"baselines.experiment.budget_env:agentgym-test/BudgetChoice-v0"``).

Its right answers are known (`optimum`), which makes it the positive control of the trainer
(`baselines.experiment.control`): with five patches and a clue right 60% of the time, patching the
clue and submitting scores 0.6 at any T; patching and testing candidates in turn, committing
to the last one patched when turns run out, scores 0.6 + 0.4 * min(k - 1, 4) / 4 where k
= (T - 2) // 2 + 1 patches fit (T = 8: 0.9; T >= 10: 1.0).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from agentgym import events as ev
from agentgym.spaces import AnyText

__all__ = [
    "ENV_ID",
    "RECOVER_ENV_ID",
    "WORDS",
    "BudgetChoiceEnv",
    "BudgetChoiceTasks",
    "optimum",
    "recover_optimum",
    "recover_best_action",
    "recover_action_values",
]

ENV_ID = "agentgym-test/BudgetChoice-v0"
RECOVER_ENV_ID = "agentgym-test/BudgetRecover-v0"
"""The faithful variant: a patch on top of another breaks the code until ``revert`` undoes it
(recovery needs a revert, as in Coding-v0), and the right patch's test fails with probability
0.1 (a failing test is evidence, not proof). Its optimum is `recover_optimum`."""
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


@functools.cache
def _recover_programme(n: int, clue_accuracy: float, fn: float):
    """Exact dynamic programme of `RECOVER_ENV_ID` over what an agent can know: turns left, the
    patch applied now (index 0 is the clue's; None), and the failing tests each patch has had.

    The posterior that patch i is right is proportional to prior_i x fn^fails_i (a wrong patch
    always fails, the right one fails with probability fn); a passing test proves the patch.
    Patching on top of an applied patch is left out: it breaks the code, gives no information and
    needs a revert to undo, so it never helps (a plan with it is matched, turns saved, by one without).
    """

    prior = [clue_accuracy] + [(1 - clue_accuracy) / (n - 1)] * (n - 1)

    def post(fails: tuple[int, ...]) -> list[float]:
        w = [p * fn**f for p, f in zip(prior, fails)]
        z = sum(w)
        return [x / z for x in w]

    @functools.cache
    def actions(left: int, cur: int | None, fails: tuple[int, ...]) -> tuple[tuple[str, float], ...]:
        """Each action the programme considers, with its value (submit, test, revert, patch J: in that order)."""
        if left <= 0:
            return ()
        pr = post(fails)
        out = [("submit", pr[cur] if cur is not None else 0.0)]
        if left >= 2 and cur is not None:
            p_pass = pr[cur] * (1 - fn)
            failed = tuple(f + (i == cur) for i, f in enumerate(fails))
            out.append(("test", p_pass * 1.0 + (1 - p_pass) * value(left - 1, cur, failed)[0] if p_pass < 1 else 1.0))
            out.append(("revert", value(left - 1, None, fails)[0]))
        if left >= 2 and cur is None:
            out += [(f"patch {j}", value(left - 1, j, fails)[0]) for j in range(n)]
        return tuple(out)

    @functools.cache
    def value(left: int, cur: int | None, fails: tuple[int, ...]) -> tuple[float, str]:
        best = (0.0, "")
        for action, v in actions(left, cur, fails):
            if not best[1] or v > best[0]:  # ties: the first in `actions`' order
                best = (v, action)
        return best

    return value, actions


def _recover_values(n: int, clue_accuracy: float, fn: float):
    """The programme's (value, best action) of a state: ``(turns left, patch applied, fails)``."""
    return _recover_programme(n, clue_accuracy, fn)[0]


def recover_optimum(turns: int, n: int = 5, clue_accuracy: float = 0.6, fn: float = 0.1) -> float:
    """The best success at budget ``turns`` on `RECOVER_ENV_ID` (exact, `_recover_values`)."""
    return _recover_values(n, clue_accuracy, fn)(turns, None, (0,) * n)[0]


def recover_best_action(
    left: int,
    cur: int | None,
    fails: tuple[int, ...],
    n: int = 5,
    clue_accuracy: float = 0.6,
    fn: float = 0.1,
    passed: bool = False,
) -> str:
    """The known best action on `RECOVER_ENV_ID`: ``submit``, ``test``, ``revert`` or ``patch J``
    (J indexes the patches with the clue's first), from the agent's public state; ``passed``: the
    applied patch's test passed (proof: submit)."""
    if passed:
        return "submit"
    return _recover_values(n, clue_accuracy, fn)(left, cur, fails)[1]


def recover_action_values(
    left: int,
    cur: int | None,
    fails: tuple[int, ...],
    n: int = 5,
    clue_accuracy: float = 0.6,
    fn: float = 0.1,
    passed: bool = False,
) -> dict[str, float]:
    """The success each action the programme considers leads to (then played best), from the same
    state as `recover_best_action`: its best actions are those of the highest value (ties: several
    untried patches are alike). After a passing test only ``submit`` (value 1) is listed."""
    if passed:
        return {"submit": 1.0}
    return dict(_recover_programme(n, clue_accuracy, fn)[1](left, cur, fails))


@dataclass(frozen=True)
class _Task:
    """The episode's reference solution, under the name Coding-v0's task gives it."""

    solution: tuple[str, ...]


class BudgetChoiceTasks:
    """Task ids per split, like an agentgym `TaskSet` (a quarter of the ids are test tasks)."""

    def ids(self, split: str) -> list[str]:
        return [f"budgetchoice/{i}" for i in range(200) if (i % 4 == 0) == (split == "test")]


class BudgetChoiceEnv(gym.Env[dict[str, Any], str]):
    metadata = {"render_modes": []}

    def __init__(
        self,
        n: int = 5,
        clue_accuracy: float = 0.6,
        split: str = "train",
        backend: str = "local",
        stacking: bool = False,
        test_false_negative: float = 0.0,
    ) -> None:
        """``stacking``: a patch on top of an applied one breaks the code until reverted (else it
        replaces it); ``test_false_negative``: the right patch's test fails with this probability."""
        self.n, self.clue_accuracy, self.split = n, clue_accuracy, split
        self.stacking, self.test_false_negative = bool(stacking), float(test_false_negative)
        self.stack: list[int] = []
        self.action_space = AnyText(64)
        self.observation_space = gym.spaces.Dict({"text": AnyText(512)})
        self._done = True
        self.turn = 0
        self.tasks = BudgetChoiceTasks()
        self.task: _Task | None = None

    def _task_ids(self, split: str) -> list[int]:
        return [int(t.split("/")[1]) for t in self.tasks.ids(split)]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        options = options or {}
        ids = self._task_ids(options.get("split", self.split))
        tid = (
            int(str(options["task_id"]).split("/")[-1])
            if "task_id" in options
            else ids[int(self.np_random.integers(len(ids)))]
        )
        self.task_id = f"budgetchoice/{tid}"
        rng = np.random.default_rng(tid)
        self.names = [str(w) for w in rng.choice(WORDS, self.n, replace=False)]
        self.answer = int(rng.integers(self.n))
        clue_ok = self.np_random.random() < self.clue_accuracy
        clue = self.answer if clue_ok else int((self.answer + 1 + self.np_random.integers(self.n - 1)) % self.n)
        self.applied: int | None = None
        self.stack = []
        # what `baselines.report.decisions.DecisionRecorder` reads to label patches (as Coding-v0's task);
        # the agent never sees it
        self.task = _Task(solution=(f"patch {self.names[self.answer]}", "run tests", "submit"))
        self.turn, self._done = 0, False
        self._tried: set[int] = set()
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
            ok = self.applied == self.answer and (
                self.test_false_negative <= 0 or self.np_random.random() >= self.test_false_negative
            )
            events += [ev.tool_call("tests", True), ev.verification(ok, "tests")]
            text = "tests pass" if ok else "tests fail"
        elif action.startswith("patch ") and action[6:] in self.names:
            index = self.names.index(action[6:])
            self._tried.add(index)
            events += [ev.tool_call("patch", True), ev.mutation("code")]
            if self.stacking:
                self.stack.append(index)
                self.applied = self.stack[0] if len(self.stack) == 1 else -1  # -1: two patches, the code is broken
                text = f"applied {action[6:]}" + (" on top of the previous patch" if len(self.stack) > 1 else "")
            else:
                self.applied = index
                text = f"applied {action[6:]}"
        elif action == "revert":
            if self.stacking:
                if self.stack:
                    self.stack.pop()
                self.applied = None if not self.stack else (self.stack[0] if len(self.stack) == 1 else -1)
            else:
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
        if self.applied == self.answer:
            return "submit"
        if self.stacking and self.stack:
            return "revert"
        return f"patch {self.names[self.answer]}"

    def inject_fault(self, kind: str, *, transient: bool = True) -> None:
        pass

    @property
    def episode_over(self) -> bool:
        return self._done


_ENTRY_POINT = "baselines.experiment.budget_env:BudgetChoiceEnv"  # a string, so specs serialise
if ENV_ID not in gym.registry:
    gym.register(ENV_ID, entry_point=_ENTRY_POINT, disable_env_checker=True)
SMALL_RECOVER_ENV_ID = "agentgym-test/BudgetRecoverSmall-v0"
"""`RECOVER_ENV_ID` with three patches (the clue right 60% of the time): small enough for a
trainer test to learn its best policy in seconds."""
if SMALL_RECOVER_ENV_ID not in gym.registry:
    gym.register(
        SMALL_RECOVER_ENV_ID,
        entry_point=_ENTRY_POINT,
        disable_env_checker=True,
        kwargs={"n": 3, "stacking": True, "test_false_negative": 0.1},
    )
if RECOVER_ENV_ID not in gym.registry:
    gym.register(
        RECOVER_ENV_ID,
        entry_point=_ENTRY_POINT,
        disable_env_checker=True,
        kwargs={"stacking": True, "test_false_negative": 0.1},
    )
