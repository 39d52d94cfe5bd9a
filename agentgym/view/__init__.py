"""``agentgym view``: a browser view of evaluation runs, built from their own records.

An evaluation folder (what ``agentgym eval`` writes), an agent folder of the BudgetMix experiment
(one evaluation folder per part) or the experiment folder itself (every agent under ``eval/``)
becomes one static page that opens from disk with no server and no network: the Pass@(K,T) heatmap,
success against T with intervals, failure categories per T, recovery after injected faults and
forced starts, cost and latency per T, and an episode browser that shows each episode turn by turn
and two episodes side by side.

Modules: `runs` (finding and reading the folders), `digest` (the statistics the charts draw, from
`agentgym.eval.summary`), `episodes` (the filter index and the chunks of episode records loaded on
demand), `page` (writing the page; its script and style are ``static/``), `cli` (the command and
``--serve``).
"""

from agentgym.view.page import ViewOutput, build_view
from agentgym.view.runs import Run, find_runs

__all__ = ["build_view", "ViewOutput", "find_runs", "Run"]
