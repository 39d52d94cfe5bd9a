"""BFCL's multi-turn data on the host: tasks, ground truth and function docs, and the ground truth's run.

Everything is read from the host's copy of the pinned ``bfcl-eval`` wheel
(`agentgym.setup.api_images.bfcl_root`, laid out by ``agentgym setup``); nothing of it is in this
repository. Ground-truth call strings are parsed by agentgym's own parser (`agentgym.actions`)
into (name, positional values, keyword values) and run on the host's own instance set
(`apis.World`), never ``eval``'d. `ground_truth_run` keeps, per user turn, the execution results
and the state fingerprints BFCL's checker compares the agent's against.
"""

from __future__ import annotations

import inspect
import json
import keyword
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from agentgym.actions import parse_action
from agentgym.envs.bfcl import apis
from agentgym.setup.api_images import CLASSES, bfcl_root

__all__ = [
    "Entry",
    "GroundTruthRun",
    "Call",
    "entries",
    "entry",
    "func_docs",
    "public_methods",
    "ground_truth_run",
    "render",
    "render_python",
    "ADDED_FUNCTIONS_PROMPT",
]

Call = tuple[str, tuple[Any, ...], tuple[tuple[str, Any], ...]]
"""One call: the method name, positional values, keyword (name, value) pairs (hashable, comparable)."""
ADDED_FUNCTIONS_PROMPT = "I have updated some more functions you can choose from. What about now?"
"""What BFCL's user says in a turn that gives back a withheld function (``miss_func``)."""


@dataclass(frozen=True)
class Entry:
    """One BFCL multi-turn task: its user turns, classes, initial state and ground truth."""

    category: str
    index: int
    turns: tuple[str, ...]
    """The user's message of each turn ("" for a turn that only gives back withheld functions)."""
    classes: tuple[str, ...]
    config: dict[str, Any]
    ground_truth: tuple[tuple[Call, ...], ...]
    missed: dict[int, tuple[str, ...]]
    """turn -> functions withheld until that turn (``miss_func``)."""

    @property
    def bfcl_id(self) -> str:
        return f"multi_turn_{self.category}_{self.index}"

    @property
    def long_context(self) -> bool:
        return self.category == "long_context"


def _root() -> Path:
    return bfcl_root()


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def parse_call(text: str) -> Call:
    """A ground-truth call string through agentgym's parser (literals only; never evaluated)."""
    call = parse_action(text)
    return call.name, tuple(call.positional), tuple(call.args.items())


@cache
def entries(category: str) -> tuple[Entry, ...]:
    """The 200 tasks of a category, in BFCL's order (index = the number in BFCL's id)."""
    data = _root() / "data"
    questions = _jsonl(data / f"BFCL_v4_multi_turn_{category}.json")
    answers = {
        a["id"]: a["ground_truth"] for a in _jsonl(data / "possible_answer" / f"BFCL_v4_multi_turn_{category}.json")
    }
    out = []
    for q in questions:
        turns = tuple(" ".join(m["content"] for m in turn if m.get("role") == "user") for turn in q["question"])
        out.append(
            Entry(
                category=category,
                index=int(q["id"].rsplit("_", 1)[1]),
                turns=turns,
                classes=tuple(q["involved_classes"]),
                config=q.get("initial_config", {}),
                ground_truth=tuple(tuple(parse_call(c) for c in turn) for turn in answers[q["id"]]),
                missed={int(k): tuple(v) for k, v in q.get("missed_function", {}).items()},
            )
        )
    return tuple(out)


@cache
def _by_index(category: str) -> dict[int, Entry]:
    return {e.index: e for e in entries(category)}


def entry(category: str, index: int) -> Entry:
    return _by_index(category)[index]


@cache
def func_docs(cls: str) -> tuple[dict[str, Any], ...]:
    """BFCL's function docs of one class (name, description, parameters in BFCL's types)."""
    return tuple(_jsonl(_root() / "data" / "multi_turn_func_doc" / CLASSES[cls][1]))


@lru_cache(maxsize=1)
def api_classes() -> dict[str, type]:
    """BFCL's eight classes, imported on the host from the cache's copy (for the ground truth)."""
    return apis.load([str(_root())], {cls: module for cls, (module, _) in CLASSES.items()})


def same_call(a: Call, b: Call, classes: tuple[str, ...]) -> bool:
    """Whether two calls are one call however their arguments are spelled: BFCL's ground truth passes some
    arguments by position (``get_zipcode_based_on_city("Crescent Hollow")``), a tool call names every one
    (``{"city": "Crescent Hollow"}``). Both are bound to the method's parameters, defaults filled in."""
    if a == b:
        return True
    if a[0] != b[0]:
        return False
    loaded = api_classes()
    owners = [loaded[c] for c in classes if hasattr(loaded[c], a[0])]
    if not owners:
        return False
    method = getattr(owners[-1], a[0])  # a later class wins a shared name, as in `apis.World` and BFCL's mapping
    signature = inspect.signature(method)
    try:
        bound = [signature.bind(None, *positional, **dict(kwargs)) for _, positional, kwargs in (a, b)]
    except TypeError:  # a call that does not fit the method is no call of it
        return False
    for arguments in bound:
        arguments.apply_defaults()
    return bound[0].arguments == bound[1].arguments


@cache
def public_methods(classes: tuple[str, ...]) -> frozenset[str]:
    """Every public method of these classes: what BFCL's executor runs when a call names it."""
    loaded = api_classes()
    return frozenset(
        name
        for cls in classes
        for name, _ in inspect.getmembers(loaded[cls], inspect.isfunction)
        if not name.startswith("_")
    )


@dataclass(frozen=True)
class GroundTruthRun:
    """The ground truth executed turn by turn on the host's instances, as BFCL's checker runs it."""

    results: tuple[tuple[str, ...], ...]
    """Per turn, the execution result of each ground-truth call."""
    states: tuple[dict[str, dict[str, str]], ...]
    """Per turn, the instances' state fingerprints after it (`apis.World.state`)."""
    cwds: tuple[tuple[list[str] | None, ...], ...]
    """Per turn, the file system's directory before each ground-truth call (None without one)."""


@lru_cache(maxsize=256)
def ground_truth_run(category: str, index: int) -> GroundTruthRun:
    e = entry(category, index)
    classes = api_classes()
    world = apis.World({c: classes[c] for c in e.classes}, e.config, e.long_context)
    results, states, cwds = [], [], []
    for turn in e.ground_truth:
        turn_results, turn_cwds = [], []
        for name, positional, kwargs in turn:
            turn_cwds.append(world.cwd())
            turn_results.append(world.call(name, list(positional), dict(kwargs))[0])
        results.append(tuple(turn_results))
        cwds.append(tuple(turn_cwds))
        states.append(world.state())
    return GroundTruthRun(tuple(results), tuple(states), tuple(cwds))


def render(call: Call) -> str:
    """A call in agentgym's function-call form (JSON literals), e.g. ``mv(source="a.txt", destination="b")``."""
    name, positional, kwargs = call
    parts = [json.dumps(v, ensure_ascii=False) for v in positional]
    parts += [f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in kwargs]
    return f"{name}({', '.join(parts)})"


def render_python(call: Call) -> str:
    """A call as BFCL's decoded model output (Python literals), for BFCL's own checker (which ``eval``s
    it): the name and argument names must be identifiers, the values are literals' ``repr``."""
    name, positional, kwargs = call
    for word in (name, *(k for k, _ in kwargs)):
        if not word.isidentifier() or keyword.iskeyword(word):
            raise ValueError(f"{word[:40]!r} is not an identifier: it cannot go into a call string")
    parts = [repr(v) for v in positional] + [f"{k}={v!r}" for k, v in kwargs]
    return f"{name}({','.join(parts)})"
