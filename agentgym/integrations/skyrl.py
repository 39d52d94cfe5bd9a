"""SkyRL: every agentgym id as a skyrl-gym ``BaseTextEnv``, the budget read from the row's own key.

    import agentgym.integrations.skyrl               # registers each agentgym id with skyrl_gym
    env = skyrl_gym.make("agentgym/ToolUse-v0", env_config={"kwargs": {"split": "train"}},
                         extras={"seed": 7, "task_id": "...", "budget": 6, "faults": "tool_error@turn=1"})
    prompt, meta = env.init([{"role": "user", "content": "Solve the task."}])
    out = env.step(reply)                             # observations, reward, done, metadata

- ``extras`` (a dataset row's extra columns): ``seed``, ``task_id``, ``budget`` (this episode's T)
  and ``faults``. SkyRL's generator overwrites ``extras["max_turns"]`` with its global
  ``generator.max_turns``, so the budget has its own key; set ``max_turns`` to the largest T.
- ``env_config``: ``remote`` (an ``agentgym serve`` URL) and ``kwargs`` (`agentgym.make`'s).
- The action is the model's reply, in the family's grammar (a tool call as
  ``{"tool": NAME, "args": {...}}`` or ``NAME(arg=...)``; Coding's commands); the observation comes
  back as one user message with the turns left; ``done`` is terminated or truncated; ``metadata``
  is the env's info with the episode summary. After the end a step answers `EPISODE_OVER`.
- Infrastructure failures (a sandbox or server that died; never an agent's own crash) raise, typed:
  ``init`` tries a failed reset again on a fresh env (``env_config``'s ``reset_attempts``,
  ``reset_backoff``) and then raises `agentgym.errors.ResetFailed`; ``step`` raises the
  `agentgym.errors.InfrastructureError` it met, with a note saying so. SkyRL's generator stops
  the training step on any rollout's exception unless told to drop that rollout
  (``generator.skip_failed_rollouts=true``: SkyRL issue #1613, not in SkyRL 0.3.0): a reward of 0
  returned instead would train the policy on the sandbox's death. ``get_metrics()`` counts them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentgym.errors import InfrastructureError
from agentgym.integrations import require
from agentgym.integrations.episode import EPISODE_OVER, Episode
from agentgym.registration import ENV_IDS

_base = require("skyrl_gym.envs.base_text_env", "agentgym.integrations.skyrl")
_skyrl_gym = require("skyrl_gym", "agentgym.integrations.skyrl")
BaseTextEnv = _base.BaseTextEnv
BaseTextEnvStepOutput = _base.BaseTextEnvStepOutput

__all__ = ["AgentGymTextEnv", "register_envs", "EPISODE_OVER", "ENTRY_POINT", "SKIP_NOTE"]

ENTRY_POINT = "agentgym.integrations.skyrl:AgentGymTextEnv"

SKIP_NOTE = (
    "agentgym: an infrastructure failure (the sandbox or server died), not the policy's; drop this rollout "
    "with SkyRL's generator.skip_failed_rollouts=true where your SkyRL has it, never score it as 0"
)
"""The note an `InfrastructureError` raised from ``init`` or ``step`` carries."""


def _get(config: Any, key: str, default: Any = None) -> Any:
    """A key of a dict or an OmegaConf ``DictConfig`` (what SkyRL passes as ``env_config``)."""
    if config is None:
        return default
    getter = getattr(config, "get", None)
    return getter(key, default) if getter is not None else default


class AgentGymTextEnv(BaseTextEnv):  # type: ignore[misc, valid-type]
    """One agentgym episode as a SkyRL text env (``init`` resets, ``step`` takes the model's reply)."""

    def __init__(
        self, env_config: Any = None, extras: Mapping[str, Any] | None = None, *, env_id: str | None = None
    ) -> None:
        super().__init__()
        env_id = env_id or _get(env_config, "env_id")
        if not env_id:
            raise ValueError("AgentGymTextEnv needs env_id (registered per id by agentgym.integrations.skyrl)")
        kwargs = dict(_get(env_config, "kwargs", None) or {})
        self.episode = Episode(
            str(env_id),
            remote=_get(env_config, "remote"),
            reset_attempts=int(_get(env_config, "reset_attempts", 3)),
            reset_backoff=float(_get(env_config, "reset_backoff", 1.0)),
            **kwargs,
        )
        self.extras = dict(extras or {})
        budget = self.extras.get("budget")
        self.max_turns = int(budget) if budget is not None else int(self.extras.get("max_turns", 1))

    def init(self, prompt: list[dict[str, str]]) -> tuple[list[dict[str, str]], dict[str, Any]]:
        """Reset from ``extras``; the first observation is appended to the prompt's last user message."""
        try:
            text = self.episode.reset(
                seed=self.extras.get("seed"),
                task_id=self.extras.get("task_id"),
                budget=self.extras.get("budget"),
                faults=self.extras.get("faults"),
            )
        except InfrastructureError as exc:
            exc.add_note(SKIP_NOTE)
            raise
        self.turns = 0
        if self.episode.info.get("budget") is not None:
            self.max_turns = int(self.episode.info["budget"])
        prompt = [dict(m) for m in prompt]
        if prompt and prompt[-1].get("role") == "user":
            prompt[-1]["content"] = f"{prompt[-1].get('content', '')}\n\n{text}".lstrip()
        else:
            prompt.append({"role": "user", "content": text})
        return prompt, {"task_id": self.episode.info.get("task_id"), "budget": self.episode.info.get("budget")}

    def step(self, action: str) -> Any:
        if self.episode.done:
            text = self.episode.step(action)  # counted, changes nothing
            return BaseTextEnvStepOutput(
                observations=[{"role": "user", "content": text}],
                reward=0.0,
                done=True,
                metadata={"episode": self.episode.summary()},
            )
        reward_before = self.episode.reward
        try:
            text = self.episode.step(action)
        except InfrastructureError as exc:  # the episode recorded it and closed its env
            exc.add_note(SKIP_NOTE)
            raise
        self.turns += 1
        metadata = {**self.episode.info, "episode": self.episode.summary()}
        return BaseTextEnvStepOutput(
            observations=[{"role": "user", "content": text}],
            reward=self.episode.reward - reward_before,
            done=self.episode.done,
            metadata=metadata,
        )

    def get_metrics(self) -> dict[str, Any]:
        s = self.episode.summary()
        return {
            "success": float(s["success"]),
            "turns": s["turns"],
            "budget": s["budget"] or 0,
            "truncated": float(s["truncated"]),
            "infra_failures": s["infra_failures"],
            "reset_retries": s["reset_retries"],
        }

    def close(self) -> None:
        self.episode.close()


def register_envs(env_ids: list[str] | None = None) -> list[str]:
    """Register agentgym ids (all by default) with skyrl_gym under their own names; idempotent."""
    done = []
    for env_id in env_ids or sorted(ENV_IDS):
        if env_id not in _skyrl_gym.registry:
            _skyrl_gym.register(id=env_id, entry_point=ENTRY_POINT, kwargs={"env_id": env_id})
        done.append(env_id)
    return done


register_envs()
