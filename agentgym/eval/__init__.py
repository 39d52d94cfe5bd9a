"""The Pass@(K,T) evaluation harness.

``evaluate(env_ids, agent, ks, ts, n, ...)`` runs an agent over a grid of sample counts K and
turn budgets T, on a local process pool or Ray, and writes ``episodes.jsonl``, ``summary.json``
and ``report.md`` with plots. ``agentgym eval`` / ``report`` / ``compare`` are its CLI.

Modules: `harness` (evaluate), `runner` (episodes, warm workers, local pool), `ray_backend`,
`episodes` (specs, seeds, jsonl), `metrics` (pass@k, bootstrap, recovery, cost), `summary`,
`report`, `plots`, `compare`, `cli`.
"""

from typing import Any

from agentgym.eval.compare import compare
from agentgym.eval.episodes import EpisodeSpec, read_episodes
from agentgym.eval.harness import EvalResult, evaluate
from agentgym.eval.metrics import bootstrap_mean, pass_at_k, pass_grid
from agentgym.eval.report import render
from agentgym.eval.summary import summarize

__all__ = [
    "evaluate",
    "EvalResult",
    "EpisodeSpec",
    "read_episodes",
    "summarize",
    "render",
    "compare",
    "pass_at_k",
    "pass_grid",
    "bootstrap_mean",
]


def __getattr__(name: str) -> Any:
    # report and compare import matplotlib; workers, which import this package, never need it
    if name == "render":
        return render
    if name == "compare":
        return compare
    raise AttributeError(f"module 'agentgym.eval' has no attribute {name!r}")
