"""``agentgym play``: one episode in the terminal, played by a person or watched (oracle, random agent).

The env is the one every agentgym tool builds (`agentgym.make`): the budget is a `TurnLimit` of T
turns, and `FailureLabeler` names the failure category at the end, so an episode played here ends
as it would in an evaluation. `play_episode` is the loop, usable from Python with any agent; the
person is `agentgym.agents.human.HumanAgent`, reading actions from standard input.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Any, TextIO

from agentgym.agents.base import seed_agent
from agentgym.agents.human import HumanAgent, StopPlaying
from agentgym.agents.simple import OracleAgent, RandomAgent
from agentgym.catalog import describe
from agentgym.cli_args import add_backend_argument, int_at_least
from agentgym.errors import ConfigError
from agentgym.make import make

__all__ = ["EpisodeOutcome", "play_episode", "register", "AGENTS", "DEFAULT_BUDGET"]

AGENTS = ("human", "oracle", "random")
DEFAULT_BUDGET = 40
"""Turns when ``--budget`` is not given: room for the oracle on any test task of every family (the
longest take about 30 turns, in Browser-v0), with slack for a person's detours."""


@dataclass(frozen=True)
class EpisodeOutcome:
    """How one played episode ended. ``failure_category`` is `FailureLabeler`'s (``success`` when it
    succeeded); ``stopped`` means the player quit first, so there is no verdict and no category."""

    env_id: str
    task_id: str
    reward: float
    success: bool
    failure_category: str | None
    failure_flags: tuple[str, ...]
    turns: int
    budget: int
    terminated: bool
    truncated: bool
    stopped: bool

    def summary(self) -> str:
        """The lines ``agentgym play`` ends with."""
        if self.stopped:
            return f"stopped by the player after {self.turns} of {self.budget} turns: no verdict"
        how = "submitted" if self.terminated else "the budget ran out" if self.truncated else "ended"
        lines = [
            f"episode over ({how}): reward {self.reward:g}, "
            f"failure category {self.failure_category}, turns used {self.turns} of {self.budget}"
        ]
        also = [flag for flag in self.failure_flags if flag != self.failure_category]
        if also:  # the other conditions FailureLabeler found (the category is the first that held)
            lines.append(f"also flagged: {', '.join(also)}")
        return "\n".join(lines)


def play_episode(
    env_id: str,
    agent: Any,
    *,
    seed: int = 0,
    budget: int = DEFAULT_BUDGET,
    backend: str = "auto",
    split: str = "test",
    task_id: str | None = None,
    output: TextIO | None = None,
    show: bool = True,
) -> EpisodeOutcome:
    """Play one episode of ``env_id`` with ``agent`` (any `agentgym.agents.base.Agent`), printing the
    observations and each action to ``output`` (standard output) unless ``show`` is false."""
    out = output if output is not None else sys.stdout
    if budget < 1:
        raise ConfigError(f"budget={budget}: the turn budget T is at least 1")
    if seed < 0:
        raise ConfigError(f"seed={seed}: seeds are non-negative integers")
    info_ = describe(env_id)  # an unknown id fails here, with the closest ids, before anything starts
    watching = not isinstance(agent, HumanAgent)

    def say(text: str) -> None:
        if show:
            out.write(text + "\n")
            out.flush()

    env = make(env_id, budget=budget, labels=True, cost=False, backend=backend, split=split)
    try:
        options = {"task_id": task_id} if task_id else None
        obs, info = env.reset(seed=seed, options=options)
        say(
            f"== {env_id} ({info_.family}), task {info.get('task_id')}, split {split}, "
            f"budget {budget} turns, backend {backend}"
        )
        say(obs["text"])
        seed_agent(agent, seed)
        agent.reset(env, obs, info)
        reward, terminated, truncated, stopped = 0.0, False, False, False
        while not (terminated or truncated):
            try:
                action = agent.act(obs, info)
            except StopPlaying:
                stopped = True
                break
            if watching:
                say(f"[turn {int(info.get('turn', 0)) + 1}, {info.get('turns_left')} left] > {action}")
            obs, step_reward, terminated, truncated, info = env.step(action)
            reward += float(step_reward)
            say(obs["text"])
        return EpisodeOutcome(
            env_id=env_id,
            task_id=str(info.get("task_id")),
            reward=reward,
            success=bool(info.get("success", False)) and not stopped,
            failure_category=None if stopped else info.get("failure_category"),
            failure_flags=() if stopped else tuple(info.get("failure_flags") or ()),
            turns=int(info.get("turn", 0)),
            budget=budget,
            terminated=terminated,
            truncated=truncated,
            stopped=stopped,
        )
    finally:
        env.close()


def register(subparsers: Any) -> None:
    """Add ``play`` to the ``agentgym`` parser (`agentgym.cli`)."""
    p = subparsers.add_parser(
        "play",
        help="play one episode in the terminal, or watch the oracle or a random agent",
        description="Play one episode of an env id: you type the actions (--agent human, the default), or "
        "watch the oracle or a random agent. Ends with the reward, the failure category and the turns used. "
        "Player commands (free, never sent to the env): :help shows the grammar, :menu numbers the "
        "admissible actions (then type a number), :multi starts an action of several lines (ended by a line "
        ":end), :quit stops. `agentgym list` shows the ids.",
    )
    p.add_argument("env_id", metavar="ID", help="a registered id, e.g. agentgym/ToolUse-v0")
    p.add_argument("--agent", choices=AGENTS, default="human", help="who acts (default human: you)")
    p.add_argument(
        "--seed",
        type=int_at_least(0, "a seed"),
        default=0,
        help="episode seed: picks the task and its randomness (default 0)",
    )
    p.add_argument(
        "--budget",
        type=int_at_least(1, "the turn budget T"),
        default=DEFAULT_BUDGET,
        metavar="T",
        help=f"turn budget T (default {DEFAULT_BUDGET})",
    )
    p.add_argument("--split", default="test", help="task split (default test)")
    p.add_argument("--task", default=None, metavar="TASK_ID", help="play this task instead of a seeded draw")
    p.add_argument("--quiet", action="store_true", help="watching: print only the final lines")
    add_backend_argument(p)
    p.set_defaults(func=_cmd_play)


def _cmd_play(args: argparse.Namespace) -> int:
    agent: Any
    if args.agent == "human":
        if args.quiet:
            raise ConfigError("--quiet is for watching an agent: a person needs to see the observations")
        agent = HumanAgent()
    elif args.agent == "oracle":
        agent = OracleAgent()
    else:
        agent = RandomAgent(seed=args.seed)
    outcome = play_episode(
        args.env_id,
        agent,
        seed=args.seed,
        budget=args.budget,
        backend=args.backend,
        split=args.split,
        task_id=args.task,
        show=not args.quiet,
    )
    print(outcome.summary())
    return 0
