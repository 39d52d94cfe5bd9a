"""Family-neutral policy inputs: the same arrays as `baselines.policy.features`, built from what every family shares.

`baselines.policy.features.EpisodeMemory` is Coding-v0's encoder: its candidate side reads unified
diffs (what a patch adds and removes), its history is an edit stack of patches and ``revert``,
its action kinds are Coding's verbs. On ToolUse-v0, MiniWoB-v0, Browser-v0 or BFCL-v0 those
inputs are zeros. `FamilyMemory` fills the *same shapes* (`EncodedStep`: observation ``3 * dim``,
budget `BUDGET_FEATURES`, progress `PROGRESS_FEATURES`, candidates ``2 * dim``, candidate extras
`CANDIDATE_EXTRAS`), so `baselines.policy.model.MenuPolicy` takes either unchanged, from:

- **the parsed action** (`agentgym.actions.parse_action`, the grammar every tool-calling family
  shares): each candidate's hashed text, and hashed *structure* tokens: its verb, its argument
  names, the kind of record an id names (``order_id`` -> ``order``) and, for a page element
  (``click(12)``), the element's role and name as the last page view showed it;
- **the budget**: turns left, and the *slack* over the task's ``info["min_turns"]`` (turns left
  minus the turns the reference solution still needs at least), since a ToolUse write needs 5-8
  turns and MiniWoB's pages 1-9: T means little until it is read against the task;
- **the history, from public events only** (`PROGRESS_NAMES`): the last check's verdict
  (``verification``), whether a write is unverified (``mutation`` since), tool failures
  (``tool_call`` with ``ok=False``) still open, ``fault_injected`` and ``state_mismatch``, the
  last action's kind; per candidate, whether that very action failed, hit a fault or a stale
  record before, and whether it is a retry of the last failed call. ``subtask`` events are never
  read: they reveal the answer.

Coding-v0 keeps `EpisodeMemory`: its results rest on the diff features (a bag of tokens cannot
tell a fix from its inverse), and a patch's text is not a call this grammar parses.
`episode_memory` picks the encoder for an env, the one hook the trainer and the agent need.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from agentgym.actions import GrammarError, parse_action
from agentgym.features import hash_tokens
from baselines.policy.features import (
    BUDGET_FEATURES,
    CANDIDATE_EXTRAS,
    FEATURES_VERSION,
    PROGRESS_FEATURES,
    EncodedStep,
    EpisodeMemory,
    MemoryBase,
    check_features,
    text_features,
)

__all__ = [
    "FAMILY_FEATURES_VERSION",
    "NEUTRAL_FAMILIES",
    "BUDGET_NAMES",
    "PROGRESS_NAMES",
    "EXTRA_NAMES",
    "ParsedCandidate",
    "parse_candidate",
    "structure_features",
    "slack_budget_features",
    "EventHistory",
    "FamilyMemory",
    "encoder_for",
    "episode_memory",
    "family_of",
    "features_tag",
]

FAMILY_FEATURES_VERSION = 1
"""Bumped when `FamilyMemory`'s encoding changes; a checkpoint trained with it records
``features="family-v<N>"`` (Coding's record `baselines.policy.features.FEATURES_VERSION`)."""

NEUTRAL_FAMILIES = ("tooluse", "miniwob", "browser", "bfcl")
"""Families encoded by `FamilyMemory`; every other one (Coding-v0, the budget env) by `EpisodeMemory`."""

BUDGET_NAMES = (
    "left",  # turns left / 32
    "log_left",  # log1p(turns left) / 4
    "inv_left",  # 1 / max(turns left, 1)
    "left_le_1",
    "left_le_2",
    "slack",  # turns left minus the turns the task still needs at least, / 8, in [-1, 1]
    "slack_le_0",  # no turn to spare: commit now or fail
    "slack_le_2",
    "no_budget",  # no budget wrapper: the left features are zero, not invented
)
"""What `slack_budget_features` holds, in order (as many as Coding's `BUDGET_FEATURES`)."""

PROGRESS_NAMES = (
    "verdict_passed",  # the last verification passed, no write since
    "verdict_failed",  # the last verification failed, no write since
    "never_checked",  # no verification yet
    "unverified_write",  # a write (mutation) after the last verification, or with none
    "last_check_failed",  # the last verification failed, writes since or not
    "writes_since_check",  # /3, at most 1
    "last_error",  # the last action failed: a tool error, a stale record, a parse error
    "last_fault",  # the last step carried an injected fault
    "faults_seen",  # any fault this episode
    "last_mismatch",  # the last action referred to a state that is not the current one
    "mismatches",  # /3, at most 1
    "tool_errors",  # failed tool calls this episode /3, at most 1
    "open_failure",  # a tool failed and has not succeeded since (a retry is due)
    "last_read",  # the last action was a tool call that changed nothing
    "last_write",  # the last action changed task state
    "first_turn",  # nothing done yet
    "reads",  # successful calls that changed nothing /5, at most 1
    "writes",  # mutations /3, at most 1
)
"""What `EventHistory.features` holds, in order (as many as Coding's `PROGRESS_FEATURES`)."""

EXTRA_NAMES = (
    "overlap_current",  # hashed text . current observation
    "overlap_seen",  # hashed text . everything observed
    "taken",  # times taken /3, at most 1
    "taken_before",
    "is_last",  # the action taken last turn
    "finishes",  # ends the episode (finish / submit)
    "same_verb_as_last",
    "retry_of_failed",  # the last action failed and this is that action again
    "failed_before",  # this action's call failed earlier (a tool error, not a fault)
    "faulted_before",  # this action hit an injected fault earlier
    "stale_before",  # this action met a state mismatch earlier
    "verified_before",  # this action was a verification (re-read of a written record) earlier
    "verb_wrote",  # a call with this verb changed task state earlier
    "mentioned_share",  # share of its argument words seen in the observations (exact)
    "mentioned_any",
    "in_instruction",  # one of its argument words is in the opening observation
    "n_args",  # /3, at most 1
    "unseen_share",  # share of its argument words no observation held (a computed text)
    "parsed",  # the family grammar's call shape parsed it
)
"""Per-candidate extras of `FamilyMemory.encode`, in order (as many as Coding's `CANDIDATE_EXTRAS`)."""

assert len(BUDGET_NAMES) == BUDGET_FEATURES and len(PROGRESS_NAMES) == PROGRESS_FEATURES
assert len(EXTRA_NAMES) == CANDIDATE_EXTRAS

_SUBMIT = ("finish", "submit")
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@:/-]*")
_ELEMENT = re.compile(r"^\s*\[(\d+)\]\s+(\S+)\s*(?:'([^']*)'|\"([^\"]*)\")?", re.M)
"""A page element line as the web kit renders it: ``[12] button 'Submit'``."""


class ParsedCandidate:
    """A menu action as the shared grammar reads it: verb, argument names and values, parsed or not."""

    __slots__ = ("verb", "names", "values", "parsed")

    def __init__(self, verb: str, names: tuple[str, ...], values: tuple[str, ...], parsed: bool) -> None:
        self.verb, self.names, self.values, self.parsed = verb, names, values, parsed


@lru_cache(maxsize=65_536)
def parse_candidate(action: str) -> ParsedCandidate:
    """The verb, argument names and values of ``action`` (function-call or JSON form); an action
    outside the grammar keeps its first word as the verb."""
    try:
        call = parse_action(action)
    except (GrammarError, RecursionError, ValueError):
        word = action.strip().split(None, 1)[0] if action.strip() else ""
        return ParsedCandidate(word.split("(", 1)[0], (), (), False)
    names = tuple(call.args) + tuple(f"_{i}" for i in range(len(call.positional)))
    values = tuple(str(v) for v in call.args.values()) + tuple(str(v) for v in call.positional)
    return ParsedCandidate(call.name, names, values, True)


def _kind(name: str) -> str:
    """The kind of record an argument names: ``order_id`` -> ``order``."""
    return name[:-3] if name.endswith("_id") else ""


def structure_features(action: str, elements: Mapping[str, tuple[str, str]], dim: int) -> np.ndarray:
    """Hashed structure tokens of a candidate: its verb, ``verb.arg`` names, the record kinds its ids
    name, and for an element id of the current page, the element's role and name."""
    p = parse_candidate(action)
    tokens = [f"verb_{p.verb}"] + [f"arg_{p.verb}_{n}" for n in p.names]
    tokens += [f"kind_{_kind(n)}" for n in p.names if _kind(n)]
    for value in p.values[:1] if p.names[:1] == ("_0",) else ():  # an element id is the first positional
        if value in elements:
            role, name = elements[value]
            tokens += [f"role_{role}", f"{p.verb}_{role}", *(f"el_{w}" for w in _words(name))]
    return _structure(" ".join(tokens), dim)


@lru_cache(maxsize=65_536)
def _structure(tokens: str, dim: int) -> np.ndarray:
    vec = np.asarray(hash_tokens(tokens, dim), dtype=np.float32)
    vec.setflags(write=False)
    return vec


def slack_budget_features(
    turns_left: int | None, turns_used: int, min_turns: int | None, horizon: float = 32.0
) -> np.ndarray:
    """`BUDGET_NAMES`: turns left in the scales a policy thresholds on, and the slack over the task's
    ``min_turns`` (turns left minus the turns the reference still needs, at least one)."""
    if turns_left is None:
        return np.array([0, 0, 0, 0, 0, 0, 0, 0, 1.0], dtype=np.float32)
    left = float(max(int(turns_left), 0))
    need = max(int(min_turns or 1) - int(turns_used), 1)
    slack = left - need
    return np.array(
        [
            left / horizon,
            np.log1p(left) / 4.0,
            1.0 / max(left, 1.0),
            float(left <= 1),
            float(left <= 2),
            float(np.clip(slack / 8.0, -1.0, 1.0)),
            float(slack <= 0),
            float(slack <= 2),
            0.0,
        ],
        dtype=np.float32,
    )


class EventHistory:
    """The episode as public events tell it (`PROGRESS_NAMES`), and per action what became of it.

    Events read: ``verification``, ``mutation``, ``tool_call`` (ok / error), ``fault_injected``,
    ``state_mismatch``, ``action`` (``parsed_ok``). ``subtask`` events are never read.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.verdict: bool | None = None
        self.writes_since_check = 0
        self.turns = 0
        self.last_error = self.last_fault = self.last_mismatch = False
        self.last_kind = "none"
        self.faults = self.mismatches = self.tool_errors = self.reads = self.writes = 0
        self.open_failures: set[str] = set()  # tools whose last call failed
        self.failed: set[str] = set()  # actions whose call failed (not by a fault)
        self.faulted: set[str] = set()
        self.stale: set[str] = set()
        self.verified: set[str] = set()
        self.wrote_verbs: set[str] = set()
        self.last_action: str | None = None
        self.last_failed = False

    def update(self, action: str | None, events: Sequence[Mapping[str, Any]]) -> None:
        """Fold in one step: the action taken and the events its step emitted."""
        self.turns += 1
        kinds = [e.get("kind") for e in events]
        fault = "fault_injected" in kinds
        mismatch = "state_mismatch" in kinds
        wrote = "mutation" in kinds
        error = mismatch or any(
            (e.get("kind") == "tool_call" and not e.get("ok", True))
            or (e.get("kind") == "action" and not e.get("parsed_ok", True))
            for e in events
        )
        for e in events:
            kind = e.get("kind")
            if kind == "verification":
                self.verdict = bool(e.get("ok"))
                self.writes_since_check = 0
                if action is not None:
                    self.verified.add(action)
            elif kind == "mutation":
                self.writes_since_check += 1
                self.writes += 1
            elif kind == "tool_call":
                tool = str(e.get("name", ""))
                if e.get("ok", True):
                    self.open_failures.discard(tool)
                else:
                    self.tool_errors += 1
                    self.open_failures.add(tool)
        self.faults += int(fault)
        self.mismatches += int(mismatch)
        self.last_error, self.last_fault, self.last_mismatch = error, fault, mismatch
        if action is not None:
            verb = parse_candidate(action).verb
            if fault:
                self.faulted.add(action)
            elif error:
                self.failed.add(action)
            if mismatch:
                self.stale.add(action)
            if wrote:
                self.wrote_verbs.add(verb)
            elif not error and any(k == "tool_call" for k in kinds):
                self.reads += 1
            self.last_kind = "write" if wrote else "read" if not error and "tool_call" in kinds else "other"
        self.last_action, self.last_failed = action, error

    def features(self) -> np.ndarray:
        return np.array(
            [
                *check_features(self.verdict, self.writes_since_check, self.last_error),
                float(self.last_fault),
                float(self.faults > 0),
                float(self.last_mismatch),
                min(self.mismatches, 3) / 3.0,
                min(self.tool_errors, 3) / 3.0,
                float(bool(self.open_failures)),
                float(self.last_kind == "read"),
                float(self.last_kind == "write"),
                float(self.turns == 0),
                min(self.reads, 5) / 5.0,
                min(self.writes, 3) / 3.0,
            ],
            dtype=np.float32,
        )


class FamilyMemory(MemoryBase):
    """`EpisodeMemory`'s interface and output shapes for the families that share the call grammar.

    Call `reset` at episode start, `encode` at each decision point with its ``(obs, info)`` (it
    folds in the events of the step that led there), and `record` after each action.
    """

    def reset(self) -> None:
        super().reset()
        self._instruction: set[str] = set()
        self._elements: dict[str, tuple[str, str]] = {}
        self._min_turns: int | None = None
        self.history = EventHistory()

    def encode(self, obs: Any, info: Mapping[str, Any]) -> EncodedStep:
        """Features of the current decision point; also folds the new observation into memory."""
        if self._turns_used:
            self.history.update(self._last_action, info.get("events") or [])
        text = _text(obs)
        if "min_turns" in info:
            self._min_turns = int(info["min_turns"])
        words = set(_words(text))
        if not self._turns_used:
            self._instruction = words
        self._words |= words
        elements = _elements(text)
        if elements:  # a page view: its ids name the elements until the next view
            self._elements = elements
        current = text_features(text, self.dim)
        self._seen = self._seen + current
        seen = _unit(self._seen)
        observation = np.concatenate([current, seen, _unit(self._done)])
        budget = slack_budget_features(_turns_left(obs, info), self._turns_used, self._min_turns)
        actions = list(info.get("admissible_actions") or [])[: self.max_actions]
        if actions:
            texts = np.stack([text_features(a, self.dim) for a in actions])
            shapes = np.stack([structure_features(a, self._elements, self.dim) for a in actions])
            candidates = np.concatenate([texts, shapes], axis=1)
            extras = np.concatenate(
                [
                    np.stack([texts @ current, texts @ seen], axis=1),
                    np.array([self._extras(a) for a in actions], dtype=np.float32),
                ],
                axis=1,
            )
        else:
            candidates = np.zeros((0, 2 * self.dim), dtype=np.float32)
            extras = np.zeros((0, CANDIDATE_EXTRAS), dtype=np.float32)
        return EncodedStep(observation, budget, self.history.features(), candidates, extras.astype(np.float32), actions)

    def _extras(self, action: str) -> list[float]:
        """`EXTRA_NAMES` after the two overlaps."""
        h = self.history
        p = parse_candidate(action)
        words = {w for v in p.values for w in _words(v)}
        hit = len(words & self._words)
        last = parse_candidate(self._last_action).verb if self._last_action else None
        return [
            min(self._taken[action], 3) / 3.0,
            float(self._taken[action] > 0),
            float(action == self._last_action),
            float(p.verb in _SUBMIT),
            float(p.verb == last),
            float(h.last_failed and action == self._last_action),
            float(action in h.failed),
            float(action in h.faulted),
            float(action in h.stale),
            float(action in h.verified),
            float(p.verb in h.wrote_verbs),
            hit / len(words) if words else 0.0,
            float(hit > 0),
            float(bool(words & self._instruction)),
            min(len(p.names), 3) / 3.0,
            (len(words) - hit) / len(words) if words else 0.0,
            float(p.parsed),
        ]


def encoder_for(family: str) -> type[EpisodeMemory] | type[FamilyMemory]:
    """The encoder class of a family: `FamilyMemory` for `NEUTRAL_FAMILIES`, else Coding's `EpisodeMemory`."""
    return FamilyMemory if family in NEUTRAL_FAMILIES else EpisodeMemory


def family_of(env: Any) -> str:
    """The family of ``env``: any wrapper stack over an agentgym env, a family name (``tooluse``), or
    a registered id (``agentgym/ToolUse-v0``, ``agentgym/MiniWoB-click-button-v0``)."""
    if isinstance(env, str):
        return env.rsplit("/", 1)[-1].split("-", 1)[0].lower()
    return str(getattr(getattr(env, "unwrapped", env), "family", ""))


def episode_memory(env: Any, dim: int, max_actions: int) -> EpisodeMemory | FamilyMemory:
    """The encoder for ``env`` (as `family_of` takes it): the hook the trainer's collector and the
    evaluation agent call instead of ``EpisodeMemory(dim, max_actions)``."""
    return encoder_for(family_of(env))(dim, max_actions)


def features_tag(env: Any) -> int | str:
    """What a checkpoint trained on ``env`` (as `family_of` takes it) records as its ``features``:
    Coding's `FEATURES_VERSION`, or ``"family-v<N>"`` for the families `FamilyMemory` encodes. The
    arrays have one shape for both, so only this tag keeps a policy off inputs it never learned."""
    return f"family-v{FAMILY_FEATURES_VERSION}" if encoder_for(family_of(env)) is FamilyMemory else FEATURES_VERSION


def _text(obs: Any) -> str:
    return str(obs.get("text", "")) if isinstance(obs, Mapping) else str(obs)


def _turns_left(obs: Any, info: Mapping[str, Any]) -> int | None:
    if isinstance(obs, Mapping) and "turns_left" in obs:
        return int(np.asarray(obs["turns_left"]).reshape(-1)[0])
    if "turns_left" in info:
        return int(info["turns_left"])
    return None


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text) if len(w) > 1]


def _elements(text: str) -> dict[str, tuple[str, str]]:
    return {m.group(1): (m.group(2), m.group(3) or m.group(4) or "") for m in _ELEMENT.finditer(text)}


def _unit(vec: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vec))
    return (vec / norm).astype(np.float32) if norm > 0 else vec.astype(np.float32)
