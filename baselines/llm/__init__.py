"""The language-model BudgetMix trainer (`budgetmix`): a supervised warm start, then TRL's GRPO per
budget schedule, evaluated over T; ``python -m baselines.llm_budgetmix`` runs it.

Imports the report's contrasts and `baselines.config`; nothing of the menu experiment imports it
(``.importlinter``).
"""
