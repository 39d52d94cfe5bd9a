"""The menu policy: what acts in an episode and how one training run teaches it.

- `features`, `family_features`: an observation and its menu as numbers (Coding-v0's, and the
  other families');
- `model`: `MenuPolicy`, which scores each (observation, menu action) pair and sees the turns left;
- `rollout`: `EpisodeCollector`, whole episodes from a batch of envs;
- `ppo`: one PPO update over those episodes;
- `train`: one training run (`train`), read top to bottom, and the envs it builds (`make_env`);
- `schedules`: the budget schedules (fixed, BudgetMix's mixtures, curricula);
- `families`: what each family gives the policy (its menu, pages, the faults that bite);
- `env_pool`: warm envs lent from one run or evaluation to the next;
- `agent`: a trained policy as an agent of the evaluation harness, and its checkpoints;
- `heuristics`, `patch_ranker`: scripted agents and a patch ranker, the references it is compared with.

Imports `baselines.config` and agentgym only: never the experiment, the report or the language-model
trainer (``.importlinter``).
"""
