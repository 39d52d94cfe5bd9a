"""agentgym/Coding-v0: fix bugs injected into small Python repositories, verified by hidden tests.

`CodingEnv` is the environment; `agentgym.envs.coding.tasks` builds the tasks from the corpus
(``corpus/``) and the executed mutant data (``data/mutants.json``); `grammar` holds the action
grammar, `mutations` the bug operators, `runner` the in-sandbox test runner.
"""

from agentgym.envs.coding.env import CodingEnv
from agentgym.envs.coding.grammar import HELP

image = CodingEnv.image

__all__ = ["CodingEnv", "HELP", "image"]
