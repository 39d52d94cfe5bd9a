"""Numeric views of text envs, for Stable-Baselines3 and small torch policies.

- `NumericView(env, max_actions, dim)`: ``Discrete`` actions that index the admissible-action
  menu, and a flat ``Dict`` of ``Box`` / ``MultiBinary`` observations built with
  `agentgym.features.hash_tokens`.
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import RecordConstructorArgs

from agentgym.core import MAX_MENU
from agentgym.errors import ConfigError
from agentgym.features import hash_tokens

__all__ = ["NumericView"]

_PASSED_THROUGH = ("turns_left", "turns_left_frac")


class NumericView(gym.Wrapper, RecordConstructorArgs):
    """Action ``i`` sends the i-th entry of ``info["admissible_actions"]``; observations are numbers.

    Observation (a flat Dict, what SB3's ``MultiInputPolicy`` accepts):

    - ``text``: hashed features of the observation text, shape ``(dim,)``;
    - ``actions``: hashed features of each menu entry, flattened row-major to
      ``(max_actions * dim,)`` (SB3 wants 1-D vectors; ``reshape(max_actions, dim)`` restores
      one row per entry), zero rows past the menu;
    - ``action_mask``: ``MultiBinary(max_actions)``, 1 where an index names a menu entry;
    - ``turns_left`` and ``turns_left_frac`` when a budget wrapper below provides them.

    Menus longer than ``max_actions`` are cut to their first ``max_actions`` entries, except that
    entries a wrapper below added (``info["wrapper_actions"]``: `BudgetExtension`'s ``extend``)
    are kept, last, in place of the family's final ones. An index
    past the menu is survived: it is sent as an action the family grammar rejects, so it costs a
    turn like any invalid action. The mask is also in ``info["action_mask"]`` and returned by
    `action_masks` (the method name sb3-contrib's ``MaskablePPO`` looks up).

    >>> from agentgym.wrappers import NumericView, TurnLimit
    >>> from agentgym.testing.kv_env import ScriptedAgentEnv
    >>> env = NumericView(TurnLimit(ScriptedAgentEnv(), 8), max_actions=16, dim=64)
    >>> obs, info = env.reset(seed=0)
    >>> obs["text"].shape, obs["actions"].shape, int(obs["action_mask"].sum()), env.action_space
    ((64,), (1024,), 11, Discrete(16))
    >>> obs, reward, terminated, truncated, info = env.step(15)  # past the menu: costs a turn
    >>> int(obs["turns_left"][0]), terminated
    (7, False)
    """

    def __init__(self, env: gym.Env, max_actions: int = MAX_MENU, dim: int = 256) -> None:
        RecordConstructorArgs.__init__(self, max_actions=max_actions, dim=dim)
        gym.Wrapper.__init__(self, env)
        for name, value in (("max_actions", max_actions), ("dim", dim)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"NumericView {name}={value!r}; expected an int >= 1")
        inner = env.observation_space
        if not isinstance(inner, spaces.Dict) or "text" not in inner.spaces:
            raise ConfigError(
                f"NumericView needs a Dict observation with a 'text' field; got {inner!r}. "
                "Put NumericView outermost, above every wrapper that changes observations."
            )
        self.max_actions, self.dim = max_actions, dim
        fields: dict[str, spaces.Space] = {
            "text": spaces.Box(-1.0, 1.0, shape=(dim,), dtype=np.float32),
            "actions": spaces.Box(-1.0, 1.0, shape=(max_actions * dim,), dtype=np.float32),
            "action_mask": spaces.MultiBinary(max_actions),
        }
        fields.update({k: inner.spaces[k] for k in _PASSED_THROUGH if k in inner.spaces})
        self.observation_space = spaces.Dict(fields)
        self.action_space = spaces.Discrete(max_actions)
        self.menu: list[str] = []
        self._menu_rows = np.zeros((max_actions, dim), dtype=np.float32)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        return self._numeric(obs, info), info

    def step(self, action: Any):
        try:
            index = int(np.asarray(action).reshape(-1)[0])
        except (TypeError, ValueError, IndexError, OverflowError):
            index = -1  # not an index at all: sent as an invalid action like any other
        if 0 <= index < len(self.menu):
            text = self.menu[index]
        else:
            text = f"<no menu entry {index}: the menu has {len(self.menu)}>"
        obs, reward, terminated, truncated, info = self.env.step(text)
        return self._numeric(obs, info), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Which indices name a menu entry now (bool, shape ``(max_actions,)``)."""
        mask = np.zeros(self.max_actions, dtype=bool)
        mask[: len(self.menu)] = True
        return mask

    def _numeric(self, obs: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        menu = [str(a) for a in (info.get("admissible_actions") or [])]
        if len(menu) > self.max_actions:
            kept = [a for a in dict.fromkeys(map(str, info.get("wrapper_actions") or ())) if a in menu]
            kept = kept[: self.max_actions]
            menu = [a for a in menu if a not in kept][: self.max_actions - len(kept)] + kept
        if menu != self.menu or not menu:  # menus often repeat from step to step
            self._menu_rows = np.zeros((self.max_actions, self.dim), dtype=np.float32)
            for i, entry in enumerate(menu):
                self._menu_rows[i] = hash_tokens(entry, self.dim)
        self.menu = menu
        actions = self._menu_rows.copy()
        mask = self.action_masks()
        info["action_mask"] = mask
        out = {
            "text": hash_tokens(str(obs.get("text", "")), self.dim),
            "actions": actions.reshape(-1),
            "action_mask": mask.astype(np.int8),
        }
        out.update({k: obs[k] for k in _PASSED_THROUGH if k in cast(spaces.Dict, self.observation_space).spaces})
        return out
