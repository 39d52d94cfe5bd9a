"""agentgym.wrappers: composable gymnasium wrappers for interaction-budget experiments.

- budget: `TurnLimit`, `RandomBudget` (and `parse_budget`)
- soft_budget: `BudgetWarning`, `BudgetExtension` (and `apply_budget`, `parse_soft_budget`)
- faults: `ToolFailureInjector`, `parse_faults`
- labels: `FailureLabeler`, `label_episode`, `CATEGORIES`
- rewards: `ProcessReward`
- cost: `CostTracker`
- numeric: `NumericView`

`agentgym.make` stacks them in a working order; see docs/wrappers.md.
"""

from agentgym.wrappers.budget import RandomBudget, TurnLimit, parse_budget
from agentgym.wrappers.cost import CostTracker
from agentgym.wrappers.faults import ToolFailureInjector, parse_faults
from agentgym.wrappers.labels import CATEGORIES, FailureLabeler, label_episode
from agentgym.wrappers.numeric import NumericView
from agentgym.wrappers.rewards import ProcessReward
from agentgym.wrappers.soft_budget import BudgetExtension, BudgetWarning, apply_budget, parse_soft_budget

__all__ = [
    "TurnLimit",
    "RandomBudget",
    "parse_budget",
    "BudgetWarning",
    "BudgetExtension",
    "apply_budget",
    "parse_soft_budget",
    "ToolFailureInjector",
    "parse_faults",
    "FailureLabeler",
    "label_episode",
    "CATEGORIES",
    "ProcessReward",
    "CostTracker",
    "NumericView",
]
