"""Scripted action lists for BFCL-v0: the ground truth and its near misses (for the checker-agreement test).

Each variant is a list of actions in agentgym's grammar built from a task's ground truth, played
in order (`play`); the env's verdict on the calls it executed is then compared with BFCL's own
``multi_turn_checker`` on the same calls (``tests/envs/bfcl/test_agreement.py``):

* ``ground_truth``: every ground-truth call, a ``reply`` after each turn;
* ``drop_call``: one ground-truth call left out (drawn by the seed);
* ``change_call``: one argument of one call changed (a string swapped for another of the task, a
  number moved by one, a boolean flipped);
* ``near_miss``: what a careless agent does: act on a turn it cannot serve yet (the next turn's
  calls run early, then once more in their own turn), repeat a call, or stop one turn short.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agentgym.envs.bfcl import data
from agentgym.envs.bfcl.tasks import REPLY_CANNOT, REPLY_DONE

__all__ = ["VARIANTS", "variant", "play"]

VARIANTS = ("ground_truth", "drop_call", "change_call", "near_miss")


def _turns(e: data.Entry) -> list[list[data.Call]]:
    return [list(t) for t in e.ground_truth]


def _actions(turns: list[list[data.Call]]) -> list[str]:
    out: list[str] = []
    for calls in turns:
        out += [data.render(c) for c in calls]
        out.append(REPLY_DONE if calls else REPLY_CANNOT)
    return out


def _changed(value: Any, strings: list[str], rng: np.random.Generator) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        others = [s for s in strings if s != value]
        return others[int(rng.integers(len(others)))] if others else value + "_x"
    if isinstance(value, list) and value:
        return value[:-1]
    return value


def variant(e: data.Entry, name: str, seed: int = 0) -> list[str]:
    """The actions of variant ``name`` (`VARIANTS`) for task ``e``; the seed picks which call."""
    rng = np.random.default_rng(seed * 1_000_003 + e.index * 7 + data_index(e.category))
    turns = _turns(e)
    places = [(t, i) for t, calls in enumerate(turns) for i in range(len(calls))]
    if name == "ground_truth" or not places:
        return _actions(turns)
    t, i = places[int(rng.integers(len(places)))]
    if name == "drop_call":
        del turns[t][i]
    elif name == "change_call":
        call_name, pos, kw = turns[t][i]
        strings = sorted(
            {v for calls in turns for _, p, k in calls for v in list(p) + [x for _, x in k] if isinstance(v, str)}
        )
        if kw:
            j = int(rng.integers(len(kw)))
            kw = kw[:j] + ((kw[j][0], _changed(kw[j][1], strings, rng)),) + kw[j + 1 :]
        elif pos:
            pos = (_changed(pos[0], strings, rng),) + pos[1:]
        turns[t][i] = (call_name, pos, kw)
    elif name == "near_miss":
        empty = [k for k, calls in enumerate(turns) if not calls and k + 1 < len(turns)]
        how = int(rng.integers(3))
        if empty and how == 0:  # acts on the turn it cannot serve: the next turn's calls, too early
            k = empty[0]
            turns[k] = list(turns[k + 1])
        elif how == 1:  # the same call twice
            turns[t].insert(i, turns[t][i])
        else:  # one turn short: the last turn's calls are never made
            turns[-1] = []
    else:
        raise ValueError(f"unknown variant {name!r}; choose from {VARIANTS}")
    return _actions(turns)


def data_index(category: str) -> int:
    return ("base", "miss_func", "miss_param", "long_context").index(category)


def play(env: Any, actions: list[str], *, task_id: str) -> dict[str, Any]:
    """Play ``actions`` on ``env`` (unwrapped BFCL-v0) for ``task_id``; then ``reply`` until the end.

    Returns the env's verdict, its per-turn results and the calls it executed in BFCL's form.
    """
    env.reset(seed=0, options={"task_id": task_id})
    reward, terminated, steps = 0.0, False, 0
    queue = list(actions)
    while not terminated and steps < 400:
        action = queue.pop(0) if queue else REPLY_DONE
        _, reward, terminated, _, _ = env.step(action)
        steps += 1
    return {"success": reward == 1.0, "turns": env.turn_results, "calls": env.call_log(), "steps": steps}
