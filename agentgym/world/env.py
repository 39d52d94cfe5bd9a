"""`WorldEnv`: the host side of a stateful world, between `AgentEnv` and ToolUse-v0 / Browser-v0.

What both families do the same way lives here: the verdict asked of the sandbox's world and a
refusal grounded in what the agent saw (a refusal passes only when the agent read, as they are
now, the records that forbid the request: a blind "I cannot" fails), another actor's drift as
the fault hook, and the menu's head (the oracle's next action, finishing as done, refusing), or,
with ``menu="no-oracle"`` (`agentgym.menus`), a menu built without the oracle.
A family supplies its task set, its world's sandbox module (``setup``, ``verify``, ``drift``
...), what the agent has seen (``_seen``: record key -> version), and its part of the menu.
"""

from __future__ import annotations

from functools import cache
from typing import Any, ClassVar

from agentgym.actions import render_call
from agentgym.core import SUBMIT_ACTIONS, AgentEnv, Outcome, ParsedAction, menu_of
from agentgym.menus import NO_ORACLE, ORACLE, check_menu_mode, open_menu
from agentgym.world.tasks import WorldTasks

__all__ = ["WorldEnv"]


class WorldEnv(AgentEnv):
    """Base of the stateful-world families: a versioned world in the sandbox, judged by state and answer.

    ``verdict`` holds the last verification's detail (`agentgym.world.verdict.world_verdict` plus
    ``grounded`` and ``answer_contradicts_state``: the state was right and grounded, the final
    message alone failed, which the verifying step's info says too). Subclasses call
    ``super()._reset_tracking()`` from their own.
    """

    task_set: ClassVar[type[WorldTasks]]
    """The family's task set (`agentgym.world.tasks.WorldTasks`); one instance per class, built at first use."""
    world_module: str = ""  # a class default an instance may override (Browser-v0's chromium variant)
    """The sandbox module whose ``verify(answer, value)`` and ``drift(pick, ...)`` the kit calls."""
    done_answer: ClassVar[str] = "Done."
    """The menu's answer for a request carried out."""
    refusal_answer: ClassVar[str] = "I cannot do that."
    """The menu's answer for a request the rules forbid."""
    menu_modes: ClassVar[tuple[str, ...]] = (ORACLE,)
    """The ``menu=`` modes the family supports (`agentgym.menus`); ``"no-oracle"`` only where its
    world menu is built from what the agent saw, never from the oracle."""

    def __init__(self, *, menu: str = ORACLE, **kwargs: Any) -> None:
        super().__init__(**kwargs)  # split, backend, tiers, the family's group filter, ...: see AgentEnv
        self.menu = check_menu_mode(type(self).__name__, menu, self.menu_modes)
        self._reset_tracking()

    @classmethod
    def _taskset(cls) -> WorldTasks:
        return _task_set(cls.task_set)

    def _reset_tracking(self) -> None:
        self._seen: dict[str, int] = {}  # record key -> the version the agent last saw
        self.verdict: dict[str, Any] | None = None
        self.answer_refused: bool | None = None  # finish's structured ``refused`` flag, when given

    # ------------------------------------------------------------------ hooks a family may override
    def _world(self, func: str, **kwargs: Any) -> Any:
        """A call into the sandbox's world (Browser routes it through its browser-failure handling)."""
        return self.sandbox.call(self.world_module, func, **kwargs)

    def _saw(self, key: str, version: int) -> bool:
        """Whether the agent saw record ``key`` at ``version`` (what grounds a refusal)."""
        return self._seen.get(key) == version

    def _drift_args(self) -> dict[str, Any]:
        """What the world's ``drift`` needs besides the seeded ``pick``."""
        return {}

    def _drifted(self, reply: dict[str, Any]) -> None:
        """Take in the world's reply to a drift (the oracle's view changed with it)."""

    def _answer_menu(self) -> list[str]:
        """Final answers the menu offers besides done and refusal (ToolUse: amounts seen); with
        ``menu="no-oracle"`` the only answers there are, so they must be built from what was seen."""
        return []

    def _world_menu(self) -> list[str]:
        """The family's candidate actions after the head."""
        return []

    @staticmethod
    def finish_action(answer: str) -> str:
        """``finish`` with ``answer`` as the family's menu writes it."""
        return render_call("finish", {"answer": answer})

    # ------------------------------------------------------------------ AgentEnv hooks
    def _dispatch(self, action: ParsedAction) -> Outcome:
        if action.name in SUBMIT_ACTIONS:  # the base keeps answer and value; the refusal flag is the world's
            self.answer_refused = action.args.get("refused")
        return super()._dispatch(action)

    def _verify(self) -> bool:
        verdict = self._world("verify", answer=self.answer, value=self.answer_value, refused=self.answer_refused)
        # a refusal must be grounded: the agent saw the forbidding record as it is now (a refusal the
        # state does not support fails anyway, whatever the agent read)
        verdict["grounded"] = all(self._saw(key, version) for key, version in verdict["evidence"].items())
        verdict["success"] = bool(verdict["success"] and verdict["grounded"])
        # the words alone failed it: the world is as the task wants, and grounded, but the final
        # message claims otherwise (reports tell wrong words from wrong work: `FailureLabeler`)
        verdict["answer_contradicts_state"] = bool(
            verdict["state_ok"] and verdict["grounded"] and not verdict["answer_ok"]
        )
        self.verdict = verdict
        return verdict["success"]

    def _info(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        info = super()._info(events)
        if self.verdict is not None:  # the step that verified: whether the final message alone failed it
            info["answer_contradicts_state"] = self.verdict["answer_contradicts_state"]
        return info

    def _drift(self) -> str | None:
        reply = self._world("drift", pick=int(self.np_random.integers(1 << 30)), **self._drift_args())
        if reply is None:
            return None
        self._drifted(reply)
        return f"another actor changed a record: {reply['what']}"

    def _admissible(self) -> list[str]:
        answers = [self.finish_action(self.done_answer), self.finish_action(self.refusal_answer), *self._answer_menu()]
        if self.menu == NO_ORACLE:  # the oracle is never asked: its action is there only if the world menu makes it
            assert self.task is not None
            return open_menu(f"{self.task.task_id}/{self.turn}", answers, self._world_menu())
        return menu_of([self.reference_action(), *answers], self._world_menu())


@cache
def _task_set(task_set: type[WorldTasks]) -> WorldTasks:
    return task_set()
