"""ToolUse tasks: every (template, seed) pair, its split, and the Task rebuilt from its id.

Task ids read ``tooluse/<domain>/<template>/<seed>``. Templates marked held-out form the
``heldout`` split and never appear in train or test; the other templates' seeds are split into
train and test by a stable hash of the task id, so the split is the same on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from agentgym import answers
from agentgym.actions import check_args, parse_action, render_call
from agentgym.envs.tooluse.domains import DOMAINS, Template, engine
from agentgym.tasks import Task
from agentgym.world.tasks import WorldTasks, templates_by_key

__all__ = [
    "ToolUseTasks",
    "TEMPLATES",
    "SEEDS_PER_TEMPLATE",
    "TIERS",
    "observation_header",
    "canonical",
    "reread_action",
    "finish_action",
    "DONE_ANSWER",
]

SEEDS_PER_TEMPLATE = 24
TIERS = ("single", "multi", "refusal")
TEMPLATES: dict[str, Template] = templates_by_key(t for d in DOMAINS.values() for t in d.templates)

GRAMMAR_HINT = (
    'Act with one tool call per turn, as JSON {"tool": "get_order", "args": {"order_id": "O12345"}} or as '
    'get_order(order_id="O12345"). `help` lists the tools with their JSON schemas. When you are done, '
    'reply finish("your final answer to the customer"); if the policy forbids the request, change nothing '
    "and finish with a refusal that says you cannot do it. " + answers.ANSWER_RULE
)


DONE_ANSWER = "All done: your request has been completed."


def canonical(domain: str, action: str) -> str:
    """An action in function-call form with its arguments in schema order."""
    call = parse_action(action)
    spec = next(s for s in DOMAINS[domain].tools if s.name == call.name)
    args = check_args(spec, call)
    return render_call(call.name, {p.name: args[p.name] for p in spec.params if p.name in args})


def reread_action(domain: str, key: str, lookups: Sequence[tuple[str, Sequence[str]]]) -> str:
    """How to read one record again: the most specific look-up that showed it, else its get tool."""
    for action, keys in reversed(lookups):
        if key in keys:
            return action
    table, _, ident = key.partition(":")
    tool, arg = DOMAINS[domain].reread.get(table, ("get_user", "user_id"))
    return render_call(tool, {arg: ident})


def finish_action(view: dict[str, Any]) -> str:
    """The oracle's last action for a solver view: a grounded refusal, the amount, or done."""
    if view["refusal"]:
        return render_call("finish", {"answer": f"I'm sorry, I cannot do that: {'; '.join(view['reasons'])}."})
    if view["answer"] is not None:
        return render_call("finish", {"answer": f"All done. The amount is ${view['answer']}."})
    return render_call("finish", {"answer": DONE_ANSWER})


def _solution(domain: str, sc: Any, lookups: list[tuple[str, list[str]]]) -> tuple[str, ...]:
    """The reference actions when nothing goes wrong: read, act, re-read what was written, finish."""
    session = engine.Session(domain, sc.tables, sc.today, sc.intents)  # in memory, this thread's own
    try:
        view = session.oracle_view()
    finally:
        session.close()
    writes = [w for w in view["writes"] if not w["done"]]
    actions = [a for a, _ in lookups] + [render_call(w["tool"], w["args"]) for w in writes]
    targets = list(dict.fromkeys(w["target"] for w in writes))
    if len(targets) == 1:
        actions.append(reread_action(domain, targets[0], lookups))
    elif targets:
        actions.append(render_call(*sc.verify_call))
    return (*actions, finish_action(view))


def observation_header(domain: str, today: str) -> str:
    d = DOMAINS[domain]
    return f"{d.role} Today is {today}.\n\nPolicy:\n{d.policy}\n\n{GRAMMAR_HINT}"


@lru_cache(maxsize=4096)
def _build(task_id: str) -> Task:
    t, sc = ToolUseTasks.scenario(task_id)
    header = observation_header(t.group, sc.today)
    subtasks = tuple(f"lookup:{tool}:{i}" for i, ((tool, _), _) in enumerate(sc.lookups))
    subtasks += tuple(f"write:{i}:{it['op']}" for i, it in enumerate(sc.intents) if t.tier != "refusal")
    lookups = [(canonical(t.group, render_call(*call)), list(keys)) for call, keys in sc.lookups]
    solution = _solution(t.group, sc, lookups)  # the env's oracle is state-aware; this is its fault-free path
    return ToolUseTasks.task(
        task_id,
        t,
        instruction=f"{header}\n\nCustomer: {sc.request}",
        subtasks=subtasks,
        solution=solution,
        meta={
            "tables": sc.tables,
            "today": sc.today,
            "request": sc.request,
            "intents": sc.intents,
            "lookups": [[a, keys] for a, keys in lookups],
            "verify_action": render_call(*sc.verify_call),
            "hints": sc.hints,
        },
    )


class ToolUseTasks(
    WorldTasks,
    family="tooluse",
    group_filter="domains",
    templates=TEMPLATES,
    tiers=TIERS,
    seeds_per_template=SEEDS_PER_TEMPLATE,
    build=_build,
):
    """All ToolUse tasks, optionally restricted to some domains and tiers
    (``ToolUseTasks(domains=[...], tiers=[...])``)."""
