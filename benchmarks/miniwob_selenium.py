"""MiniWoB-v0 beside Farama's own `miniwob` gymnasium env (Selenium + ChromeDriver), in one run.

    python benchmarks/miniwob_selenium.py --python /path/to/venv/bin/python [--rounds 4] \
        [--episodes 25] [--pages click-button,click-link] [--json out.json]

Farama's env is not a dependency of agentgym: install it in a separate virtual environment
(``python3 -m venv v && v/bin/pip install miniwob==1.1.0 selenium``) next to Debian's
``chromium`` and ``chromium-driver`` packages, and pass that interpreter with ``--python``; it runs
with ``MINIWOB_CHROME_BINARY``/``MINIWOB_CHROMEDRIVER`` pointing at them (override with
``--chrome``/``--chromedriver``). Both envs play the same pages and seeds: a reset, then one click
on the button or link the instruction names (MiniWoB-v0: ``env.reference_action()``; Farama: a
``CLICK_ELEMENT`` on the element whose text the utterance quotes). Rounds alternate between the
two so that machine load falls on both alike; each side's first reset (container start and
Chromium's launch, or ChromeDriver's start) is reported apart. Medians and p95 in ms, and the
ratios agentgym / Farama.

What differs, so the figures are read right: MiniWoB-v0 runs Chromium inside the hardened Docker
sandbox and renders an accessibility-tree text observation over a pipe; Farama's env runs Chromium
on the host through ChromeDriver's HTTP protocol and returns DOM elements plus a screenshot.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

import numpy as np

from agentgym.envs.miniwob import MiniWoBEnv

# Runs in the Farama interpreter: one process per round, so ChromeDriver's start is paid once per round.
_FARAMA = r"""
import json, re, sys, time
import gymnasium as gym, miniwob
from miniwob.action import ActionTypes
gym.register_envs(miniwob)
pages, seeds = sys.argv[1].split(","), [int(s) for s in sys.argv[2].split(",")]
out = {"first_reset": [], "reset": [], "step": [], "success": 0, "episodes": 0}
for page in pages:
    env = gym.make("miniwob/%s-v1" % page)
    try:
        for i, seed in enumerate(seeds):
            t = time.perf_counter(); obs, info = env.reset(seed=seed); dt = time.perf_counter() - t
            out["first_reset" if i == 0 else "reset"].append(dt)
            quoted = re.findall(r'"([^"]+)"', obs["utterance"])
            target = [e for e in obs["dom_elements"] if e["text"] and quoted and e["text"] == quoted[0]
                      and e["tag"] in ("button", "a", "span")]
            ref = target[0]["ref"] if target else obs["dom_elements"][0]["ref"]
            action = env.unwrapped.create_action(ActionTypes.CLICK_ELEMENT, ref=ref)
            t = time.perf_counter(); obs, reward, term, trunc, info = env.step(action)
            out["step"].append(time.perf_counter() - t)
            out["episodes"] += 1
            out["success"] += int(info.get("raw_reward", 0) == 1)
    finally:
        env.close()
print(json.dumps(out))
"""


def _pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(np.asarray(values) * 1000, q)), 2) if values else float("nan")


def agentgym_round(env: MiniWoBEnv, pages: list[str], seeds: list[int], out: dict[str, Any]) -> None:
    for page in pages:
        ids = [t for t in env.tasks.ids("test") if t.split("/")[1] == page] or env.tasks.ids("test")
        for seed in seeds:
            start = time.perf_counter()
            env.reset(seed=seed, options={"task_id": ids[seed % len(ids)]})
            out["reset"].append(time.perf_counter() - start)
            action = env.reference_action()
            start = time.perf_counter()
            _, reward, terminated, _, info = env.step(action)
            out["step"].append(time.perf_counter() - start)
            out["episodes"] += 1
            out["success"] += int(info.get("raw_reward") == 1.0)


def farama_round(
    python: str, pages: list[str], seeds: list[int], chrome: str, driver: str, timeout: float
) -> dict[str, Any]:
    env = dict(os.environ, MINIWOB_CHROME_BINARY=chrome, MINIWOB_CHROMEDRIVER=driver)
    done = subprocess.run(
        [python, "-c", _FARAMA, ",".join(pages), ",".join(map(str, seeds))],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise SystemExit(
            f"the Farama env failed (exit {done.returncode}):\n{done.stderr[-2000:]}\n"
            "Install it in a separate venv: pip install miniwob==1.1.0 selenium; apt-get install "
            "chromium chromium-driver"
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(out: dict[str, Any]) -> dict[str, Any]:
    return {
        "episodes": out["episodes"],
        "success": round(out["success"] / max(1, out["episodes"]), 3),
        "reset_ms": {"p50": _pct(out["reset"], 50), "p95": _pct(out["reset"], 95)},
        "step_ms": {"p50": _pct(out["step"], 50), "p95": _pct(out["step"], 95)},
        "first_reset_ms": {"p50": _pct(out["first_reset"], 50)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--python", required=True, help="an interpreter with miniwob==1.1.0 and selenium installed")
    parser.add_argument("--chrome", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--pages", default="click-button,click-link")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--episodes", type=int, default=25, help="episodes per page and round")
    parser.add_argument("--json", default=None, help="write the result here")
    args = parser.parse_args(argv)
    pages = [p.strip() for p in args.pages.split(",") if p.strip()]
    ours: dict[str, Any] = {"first_reset": [], "reset": [], "step": [], "success": 0, "episodes": 0}
    theirs: dict[str, Any] = {"first_reset": [], "reset": [], "step": [], "success": 0, "episodes": 0}
    env = MiniWoBEnv(split="test", tasks=pages, help_in_observation=False)
    try:
        start = time.perf_counter()
        env.reset(seed=0)
        ours["first_reset"].append(time.perf_counter() - start)
        for r in range(args.rounds):
            seeds = list(range(r * args.episodes, (r + 1) * args.episodes))
            agentgym_round(env, pages, seeds, ours)
            got = farama_round(args.python, pages, seeds, args.chrome, args.chromedriver, timeout=600)
            for key in ("first_reset", "reset", "step"):
                theirs[key] += got[key]
            theirs["success"] += got["success"]
            theirs["episodes"] += got["episodes"]
            print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    finally:
        env.close()
    result = {
        "pages": pages,
        "rounds": args.rounds,
        "agentgym": summary(ours),
        "farama_selenium": summary(theirs),
        "load_average": os.getloadavg(),
    }
    a, f = result["agentgym"], result["farama_selenium"]
    result["ratio_agentgym_over_farama"] = {
        "reset_p50": round(a["reset_ms"]["p50"] / f["reset_ms"]["p50"], 2),
        "step_p50": round(a["step_ms"]["p50"] / f["step_ms"]["p50"], 2),
    }
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        with open(args.json, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
