"""Attacks on the two fault kinds of issue 51: an agent must not tell a wrong value by its format, nor
get past a rate limit without waiting.

- A **format detector**: the smallest agent behaviour that would make ``wrong_value`` useless for
  training verification: flag an answer whose shape differs from the tool's usual answers (keys,
  types, the digits of each number, the form of each date; an odd string), and re-read only then.
  Each faulted answer is compared with the true answer of the same call at the same step (the same
  seed played without the fault) and must look the same to it, while differing in content.
- **Bypasses of a rate limit**: during the window, call another tool, write the same call in the
  grammar's other forms (JSON, function call, OpenAI tool-call shape, a fence), send arguments the
  tool refuses, or hand the turn back to the user (BFCL's ``reply``): every one is refused and
  changes nothing; only turns passing open the limit again.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import agentgym

# families that apply wrong_value, on the backend the suite runs them on (Chromium needs its image)
WRONG_VALUE_IDS = [
    ("agentgym/ToolUse-v0", {}),
    ("agentgym/BFCL-v0", {}),
    ("agentgym/Browser-v0", {}),
    ("agentgym/Coding-v0", {}),
]
# the oracle's tool calls a wrong value can hit: Coding's are an edit (its echo) then the tests (a first run
# has no older report to show), so only turn 1 fires there
TURNS = {"agentgym/Coding-v0": (1,)}
CASES = [(i, kw, t) for i, kw in WRONG_VALUE_IDS for t in TURNS.get(i, (1, 2, 3))]
SEEDS = range(12)
_NUMBER = re.compile(r"\d")
_NUMBERED = re.compile(r"^(\s*\d+ )\| .*$", re.M)


def shape(text: str) -> Any:
    """What a format-checking agent compares: JSON's keys and leaf types (a number's digits as ``0``,
    a date as its form), or for text every digit as ``0`` and a file's numbered lines as numbers."""
    try:
        return _skeleton(json.loads(text))
    except ValueError:  # a file's numbered lines (Coding's view and edit echo): their content is the value
        return _NUMBER.sub("0", _NUMBERED.sub(r"\1|", text))


def _skeleton(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _skeleton(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_skeleton(v) for v in obj]
    if isinstance(obj, bool) or obj is None:
        return obj
    if isinstance(obj, (int, float)):
        return (type(obj).__name__, _NUMBER.sub("0", repr(obj)))
    return ("str", _NUMBER.sub("0", obj) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", obj) else "text")


def _play(env: Any, seed: int) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """The oracle's episode as (action, observation text, events) per step."""
    env.reset(seed=seed)
    steps, done = [], False
    while not done:
        action = env.unwrapped.reference_action()
        obs, _, terminated, truncated, info = env.step(action)
        steps.append((action, obs["text"], info["events"]))
        done = terminated or truncated
    return steps


def _faulted_pairs(env_id: str, kwargs: dict[str, Any], turn: int) -> list[tuple[str, str, str]]:
    """(action, faulted answer, true answer) for each seed where ``wrong_value@turn=N`` fired."""
    clean = agentgym.make(env_id, budget=40, backend="local", split="test", **kwargs)
    faulted = agentgym.make(
        env_id, budget=40, backend="local", split="test", faults=f"wrong_value@turn={turn}", **kwargs
    )
    pairs = []
    try:
        for seed in SEEDS:
            truth = _play(clean, seed)
            for i, (action, text, events) in enumerate(_play(faulted, seed)):
                if any(e["kind"] == "fault_injected" and e["fault"] == "wrong_value" for e in events):
                    assert truth[i][0] == action  # the same call at the same step
                    pairs.append((action, text, truth[i][1]))
    finally:
        clean.close()
        faulted.close()
    return pairs


@pytest.mark.parametrize("env_id,kwargs,turn", CASES, ids=[f"{i}-turn{t}" for i, _, t in CASES])
def test_a_format_check_cannot_tell_a_wrong_value(env_id, kwargs, turn):
    pairs = _faulted_pairs(env_id, kwargs, turn)
    assert pairs, f"wrong_value@turn={turn} never fired on {env_id}: the attack proves nothing"
    for action, wrong, true in pairs:
        assert wrong != true, (action, wrong)  # it is wrong
        assert shape(wrong) == shape(true), (env_id, action, wrong, true)  # and looks right


def test_another_records_value_is_one_the_world_holds():
    """A text field's wrong value is another record's value of that field: its length and form are
    drawn from the true values, so no string statistic tells it."""
    clean = agentgym.make("agentgym/ToolUse-v0", budget=40, backend="local", split="test")
    faulted = agentgym.make(
        "agentgym/ToolUse-v0", budget=40, backend="local", split="test", faults="wrong_value@turn=1"
    )
    swapped = 0
    try:
        for seed in SEEDS:
            truth = _play(clean, seed)
            steps = _play(faulted, seed)
            pool = faulted.unwrapped._value_pool()
            for (action, text, events), (_, true_text, _) in zip(steps, truth):
                if not any(e["kind"] == "fault_injected" for e in events):
                    continue
                for key, value in _diff(json.loads(text), json.loads(true_text)):
                    if isinstance(value, str) and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                        swapped += 1
                        assert value in pool.get(key, ()) or value in _strings(json.loads(true_text)), (key, value)
    finally:
        clean.close()
        faulted.close()
    assert swapped, "no text field was falsified in these seeds: the check proves nothing"


def _diff(a: Any, b: Any, key: str = "") -> list[tuple[str, Any]]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in a for d in _diff(a[k], b.get(k), k)]
    if isinstance(a, list) and isinstance(b, list):
        return [d for x, y in zip(a, b) for d in _diff(x, y, key)]
    return [] if a == b else [(key, a)]


def _strings(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return {s for v in obj.values() for s in _strings(v)}
    if isinstance(obj, list):
        return {s for v in obj for s in _strings(v)}
    return {obj} if isinstance(obj, str) else set()


# ---------------------------------------------------------------------------------------- rate limits
def _limited(env_id: str, retry_after: int = 3, seed: int = 0, **kwargs: Any) -> Any:
    env = agentgym.make(
        env_id,
        budget=40,
        backend="local",
        split="test",
        faults=f"rate_limit@turn=1:retry_after={retry_after}",
        **kwargs,
    )
    obs, info = env.reset(seed=seed)
    first = env.unwrapped.reference_action()
    obs, _, _, _, info = env.step(first)
    assert [e["fault"] for e in info["events"] if e["kind"] == "fault_injected"] == ["rate_limit"]
    assert (
        f"retry in {retry_after} turns" in obs["text"].lower() or f"retry-after: {retry_after}" in obs["text"].lower()
    )
    return env, first


def _refused(info: dict[str, Any]) -> bool:
    calls = [e for e in info["events"] if e["kind"] == "tool_call"]
    return (
        bool(calls)
        and all(not e["ok"] and e["error_kind"] == "rate_limit" for e in calls)
        and not any(e["kind"] in ("mutation", "verification") for e in info["events"])
    )


TOOLUSE_FORMS = [
    '{{"tool": "{name}", "args": {args}}}',  # JSON
    '```json\n{{"tool": "{name}", "args": {args}}}\n```',  # fenced JSON
    '{{"name": "{name}", "arguments": {args_text}}}',  # the OpenAI tool-call shape
    '{{"type": "function", "function": {{"name": "{name}", "arguments": {args_text}}}}}',
]


def test_tooluse_rate_limit_holds_for_every_tool_and_form():
    env, first = _limited("agentgym/ToolUse-v0", retry_after=4)
    try:
        base = env.unwrapped
        tools = [s.name for s in base._specs.values()]
        writes = [w for w in base._oracle_view()["writes"]]
        tries = [first, f"{tools[-1]}()", f'{tools[0]}(nonexistent_argument="x")']
        name, _, rest = first.partition("(")
        args = dict(re.findall(r'(\w+)="([^"]*)"', rest))
        tries += [
            form.format(name=name, args=json.dumps(args), args_text=json.dumps(json.dumps(args)))
            for form in TOOLUSE_FORMS
        ]
        for i, action in enumerate(tries[:3]):  # the window is 4 turns: turns 2-4 are refused
            obs, _, terminated, _, info = env.step(action)
            assert _refused(info) and not terminated, (action, obs["text"], info["events"])
            assert "429" in obs["text"]
        obs, _, _, _, info = env.step(tries[3])  # turn 5: the window has passed, the JSON form goes through
        assert any(e["kind"] == "tool_call" and e["ok"] for e in info["events"]), obs["text"]
        assert base._oracle_view()["writes"] == writes or not writes  # nothing was written while limited
    finally:
        env.close()


@pytest.mark.parametrize("form", range(len(TOOLUSE_FORMS)))
def test_tooluse_rate_limit_refuses_each_action_form(form):
    env, first = _limited("agentgym/ToolUse-v0", retry_after=2)
    try:
        name, _, rest = first.partition("(")
        args = dict(re.findall(r'(\w+)="([^"]*)"', rest))
        action = TOOLUSE_FORMS[form].format(name=name, args=json.dumps(args), args_text=json.dumps(json.dumps(args)))
        obs, _, _, _, info = env.step(action)
        assert _refused(info), (action, obs["text"])
    finally:
        env.close()


def test_bfcl_rate_limit_survives_reply_and_other_tools():
    env, first = _limited("agentgym/BFCL-v0", retry_after=4)
    try:
        obs, _, terminated, _, info = env.step("help")  # turn 2: waiting is allowed, and costs the turn
        assert not terminated and not any(e["kind"] == "tool_call" for e in info["events"])
        other = sorted(env.unwrapped._tools)[-1]
        obs, _, _, _, info = env.step(f"{other}()")  # turn 3: another tool
        assert _refused(info), obs["text"]
        assert json.loads(obs["text"])["error"].startswith("429")
        obs, _, _, _, info = env.step(json.dumps({"tool": first.partition("(")[0], "args": {}}))  # turn 4, JSON
        assert _refused(info), obs["text"]
        obs, _, _, _, info = env.step(first)  # turn 5 = 1 + 4: open again
        assert not _refused(info), obs["text"]
    finally:
        env.close()


def test_bfcl_reply_does_not_reset_the_limit():
    """Handing the turn back to the user starts the next request, not a new window."""
    seed = next(s for s in range(50) if _bfcl_turns(s) > 1)  # a conversation that goes on after a reply
    env, first = _limited("agentgym/BFCL-v0", retry_after=3, seed=seed)
    try:
        obs, _, terminated, _, info = env.step('reply("done")')  # turn 2
        assert not terminated and obs["text"].startswith("User:"), obs["text"]
        call = next(a for a in env.unwrapped.admissible_actions() if not a.startswith(("reply", "finish", "help")))
        obs, _, _, _, info = env.step(call)  # turn 3 < 1 + 3: still refused
        assert _refused(info), (call, obs["text"])
    finally:
        env.close()


def _bfcl_turns(seed: int) -> int:
    env = agentgym.make("agentgym/BFCL-v0", backend="local", split="test")
    try:
        env.reset(seed=seed)
        return len(env.unwrapped.entry.turns)
    finally:
        env.close()


@pytest.mark.parametrize(
    "browser_form", ["click({id})", "click('{id}')", "click [{id}]", 'goto("/")', "reload()", 'press({id}, "Enter")']
)
def test_browser_rate_limit_holds_for_every_page_load(browser_form):
    """Every action that asks the site for a page is refused, in Browser-v0's and BrowserGym's forms."""
    env, first = _limited("agentgym/Browser-v0", retry_after=2)
    try:
        ids = re.findall(r"\[(\d+)\]", env.unwrapped._last_text) or ["1"]
        action = browser_form.format(id=ids[0])
        obs, _, _, _, info = env.step(action)
        assert _refused(info), (action, obs["text"], info["events"])
        assert "too many requests" in obs["text"].lower()
    finally:
        env.close()


def test_browser_local_actions_during_a_limit_read_nothing_new():
    """``noop()``, scrolling and typing never ask the site for anything (they are not tools), so they go
    through, but they show the page already loaded and count as no re-read: no verification."""
    env, _ = _limited("agentgym/Browser-v0", retry_after=3)
    try:
        for action in ("noop()", 'scroll("down")'):
            obs, _, _, _, info = env.step(action)
            assert not any(e["kind"] in ("verification", "mutation") for e in info["events"]), info["events"]
            assert "too many requests" not in obs["text"].lower()
    finally:
        env.close()


def test_coding_rate_limit_holds_for_shell_tests_and_edits():
    env, first = _limited("agentgym/Coding-v0", retry_after=4)
    try:
        path = sorted(env.unwrapped.task.files)[0]
        for action in ("run echo hi", "test", f"view {path}"):
            obs, _, _, _, info = env.step(action)
            assert _refused(info), (action, obs["text"])
        obs, _, _, _, info = env.step("test")  # turn 5: open again
        assert any(e["kind"] == "tool_call" and e["ok"] for e in info["events"]), obs["text"]
    finally:
        env.close()


def test_only_turns_open_a_limit():
    """The env counts the wait: a harmless turn (``help``) counts, and the limit opens exactly on turn
    1 + retry_after, not before."""
    env, first = _limited("agentgym/ToolUse-v0", retry_after=3)
    try:
        obs, _, _, _, info = env.step("help")  # turn 2
        assert not any(e["kind"] == "tool_call" for e in info["events"])
        obs, _, _, _, info = env.step(first)  # turn 3 < 4
        assert _refused(info) and "retry-after: 1 turn)" in obs["text"].lower(), obs["text"]
        obs, _, _, _, info = env.step(first)  # turn 4
        assert not _refused(info), obs["text"]
    finally:
        env.close()


def test_a_persistent_rate_limit_keeps_refusing_that_tool():
    env = agentgym.make(
        "agentgym/ToolUse-v0",
        budget=40,
        backend="local",
        split="test",
        faults="rate_limit@turn=1:persistent:retry_after=2",
    )
    try:
        env.reset(seed=0)
        first = env.unwrapped.reference_action()
        for _ in range(5):
            obs, _, _, _, info = env.step(first)
            assert _refused(info), obs["text"]
    finally:
        env.close()
