"""`ToolUseEnv`: customer-service requests served by calling typed tools over a SQLite backend.

The tool engine (`engine.py`) and the domains (`domains/`) run in the sandbox's warm step
server; a tool step is one ``sandbox.call``. This module turns replies into observation text and events, keeps track of
what the agent has seen (record versions, entities for the menu), and holds the state-aware
oracle.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from agentgym import answers
from agentgym import events as ev
from agentgym.actions import ToolSpec, parse_tool_action, render_call, tool_schema
from agentgym.core import FAULT_KINDS, Outcome, ParsedAction
from agentgym.envs.tooluse.domains import DOMAINS, ENGINE_MODULE, MODULES, Domain, Known
from agentgym.envs.tooluse.tasks import DONE_ANSWER, GRAMMAR_HINT, ToolUseTasks, finish_action, reread_action
from agentgym.errors import ConfigError
from agentgym.falsify import has_json_value, wrong_json
from agentgym.menus import NO_ORACLE, ORACLE
from agentgym.tasks import Task
from agentgym.world.env import WorldEnv

__all__ = ["ToolUseEnv", "ENGINE_MODULE"]

REFUSAL_ANSWER = "I'm sorry, I cannot do that: our policy does not allow it."
FINISH_SCHEMA = {
    "type": "function",
    "function": {
        "name": "finish",
        "description": (
            "End the conversation with your final answer to the customer (a refusal if policy forbids). "
            + answers.ANSWER_RULE
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "answer": {"type": "string", "description": "final answer"},
                "value": {
                    "type": "string",
                    "description": 'optional: the one value asked for, e.g. "$45.00"; then only it is checked, exactly',
                },
                "refused": {
                    "type": "boolean",
                    "description": "optional: true when you decline the request (the answer "
                    "says why), false when you do not; then your words are "
                    "not read for a refusal",
                },
            },
            "required": ["answer"],
            "additionalProperties": False,
        },
    },
}


class ToolUseEnv(WorldEnv):
    """Stateful tool-API tasks with written policies, verified by the final database state.

    ## Description
    The agent serves one customer request in a retail or travel domain by calling typed tools
    (look-ups, searches, writes, a calculator) over a SQLite database seeded for the task. Written
    policies (refund windows, unshipped-only changes, basic fares) are not enforced by the tools.
    Tiers: ``single`` (one write), ``multi`` (several writes), ``refusal`` (policy forbids the
    request: change nothing and refuse).

    ## Action Space
    Text: ``{"tool": NAME, "args": {...}}``, ``NAME(arg="value", ...)``, ``finish("answer")`` or
    ``help`` (the tools as OpenAI-style JSON schemas). Bad calls cost the turn and say why.

    ## Observation Space
    ``{"text": str}``: the role, policy and request at reset; the tool's JSON result after a step.

    ## Rewards
    1.0 when, at ``finish``, the database equals the expected state (initial state, plus changes
    by other actors, plus the writes the policy allows) and the answer says what it must (the
    amount asked for, or a refusal); else 0.0.

    ## Starting State
    A fresh database for the task, built in the sandbox workspace.

    ## Episode End
    ``finish`` terminates. Budget wrappers truncate.

    ## Arguments
    ``split`` ("train", "test", "heldout"), ``backend``, ``domains`` and ``tiers`` (restrict the
    tasks), ``render_mode``, ``score_on_truncation``, ``sandbox_options``, ``menu``:
    ``"oracle"`` (default: ``admissible_actions`` holds the oracle's next action, a done and a
    refusal answer, the last two amounts seen, and calls on the records seen) or ``"no-oracle"``
    (for training menu policies, `agentgym.menus`: the calls on the records seen, with their
    decoys; done, a plain refusal, the last three amounts seen and the sum of the last two;
    never the oracle's action, so a grounded refusal's reasons or an amount that needs another
    sum are not offered; at most 32, kept by a stable hash).

    ## Version History
    * v0: retail and travel domains, three tiers, held-out templates; ``menu="no-oracle"``.
    """

    family: ClassVar[str] = "tooluse"
    action_form: ClassVar[str] = 'tool calls: NAME(arg="value") or JSON; finish("answer")'
    """What an action looks like, in a few words (`agentgym list`); ``help`` shows the whole grammar."""
    image = "agentgym/tooluse:latest"
    _view: tuple[int, dict[str, Any]] | None
    """The oracle's view of the world and the epoch it was read in (read again after a change)."""
    sandbox_modules = MODULES
    task_set = ToolUseTasks
    world_module = ENGINE_MODULE
    done_answer = DONE_ANSWER
    refusal_answer = REFUSAL_ANSWER
    fault_kinds = FAULT_KINDS
    menu_modes = (ORACLE, NO_ORACLE)  # the domains' menus are built from the entities seen (domains/*.py, menu)

    def __init__(self, *, domains: tuple[str, ...] | list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(domains=domains, **kwargs)  # split, backend, tiers, ...: see AgentEnv

    # ------------------------------------------------------------------ family hooks
    def _setup_task(self, task: Task) -> str:
        self._reset_tracking()
        meta = task.meta
        self._specs = {s.name: s for s in DOMAINS[meta["domain"]].tools}
        self._lookups = [(a, list(keys)) for a, keys in meta["lookups"]]
        reply = self._world(
            "setup", domain=meta["domain"], tables=meta["tables"], today=meta["today"], intents=meta["intents"]
        )
        self._view = (self._epoch, reply["view"])
        return task.instruction

    def _parse(self, action: str) -> ParsedAction:
        return parse_tool_action(action, self._specs)

    def _execute(self, action: ParsedAction) -> Outcome:
        return self._run_tool(action.name, dict(action.args))

    def fault_failure(self, kind: str, tool: str) -> tuple[str, str]:
        if kind == "tool_error":  # a tool API's transient error is a rate limit
            return "rate_limited", (
                f"error (rate_limited): 429 Too Many Requests from the {tool} service; "
                "nothing was done. Retry the call."
            )
        return super().fault_failure(kind, tool)

    def rate_limit_text(self, tool: str, turns: int) -> str:
        """An API's 429 with a Retry-After counted in turns; the call did nothing."""
        return (
            f"error (rate_limit): 429 Too Many Requests from the {tool} service (Retry-After: {turns} "
            f"turn{'s' * (turns != 1)}); nothing was done. Any call before then is refused again."
        )

    def wrong_value(self, action: ParsedAction, text: str) -> str | None:
        """The same JSON result with one value another record's, or an amount or date shifted (`agentgym.falsify`)."""
        try:
            result = json.loads(text)
        except ValueError:
            return None
        wrong = wrong_json(result, self.np_random, self._value_pool())
        return None if wrong is None else json.dumps(wrong, ensure_ascii=False)

    def _value_pool(self) -> dict[str, list[str]]:
        """Each text field of the task's tables -> its values across records (another record's value)."""
        assert self.task is not None
        pool: dict[str, set[str]] = {}
        for rows in self.task.meta["tables"].values():
            for row in rows if isinstance(rows, list) else ():
                for key, value in row.items() if isinstance(row, dict) else ():
                    if isinstance(value, str):
                        pool.setdefault(key, set()).add(value)
        return {k: sorted(v) for k, v in pool.items()}

    def corrupt_output(self, text: str) -> str:
        """A tool service's partial result: valid JSON with records missing, marked as partial."""
        try:
            obj = json.loads(text)
        except ValueError:
            return super().corrupt_output(text)
        return (
            json.dumps(self._partial(obj), ensure_ascii=False)
            + "\n[partial result: the service cut the response short]"
        )

    def _partial(self, obj: Any) -> Any:
        if isinstance(obj, dict):
            lists = [k for k, v in obj.items() if isinstance(v, list) and v]
            if lists:  # drop the tail of the longest list
                key = max(lists, key=lambda k: len(obj[k]))
                keep = int(self.np_random.integers(len(obj[key])))
                return {**obj, key: obj[key][:keep], "partial": True}
            keys = list(obj)
            keep = max(1, int(self.np_random.integers(1, len(keys) + 1)) // 2) if keys else 0
            return {**{k: obj[k] for k in keys[:keep]}, "partial": True}
        return {"partial": True}

    # ------------------------------------------------------------------ the world kit's hooks
    def _drift_args(self) -> dict[str, Any]:
        return {"protect": sorted(self._protected)}  # drift leaves what the agent wrote alone

    def _drifted(self, reply: dict[str, Any]) -> None:
        self._epoch += 1
        self._view = (self._epoch, reply["view"])

    def _answer_menu(self) -> list[str]:
        if self.menu != NO_ORACLE:
            return [self.finish_action(f"All done. The amount is ${a:.2f}.") for a in self._amounts[-2:]]
        # without the oracle's amount at the head: the last amounts seen, and the sum of the last two
        # (a round trip's total), each as a finish; the same candidates whatever the task asks
        seen = list(dict.fromkeys(round(a, 2) for a in reversed(self._amounts)))[:3]
        sums = [seen[0] + seen[1]] if len(seen) > 1 else []
        return [self.finish_action(f"All done. The amount is ${a:.2f}.") for a in seen + sums]

    def _world_menu(self) -> list[str]:
        assert self.task is not None
        return self._domain.menu(self._known, self.task.meta["hints"])

    # ------------------------------------------------------------------ public helpers
    @staticmethod
    def tool_schemas(domain: str) -> list[dict[str, Any]]:
        """The domain's tools plus ``finish``, as an OpenAI-style ``tools`` list."""
        if domain not in DOMAINS:
            raise ConfigError(f"unknown ToolUse domain {domain!r}; choose from {sorted(DOMAINS)}")
        return [tool_schema(s) for s in DOMAINS[domain].tools] + [FINISH_SCHEMA]

    def help_text(self) -> str:
        """What ``help`` shows: the grammar, the policy and the tools' JSON schemas (after a reset)."""
        if self.task is None:
            return GRAMMAR_HINT + " The tools depend on the task's domain: reset first, then send `help`."
        schemas = json.dumps(self.tool_schemas(self.task.meta["domain"]), indent=1)
        return (
            f'Call one tool per turn: {{"tool": NAME, "args": {{...}}}} or NAME(arg="value"); end with '
            'finish("answer"), finish(answer="...", value="...") or finish(answer="why", refused=true).\n'
            f"{answers.ANSWER_RULE}\n\nPolicy:\n{self._domain.policy}\n\nTools (JSON schema):\n{schemas}"
        )

    def tools(self) -> list[dict[str, Any]]:
        return self.tool_schemas(self.task.meta["domain"]) if self.task is not None else []

    def instruction_grammar(self) -> str:
        return GRAMMAR_HINT  # every task's instruction ends its header with it; `help_text` says it too

    def _reset_help(self) -> str:
        # the instruction already holds the policy and the call grammar: add only the schemas
        return "Tools (JSON schema):\n" + json.dumps(self.tools(), indent=1)

    def reference_action(self) -> str:
        """A state-aware oracle: read, re-read what changed, act as the policy allows, verify, finish.

        A read that showed a wrong value never counts as seen (`output_seen`), so it is read again;
        under a rate limit it waits (`oracle_wait`)."""
        if self.task is None or self._done:
            return ""
        if (wait := self.oracle_wait()) is not None:
            return wait
        for action, _ in self._lookups:
            if action not in self._executed:
                return action
        view = self._oracle_view()
        versions = view["versions"]
        watch = [k for _, keys in self._lookups for k in keys] + [w["target"] for w in view["writes"] if w["target"]]
        for key in dict.fromkeys(watch):
            if key in self._seen and self._seen[key] != versions.get(key, 0):
                return self._reread(key)
        for w in view["writes"]:
            if not w["done"]:
                return render_call(w["tool"], w["args"])
        unverified = [k for k in self._written if k not in self._verified]
        if len(unverified) == 1:
            return self._reread(unverified[0])
        if unverified:
            return self.task.meta["verify_action"]
        return finish_action(view)

    # ------------------------------------------------------------------ internals
    @property
    def _domain(self) -> Domain:
        assert self.task is not None
        return DOMAINS[self.task.meta["domain"]]

    def _reset_tracking(self) -> None:
        super()._reset_tracking()  # _seen: record key -> version the agent last saw; verdict
        self._written: dict[str, int] = {}  # target record -> version right after the agent's last write to it
        self._verified: set[str] = set()  # written records re-read since that write
        self._protected: set[str] = set()  # every record the agent's writes touched (drift leaves them alone)
        self._executed: set[str] = set()  # canonical actions that ran and were seen
        self._known = Known()
        self._amounts: list[float] = []
        self._subtasks: dict[str, bool] = {}
        self._epoch = 0
        self._view = None

    def _oracle_view(self) -> dict[str, Any]:
        if self._view is None or self._view[0] != self._epoch:
            self._view = (self._epoch, self._world("oracle_view"))
        return self._view[1]

    def _reread(self, key: str) -> str:
        return reread_action(self._domain.name, key, self._lookups)

    def _run_tool(self, name: str, args: dict[str, Any]) -> Outcome:
        spec: ToolSpec = self._specs[name]
        reply = self._world("call_tool", name=name, args=args, check=sorted(self._written))
        if not reply["ok"]:
            events = [ev.tool_call(name, False, reply["error_kind"])]
            if reply.get("missing"):
                events.append(ev.state_mismatch(f"{reply['missing']} does not exist"))
            return Outcome(f"error ({reply['error_kind']}): {reply['error']}", events)
        events = [ev.tool_call(name, True)]
        # an emptied, garbled or falsified result: the tool ran, the agent did not see it as it is (a
        # result with no value a wrong_value fault could change is shown as it is)
        seen = self.output_seen or (
            self.faulting == "wrong_value" and not has_json_value(reply["result"], self._value_pool())
        )
        if reply["wrote"]:
            self._epoch += 1
            self._view = (self._epoch, reply["view"])
            target = reply["target"]
            for key, before, after in reply["wrote"]:
                self._protected.add(key)
                if key == target and key in self._seen and self._seen[key] != before:
                    events.append(ev.state_mismatch(f"{key} changed since you last read it"))
                if seen:
                    self._seen[key] = after
            if target:
                events.append(ev.mutation(target))
                self._written[target] = dict((k, a) for k, _, a in reply["wrote"])[target]
                self._verified.discard(target)
        if seen:
            checked = set()
            for key, version in reply["refs"]:
                if key in self._written and key not in checked and not (reply["wrote"] and key == reply["target"]):
                    checked.add(key)
                    self._verified.add(key)
                    events.append(ev.verification(reply["checks"][key], key))
                self._seen[key] = version
            self._executed.add(render_call(name, {p.name: args[p.name] for p in spec.params if p.name in args}))
            self._absorb(reply["result"], {})
        events += self._subtask_events(reply.get("progress"))
        return Outcome(json.dumps(reply["result"], ensure_ascii=False), events)

    def _absorb(self, obj: Any, parent: dict[str, Any]) -> None:
        """Remember entities (and money amounts) a result showed, for the admissible menu."""
        if isinstance(obj, list):
            for item in obj:
                self._absorb(item, parent)
            return
        if not isinstance(obj, dict):
            return
        for field, kind in self._domain.entities:
            if isinstance(obj.get(field), str):
                data = {k: v for k, v in obj.items() if not isinstance(v, (dict, list)) or k == "items"}
                if kind != "user" and "user_id" not in data and "user_id" in parent:
                    data["user_id"] = parent["user_id"]
                if "origin" not in data and isinstance(obj.get("flight"), dict):
                    data.update({k: obj["flight"][k] for k in ("origin", "destination") if k in obj["flight"]})
                self._known.add(kind, obj[field], data)
                break
        for k in ("total", "amount", "result"):
            if isinstance(obj.get(k), (int, float)) and not isinstance(obj.get(k), bool):
                self._amounts.append(float(obj[k]))
        context = {"user_id": obj["user_id"]} if isinstance(obj.get("user_id"), str) else parent
        for v in obj.values():
            if isinstance(v, (dict, list)):
                self._absorb(v, context)

    def _subtask_events(self, progress: list[bool | None] | None) -> list[dict[str, Any]]:
        assert self.task is not None
        state: dict[str, bool] = {}
        names = self.task.subtasks
        for i, (_, keys) in enumerate(self._lookups):
            state[names[i]] = all(k in self._seen for k in keys)
        if progress is not None:
            for name in names[len(self._lookups) :]:
                idx = int(name.split(":")[1])
                state[name] = bool(progress[idx])
        return ev.subtask_changes(self._subtasks, state)
