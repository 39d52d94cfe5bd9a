"""Baselines: a torch policy with the BudgetMix trainer, and a Stable-Baselines3 example."""
