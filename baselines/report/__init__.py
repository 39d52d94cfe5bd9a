"""The report: from evaluation records to ``report.md``, its tables, contrasts and plots.

- `markdown`: `write_report`, the whole report;
- `contrasts`: success cells, the named contrasts, paired by task, with seed-and-task intervals;
- `cells`, `deployment`, `recovery`, `families`: the report's sections (success per T, deployment
  at a budget, recovery by intervention, families side by side);
- `decisions`: first commitments and recovery, recorded per episode by an agent wrapper;
- `plots`: the figures.

Imports the policy (features, family plans) and `baselines.config`; never the experiment, the
command line or the language-model trainer (``.importlinter``).
"""
