"""The experiment: which arms are trained, on which tasks they are evaluated, and the jobs that do both.

- `run`: `run_experiment`, what ``python -m baselines.budgetmix`` runs without ``--schedule``;
- `arms`: the schedules trained and their (schedule, seed) runs;
- `evaluation`: one agent's evaluations (the grid, the second split, faults, interventions);
- `jobs`: the job graph (training, evaluation, probe, control) and its costs;
- `grid`: running a job graph in worker processes or on Ray;
- `eval_lists`: the fixed evaluation task lists and the committed rule that draws them;
- `probe`: forced states that show whether a policy uses the budget and the verdict;
- `control`, `budget_env`: the positive control, a sandbox-free env whose best policy is known;
- `provenance`: what code and settings wrote an experiment folder;
- `warm_cache`: filling Coding-v0's result cache before a run;
- `compare`, `pool`: command lines over finished experiment folders.

Imports the report, the policy and `baselines.config`, never the command line or the language-model
trainer (``.importlinter``).
"""
