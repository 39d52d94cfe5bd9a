"""One whole episode in a few lines: make an env with a turn budget, loop until it ends, read the verdict.

    python examples/first_episode.py                          # ToolUse-v0 on the local backend
    python examples/first_episode.py --backend docker         # the same in a hardened container
    python examples/first_episode.py --env agentgym/Coding-v0 --agent random --budget 4

No server and no model: the actions come from the oracle (the env's reference solution, which
solves every task when the budget allows) or from a random agent choosing among
``info["admissible_actions"]``. ``agentgym.make`` stacks the budget (`TurnLimit`: ``turns_left`` in
the observation, the episode truncated after T turns) and `FailureLabeler` (``failure_category``
in the last ``info``). The local backend runs the sandbox as a subprocess on this machine without
isolation; Docker (after ``agentgym setup``) is the isolated one. ``agentgym play ID`` does the same
in the terminal, with you typing the actions.
"""

from __future__ import annotations

import argparse
import warnings

import agentgym
from agentgym.agents import OracleAgent, RandomAgent


def run_episode(env_id: str, agent_name: str, budget: int, backend: str, seed: int) -> dict:
    env = agentgym.make(env_id, budget=budget, backend=backend, split="test")
    agent = OracleAgent() if agent_name == "oracle" else RandomAgent(seed=seed)
    try:
        obs, info = env.reset(seed=seed)
        agent.reset(env, obs, info)
        print(obs["text"], end="\n\n")  # the task: its instruction, its first view and the grammar
        reward, terminated, truncated = 0.0, False, False
        while not (terminated or truncated):
            action = agent.act(obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            print(f"[{int(obs['turns_left'][0])} turns left] > {action}\n{obs['text'][:300]}\n")
    finally:
        env.close()  # stops the sandbox (a subprocess, or a container on Docker)
    print(
        f"reward={reward} success={info['success']} failure_category={info['failure_category']} "
        f"turns={info['turn']} of {budget}"
    )
    return info


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", default="agentgym/ToolUse-v0", help="an id from `agentgym list`")
    p.add_argument("--agent", choices=("oracle", "random"), default="oracle")
    p.add_argument("--budget", type=int, default=12, help="turn budget T")
    p.add_argument("--backend", choices=("local", "docker", "auto"), default="local", help="sandbox backend")
    p.add_argument("--seed", type=int, default=0, help="picks the task and the agent's draws")
    args = p.parse_args(argv)
    if args.backend == "local":  # said once here, instead of the library's warning
        warnings.filterwarnings("ignore", message="agentgym local sandbox backend")
        print("(local backend: the sandbox is a subprocess on this machine, not isolated)\n")
    return run_episode(args.env, args.agent, args.budget, args.backend, args.seed)


if __name__ == "__main__":
    main()
