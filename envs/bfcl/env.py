"""`BFCLEnv`: the Berkeley Function Calling Leaderboard's multi-turn tasks, run in the sandbox.

BFCL's API classes run inside the sandbox (`apis`, on the image ``agentgym/bfcl``); an agent's call
is parsed by agentgym's grammar and executed there as BFCL's executor would, never ``eval``'d. The
ground truth runs on the host's own instances (`data.ground_truth_run`). When the agent hands a
turn back (``reply``), the turn is checked as BFCL's ``multi_turn_checker`` checks it: the agent
made a call in a turn whose ground truth has calls, the instances' public state equals the ground
truth's (state fingerprints, `apis.fingerprint`), and every ground-truth execution result of the
turn is among the agent's results so far.
"""

from __future__ import annotations

import json
import keyword
import math
from collections import Counter
from pathlib import Path
from typing import Any, ClassVar

from agentgym import events as ev
from agentgym.actions import builtin_or_call
from agentgym.core import FAULT_KINDS, ActionError, AgentEnv, BadArguments, Outcome, ParsedAction, menu_of
from agentgym.envs.bfcl import data
from agentgym.envs.bfcl.tasks import INTRO, REPLY_CANNOT, REPLY_DONE, BFCLTasks
from agentgym.falsify import wrong_json, wrong_text
from agentgym.sandbox.modules import SandboxModule
from agentgym.setup.api_images import BFCL_IMAGE, CLASSES, IMAGE_ROOT, bfcl_root
from agentgym.tasks import Task, TaskSet

__all__ = ["BFCLEnv", "APIS_MODULE", "REPLY_SCHEMA", "openai_schema"]

APIS_MODULE = "agentgym.envs.bfcl.apis"
_MODULES = (SandboxModule.from_file(APIS_MODULE, Path(__file__).resolve().parent / "apis.py"),)
_JSON_TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": "string"}
REPLY_SCHEMA = {
    "type": "function",
    "function": {
        "name": "reply",
        "description": "Answer the user in words and hand the turn back: the user's next message follows (after "
        "the last one, the conversation ends). Reply when the request is done, or when you cannot do "
        "it (say what is missing).",
        "parameters": {
            "type": "object",
            "properties": {"message": {"type": "string", "description": "your answer"}},
            "required": [],
            "additionalProperties": False,
        },
    },
}


def _convert(prop: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in prop.items() if k not in ("type", "items", "properties")}
    out["type"] = _JSON_TYPES.get(prop.get("type", "string"), prop.get("type", "string"))
    if "items" in prop:
        out["items"] = _convert(prop["items"])
    if "properties" in prop:
        out["properties"] = {k: _convert(v) for k, v in prop["properties"].items()}
    return out


def openai_schema(doc: dict[str, Any]) -> dict[str, Any]:
    """One of BFCL's function docs as an OpenAI-style function tool (BFCL's types mapped to JSON's)."""
    params = doc.get("parameters", {})
    return {
        "type": "function",
        "function": {
            "name": doc["name"],
            "description": doc.get("description", ""),
            "parameters": {
                "type": "object",
                "properties": {k: _convert(v) for k, v in params.get("properties", {}).items()},
                "required": list(params.get("required", [])),
            },
        },
    }


def _short(doc: dict[str, Any]) -> str:
    """``name(arg: type, [optional: type]): what it does`` for ``help``."""
    params = doc.get("parameters", {})
    required = set(params.get("required", []))
    args = [
        f"{k}: {v.get('type', 'any')}" if k in required else f"[{k}: {v.get('type', 'any')}]"
        for k, v in params.get("properties", {}).items()
    ]
    text = doc.get("description", "")
    text = text.split("Tool description: ", 1)[-1]
    return f"  {doc['name']}({', '.join(args)}): {text}"


def _is_json(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)  # NaN and Infinity are not JSON values (Python's json reads them)
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, list):
        return all(_is_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False


class BFCLEnv(AgentEnv):
    """BFCL's multi-turn function-calling tasks (file system, trading, travel, vehicle, messaging, ...).

    ## Description
    A user asks for things over several turns; the agent serves each turn by calling the APIs of
    one or two of BFCL's eight classes (GorillaFileSystem, MathAPI, MessageAPI, TwitterAPI,
    TicketAPI, TradingBot, TravelAPI, VehicleControlAPI), which run in the sandbox on the task's
    initial state. Categories: ``base``; ``miss_func`` (a needed function is withheld until a later
    turn), ``miss_param`` (a needed detail is missing until the user gives it) and ``long_context``
    (large states and outputs). In the two ``miss_*`` categories the agent must notice it cannot
    act yet and say so: a recovery probe written by someone else.

    ## Action Space
    A call of one of the tools in agentgym's grammar: ``mv(source="a.txt", destination="b")``
    (positional values too), ``{"tool": "mv", "args": {...}}`` or the OpenAI tool-call shape;
    ``reply("...")`` hands the turn back; ``help``; ``finish("...")`` ends the conversation early
    (a failure unless every turn was answered). Argument values are JSON values. As in BFCL, whose
    executor runs any public method of the involved classes, a withheld function is not shown
    until its turn but runs if called.

    ## Observation Space
    ``{"text": str}``: the user's first message and the tools at reset; a call's execution result
    (as BFCL's executor formats it); after ``reply`` the user's next message.

    ## Rewards
    1.0 when every user turn passes BFCL's checks (see the module docstring), else 0.0.

    ## Starting State
    Fresh instances of the task's classes loaded with its initial configuration.

    ## Episode End
    Terminates after the ``reply`` to the last user turn, or on ``finish``. Budget wrappers
    truncate (T counts every action, calls and replies). A ``state_drift`` fault makes the service
    lose the call just made (its effect and result are gone, as if a replica rolled back).

    ## Arguments
    ``categories`` (``base``, ``miss_func``, ``miss_param``, ``long_context``), ``tiers``
    (``one_api``, ``two_apis``), ``split``, ``backend``, ``render_mode``, ``score_on_truncation``,
    ``help_in_observation``.

    ## Version History
    * v0: the four multi-turn categories of ``bfcl-eval`` 2026.3.23, 800 tasks.
    """

    family: ClassVar[str] = "bfcl"
    fault_kinds = FAULT_KINDS
    action_form: ClassVar[str] = 'API calls: NAME(arg=value) or JSON; reply("...") to the user'
    """What an action looks like, in a few words (`agentgym list`); ``help`` shows the whole grammar."""
    image = BFCL_IMAGE
    sandbox_modules = _MODULES
    call_timeout: float = 10.0
    """Seconds one API call may run; past it the sandbox is dropped and the episode ends as the agent's failure."""

    def __init__(self, *, categories: tuple[str, ...] | list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(categories=categories, **kwargs)  # split, backend, tiers, ...: see AgentEnv
        self.entry: data.Entry | None = None
        self.user_turn = 0
        self._calls: list[list[data.Call]] = []
        self._results: list[list[str]] = []
        self._turn_ok: list[bool | None] = []
        self._tools: dict[str, dict[str, Any]] = {}  # the tools shown (a withheld one from its turn on)
        self._callable: frozenset[str] = frozenset()  # what runs when called: every public method, as in BFCL
        self._menus: list[tuple[list[str], list[str], list[str]]] = []
        self._cwd: list[str] | None = None
        self._progress = 0  # ground-truth calls of this turn executed and in effect (the oracle's cursor)
        self._advanced: list[bool] = []  # per executed call of this turn: did it advance the cursor
        self._called_at = -1  # the step whose action last ran a call in the sandbox

    # ------------------------------------------------------------------ family hooks
    @classmethod
    def _taskset(cls) -> TaskSet:
        return BFCLTasks()

    def _setup_task(self, task: Task) -> str:
        e = self.entry = data.entry(task.meta["category"], task.meta["index"])
        self.user_turn = 0
        self._calls, self._results, self._turn_ok = [[]], [[]], [None] * len(e.turns)
        self._progress, self._advanced, self._called_at = 0, [], -1
        withheld = {name for names in e.missed.values() for name in names}
        self._tools = {
            doc["name"]: doc for cls in e.classes for doc in data.func_docs(cls) if doc["name"] not in withheld
        }
        self._callable = data.public_methods(e.classes)
        rendered = [[data.render(c) for c in turn] for turn in e.ground_truth]
        self._menus = [
            (rendered[k], _near_misses(e.ground_truth[k]), [a for j, t in enumerate(rendered) if j != k for a in t])
            for k in range(len(rendered))
        ]  # per turn: its calls, their near misses, other turns' calls
        reply = self.sandbox.call(
            APIS_MODULE,
            "setup",
            roots=[IMAGE_ROOT, str(bfcl_root())],
            modules={c: CLASSES[c][0] for c in e.classes},
            config=e.config,
            long_context=e.long_context,
            timeout=60,
        )
        self._cwd = reply["cwd"]
        return f"{INTRO}\n\nUser: {e.turns[0]}"

    def _parse(self, action: str) -> ParsedAction:
        call = builtin_or_call(action)
        if isinstance(call, ParsedAction):
            return call
        if call.name == "reply":
            values = list(call.positional) + [v for k, v in call.args.items() if k == "message"]
            if len(values) > 1 or set(call.args) - {"message"} or not all(isinstance(v, str) for v in values):
                raise ActionError('reply takes at most one text message: reply("Done: the file is in temp.")')
            return ParsedAction("reply", {"message": values[0] if values else ""})
        if call.name not in self._callable:
            raise ActionError(
                f"unknown tool {call.name!r}; tools: {', '.join(sorted(self._tools))}, plus reply, finish and help"
            )
        bad_names = [k for k in call.args if not k.isidentifier() or keyword.iskeyword(k)]
        if bad_names:  # a JSON call's keys are free text: never let one become code in BFCL's call strings
            return BadArguments(
                call.name,
                tool=call.name,
                error=f"bad arguments for {call.name}: {bad_names[0][:40]!r} is not an argument name",
            )
        values = list(call.positional) + list(call.args.values())
        if not all(_is_json(v) for v in values):
            return BadArguments(
                call.name,
                tool=call.name,
                error=f"bad arguments for {call.name}: argument values are JSON values (strings, "
                "numbers, true/false, null, lists, objects)",
            )
        return ParsedAction(call.name, {"positional": list(call.positional), "kwargs": dict(call.args)}, tool=call.name)

    def _execute(self, action: ParsedAction) -> Outcome:
        if action.name == "reply":
            return self._reply()
        positional, kwargs = action.args["positional"], action.args["kwargs"]
        reply = self.sandbox.call(
            APIS_MODULE, "call", name=action.name, positional=positional, kwargs=kwargs, timeout=self.call_timeout
        )
        call: data.Call = (action.name, tuple(positional), tuple(kwargs.items()))
        self._called_at = self.turn
        self._calls[-1].append(call)
        self._results[-1].append(reply["result"])
        self._cwd = reply["cwd"]
        expected = self._expected()
        assert self.entry is not None
        advanced = expected is not None and data.same_call(call, expected, self.entry.classes)
        self._progress += advanced
        self._advanced.append(advanced)
        events = [ev.tool_call(action.name, reply["ok"], reply["error_kind"])]
        if reply["error_kind"] == "not_found":
            events.append(ev.state_mismatch(f"{action.name}: {reply['result'][:200]}"))
        return Outcome(reply["result"], events)

    def _reply(self) -> Outcome:
        assert self.entry is not None
        k = self.user_turn
        was = self._turn_ok[k]
        self._turn_ok[k] = self._check_turn(k)
        events = []
        if self.entry.ground_truth[k] and self._turn_ok[k] and not was:
            events.append(ev.subtask(f"turn_{k + 1}", True))
        if k + 1 >= len(self.entry.turns):
            events.append(ev.submit())
            return Outcome("The user has no more requests: the conversation is over.", events, submitted=True)
        self.user_turn = k = k + 1
        self._calls.append([])
        self._results.append([])
        self._progress, self._advanced = 0, []
        text = self.entry.turns[k]
        added = [n for n in self.entry.missed.get(k, ())]
        if added:
            docs = {d["name"]: d for cls in self.entry.classes for d in data.func_docs(cls)}
            self._tools.update({n: docs[n] for n in added if n in docs})
            text = (
                (text + "\n" if text else "")
                + data.ADDED_FUNCTIONS_PROMPT
                + "\nNew tools:\n"
                + "\n".join(_short(docs[n]) for n in added if n in docs)
            )
        return Outcome(f"User: {text}", events)

    def _check_turn(self, k: int) -> bool | None:
        """BFCL's checks for turn ``k`` on the state as it stands (None: a turn BFCL does not check)."""
        assert self.entry is not None
        if not self.entry.ground_truth[k]:
            return None
        if not self._calls[k]:
            return False  # BFCL: "Model response list is empty for turn k"
        truth = data.ground_truth_run(self.entry.category, self.entry.index)
        state = self.sandbox.call(APIS_MODULE, "state")
        for cls, attrs in truth.states[k].items():
            mine = state.get(cls, {})
            if any(mine.get(attr) != digest for attr, digest in attrs.items()):
                return False
        have = Counter(r for turn in self._results[: k + 1] for r in turn)
        have.subtract(Counter(truth.results[k]))
        return all(n >= 0 for n in have.values())

    def _verify(self) -> bool:
        """Every turn reached passed its checks, and no turn with ground-truth calls was left unreached."""
        assert self.entry is not None
        k, truth = self.user_turn, self.entry.ground_truth
        if self._turn_ok[k] is None:  # ended mid-turn (finish, or a budget with score_on_truncation)
            self._turn_ok[k] = self._check_turn(k)
        reached = all(self._turn_ok[j] is True for j in range(k + 1) if truth[j])
        return reached and not any(truth[k + 1 :])

    def rate_limit_text(self, tool: str, turns: int) -> str:
        """An error result as BFCL's executor records one (a dict with ``error``), saying 429 and when to retry."""
        unit = "turn" if turns == 1 else "turns"
        return json.dumps({"error": f"429 Too Many Requests: {tool} was not run; retry in {turns} {unit}"})

    def wrong_value(self, action: ParsedAction, text: str) -> str | None:
        """The result as the executor formats it, one value off: a dict result keeps its keys and
        types (`agentgym.falsify.wrong_json`), a text result one amount, date or count. The call
        ran and its true result is what BFCL's checks count; only what the agent reads is wrong."""
        if action.name == "reply":
            return None
        try:
            result = json.loads(text)
        except ValueError:
            return wrong_text(text, self.np_random)
        if not isinstance(result, dict) or "error" in result:
            return None
        wrong = wrong_json(result, self.np_random)
        return None if wrong is None else json.dumps(wrong)

    def _drift(self) -> str | None:
        if self._called_at != self.turn:  # this step's action ran no call (bad arguments): nothing to lose
            return None
        reply = self.sandbox.call(APIS_MODULE, "drift", timeout=60)
        self._cwd = reply["cwd"]
        lost = self._calls[-1].pop()
        self._results[-1].pop()
        self._progress -= self._advanced.pop()
        return f"the service lost the call just made ({data.render(lost)}): a replica rolled back, its effect is gone"

    def _admissible(self) -> list[str]:
        if self.entry is None:
            return []
        here, misses, others = self._menus[self.user_turn]
        return menu_of([self.reference_action(), REPLY_DONE], here, misses, others)

    # ------------------------------------------------------------------ gymnasium API
    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        shown = len(self._tools)
        obs, reward, terminated, truncated, info = super().step(action)
        if len(self._tools) != shown:  # a withheld function was given back: the new tool list, as at reset
            info["tools"] = self.tools()
        return obs, reward, terminated, truncated, info

    # ------------------------------------------------------------------ public helpers
    def help_text(self) -> str:
        lines = [
            'Actions (one per turn): a tool call such as name(arg="value", ...), {"tool": NAME, "args": '
            '{...}} or the OpenAI tool-call shape; reply("...") hands the turn back to the user; help; '
            'finish("...") ends the conversation early.'
        ]
        if self._tools:
            lines.append("Tools:")
            lines += [_short(doc) for doc in self._tools.values()]
        return "\n".join(lines)

    def tools(self) -> list[dict[str, Any]]:
        """The tools shown now, and ``reply``; none before a reset (they are the task's classes')."""
        if self.entry is None:
            return []
        return [openai_schema(doc) for doc in self._tools.values()] + [REPLY_SCHEMA]

    def call_log(self) -> list[list[list[str]]]:
        """The calls in effect, per user turn, in BFCL's decoded form (one call per step), for its checker."""
        if self.entry is None:
            return []
        log = [[[data.render_python(c)] for c in turn] for turn in self._calls]
        return log + [[] for _ in range(len(self.entry.turns) - len(log))]

    @property
    def turn_results(self) -> list[bool | None]:
        """Per user turn: passed, failed, or None (not checked yet, or a turn BFCL does not check)."""
        return list(self._turn_ok)

    def reference_action(self) -> str:
        """The ground truth's next call of this turn (re-issued when a fault dropped or drift lost it),
        after moving back to its directory when the agent is elsewhere; then ``reply``."""
        if self.entry is None or self._done:
            return ""
        if (wait := self.oracle_wait()) is not None:
            return wait
        k = self.user_turn
        calls = self.entry.ground_truth[k]
        if self._progress >= len(calls):
            return REPLY_DONE if calls else REPLY_CANNOT
        want = data.ground_truth_run(self.entry.category, self.entry.index).cwds[k][self._progress]
        if want is not None and self._cwd is not None and self._cwd != want:
            if self._cwd != want[: len(self._cwd)]:
                return 'cd(folder="..")'
            return f"cd(folder={json.dumps(want[len(self._cwd)])})"
        return data.render(calls[self._progress])

    def _expected(self) -> data.Call | None:
        assert self.entry is not None
        calls = self.entry.ground_truth[self.user_turn]
        return calls[self._progress] if self._progress < len(calls) else None


def _near_misses(calls: tuple[data.Call, ...]) -> list[str]:
    """Each call with one string value swapped for another string of the turn: plausible wrong calls."""
    strings = sorted({v for _, pos, kw in calls for v in list(pos) + [v for _, v in kw] if isinstance(v, str)})
    out = []
    for name, pos, kw in calls:
        for i, (key, value) in enumerate(kw):
            if isinstance(value, str):
                for other in strings:
                    if other != value:
                        out.append(data.render((name, pos, kw[:i] + ((key, other),) + kw[i + 1 :])))
                        break
    return out
