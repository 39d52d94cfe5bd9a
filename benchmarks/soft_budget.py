"""What a soft budget buys (issue 28): hard against soft turn limits, paired, on Coding-v0 and Browser-v0.

    nice python -m benchmarks.soft_budget --tasks 40 --t 2,3,5,8 --out runs/soft-budget [--backend local]

Runs each policy through `agentgym.eval.evaluate(budget_mode="soft")`: every episode once under a
turn limit of T and once under T made soft (a warning at ``--warn-at`` turns left, and an
``extend`` action that adds ``--extra`` turns once for ``--cost`` reward), with the same task,
sample and seeds, and prints per env, policy and T: success hard and soft, the paired difference
with a 95% bootstrap interval over tasks, turns used, extensions asked and granted, and the
reward paid. The policies:

- ``oracle``: the env's reference action (never asks);
- ``hasty`` and ``careful``: Coding-v0's scripted menu loops (`baselines.policy.heuristics`: patch and
  submit; patch, test, revert and retry until the tests pass) and Browser-v0's scripted policies
  (`agentgym.envs.browser.policies`; its careful policy is the oracle);
- ``extension_aware`` (`ExtensionAware`, here): a careful policy that commits when turns run
  short (Coding: `baselines.policy.heuristics.BudgetAwareAgent`; Browser: the careful policy) and sends
  ``extend`` only when its last check failed and the turns left cannot fit a retry. Under a hard
  budget no ``extend`` is offered, so its hard column is the base policy.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python benchmarks/soft_budget.py` too; workers import this module by name
    sys.path.insert(0, str(ROOT))

from agentgym.cli_args import add_backend_argument  # noqa: E402

ENVS = {
    "agentgym/Coding-v0": {
        "oracle": "oracle",
        "hasty": "baselines.policy.heuristics:hasty",
        "careful": "baselines.policy.heuristics:careful",
        "extension_aware": "benchmarks.soft_budget:extension_aware",
    },
    "agentgym/Browser-v0": {
        "oracle": "oracle",
        "hasty": "agentgym.envs.browser.policies:hasty",
        "careful": "agentgym.envs.browser.policies:careful",
        "extension_aware": "benchmarks.soft_budget:extension_aware",
    },
}


class ExtensionAware:
    """Asks for an extension only when its last check failed and fewer than ``retry_turns`` turns
    are left (Coding: revert, patch, test, submit); otherwise the base policy acts.

    "Its last check" is the last ``verification`` event since its last ``mutation`` (public
    events: Coding's visible tests, Browser's re-read of a written record). After a granted
    ``extend`` the base policy sees the observation the check returned again, with the new
    ``turns_left``, since the extension's reply carries no news about the task.
    """

    def __init__(self, seed: int = 0, retry_turns: int = 4) -> None:
        self.retry_turns = int(retry_turns)
        self._seed = int(seed)
        self.base: Any = None
        self.last_check: bool | None = None
        self._last_obs: dict[str, Any] | None = None
        self._extended = False

    def seed(self, seed: int) -> None:
        self._seed = int(seed)

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        if env.unwrapped.family == "coding":
            from baselines.policy.heuristics import BudgetAwareAgent

            self.base = BudgetAwareAgent(seed=self._seed)
        else:
            from agentgym.envs.browser.policies import careful

            self.base = careful()
        self.base.reset(env, obs, info)
        self.last_check, self._last_obs, self._extended = None, None, False

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        for event in info.get("events", ()):
            if event["kind"] == "mutation":
                self.last_check = None
            elif event["kind"] == "verification":
                self.last_check = bool(event["ok"])
        left = int(info.get("turns_left", 1_000))
        if self.last_check is False and left < self.retry_turns and "extend" in (info.get("admissible_actions") or []):
            self._last_obs, self._extended = obs, True
            return "extend"
        if self._extended and self._last_obs is not None:
            obs = {**obs, "text": self._last_obs["text"]}
        self._extended = False
        return self.base.act(obs, info)


def extension_aware(**kwargs: Any) -> ExtensionAware:
    return ExtensionAware(**kwargs)


def run(env_id: str, policy: str, agent: str, args: argparse.Namespace) -> dict[str, Any]:
    from agentgym.eval import evaluate

    soft = {"extra": args.extra, "max_requests": 1, "cost": args.cost, "warn_at": args.warn_at}
    result = evaluate(
        env_id,
        agent,
        ks=[1],
        ts=args.t,
        n=1,
        split="test",
        tasks=args.tasks,
        seed=args.seed,
        sandbox=args.backend,
        workers=args.workers,
        out=Path(args.out) / env_id.split("/")[1] / policy,
        progress=False,
        budget_mode="soft",
        soft_budget=soft,
    )
    return {
        "by_t": result.summary["soft_budget"]["clean"][env_id],
        "seconds": result.seconds,
        "infra_errors": result.summary["counts"]["infra_errors"],
    }


def table(results: dict[str, dict[str, dict[str, Any]]], ts: list[int]) -> str:
    rows = [
        "| env | policy | T | success hard | success soft | soft - hard [95% CI] | turns hard | turns soft | "
        "asked | granted | reward paid | net soft | ran out after asking |",
        "|---" * 13 + "|",
    ]
    for env_id, by_policy in results.items():
        for policy, res in by_policy.items():
            for t in ts:
                r = res["by_t"][str(t)]
                d = r["diff"]
                rows.append(
                    f"| {env_id.split('/')[1]} | {policy} | {t} | {r['success_hard']:.2f} | {r['success_soft']:.2f} | "
                    f"{d['mean']:+.2f} [{d['lo']:+.2f}, {d['hi']:+.2f}] | {r['turns_hard']:.2f} | "
                    f"{r['turns_soft']:.2f} | {r['asked']:.2f} | {r['granted']:.2f} | {r['cost']:.3f} | "
                    f"{r['net_soft']:.2f} | {r['ran_out_after_extension']:.2f} |"
                )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--t", default="2,3,5,8", type=lambda s: [int(x) for x in s.split(",")], help="turn budgets T")
    parser.add_argument(
        "--tasks", type=int, default=40, help="test tasks per env, drawn with --seed (one episode each)"
    )
    parser.add_argument("--extra", type=int, default=3, help="turns one `extend` adds")
    parser.add_argument("--cost", type=float, default=0.1, help="reward paid per granted extension")
    parser.add_argument("--warn-at", type=int, default=2, help="warn when this many turns are left")
    parser.add_argument("--env", action="append", choices=sorted(ENVS), help="env ids (default both)")
    parser.add_argument("--out", default="runs/soft-budget")
    add_backend_argument(parser, old_names=("--sandbox",))
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for env_id in args.env or list(ENVS):
        results[env_id] = {}
        for policy, agent in ENVS[env_id].items():
            results[env_id][policy] = run(env_id, policy, agent, args)
            print(
                f"{env_id} {policy}: {results[env_id][policy]['seconds']:.0f} s, "
                f"{results[env_id][policy]['infra_errors']} infrastructure failures",
                file=sys.stderr,
                flush=True,
            )
    print(table(results, args.t))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "soft_budget.json").write_text(json.dumps({"args": vars(args), "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
