"""Agents the evaluation harness drives: the `Agent` protocol, reference agents, an LLM agent.

- `RandomAgent`: uniform over the env's admissible actions (the floor).
- `OracleAgent`: the env's reference action (the ceiling; recovers from faults).
- `ScriptedAgent`: a fixed action list, or one per task.
- `HumanAgent`: a person typing actions at a terminal (``agentgym play``).
- `OpenAIChatAgent`: any OpenAI-compatible chat endpoint, standard library only.
- `HFAgent`: a transformers model in process, offline (``smollm2-135m`` or a local folder); plays a
  cell's K samples as one batch.
- `load_agent("random" | "oracle" | "scripted" | "openai" | "hf" | "module:factory", **kwargs)`.
"""

from agentgym.agents.base import Agent, agent_cost, seed_agent
from agentgym.agents.hf import HFAgent
from agentgym.agents.human import HumanAgent
from agentgym.agents.loading import BUILTIN_AGENTS, load_agent
from agentgym.agents.openai import ModelEndpointError, OpenAIChatAgent
from agentgym.agents.simple import OracleAgent, RandomAgent, ScriptedAgent

__all__ = [
    "Agent",
    "RandomAgent",
    "OracleAgent",
    "ScriptedAgent",
    "HumanAgent",
    "OpenAIChatAgent",
    "HFAgent",
    "ModelEndpointError",
    "load_agent",
    "BUILTIN_AGENTS",
    "seed_agent",
    "agent_cost",
]
