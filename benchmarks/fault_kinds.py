"""Recovery from ``rate_limit`` and ``wrong_value`` per family: an agent that checks against one that trusts, over T.

    python benchmarks/fault_kinds.py                         # every family, 20 test seeds, slack 0..3
    python benchmarks/fault_kinds.py --ids agentgym/ToolUse-v0 --seeds 50 --json
    python benchmarks/fault_kinds.py --chromium              # Browser-v0 on its Chromium backend too

Each fault fires on the episode's first tool call (``KIND@turn=1``, a rate limit with the default
retry-after of 2 turns). T is counted from the oracle's own turns on the same seed without a fault
(``T = T_clean + slack``), so the figures read as "how many spare turns recovery needs". Two
scripted agents play each seed at each T:

- ``checks``: the oracle (`OracleAgent`): it waits out a rate limit with a harmless action, then
  calls again; it reads again (ToolUse-v0, Browser-v0) or tests (Coding-v0) before it commits
  after a value it was shown.
- ``trusts``: the oracle's fault-free plan for the seed, played blind: it never retries, never
  waits, never reads twice, and it answers with the values it was shown. To know which values it
  was shown wrong, it compares each observation with the same step of the fault-free episode;
  where a number, date or text value differs, every later call and its final answer use the value
  it saw (another record's id, a shifted amount), as an agent that believed it would. Its plan was
  made knowing the task, so a read it lost to a rate limit costs it only what the verdict checks
  (a refusal must be grounded in records read): its losses are a lower bound on a real agent's.

Prints success per family, kind, agent and slack, with the machine and load, and how the failed
episodes were labelled (`FailureLabeler`); ``--json`` prints one object instead. Figures are
quoted on docs/performance.md ("Fault kinds").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import agentgym  # noqa: E402
from agentgym.agents import OracleAgent  # noqa: E402
from agentgym.testing import run_episode  # noqa: E402

KINDS = ("rate_limit", "wrong_value")
IDS = ("agentgym/ToolUse-v0", "agentgym/BFCL-v0", "agentgym/Browser-v0", "agentgym/Coding-v0", "agentgym/MiniWoB-v0")
DOCKER_ONLY = ("agentgym/MiniWoB-v0",)
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\d{4}-\d{2}-\d{2}|\d+(?:\.\d+)?')


class TrustingAgent:
    """The oracle's fault-free plan for one seed, played blind, answering with the values it was shown."""

    def __init__(self, plan: list[str], clean_texts: list[str]) -> None:
        self.plan, self.clean_texts = plan, clean_texts
        self.believed: list[tuple[str, str]] = []  # (true value, value shown) it took in
        self._i = 0

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        self._i, self.believed = 0, []

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        if self._i > 0 and self._i - 1 < len(self.clean_texts):
            self.believed += _changed_values(self.clean_texts[self._i - 1], obs["text"])
        action = self.plan[min(self._i, len(self.plan) - 1)]
        self._i += 1
        return _say(action, self.believed)


def _changed_values(true_text: str, shown: str) -> list[tuple[str, str]]:
    """Values (numbers, dates, quoted text) where ``shown`` differs from ``true_text`` token by token."""
    a, b = _TOKEN.findall(true_text), _TOKEN.findall(shown)
    if len(a) != len(b):
        return []
    return [(x.strip('"'), y.strip('"')) for x, y in zip(a, b) if x != y]


def _say(action: str, believed: list[tuple[str, str]]) -> str:
    """The final action with each value the agent was shown wrong put in place of the true one."""
    for true, shown in believed:
        if re.fullmatch(r"\d+(?:\.\d+)?", true) and re.fullmatch(r"\d+(?:\.\d+)?", shown):
            action = re.sub(
                r"\d+(?:\.\d+)?",
                lambda m, t=true, s=shown: (
                    _format_like(m.group(), float(s)) if float(m.group()) == float(t) else m.group()
                ),
                action,
            )
        elif len(true) > 2:
            action = action.replace(true, shown)
    return action


def _format_like(token: str, value: float) -> str:
    places = len(token.split(".")[1]) if "." in token else 0
    return f"{value:.{places}f}"


def family_kinds(env_id: str) -> tuple[str, ...]:
    env = agentgym.make(env_id)
    try:
        return tuple(k for k in KINDS if k in type(env.unwrapped).fault_kinds)
    finally:
        env.close()


def probe(env_id: str, seeds: int, slacks: list[int], **kwargs: Any) -> dict[str, Any]:
    """Success per kind, agent and slack on ``seeds`` test seeds of ``env_id``."""
    clean = agentgym.make(env_id, budget=80, split="test", **kwargs)  # labels: agentgym.make stacks them
    plans: dict[int, tuple[int, list[str], list[str]]] = {}
    try:
        for seed in range(seeds):
            ep = run_episode(clean, OracleAgent(), seed=seed)
            if ep.success:  # a seed the oracle cannot solve clean says nothing about recovery
                plans[seed] = (ep.turns, ep.actions, ep.texts)
    finally:
        clean.close()
    out: dict[str, Any] = {"env": env_id, "seeds": len(plans), "kinds": {}}
    for kind in family_kinds(env_id):
        table: dict[str, dict[int, float]] = {"checks": {}, "trusts": {}}
        labels: dict[str, dict[str, int]] = {"checks": {}, "trusts": {}}  # failed episodes' categories
        for slack in slacks:
            wins = {"checks": 0, "trusts": 0}
            for seed, (turns, plan, texts) in plans.items():
                env = agentgym.make(env_id, budget=turns + slack, split="test", faults=f"{kind}@turn=1", **kwargs)
                try:
                    for agent, player in (("checks", OracleAgent()), ("trusts", TrustingAgent(plan, texts))):
                        ep = run_episode(env, player, seed=seed)
                        wins[agent] += ep.success
                        if not ep.success:
                            cat = str(ep.failure_category)
                            labels[agent][cat] = labels[agent].get(cat, 0) + 1
                finally:
                    env.close()
            for agent, n in wins.items():
                table[agent][slack] = round(n / max(1, len(plans)), 3)
        out["kinds"][kind] = {"success": table, "failures": labels}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ids", default=",".join(IDS), help="comma-separated env ids")
    ap.add_argument("--seeds", type=int, default=20, help="test seeds per family")
    ap.add_argument("--slacks", default="0,1,2,3", help="T - T_clean values")
    ap.add_argument("--chromium", action="store_true", help="also Browser-v0 with browser='chromium' (Docker)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    slacks = [int(s) for s in args.slacks.split(",")]
    started = time.time()
    runs = []
    for env_id in [i for i in args.ids.split(",") if i]:
        backend = "docker" if env_id in DOCKER_ONLY else "local"
        runs.append(probe(env_id, args.seeds, slacks, backend=backend))
    if args.chromium:
        run = probe("agentgym/Browser-v0", args.seeds, slacks, backend="docker", browser="chromium")
        run["env"] += " (chromium)"
        runs.append(run)
    meta = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}",
        "load": os.getloadavg()[0],
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "seconds": round(time.time() - started, 1),
        "retry_after": 2,
    }
    if args.json:
        print(json.dumps({"meta": meta, "runs": runs}, indent=1))
        return 0
    print(f"# {meta['date']}, {meta['machine']}, load {meta['load']:.2f}, {meta['seconds']} s")
    print("env | kind | agent | " + " | ".join(f"T_clean+{s}" for s in slacks) + " | seeds | failures by label")
    for run in runs:
        for kind, result in run["kinds"].items():
            for agent, row in result["success"].items():
                cells = " | ".join(f"{row[s]:.2f}" for s in slacks)
                failed = ", ".join(f"{c} {n}" for c, n in sorted(result["failures"][agent].items())) or "-"
                print(f"{run['env']} | {kind} | {agent} | {cells} | {run['seeds']} | {failed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
