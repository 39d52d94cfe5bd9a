"""BudgetMix: PPO on agentgym menu tasks with the turn budget fixed, mixed, or grown by a curriculum.

The command line, read top to bottom in the CleanRL manner: `Args` (every knob, one docstring
line each; the PPO update's knobs come from `PPOConfig`; both live in `baselines.config`), `parse_args`
and `main`. One training run is `baselines.policy.train.train` (re-exported here with `make_env`), a
short list of named stages: set up, then collect, update, log and checkpoint until the env steps
are spent. Not single-file: the model (`baselines.policy.model.MenuPolicy`, DRRN-style, sees turns
left and used), its features, the episode collector and the PPO update live in their own
modules, because the evaluation agent and the probe use the same ones.

    python -m baselines.budgetmix                      # the quick experiment (CPU, <= 15 min)
    python -m baselines.budgetmix --full               # the large preset (GPU)
    python -m baselines.budgetmix --smoke              # seconds; what the smoke test runs
    python -m baselines.budgetmix --preset tooluse     # the experiment on ToolUse-v0 (also: miniwob)
    python -m baselines.budgetmix --preset all-full    # every family, one after another (16 cores, Docker)
    python -m baselines.budgetmix --schedule uniform:2-16 --total-env-steps 20000   # train one

With no ``--schedule`` it runs the experiment (`baselines.experiment.run`): it trains fixed-T-short,
fixed-T-long, BudgetMix and the curriculum at equal environment steps, evaluates each with the
evaluation harness on held-out tasks over a K x T grid, and writes ``report.md`` with plots.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from baselines.config import PRESET_SUITES, PRESETS, Args, TrainSettings, add_field_flags
from baselines.experiment.run import run_experiment
from baselines.experiment.warm_cache import prefill
from baselines.policy.train import train
from baselines.report.families import families_report

__all__ = ["parse_args", "main"]


def parse_args(argv: list[str] | None = None) -> Args:
    """`Args` from the command line: ``--field-name VALUE`` per field, ``--full``/``--smoke`` presets."""
    parser = argparse.ArgumentParser(prog="python -m baselines.budgetmix", description=__doc__.split("\n\n")[0])
    add_field_flags(parser, Args)
    parser.add_argument("--full", dest="preset", action="store_const", const="full", help="the large GPU preset")
    parser.add_argument("--smoke", dest="preset", action="store_const", const="smoke", help="a seconds-long run")
    given = {k: v for k, v in vars(parser.parse_args(argv)).items() if v is not None}
    preset = given.get("preset", "quick")
    if preset not in PRESETS:
        parser.error(f"--preset {preset!r}: choose one of {sorted(PRESETS) + sorted(PRESET_SUITES)}")
    return Args(**{**PRESETS[preset], **given, "preset": preset})


def run_suite(suite: str, argv: list[str]) -> int:
    """Every preset of ``suite`` (`PRESET_SUITES`) with the other flags of ``argv``, each into
    ``OUT/<preset>``, then their contrasts side by side in ``OUT/families.md``."""
    out = Path(parse_args(argv).out)
    folders = []
    for preset in PRESET_SUITES[suite]:
        folder = out / preset
        code = run_experiment(parse_args([*argv, "--preset", preset, "--out", str(folder)]))
        if code:
            return code
        folders.append(folder)
    (out / "families.md").write_text(families_report(folders) + "\n")
    print(f"[budgetmix] families: {out / 'families.md'}", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    suite = next(
        (argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--preset" and argv[i + 1] in PRESET_SUITES), None
    )
    if suite:
        return run_suite(
            suite, [a for i, a in enumerate(argv) if a != "--preset" and (i == 0 or argv[i - 1] != "--preset")]
        )
    args = parse_args(argv)
    if args.warm_cache:
        print(json.dumps(prefill(args), indent=1))
        return 0
    if args.schedule:
        summary = train(
            TrainSettings.from_args(args),
            f"{args.exp_name}-{args.schedule.replace(':', '-').replace(',', '_').replace('@', '_w')}",
        )
        print(json.dumps({k: v for k, v in summary.items() if k != "history"}, indent=1))
        return 0
    return run_experiment(args)


if __name__ == "__main__":
    sys.exit(main())
