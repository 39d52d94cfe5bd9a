"""Baselines: a torch menu policy with the BudgetMix trainer and its experiment, a language-model
BudgetMix trainer, and a Stable-Baselines3 example.

The command lines sit at the top; the rest is four packages, each importing only those below it
(checked by the contracts in ``.importlinter``)::

    budgetmix.py       python -m baselines.budgetmix: the menu-policy experiment, or one run
    llm_budgetmix.py   python -m baselines.llm_budgetmix: the language-model trainer (`baselines.llm`)
    sb3_ppo.py         python -m baselines.sb3_ppo: the same envs through Stable-Baselines3
    experiment/        the experiment: arms, task lists, the job graph, evaluation, the positive control
    report/            the report: contrasts, tables, plots, the deployment and recovery sections
    policy/            the menu policy: features, the network, rollouts, PPO, one training run
    config.py          the command line's settings, and the smaller settings each stage takes
"""
