"""A complete agentgym family in one file: the smallest real one, to copy when you add yours.

Ini-v0: the sandbox workspace holds ``app.ini``; each task asks for one or two settings changed.
The agent reads the file, sets values, reads again to check, and finishes; the verifier reads
the final file in the sandbox. This file writes only the domain: tasks, the sandbox-side code,
the tools, the verifier. The kit gives the rest: spaces, the episode loop, the sandbox's life,
action parsing and argument checks, help text and tool schemas, checked events, faults, the
oracle (the solution cursor), budgets, labels, costs, `agentgym.testing` and the eval harness.

    python examples/minimal_family.py [--backend local] [--episodes 6]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import gymnasium as gym

import agentgym
from agentgym import events as ev
from agentgym.actions import Param, ToolSpec, parse_tool_action, render_call, signature, tool_schema
from agentgym.core import AgentEnv, Outcome, ParsedAction
from agentgym.sandbox.modules import SandboxModule
from agentgym.tasks import Task, TaskSet, stable_hash, stable_split

# ---------------------------------------------------------------- the domain: settings and tasks
SETTINGS = {
    "server": {"port": ("8080", "8443", "9000"), "workers": ("2", "4", "8")},
    "cache": {"size_mb": ("64", "128", "256"), "ttl_s": ("30", "60", "300")},
}


class IniTasks(TaskSet):
    family = "ini"
    all_tiers = ("one_change", "two_changes")

    def catalog(self, split: str):
        return [(f"ini/{n}", self.get(f"ini/{n}").tier, "") for n in range(60) if stable_split(f"ini/{n}") == split]

    def get(self, task_id: str) -> Task:
        h = stable_hash(task_id)
        start = {
            s: {k: v[(h >> (3 * i + 7 * j)) % 3] for i, (k, v) in enumerate(keys.items())}
            for j, (s, keys) in enumerate(SETTINGS.items())
        }
        slots = [(s, k) for s, keys in SETTINGS.items() for k in keys]
        changes = {slots[h % 4]: None} | ({slots[(h >> 9) % 4]: None} if h & 1 else {})
        goal = {s: dict(keys) for s, keys in start.items()}
        for s, k in changes:
            goal[s][k] = next(v for v in SETTINGS[s][k] if v != start[s][k])
        asks = [f"{s}.{k} to {goal[s][k]}" for s, k in changes]
        sets = tuple(render_call("set_value", {"section": s, "key": k, "value": goal[s][k]}) for s, k in changes)
        return Task(
            task_id,
            "ini",
            stable_split(task_id),
            "In app.ini, set " + " and ".join(asks) + ".",
            files={"app.ini": render(start)},
            subtasks=tuple(f"{s}.{k}" for s, k in changes),
            solution=("read_config()", *sets, "read_config()", 'finish("done")'),
            tier="one_change" if len(changes) == 1 else "two_changes",
            meta={"goal": goal},
        )


def render(config: dict[str, dict[str, str]]) -> str:
    return "".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items()) + "\n" for s, keys in config.items())


# ---------------------------------------------------------------- sandbox-side code (stdlib only)
SANDBOX_SOURCE = """
import configparser, os

def _parser():
    c = configparser.ConfigParser()
    c.read(os.path.join(WORKSPACE, "app.ini"))
    return c

def read():
    with open(os.path.join(WORKSPACE, "app.ini")) as f:
        return f.read()

def set_value(section, key, value):
    c = _parser()
    if not c.has_option(section, key):
        return "app.ini has no %s.%s" % (section, key)
    c.set(section, key, value)
    with open(os.path.join(WORKSPACE, "app.ini"), "w") as f:
        c.write(f)

def values():
    c = _parser()
    return {s: dict(c[s]) for s in c.sections()}
"""
TOOLS = {
    t.name: t
    for t in (
        ToolSpec("read_config", "Show app.ini."),
        ToolSpec(
            "set_value",
            "Set one setting in app.ini.",
            (
                Param("section", "string", "e.g. server"),
                Param("key", "string", "e.g. port"),
                Param("value", "string", "the new value"),
            ),
            writes=True,
        ),
    )
}


# ---------------------------------------------------------------- the env: parse, execute, verify
class IniEnv(AgentEnv):
    family = "ini"
    sandbox_modules = (SandboxModule("example_ini", Path(__file__), SANDBOX_SOURCE),)

    @classmethod
    def _taskset(cls) -> TaskSet:
        return IniTasks()

    def _on_sandbox_start(self) -> None:
        self.sandbox.snapshot("empty")

    def _setup_task(self, task: Task) -> str:
        self.sandbox.restore("empty")
        self.sandbox.write_files(task.files)
        return task.instruction

    def _parse(self, action: str) -> ParsedAction:
        return parse_tool_action(action, TOOLS)

    def _execute(self, action: ParsedAction) -> Outcome:  # help, finish and bad arguments: AgentEnv handles them
        if action.name == "read_config":
            return Outcome(
                self.sandbox.call("example_ini", "read"),
                [ev.tool_call("read_config", True), ev.verification(self._verify(), "app.ini")],
            )
        problem = self.sandbox.call("example_ini", "set_value", **action.args)
        if problem:  # a lookup of something that is not there: a failed call and a state mismatch
            return Outcome(
                f"error: {problem}", [ev.tool_call("set_value", False, "not_found"), ev.state_mismatch(problem)]
            )
        return Outcome(
            "ok", [ev.tool_call("set_value", True), ev.mutation(f"{action.args['section']}.{action.args['key']}")]
        )

    def _verify(self) -> bool:
        return self.sandbox.call("example_ini", "values") == self.task.meta["goal"]

    def _admissible(self) -> list[str]:
        return sorted(
            set(self.task.solution) | {render_call("set_value", {"section": "server", "key": "port", "value": "9000"})}
        )

    def help_text(self) -> str:
        return 'One tool call per turn, then finish("answer"). Tools: ' + ", ".join(map(signature, TOOLS.values()))

    def tools(self) -> list[dict]:
        return [tool_schema(t) for t in TOOLS.values()]


# ---------------------------------------------------------------- use it like any registered family
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", default="auto", help="sandbox backend: auto (Docker), docker or local")
    parser.add_argument("--episodes", type=int, default=6)
    args = parser.parse_args()
    gym.register("example/Ini-v0", entry_point=IniEnv)
    from agentgym.agents import OracleAgent
    from agentgym.testing import assert_recovers

    episodes = assert_recovers(
        "example/Ini-v0",
        OracleAgent(),
        fault="tool_error@turn=2",
        budget=10,
        seeds=range(args.episodes),
        backend=args.backend,
        split="test",
    )
    print(
        f"example/Ini-v0: the oracle recovered from a tool error in {len(episodes)}/{args.episodes} episodes, "
        f"{sum(e.turns for e in episodes) / len(episodes):.1f} turns on average"
    )
    env = agentgym.make("example/Ini-v0", backend=args.backend, budget=8, labels=True)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step('set_value(section="server", key="nope", value="1")')
    print(f"a wrong key: {obs['text']!r}, events {[e['kind'] for e in info['events']]}")
    env.close()


if __name__ == "__main__":
    main()
