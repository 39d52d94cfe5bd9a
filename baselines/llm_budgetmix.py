"""``python -m baselines.llm_budgetmix``: the language-model BudgetMix trainer's command line.

The trainer lives in `baselines.llm.budgetmix` (its docstring lists every stage and flag); this
module only runs its `main`.
"""

from __future__ import annotations

import sys

from baselines.llm.budgetmix import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
