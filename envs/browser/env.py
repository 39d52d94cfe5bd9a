"""`BrowserEnv`: web tasks on sites served inside the sandbox, seen as accessibility-tree text.

The sites and the text browser (`site/`) run in the sandbox's warm step server; a step is one
``sandbox.call`` that runs the site's WSGI app in-process and renders the page. This module turns
replies into observations and events, applies faults the way a browser meets them, and serves the
state-aware oracle whose next action each reply carries.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agentgym import events as ev
from agentgym.core import FAULT_KINDS, Outcome, ParsedAction
from agentgym.envs.browser.actions import BrowserActions
from agentgym.envs.browser.site import CHROME_MODULE, CHROME_MODULES, MODULE, MODULES
from agentgym.envs.browser.tasks import BrowserTasks
from agentgym.errors import ConfigError
from agentgym.falsify import has_text_value, wrong_text
from agentgym.tasks import Task
from agentgym.web.env import WebEnv
from agentgym.world.env import WorldEnv

__all__ = ["BrowserEnv", "BROWSERS", "CHROMIUM_IMAGE", "DONE_ANSWER", "REFUSAL_ANSWER"]

BROWSERS = ("text", "chromium")
CHROMIUM_IMAGE = "agentgym/browser-chromium:latest"
"""The Chromium backend's image: the base plus Debian's headless Chromium (`envs/browser/chromium.packages`)."""
DONE_ANSWER = "Done."
REFUSAL_ANSWER = "I cannot do that: the site does not allow it."


class BrowserEnv(WebEnv, WorldEnv):
    """Web tasks on a shop, a forum and an admin console, verified by the final database.

    ## Description
    The agent reaches a goal on one of three seeded web apps served inside the sandbox (Harbor
    Shop: search, filters, pages, cart, coupons, checkout, orders; Harbor Community: boards,
    threads, replies, post edits, moderation; Harbor Admin: filtered user lists, bulk actions
    behind a confirmation page, edit forms with validation). Forms carry record versions, so a
    form posted over another actor's newer change is refused. Tiers: ``lookup`` (answer a
    question), ``single`` (one write), ``multi`` (several writes), ``refusal`` (the site's rules
    forbid the request: change nothing and say so).

    ## Action Space
    Text: ``click(12)``, ``fill(12, "text")``, ``select(12, "option")``, ``press(12, "Enter")``,
    ``goto("/path")``, ``back()``, ``reload()``, ``scroll("down")``, ``noop()``,
    ``finish("answer")`` or ``help``; BrowserGym's call names, WebArena's bracket forms
    (``click [12]``, ``type [12] [text] [1]``, ``stop [answer]``) and JSON tool calls too. Bad
    actions cost the turn and return ``error: ...`` saying why.

    ## Observation Space
    ``{"text": str}``: the goal and the first page at reset; after a step, the page as
    ``URL:``/``Title:`` lines and one ``[id] role 'name' value=...`` line per element (a window
    of 50 lines; ``scroll`` moves it). Ids are stable within an episode and shuffled by the seed.

    ## Rewards
    1.0 when, at ``finish``, the site's database equals the expected one (initial state, plus
    other actors' changes, plus the writes the goal allows) and the answer is right (the value
    asked for; a refusal grounded in the record that forbids the request: the agent saw it, as
    it is now, on its page or in a listing); else 0.0.

    ## Starting State
    A fresh database for the task and the site's start page.

    ## Episode End
    ``finish`` terminates. Budget wrappers truncate.

    ## Arguments
    ``split`` ("train", "test", "heldout"), ``backend`` (the sandbox), ``browser`` ("text": the
    sites called in-process and rendered without a browser; "chromium": the same sites served on
    127.0.0.1 in the sandbox and driven in headless Chromium, with the same observations),
    ``sites`` and ``tiers`` (restrict the tasks), ``render_mode``, ``score_on_truncation``,
    ``sandbox_options``, ``help_in_observation``.

    ## Version History
    * v0: text backend; shop, forum and admin sites; four tiers; held-out templates; a Chromium
      backend (``browser="chromium"``) with the same observations.
    """

    family: ClassVar[str] = "browser"
    action_form: ClassVar[str] = 'browser actions: click(12), fill(12, "text"), goto("/path"), finish("answer")'
    """What an action looks like, in a few words (`agentgym list`); ``help`` shows the whole grammar."""
    image = "agentgym/browser:latest"
    _oracle: dict[str, str]
    _menu: list[str]
    sandbox_modules = MODULES
    task_set = BrowserTasks
    actions: ClassVar[BrowserActions] = BrowserActions()
    world_module = MODULE
    done_answer = DONE_ANSWER
    refusal_answer = REFUSAL_ANSWER
    fault_kinds = FAULT_KINDS

    def __init__(
        self, *, browser: str = "text", sites: tuple[str, ...] | list[str] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(sites=sites, **kwargs)  # split, backend, tiers, ...: see AgentEnv
        if browser not in BROWSERS:
            raise ConfigError(f"browser={browser!r}; choose from {BROWSERS}")
        self.browser = browser
        self.chromium: dict[str, Any] | None = None  # Chromium's version and launch time, once started
        if browser == "chromium":  # instance attributes: the base class starts the sandbox from these
            self.image = CHROMIUM_IMAGE
            self.sandbox_modules, self.sandbox_services = CHROME_MODULES, ((CHROME_MODULE, "start"),)
        self._module = self.world_module = CHROME_MODULE if browser == "chromium" else MODULE

    # ------------------------------------------------------------------ family hooks
    def _on_sandbox_start(self) -> None:
        if self.browser == "chromium":  # launched once per sandbox (a service): it survives resets
            self.chromium = self.services[f"{CHROME_MODULE}.start"]

    def _setup_task(self, task: Task) -> str:
        self._reset_tracking()
        seed = int(self.np_random.integers(1 << 31))
        reply = self._call("setup", spec=task.meta["spec"], seed=seed)
        self._absorb(reply, seen=True)
        return f"{task.instruction}\n\n{reply['text']}"

    def _execute(self, action: ParsedAction) -> Outcome:
        args = {k: v for k, v in action.args.items()}
        reply = self._call("act", name=action.name, args=args)
        # an emptied, garbled or falsified page: the action ran, the agent did not see it as it is
        # (a page with no value a wrong_value fault could change is shown as it is)
        unchanged = not reply["ok"] or not has_text_value(reply["text"])  # what a wrong_value fault leaves alone
        seen = self.output_seen or (self.faulting == "wrong_value" and unchanged)
        if not seen:  # the oracle looks again before trusting anything
            self._look = True
        events = [ev.tool_call(action.name, reply["ok"], reply["error_kind"])]
        if reply["mismatch"]:
            events.append(ev.state_mismatch(reply["mismatch"]))
        events += [ev.mutation(k) for k in reply["mutations"]]
        for key in reply["mutations"]:
            self._written.add(key)
        if seen:
            events += [ev.verification(ok, key) for key, ok in reply["verified"].items() if key in self._written]
        self._absorb(reply, seen)
        events += self._subtask_events(reply["progress"])
        return Outcome(reply["text"], events)

    def fault_failure(self, kind: str, tool: str) -> tuple[str, str]:
        if kind == "timeout":
            return "timeout", "error: the page took too long to load and was stopped; nothing changed. Try again."
        return (
            "tool_error",
            "error: the page failed to load (HTTP 503 Service Unavailable); nothing changed. Try again.",
        )

    def rate_limit_text(self, tool: str, turns: int) -> str:
        """The site's 429 page: the request was refused, and says when to come back."""
        return (
            f"error: HTTP 429 Too Many Requests: too many requests, retry in {turns} turn{'s' * (turns != 1)}; "
            "the site did not handle this request and nothing changed."
        )

    def wrong_value(self, action: ParsedAction, text: str) -> str | None:
        """The same page with one amount, date or count off (a stale or mixed-up render; `agentgym.falsify`)."""
        return wrong_text(text, self.np_random)

    # ------------------------------------------------------------------ the world kit's hooks
    def _saw(self, key: str, version: int) -> bool:
        # on the record's own page or as a listing row
        return version in (self._seen.get(key), self._glimpsed.get(key))

    def _drifted(self, reply: dict[str, Any]) -> None:
        self._oracle, self._menu = reply["oracle"], reply["menu"]

    def _world_menu(self) -> list[str]:
        return self._menu

    @staticmethod
    def finish_action(answer: str) -> str:
        return f"finish({_json(answer)})"

    # ------------------------------------------------------------------ public helpers
    # help_text() and tools() are the web kit's (`WebEnv`), from `actions`
    def reference_action(self) -> str:
        """A state-aware oracle: re-look after a spoiled page, reload a stale one, then the site's next step."""
        if self.task is None or self._done:
            return ""
        if (wait := self.oracle_wait()) is not None:
            return wait
        if self._look:
            return "noop()"
        return self._oracle["action"]

    def hasty_action(self) -> str:
        """The hasty scripted policy's next action (one extra round trip; see `agentgym.envs.browser.policies`)."""
        if self.task is None or self._done:
            return ""
        if self._look:
            return "noop()"
        return str(self._call("hasty")["action"])

    # ------------------------------------------------------------------ internals
    def _world(self, func: str, **kwargs: Any) -> Any:
        # the world kit's calls (verify, drift) go through the web kit's browser-failure handling (`WebEnv._call`)
        return self._call(func, **kwargs)

    def _reset_tracking(self) -> None:
        super()._reset_tracking()  # _seen: record key -> version the agent last saw on a page; verdict
        self._glimpsed: dict[str, int] = {}  # record key -> version last shown as a listing row
        self._written: set[str] = set()
        self._subtasks: dict[str, bool] = {}
        self._oracle = {"action": "", "semantic": ""}
        self._menu = []
        self._look = False

    def _absorb(self, reply: dict[str, Any], seen: bool) -> None:
        self._oracle, self._menu = reply["oracle"], reply["menu"]
        if seen:
            self._seen.update(reply["shown"])
            self._glimpsed.update(reply["glimpsed"])
            self._look = False

    def _subtask_events(self, progress: list[bool]) -> list[dict[str, Any]]:
        assert self.task is not None
        state: dict[str, bool] = {}
        for name in self.task.subtasks:
            kind, _, rest = name.partition(":")
            if kind == "op":
                state[name] = bool(progress[int(rest.split(":")[0])])
            else:
                state[name] = rest in self._seen
        return ev.subtask_changes(self._subtasks, state)


def _json(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
