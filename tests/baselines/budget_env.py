"""The sandbox-free budget env lives in `baselines.experiment.budget_env`; tests import it by this short name."""

from baselines.experiment.budget_env import ENV_ID, WORDS, BudgetChoiceEnv, BudgetChoiceTasks  # noqa: F401
