"""What the torch policy sees: hashed text features of the episode so far, the budget, and the menu.

`EpisodeMemory` follows one episode and turns ``(obs, info)`` into fixed-size arrays:

- the observation: hashed tokens of the current observation text, of everything observed so
  far in the episode, and of the actions taken so far (``3 * dim`` floats);
- the budget: turns left and turns used, in a few scales the policy can threshold on;
- the progress of the episode, from public events only (`PROGRESS_NAMES`): the verdict of the
  last check (passed / failed / none), whether an edit is unverified, the last action's kind
  and whether it failed. ``subtask`` events are never read: they reveal the answer;
- each candidate action of ``info["admissible_actions"]``: its hashed tokens; for a unified-diff
  patch also what it *changes* (hashed tokens of the added lines minus those of the removed
  lines, and how many lines it adds or drops), since a bag of the whole diff cannot tell a fix
  from its inverse; plus how it relates to the episode (token overlap with the current and past
  observations, how often it was already taken, whether it was the last action).

Training rollouts and the evaluation agent both go through this class, so the policy sees
the same features in both.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from agentgym.features import hash_tokens

__all__ = [
    "FEATURES_VERSION",
    "BUDGET_FEATURES",
    "PROGRESS_FEATURES",
    "PROGRESS_NAMES",
    "CANDIDATE_KINDS",
    "ProgressTracker",
    "HistoryTracker",
    "check_features",
    "HISTORY_NAMES",
    "MENTION_NAMES",
    "patch_key",
    "CANDIDATE_EXTRAS",
    "EncodedStep",
    "MemoryBase",
    "EpisodeMemory",
    "text_features",
    "change_features",
    "MenuFeatures",
    "menu_features",
    "budget_features",
    "stack_steps",
]

FEATURES_VERSION = 6
"""Bumped when the encoding or the policy's inputs change; checkpoints record it (2: patch change
features; 3: the budget scores each candidate directly; 4: progress from public events, and the
candidate's kind; 5: per-candidate history: applied, applied now, its test failed or passed,
reverted; 6: exact word overlap of a candidate with the observations, `MENTION_NAMES`)."""

BUDGET_FEATURES = 9
"""Length of `budget_features`."""

CANDIDATE_KINDS = ("test", "revert", "submit", "view")
"""Action kinds flagged per candidate (a patch has its own flag among the first seven extras)."""

HISTORY_NAMES = (
    "applied_before",  # this change was applied earlier in the episode
    "applied_now",  # this change is applied now (on the edit stack)
    "test_failed",  # a visible test failed while this change was applied
    "test_passed",  # a visible test passed while this change was applied
    "reverted",  # this change was applied and then undone by `revert`
    "undoes_failed",  # (revert) the edit it would undo was applied when a test failed
)
"""Per-candidate history (`HistoryTracker.candidate`), from the agent's own actions and public events."""

MENTION_NAMES = ("mentioned_share", "mentioned_any")
"""Exact (unhashed) word overlap of a candidate with the episode's observations (`EpisodeMemory._mentioned`):
hashed overlaps of a two-word action with a long observation drown in collisions (the budget env's
clue was the top-scored patch in only 10-19 of 50 episodes at dim 64-512)."""

CANDIDATE_EXTRAS = 7 + len(CANDIDATE_KINDS) + len(HISTORY_NAMES) + len(MENTION_NAMES)
"""Per-candidate features besides the hashed text and change (see `EpisodeMemory.encode`)."""

_LAST_KINDS = ("none", "view", "edit", "test", "revert", "other")
PROGRESS_NAMES = (
    "verdict_passed",  # the last check passed and nothing was edited since
    "verdict_failed",  # the last check failed and nothing was edited since
    "never_checked",  # no check in this episode yet
    "unverified_edit",  # an edit was made after the last check (or with no check yet)
    "last_check_failed",  # the last check failed, edits since or not
    "edits_since_check",  # edits since the last check, /3, at most 1
    "last_error",  # the last action failed (a tool error, a state mismatch, a parse error)
    *(f"last_action_{k}" for k in _LAST_KINDS),
    # the edit stack (`HistoryTracker`)
    "edits_applied",  # edits applied now (on the stack), /3, at most 1
    "clean_after_tries",  # nothing applied now, but a change was applied earlier (after a revert)
    "top_failed",  # the last applied edit was applied when a test failed
    "changes_failed",  # distinct changes a failing test saw, /3, at most 1
    "changes_tried",  # distinct changes applied in the episode, /5, at most 1
)
"""What `ProgressTracker.features` (then `HistoryTracker.features`) hold, in order."""

PROGRESS_FEATURES = len(PROGRESS_NAMES)


def _verb(action: str) -> str:
    return action.split(None, 1)[0] if action.strip() else ""


def _kind(action: str) -> str:
    word = _verb(action)
    return {"patch": "edit", "replace": "edit", "view": "view", "test": "test", "revert": "revert"}.get(word, "other")


class ProgressTracker:
    """The state of verification and editing in an episode, read from public events only.

    Events used: ``verification`` (``ok``: what the check said), ``mutation`` (an edit),
    ``tool_call`` with ``ok=False``, ``state_mismatch`` and ``action`` with ``parsed_ok=False``
    (the last action failed). ``subtask`` events are ignored on purpose: they say which bug a
    patch fixed, which an agent cannot observe.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.verdict: bool | None = None  # the last check's result
        self.edits_since_check = 0
        self.last_kind = "none"
        self.last_error = False

    def update(self, action: str | None, events: Sequence[Mapping[str, Any]]) -> None:
        """Fold in one step: the action taken and the events its step emitted."""
        self.last_error = False
        for e in events:
            kind = e.get("kind")
            if kind == "verification":
                self.verdict = bool(e.get("ok"))
                self.edits_since_check = 0
            elif kind == "mutation":
                self.edits_since_check += 1
            elif (
                kind == "state_mismatch"
                or (kind == "tool_call" and not e.get("ok", True))
                or (kind == "action" and not e.get("parsed_ok", True))
            ):
                self.last_error = True
        if action is not None:
            self.last_kind = _kind(action)

    def features(self) -> np.ndarray:
        last = np.array([float(self.last_kind == k) for k in _LAST_KINDS], dtype=np.float32)
        head = np.array(check_features(self.verdict, self.edits_since_check, self.last_error), dtype=np.float32)
        return np.concatenate([head, last])


def check_features(verdict: bool | None, changes_since_check: int, last_error: bool) -> list[float]:
    """What recovery needs to see of the last check (every family's history uses these 7): its verdict, whether
    the state changed since, and whether the last action failed."""
    unchanged = changes_since_check == 0
    return [
        float(verdict is True and unchanged),
        float(verdict is False and unchanged),
        float(verdict is None),
        float(changes_since_check > 0),
        float(verdict is False),
        min(changes_since_check, 3) / 3.0,
        float(last_error),
    ]


class HistoryTracker:
    """Which changes the agent applied, tested and undid, from its own actions and public events only.

    The edit stack mirrors the env's undo history as the agent can know it: an action whose
    step emitted a ``mutation`` event pushes its change (`patch_key`; None for a free-text
    edit), a ``revert`` with a ``mutation`` pops one. A ``verification`` event marks every
    change on the stack as tested, failed or passed. ``subtask`` events, hidden tests and the
    env's private state are never read.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.stack: list[tuple | None] = []
        self.stack_failed: list[bool] = []  # per stack entry: a test failed while it was applied
        self.applied: set[tuple] = set()
        self.failed: set[tuple] = set()
        self.passed: set[tuple] = set()
        self.reverted: set[tuple] = set()

    def update(self, action: str | None, events: Sequence[Mapping[str, Any]]) -> None:
        if action is None:
            return
        mutated = any(e.get("kind") == "mutation" for e in events)
        verb = _verb(action)
        if mutated and verb == "revert":
            if self.stack:
                key = self.stack.pop()
                self.stack_failed.pop()
                if key is not None:
                    self.reverted.add(key)
        elif mutated:
            key = patch_key(action)
            self.stack.append(key)
            self.stack_failed.append(False)
            if key is not None:
                self.applied.add(key)
        for e in events:
            if e.get("kind") == "verification":
                ok = bool(e.get("ok"))
                for i, key in enumerate(self.stack):
                    if not ok:
                        self.stack_failed[i] = True
                    if key is not None:
                        (self.passed if ok else self.failed).add(key)

    def features(self) -> np.ndarray:
        return np.array(
            [
                min(len(self.stack), 3) / 3.0,
                float(not self.stack and bool(self.applied)),
                float(bool(self.stack_failed) and self.stack_failed[-1]),
                min(len(self.failed), 3) / 3.0,
                min(len(self.applied), 5) / 5.0,
            ],
            dtype=np.float32,
        )

    def candidate(self, action: str) -> list[float]:
        """`HISTORY_NAMES` for one menu entry."""
        return self.candidate_row(patch_key(action), _verb(action) == "revert")

    def candidate_row(self, key: tuple | None, revert: bool) -> list[float]:
        """`candidate` from the entry's `patch_key` and whether it is ``revert`` (`MenuFeatures` holds both)."""
        if revert:
            return [0.0] * 5 + [float(bool(self.stack_failed) and self.stack_failed[-1])]
        if key is None:
            return [0.0] * len(HISTORY_NAMES)
        return [
            float(key in self.applied),
            float(key in self.stack),
            float(key in self.failed),
            float(key in self.passed),
            float(key in self.reverted),
            0.0,
        ]


@lru_cache(maxsize=65_536)
def _cached_features(text: str, dim: int) -> np.ndarray:
    vec = np.asarray(hash_tokens(text, dim), dtype=np.float32)
    vec.setflags(write=False)
    return vec


def text_features(text: str, dim: int) -> np.ndarray:
    """Hashed word and bigram tokens of ``text`` (L2-normalised), shared with `NumericView`.

    Menu texts repeat across steps and episodes, so results are cached (read-only arrays).
    """
    return _cached_features(text, dim)


@lru_cache(maxsize=65_536)
def _cached_change(action: str, dim: int) -> tuple[np.ndarray, float, float]:
    added, removed = [], []
    if action.startswith("patch\n"):
        for line in action.splitlines()[1:]:
            if line.startswith("+") and not line.startswith("+++"):
                added.append(line[1:])
            elif line.startswith("-") and not line.startswith("---"):
                removed.append(line[1:])
    if not added and not removed:
        vec = np.zeros(dim, dtype=np.float32)
        vec.setflags(write=False)
        return vec, 0.0, 0.0
    vec = (hash_tokens("\n".join(added), dim) - hash_tokens("\n".join(removed), dim)).astype(np.float32)
    vec.setflags(write=False)
    return vec, 1.0, float(np.clip(len(added) - len(removed), -3, 3)) / 3.0


@lru_cache(maxsize=65_536)
def patch_key(action: str) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
    """What identifies a patch across menus: its files and the lines it removes and adds.

    A menu patch's text carries line numbers and context, which change when another patch was
    applied nearby; the change itself does not. A one-line ``patch NAME`` (the budget env's menu)
    is its own key; None for an action that is not a patch.
    """
    if not action.startswith("patch\n"):
        return (action, (), ()) if action.startswith("patch ") and "\n" not in action else None
    files, added, removed = [], [], []
    for line in action.splitlines()[1:]:
        if line.startswith("+++ "):
            files.append(line[4:].strip().removeprefix("b/"))
        elif line.startswith("--- "):
            continue
        elif line.startswith("+"):
            added.append(line[1:])
        elif line.startswith("-"):
            removed.append(line[1:])
    return (",".join(files), tuple(removed), tuple(added))


def change_features(action: str, dim: int) -> tuple[np.ndarray, float, float]:
    """What a patch action changes: (added-minus-removed hashed tokens, is-a-patch, line balance).

    The sign matters: a true fix removes the odd line a bug put in and adds back the natural
    one, a decoy does the opposite, and both have nearly the same bag of tokens. Non-patch
    actions give zeros. Cached, read-only.
    """
    return _cached_change(action, dim)


_STATIC_END = 7 + len(CANDIDATE_KINDS)
"""Candidate extras ``[5, _STATIC_END)`` depend on the action text alone (`MenuFeatures.static_extras`)."""


@dataclass(frozen=True)
class MenuFeatures:
    """What a menu's candidates are by themselves, whatever the episode (`menu_features`; read-only arrays)."""

    texts: np.ndarray  # (n_actions, dim): each candidate's hashed text
    candidates: np.ndarray  # (n_actions, 2 * dim): the hashed text, then the change a patch makes
    static_extras: np.ndarray  # (n_actions, _STATIC_END - 5): is a patch, line balance, a flag per CANDIDATE_KINDS
    keys: tuple[tuple | None, ...]  # each candidate's `patch_key`
    reverts: tuple[bool, ...]  # each candidate: is it ``revert``
    words: tuple[frozenset[str], ...]  # each candidate's words (`_action_words`)


@lru_cache(maxsize=1024)
def menu_features(actions: tuple[str, ...], dim: int) -> MenuFeatures:
    """`MenuFeatures` of a menu, built once per distinct menu: a menu stays the same over the steps
    that change no file (test, view, submit) and comes back whenever a task's state does, so most
    decision points look it up (about 30 KB a menu at dim 128)."""
    texts = np.stack([text_features(a, dim) for a in actions])
    changes = [change_features(a, dim) for a in actions]
    candidates = np.concatenate([texts, np.stack([c[0] for c in changes])], axis=1)
    static = np.array(
        [[c[1], c[2], *(float(_verb(a) == k) for k in CANDIDATE_KINDS)] for a, c in zip(actions, changes)],
        dtype=np.float32,
    )
    for array in (texts, candidates, static):
        array.setflags(write=False)
    return MenuFeatures(
        texts,
        candidates,
        static,
        tuple(patch_key(a) for a in actions),
        tuple(_verb(a) == "revert" for a in actions),
        tuple(_action_words(a) for a in actions),
    )


def budget_features(turns_left: int | None, turns_used: int, horizon: float = 32.0) -> np.ndarray:
    """Turns left and used in the scales a policy needs to decide when to commit.

    ``turns_left=None`` (no budget wrapper) is encoded as a flag with the other left-features
    zero, so a policy is never told a budget that does not exist.
    """
    used = float(turns_used)
    if turns_left is None:
        return np.array([0, 0, 0, 0, 0, 0, used / horizon, np.log1p(used) / 4.0, 1.0], dtype=np.float32)
    left = float(max(int(turns_left), 0))
    return np.array(
        [
            left / horizon,
            np.log1p(left) / 4.0,
            1.0 / max(left, 1.0),
            float(left <= 1),
            float(left <= 2),
            float(left <= 4),
            used / horizon,
            np.log1p(used) / 4.0,
            0.0,
        ],
        dtype=np.float32,
    )


def _turns_left(obs: Any, info: Mapping[str, Any]) -> int | None:
    if isinstance(obs, Mapping) and "turns_left" in obs:
        return int(np.asarray(obs["turns_left"]).reshape(-1)[0])
    if "turns_left" in info:
        return int(info["turns_left"])
    return None


def _text(obs: Any) -> str:
    if isinstance(obs, Mapping):
        return str(obs.get("text", ""))
    return str(obs)


@dataclass
class EncodedStep:
    """One decision point as arrays; ``actions`` are the menu texts the rows of ``candidates`` stand for."""

    observation: np.ndarray  # (3 * dim,)
    budget: np.ndarray  # (BUDGET_FEATURES,)
    progress: np.ndarray  # (PROGRESS_FEATURES,)
    candidates: np.ndarray  # (n_actions, 2 * dim): hashed text, then the change a patch makes
    candidate_extras: np.ndarray  # (n_actions, CANDIDATE_EXTRAS)
    actions: list[str]


class MemoryBase:
    """What every episode encoder keeps: the observations and actions seen so far, as hashed sums,
    words and counts. Subclasses add their own trackers in `reset` and write `encode`."""

    def __init__(self, dim: int, max_actions: int) -> None:
        self.dim = dim
        self.max_actions = max_actions
        self.reset()

    def reset(self) -> None:
        self._seen = np.zeros(self.dim, dtype=np.float32)
        self._words: set[str] = set()
        self._done = np.zeros(self.dim, dtype=np.float32)
        self._taken: Counter[str] = Counter()
        self._last_action: str | None = None
        self._turns_used = 0

    def record(self, action: str) -> None:
        """Remember the action the agent took."""
        self._done = self._done + text_features(action, self.dim)
        self._taken[action] += 1
        self._last_action = action
        self._turns_used += 1


class EpisodeMemory(MemoryBase):
    """Running features of one episode; call `reset` at episode start and `record` after each action.

    `encode` is called once per decision point with that point's ``(obs, info)``; it folds the
    observation, and the events of the step that led there (``info["events"]``), into memory.
    """

    def reset(self) -> None:
        super().reset()
        self.progress = ProgressTracker()
        self.history = HistoryTracker()

    def encode(self, obs: Any, info: Mapping[str, Any]) -> EncodedStep:
        """Features of the current decision point; also folds the new observation into memory."""
        if self._turns_used:
            events = info.get("events") or []
            self.progress.update(self._last_action, events)
            self.history.update(self._last_action, events)
        text = _text(obs)
        current = text_features(text, self.dim)
        self._seen = self._seen + current
        self._words |= _words(text)
        seen = _unit(self._seen)
        observation = np.concatenate([current, seen, _unit(self._done)])
        budget = budget_features(_turns_left(obs, info), self._turns_used)
        actions = list(info.get("admissible_actions") or [])[: self.max_actions]
        if actions:
            menu = menu_features(tuple(actions), self.dim)
            candidates = menu.candidates
            extras = np.empty((len(actions), CANDIDATE_EXTRAS), dtype=np.float32)
            extras[:, 0] = menu.texts @ current
            extras[:, 1] = menu.texts @ seen
            extras[:, 5:_STATIC_END] = menu.static_extras
            extras[:, 2:5], extras[:, _STATIC_END:] = self._episode_relations(actions, menu)
        else:
            candidates = np.zeros((0, 2 * self.dim), dtype=np.float32)
            extras = np.zeros((0, CANDIDATE_EXTRAS), dtype=np.float32)
        progress = np.concatenate([self.progress.features(), self.history.features()])
        return EncodedStep(observation, budget, progress, candidates, extras, actions)

    def _episode_relations(self, actions: list[str], menu: MenuFeatures) -> tuple[list[list[float]], list[list[float]]]:
        """Per candidate: how often it was taken (/3, at most 1), whether it was, whether it was the last
        action; then its `HISTORY_NAMES` and `MENTION_NAMES` (one pass over the menu)."""
        taken_rows, history_rows = [], []
        for action, key, revert, words in zip(actions, menu.keys, menu.reverts, menu.words):
            taken = self._taken[action]
            taken_rows.append([min(taken, 3) / 3.0, float(taken > 0), float(action == self._last_action)])
            history_rows.append(self.history.candidate_row(key, revert) + list(self._overlap(words)))
        return taken_rows, history_rows

    def _mentioned(self, action: str) -> tuple[float, float]:
        """Exact word overlap with the episode's observations (no hashing, so no collisions): the
        share of the candidate's words, and whether any is a word the observations contained.
        Words are identifiers of 3+ characters after the verb (for a patch: its changed lines)."""
        return self._overlap(_action_words(action))

    def _overlap(self, words: frozenset[str]) -> tuple[float, float]:
        if not words:
            return 0.0, 0.0
        hit = len(words & self._words)
        return hit / len(words), float(hit > 0)


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


@lru_cache(maxsize=16_384)
def _words(text: str) -> frozenset[str]:
    """The lower-cased identifiers of 3+ characters in ``text`` (cached: observations repeat across episodes)."""
    return frozenset(w.lower() for w in _WORD.findall(text))


@lru_cache(maxsize=65_536)
def _action_words(action: str) -> frozenset[str]:
    """The words an action names: after the verb; for a unified-diff patch, of its changed lines."""
    if action.startswith("patch\n"):
        lines = [ln[1:] for ln in action.splitlines()[1:] if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
        return frozenset(_words("\n".join(lines)))
    return frozenset(_words(action.split(None, 1)[1])) if len(action.split(None, 1)) > 1 else frozenset()


def _unit(vec: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vec))
    return (vec / norm).astype(np.float32) if norm > 0 else vec.astype(np.float32)


def stack_steps(steps: Sequence[EncodedStep], max_actions: int) -> dict[str, np.ndarray]:
    """Pad a list of steps into batch arrays with a candidate mask (for the policy's forward).

    Menus are padded to the longest menu of the batch (at most ``max_actions``), not always to
    ``max_actions``: padded slots are masked out, so only the work changes (menus run 10-20
    entries; the candidate side is most of a forward and backward).
    """
    n = len(steps)
    dim = steps[0].candidates.shape[1] if steps else 0
    width = min(max_actions, max([len(s.actions) for s in steps] + [1]))
    out = {
        "observation": np.stack([s.observation for s in steps]).astype(np.float32),
        "budget": np.stack([s.budget for s in steps]).astype(np.float32),
        "progress": np.stack([s.progress for s in steps]).astype(np.float32),
        "candidates": np.zeros((n, width, dim), dtype=np.float32),
        "candidate_extras": np.zeros((n, width, CANDIDATE_EXTRAS), dtype=np.float32),
        "mask": np.zeros((n, width), dtype=bool),
    }
    for i, s in enumerate(steps):
        k = len(s.actions)
        out["candidates"][i, :k] = s.candidates
        out["candidate_extras"][i, :k] = s.candidate_extras
        out["mask"][i, : max(k, 1)] = True  # an empty menu keeps one (zero) slot so the softmax stays finite
    return out
