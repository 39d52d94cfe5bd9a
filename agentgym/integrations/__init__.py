"""agentgym inside language-model RL trainers: the trainer chooses each episode's budget and faults.

- `agentgym.integrations.episode`: `Episode`, one env driven by a trainer's rollout (reset from a
  dataset row's ``seed``/``task_id``/``budget``/``faults``, then actions until the end; after the
  end every action answers `EPISODE_OVER` and changes nothing). The adapters below share it.
- the tools and the text a model reads come from `agentgym.llm` (the one tool surface and view that
  the agents and the server use too).
- `agentgym.integrations.trl`: TRL's ``GRPOTrainer(environment_factory=...)`` classes and
  `~agentgym.integrations.trl.dataset` (rows with T drawn per row: BudgetMix).
- `agentgym.integrations.skyrl`: a skyrl-gym ``BaseTextEnv`` registered per agentgym id.

verifiers needs no adapter: its OpenEnv task set drives ``agentgym serve`` (docs/how-to/llm-trainers.md).
An infrastructure failure (a dead sandbox or server, never an agent's own crash) reaches each
trainer in its own terms: TRL an unscorable completion, SkyRL a typed error, verifiers an error on
the rollout (`Episode` records it; docs/how-to/failures.md).
The trainers are optional (``pip install 'agentgym-budget[trainers]'``); they are imported only in the
module that adapts to them, and a missing one is a `ConfigError` naming that command. These
modules use the core, `agentgym.make` and `agentgym.remote` (a served env), never the server.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from agentgym.distribution import install_hint
from agentgym.errors import ConfigError

__all__ = ["require"]

INSTALL = install_hint("trainers")


def require(module: str, why: str) -> ModuleType:
    """Import an optional trainer package, or raise `ConfigError` saying what to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"{why} needs the {module.split('.')[0]!r} package ({exc}); run: {INSTALL}") from exc
