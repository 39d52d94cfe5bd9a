"""`MiniWoBEnv`: MiniWoB++'s own task pages in the sandbox's Chromium, as text tasks.

The pages come from the image ``agentgym/miniwob`` (`agentgym setup` fetches the pinned ``miniwob``
wheel, checks its hash and builds it FROM Browser-v0's Chromium image); the sandbox side
(`page.py`) serves, seeds and renders them with the web kit's driver and renderer (`agentgym.web`),
and the actions are the web kit's grammar, as Browser-v0's. The page scores itself; this module
turns its verdict into the reward.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

from agentgym import events as ev
from agentgym.core import Outcome, ParsedAction, menu_of
from agentgym.envs.miniwob import solvers
from agentgym.envs.miniwob.tasks import MiniWoBTasks
from agentgym.errors import ConfigError
from agentgym.menus import NO_ORACLE, ORACLE, check_menu_mode, open_menu
from agentgym.sandbox.modules import SandboxModule
from agentgym.tasks import Task, TaskSet
from agentgym.web import CHROMIUM_MODULES
from agentgym.web.actions import ACTIONS, BrowserActions
from agentgym.web.env import WebEnv

__all__ = ["MiniWoBEnv", "IMAGE", "PAGE_MODULE"]

IMAGE = "agentgym/miniwob:latest"
"""Browser-v0's Chromium image plus the pinned MiniWoB++ pages (`agentgym.setup.page_images.MINIWOB`)."""
PAGE_MODULE = "agentgym.envs.miniwob.page"
PAGE_ACTIONS = frozenset({"click", "fill", "select", "press"})
GIVE_UP_HELP = "Give up: end the episode before the page has scored it (a failure); the page ends it when done."
GIVE_UP = 'finish("I cannot do this task.")'
ONE_PAGE = ("goto", "back", "forward", "reload")
"""Browser-v0 actions a one-page task has no use for: refused with the reason, left out of ``help``."""
_MODULES = CHROMIUM_MODULES + (SandboxModule.from_file(PAGE_MODULE, Path(__file__).resolve().parent / "page.py"),)
"""The web kit's view, renderer and Chromium driver, then the page module."""


class MiniWoBEnv(WebEnv):
    """MiniWoB++ task pages (click-button, search-engine, email-inbox, ...) scored by the pages themselves.

    ## Description
    One of the selected MiniWoB++ 1.1.0 pages (see `agentgym.envs.miniwob.tasks` for the rule and
    the list), loaded fresh in headless Chromium inside the sandbox and seeded by the task's seed.
    The page's own script generates the problem, states it in its instruction and scores the
    episode (``core.endEpisode``).

    ## Action Space
    Browser-v0's grammar: ``click(12)``, ``fill(12, "text")``, ``select(12, "option")``,
    ``press(12, "Enter")``, ``scroll("down")``, ``noop()``, ``finish("...")`` (gives up: the page
    has not scored it), ``help``; BrowserGym's and WebArena's forms too. ``goto``, ``back``,
    ``forward`` and ``reload`` cost the turn and say why they are not available (one page).

    ## Observation Space
    ``{"text": str}``: at reset the page's instruction first, then the page as
    ``[id] role 'name' value=...`` lines (Browser-v0's renderer; visible elements only; ``div`` and
    ``span`` elements the page listens to for clicks appear as ``clickable`` lines).

    ## Rewards
    1.0 when the page's raw reward is exactly 1.0 (partial credit is not success), else 0.0. The
    raw reward is in ``info["raw_reward"]`` (None until the page scores).

    ## Starting State
    The page loaded fresh and started with ``Math.seedrandom(seed)``; the page timer lifted.

    ## Episode End
    Terminates when the page ends its episode (any reward) or on ``finish``. Budget wrappers
    truncate. A ``state_drift`` fault reloads the page behind the agent's back (the same problem
    from the start, everything entered gone; ids unchanged); a verdict the page already gave
    stands. A page that does not load, throws while loading, or ends without a reward raises
    `InfrastructureError` (not the agent's failure; the harness retries it). An error the page
    throws in answer to an action is in ``info["page_errors"]`` and the episode goes on.

    ## Arguments
    ``tasks`` (pages, e.g. ``["click-button"]``), ``tiers`` (``"controls"``, ``"clickable"``),
    ``page_timer`` (True keeps the page's own time limit, 10 s by default, which then ends
    episodes with reward -1), ``split``, ``backend`` (``"docker"``; ``"auto"`` means Docker: the
    pages and Chromium live in the image; ``"local"`` is refused at reset), ``render_mode``,
    ``help_in_observation``, ``menu``: ``"oracle"`` (default: ``admissible_actions`` holds the
    solver's next action, giving up, and `solvers.menu`) or ``"no-oracle"`` (for training menu
    policies, `agentgym.menus`: `solvers.candidates`, every element's click, fill and select with
    the texts the instruction states, and giving up; never the solver's action, so a text the
    page asks to be worked out or copied is not offered; at most 32, kept by a stable hash).

    ## Version History
    * v0: 86 pages in two tiers; scripted solvers for a subset (`agentgym.envs.miniwob.solvers`);
      ``menu="no-oracle"``.
    """

    family: ClassVar[str] = "miniwob"
    action_form: ClassVar[str] = 'browser actions on one page: click(12), fill(12, "text"), press(12, "Enter")'
    """What an action looks like, in a few words (`agentgym list`); ``help`` shows the whole grammar."""
    backends: ClassVar[tuple[str, ...]] = ("docker",)
    """The sandbox backends this family runs on (the pages and Chromium live in the image)."""
    image = IMAGE
    _page_errors: list[str]
    sandbox_modules = _MODULES
    sandbox_services = ((PAGE_MODULE, "start"),)
    submit_text: ClassVar[str] = "finished: the page had not scored the episode; it ends as a failure."
    actions: ClassVar[BrowserActions] = BrowserActions(
        tuple(
            replace(s, description=GIVE_UP_HELP) if s.name == "finish" else s for s in ACTIONS if s.name not in ONE_PAGE
        )
    )

    menu_modes: ClassVar[tuple[str, ...]] = (ORACLE, NO_ORACLE)
    """The ``menu=`` modes (`agentgym.menus`)."""

    def __init__(self, *, page_timer: bool = False, backend: str = "auto", menu: str = ORACLE, **kwargs: Any) -> None:
        # "auto" means Docker here; another backend is refused at the first reset (building an env to
        # read its tasks, as the eval harness does, starts no sandbox and stays allowed)
        super().__init__(backend="docker" if backend == "auto" else backend, **kwargs)  # split, tasks, tiers, ...
        self.menu = check_menu_mode(type(self).__name__, menu, self.menu_modes)
        self.page_timer = bool(page_timer)
        self.chromium: dict[str, Any] | None = None
        self._reply: dict[str, Any] = {}
        self._memory: dict[str, Any] = {}
        self.raw_reward: float | None = None
        self.page_time_limit_ms: int | None = None

    # ------------------------------------------------------------------ family hooks
    @classmethod
    def _taskset(cls) -> TaskSet:
        return _all_tasks()

    def _on_sandbox_start(self) -> None:
        self.chromium = self.services[f"{PAGE_MODULE}.start"]

    def _setup_task(self, task: Task) -> str:
        self._memory, self.raw_reward = {}, None
        self._reply = self._call("setup", task=task.meta["page"], seed=task.meta["seed"], keep_timer=self.page_timer)
        self.page_time_limit_ms = int(self._reply["time_limit_ms"])  # the page's own timer, lifted unless page_timer
        return f"Instruction: {self._reply['utterance']}\n\n{self._reply['text']}"

    def _parse(self, action: str) -> ParsedAction:
        parsed = super()._parse(action)
        if parsed.name in PAGE_ACTIONS:  # every action delivered to the page is one a fault can hit
            parsed = replace(parsed, tool=parsed.name)  # a BadArguments stays one
        return parsed

    def _execute(self, action: ParsedAction) -> Outcome:
        args = {k: v for k, v in action.args.items() if k in ("id", "text", "option", "key", "direction", "enter")}
        target = next((ln["name"] for ln in self._reply.get("lines", []) if str(ln["id"]) == str(args.get("id"))), None)
        self._memory.setdefault("history", []).append((action.name, target, args.get("id")))  # what was done
        reply = self._reply = self._call("act", name=action.name, args=args)
        self._page_errors = list(reply["page_errors"])
        events = [ev.tool_call(action.name, reply["ok"], reply["error_kind"])]
        if reply["mismatch"]:
            events.append(ev.state_mismatch(reply["mismatch"]))
        if reply["done"]:
            self.raw_reward = reply["raw_reward"]
            events.append(ev.submit())
        return Outcome(reply["text"], events, submitted=bool(reply["done"]))

    def _drift(self) -> str | None:
        self._reply, self._memory = self._call("drift"), {}  # the solvers start over on the fresh page
        return "the page was reloaded (the session expired): everything entered or opened is gone"

    def _verify(self) -> bool:
        return self.raw_reward == 1.0

    def fault_failure(self, kind: str, tool: str) -> tuple[str, str]:
        if kind == "timeout":
            return (
                "timeout",
                "error: the page did not respond in time and the action was dropped; nothing changed. Try again.",
            )
        return (
            "tool_error",
            "error: the browser failed to deliver the action (internal error); nothing changed. Try again.",
        )

    def rate_limit_text(self, tool: str, turns: int) -> str:
        return (
            f"error: too many requests: the browser refused the action, retry in {turns} turn{'s' * (turns != 1)}; "
            "nothing changed."
        )

    def _admissible(self) -> list[str]:
        # as Browser-v0's menu, giving up is one of the choices
        if self.menu == NO_ORACLE:  # the solver is never asked: its action is there only if the page's elements make it
            assert self.task is not None
            return open_menu(f"{self.task.task_id}/{self.turn}", [GIVE_UP], solvers.candidates(self._reply))
        return menu_of([self.reference_action(), GIVE_UP], solvers.menu(self._reply))

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if self.backend not in self.backends:
            raise ConfigError(
                f"backend={self.backend!r}: MiniWoB-v0 runs only in Docker (its pages and Chromium live "
                f"in the image {IMAGE}); use backend='docker' (or 'auto') after `agentgym setup`"
            )
        return super().reset(seed=seed, options=options)

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        self._page_errors = []
        obs, reward, terminated, truncated, info = super().step(action)
        info["raw_reward"] = self.raw_reward
        info["page_errors"] = self._page_errors  # the page's script failing on this step's action
        return obs, reward, terminated, truncated, info

    # ------------------------------------------------------------------ public helpers
    # help_text() and tools() are the web kit's (`WebEnv`), from `actions`: the grammar less the
    # one-page refusals
    def reference_action(self) -> str:
        """The scripted solver's next action for this page (`solvers.SOLVERS`); "" for a page without one."""
        if self.task is None or self._done:
            return ""
        if (wait := self.oracle_wait()) is not None:
            return wait
        return solvers.next_action(self.task.meta["page"], self._reply, self._memory)

    # ------------------------------------------------------------------ internals
    _module = PAGE_MODULE  # `WebEnv._call`: Chromium or the page failing drops the sandbox, an InfrastructureError


@lru_cache(maxsize=1)
def _all_tasks() -> MiniWoBTasks:
    return MiniWoBTasks()
