"""The small evaluations the view's tests look at: K in (1, 2), two samples, a tool error injected at
turn 1 beside each clean episode, every turn logged."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentgym.eval import evaluate


def small_run(
    env_id: str, agent: str, out: Path, ts: Sequence[int], tasks: int | Sequence[str], sandbox: str = "local"
) -> Path:
    """Evaluate ``agent`` on ``env_id`` into ``out`` and return ``out``."""
    evaluate(
        env_id,
        agent,
        ks=[1, 2],
        ts=list(ts),
        n=2,
        tasks=tasks if isinstance(tasks, int) else list(tasks),
        sandbox=sandbox,
        faults="tool_error@turn=1",
        out=out,
        progress=False,
        report=False,
        turn_log=500,
    )
    return out
