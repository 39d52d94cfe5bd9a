"""agentgym: multi-turn agent tasks as Gymnasium environments, run in hardened sandboxes.

``import agentgym`` registers the ``agentgym/*`` ids, so ``gym.make("agentgym/Coding-v0")``
works; ``gym.make("agentgym:agentgym/Coding-v0")`` imports and registers in one step.
"""

from agentgym import events
from agentgym.core import FAULT_KINDS, ActionError, AgentEnv, Outcome, ParsedAction
from agentgym.errors import AgentGymError, ConfigError, InfrastructureError
from agentgym.make import make
from agentgym.registration import ENV_IDS, register_envs
from agentgym.spaces import AnyText
from agentgym.tasks import Task, TaskSet

__version__ = "0.1.0"

__all__ = [
    "AgentEnv",
    "ActionError",
    "ParsedAction",
    "Outcome",
    "FAULT_KINDS",
    "Task",
    "TaskSet",
    "AnyText",
    "events",
    "AgentGymError",
    "ConfigError",
    "InfrastructureError",
    "ENV_IDS",
    "register_envs",
    "make",
]

register_envs()
