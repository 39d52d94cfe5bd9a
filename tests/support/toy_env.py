"""A tiny AgentEnv family for contract tests: write a word into answer.txt, check it, submit.

It runs in a real sandbox (either backend), so it exercises the whole base-class path with a
task that takes three turns: ``write WORD``, ``cat``, ``submit``.
"""

from __future__ import annotations

from functools import cache

from agentgym import events as ev
from agentgym.core import ActionError, AgentEnv, Outcome, ParsedAction
from agentgym.tasks import Task, TaskSet, stable_split

WORDS = ["apple", "river", "stone", "cloud", "ember", "frost", "maple", "quartz", "tiger", "violet", "willow", "zephyr"]


@cache  # per split at module level: a cache on the method would keep every instance alive
def _ids(split: str) -> list[str]:
    return [f"toy/{w}" for w in WORDS if stable_split(w, 0.34) == split]


class ToyTasks(TaskSet):
    family = "toy"

    def ids(self, split: str) -> list[str]:
        return _ids(split)

    def get(self, task_id: str) -> Task:
        word = task_id.split("/", 1)[1]
        return Task(
            task_id=task_id,
            family="toy",
            split=stable_split(word, 0.34),
            instruction=f"Write the word {word!r} into answer.txt, check it, then submit.",
            files={"README": "toy task\n"},
            subtasks=("written",),
            solution=(f"write {word}", "cat", "submit"),
            meta={"word": word},
        )


class ToyEnv(AgentEnv):
    family = "toy"
    submit_text = "submitted"

    @classmethod
    def _taskset(cls) -> TaskSet:
        return ToyTasks()

    def _setup_task(self, task: Task) -> str:
        self.sandbox.restore("empty") if self._has_empty else None
        self.sandbox.write_files(task.files)
        return task.instruction

    def _on_sandbox_start(self) -> None:
        self.sandbox.snapshot("empty")
        self._has_empty = True

    _has_empty = False

    def _parse(self, action: str) -> ParsedAction:
        verb, _, rest = action.strip().partition(" ")
        if verb == "write" and rest:
            return ParsedAction("write", {"text": rest}, tool="write")
        if verb in ("cat", "submit", "help") and not rest:
            return ParsedAction(verb, {}, tool="cat" if verb == "cat" else None)
        raise ActionError("expected one of: write TEXT | cat | submit | help")

    def _execute(self, action: ParsedAction) -> Outcome:
        if action.name == "write":
            self.sandbox.write_file("answer.txt", action.args["text"])
            done = self._verify()
            return Outcome("ok", [ev.tool_call("write", True), ev.mutation("answer.txt"), ev.subtask("written", done)])
        if action.name == "cat":
            r = self.sandbox.run("cat answer.txt")
            if r.exit_code != 0:
                return Outcome(r.text, [ev.tool_call("cat", True), ev.state_mismatch("answer.txt is missing")])
            return Outcome(r.text, [ev.tool_call("cat", True), ev.verification(self._verify(), "answer.txt")])
        raise AssertionError(f"AgentEnv handles {action.name!r} itself")

    def help_text(self) -> str:
        return "write TEXT | cat | submit | help"

    def _reset_help(self) -> str:
        return ""  # the instruction states the grammar

    def _verify(self) -> bool:
        r = self.sandbox.run("cat answer.txt")
        return r.exit_code == 0 and r.text == self.task.meta["word"]

    def _admissible(self) -> list[str]:
        return [f"write {w}" for w in WORDS[:4]] + ["cat", "submit"]

    def _drift(self) -> str | None:
        self.sandbox.run("rm -f answer.txt")
        return "answer.txt removed"
