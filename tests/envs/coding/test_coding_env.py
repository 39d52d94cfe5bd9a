"""CodingEnv end to end on both sandbox backends: oracle, faults, drift, events, free-text agent, random policy."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

from agentgym.envs.coding import CodingEnv
from agentgym.envs.coding.tasks import TIERS, default_taskset
from agentgym.errors import ConfigError
from support.docker import require_docker

FULL_ORACLE = os.environ.get("AGENTGYM_CODING_FULL_ORACLE", "") not in ("", "0")


@pytest.fixture(scope="module", params=["local", "docker"])
def env(request):
    if request.param == "docker":
        require_docker("agentgym/coding:latest")
    e = CodingEnv(split="test", backend=request.param)
    yield e
    e.close()


def kinds(info) -> list[str]:
    return [e["kind"] for e in info["events"]]


def revealed_task(index: int = 0):
    """A one-bug test-split task whose bug the visible tests reveal."""
    tasks = default_taskset()
    found = [
        i
        for i in tasks.ids("test", "one_bug")
        if set(tasks.bugs_of(i)[0].covering) & set(tasks.corpus[tasks.bugs_of(i)[0].module].visible)
    ]
    return tasks.get(found[index])


def run_oracle(env, task_id: str, budget: int) -> tuple[float, int, list[dict]]:
    obs, info = env.reset(options={"task_id": task_id})
    events: list[dict] = []
    for turn in range(1, budget + 1):
        obs, reward, terminated, truncated, info = env.step(env.reference_action())
        events += info["events"]
        if terminated:
            return reward, turn, events
    return 0.0, budget, events


def test_oracle_solves_every_tier_in_min_turns(env):
    tasks = default_taskset()
    for tier in TIERS:
        task_id = tasks.ids("test", tier)[0]
        reward, turns, events = run_oracle(env, task_id, 10)
        assert reward == 1.0 and turns == tasks.get(task_id).min_turns, (tier, turns)
        names = [e["kind"] for e in events]
        assert "mutation" in names and {"kind": "verification", "ok": True, "target": "visible tests"} in events
        done = {e["name"]: e["done"] for e in events if e["kind"] == "subtask"}
        assert done and all(done.values()), done
        # subtask events report changes, never the same status twice in a row
        last: dict[str, bool] = {}
        for e in (e for e in events if e["kind"] == "subtask"):
            assert last.get(e["name"], False) != e["done"], (tier, e)
            last[e["name"]] = e["done"]


def test_oracle_on_the_test_split(env):
    """A spread of test-split tasks (every one with AGENTGYM_CODING_FULL_ORACLE=1)."""
    ids = default_taskset().ids("test")
    stride = 1 if FULL_ORACLE else (25 if env.sandbox is None or env.sandbox.backend == "local" else 60)
    chosen = ids[::stride]
    failures = [i for i in chosen if run_oracle(env, i, 12)[0] != 1.0]
    assert not failures, f"oracle failed {len(failures)}/{len(chosen)}: {failures[:5]}"


@pytest.mark.parametrize("fault", ["tool_error", "timeout", "empty_output", "corrupted_output", "state_drift"])
def test_oracle_recovers_from_every_fault_kind(env, fault):
    task_id = default_taskset().ids("test", "two_bugs")[1]
    obs, info = env.reset(options={"task_id": task_id})
    env.step(env.reference_action())  # first fix applied
    env.inject_fault(fault)  # hits the second fix
    _, _, _, _, info = env.step(env.reference_action())
    assert "fault_injected" in kinds(info)
    for _ in range(8):
        _, reward, terminated, _, info = env.step(env.reference_action())
        if terminated:
            break
    assert terminated and reward == 1.0


def test_drift_reverts_the_last_edited_file_and_the_oracle_refixes(env):
    tasks = default_taskset()
    task = tasks.get(tasks.ids("test", "one_bug")[3])
    env.reset(options={"task_id": task.task_id})
    env.step(env.reference_action())
    env.inject_fault("state_drift")
    _, _, _, _, info = env.step("test")  # tests run on the fixed code, then the file drifts back
    (mark,) = [e for e in info["events"] if e["kind"] == "fault_injected"]
    assert mark["fault"] == "state_drift" and "reverted" in mark["detail"]
    (bug,) = task.meta["bugs"]
    assert env.sandbox.read_file(bug.file).decode() == task.files[bug.file]
    assert env.reference_action().startswith("patch\n")  # the oracle sees the true state
    reward = 0.0
    for _ in range(4):
        _, reward, terminated, _, _ = env.step(env.reference_action())
        if terminated:
            break
    assert reward == 1.0


def test_every_action_and_its_events(env):
    task = revealed_task()
    (bug,) = task.meta["bugs"]
    obs, info = env.reset(options={"task_id": task.task_id})
    assert obs["text"].startswith(task.instruction) and info["min_turns"] == 3
    assert obs["text"].endswith(env.help_text().rstrip()) and info["help"] == env.help_text()
    menu = info["admissible_actions"]
    assert menu[0] == "test" and menu[-1] == "submit" and f"view {bug.file}" in menu
    patches = [a for a in menu if a.startswith("patch\n")]
    assert task.solution[0] in patches and len(patches) >= 2

    def step(action):
        obs, reward, terminated, truncated, info = env.step(action)
        return obs["text"], info

    text, info = step("test")
    assert kinds(info)[:3] == ["action", "tool_call", "verification"] and info["events"][2]["ok"] is False
    assert "FAILED" in text and re.search(r"== \d+ failed", text)
    text, info = step(f"view {bug.file} 1-3")
    assert text.splitlines()[1].startswith("1 | ") and kinds(info) == ["action", "tool_call"]
    for bad, detail in [
        ("view nope.py", "missing path"),
        (f"view {bug.file} 900-901", "outside"),
        (f"replace {bug.file} 900-901\nx", "outside"),
        ("replace nope.py 1-1\nx", "missing path"),
        ("revert", "no edit"),
        ("patch\n--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-a\n+b", "nope.py"),
        (f"patch\n--- a/{bug.file}\n+++ b/{bug.file}\n@@ -1 +1 @@\n-no such line\n+b", "does not match"),
    ]:
        text, info = step(bad)
        assert text.startswith("error:") and "state_mismatch" in kinds(info), bad
        assert detail in [e for e in info["events"] if e["kind"] == "state_mismatch"][0]["detail"] + text
        # one meaning across families: a reference to something that is not there is a failed call
        call = next(e for e in info["events"] if e["kind"] == "tool_call")
        assert call["ok"] is False and call["error_kind"] in ("not_found", "conflict"), (bad, call)
    text, info = step("frobnicate")
    assert info["events"] == [{"kind": "action", "parsed_ok": False, "name": None, "error": info["events"][0]["error"]}]
    text, info = step("help")
    assert "replace PATH START-END" in text and kinds(info) == ["action"]
    wrong = next(p for p in patches if p != task.solution[0])
    text, info = step(wrong)
    assert "Patched" in text and "mutation" in kinds(info) and "revert" in info["admissible_actions"]
    text, info = step("revert")
    assert "mutation" in kinds(info) and env.sandbox.read_file(bug.file).decode() == task.files[bug.file]
    text, info = step(f"run echo hi >> {bug.file}; echo done")
    assert "done" in text and "[exit code 0]" in text and {"kind": "mutation", "target": bug.file} in info["events"]
    text, info = step("revert")  # shell edits are undoable too
    assert env.sandbox.read_file(bug.file).decode() == task.files[bug.file]
    text, info = step("submit")
    assert info["success"] is False and kinds(info)[-1] == "submit"


def test_hidden_tests_decide_not_the_visible_file(env):
    tasks = default_taskset()
    task = tasks.get(tasks.ids("test", "one_bug")[2])
    (bug,) = task.meta["bugs"]
    env.reset(options={"task_id": task.task_id})
    test_file = tasks.corpus[bug.module].test_file
    n = task.files[test_file].count("\n")
    _, _, _, _, info = env.step(f"replace {test_file} 1-{n}\ndef test_nothing():\n    pass")
    _, _, _, _, info = env.step("test")
    assert info["events"][2] == {"kind": "verification", "ok": True, "target": "visible tests"}
    _, reward, terminated, _, info = env.step("submit")
    assert terminated and reward == 0.0 and info["success"] is False


def test_an_edited_test_file_runs_as_edited_after_the_original_was_compiled(env):
    """The step server keeps the task's test files compiled (runner.warm); an edit must not hit that cache."""
    task = revealed_task()
    (bug,) = task.meta["bugs"]
    test_file = default_taskset().corpus[bug.module].test_file
    env.reset(options={"task_id": task.task_id})
    obs, _, _, _, info = env.step("test")
    assert "FAILED" in obs["text"] and info["events"][2]["ok"] is False
    n = task.files[test_file].count("\n")
    env.step(f"replace {test_file} 1-{n}\ndef test_nothing():\n    pass")
    obs, _, _, _, info = env.step("test")
    assert "test_nothing PASSED" in obs["text"] and "FAILED" not in obs["text"] and info["events"][2]["ok"] is True


def test_free_text_agent_reads_the_file_and_writes_its_own_edit(env):
    """No menu: view the file, find what differs from a correct copy, `replace` those lines, test, submit."""
    tasks = default_taskset()
    task = tasks.get(tasks.ids("test", "one_bug")[4])
    (bug,) = task.meta["bugs"]
    reference = tasks.corpus[bug.module].source.splitlines()  # the agent's knowledge of correct code
    env.reset(options={"task_id": task.task_id})
    obs, *_ = env.step(f"view {bug.file}")
    shown = [re.sub(r"^\s*\d+ \| ", "", line, count=1) for line in obs["text"].splitlines()[1:]]
    first = (
        next(i for i, (a, b) in enumerate(zip(shown, reference)) if a != b)
        if shown[: len(reference)] != reference
        else min(len(shown), len(reference))
    )
    tail = 0
    while tail < min(len(shown), len(reference)) - first and shown[-1 - tail] == reference[-1 - tail]:
        tail += 1
    new_lines = reference[first : len(reference) - tail]
    action = f"replace {bug.file} {first + 1}-{len(shown) - tail}\n" + "\n".join(new_lines)
    _, _, _, _, info = env.step(action)
    assert "mutation" in kinds(info)
    _, _, _, _, info = env.step("test")
    assert info["events"][2]["ok"] is True
    _, reward, terminated, _, info = env.step("submit")
    assert terminated and reward == 1.0


def _step_after_a_looping_edit(env, action: str):
    """Append ``while True: pass`` to a task's buggy module, then ``action`` with a 1 s test timeout."""
    tasks = default_taskset()
    task = tasks.get(tasks.ids("test", "one_bug")[0])
    (bug,) = task.meta["bugs"]
    env.reset(options={"task_id": task.task_id})
    n = task.files[bug.file].count("\n")
    env.step(f"replace {bug.file} {n + 1}-{n}\nwhile True:\n    pass")
    old, env.test_timeout = env.test_timeout, 1.0
    try:
        return env.step(action)
    finally:
        env.test_timeout = old


def test_a_hanging_test_run_is_a_tool_timeout(env):
    obs, _, _, _, info = _step_after_a_looping_edit(env, "test")
    assert {"kind": "tool_call", "name": "tests", "ok": False, "error_kind": "timeout"} in info["events"]
    assert "timed out" in obs["text"]
    assert env.reference_action().startswith("patch\n")  # the oracle restores the file and carries on


def test_a_looping_submission_fails_and_its_verdict_says_it_computed(env):
    """The replay's timeout carries the CPU it used, so the result cache can store a looping state at once."""
    from agentgym.envs.coding.verifier import TIMED_OUT

    _, reward, terminated, _, info = _step_after_a_looping_edit(env, "submit")
    assert terminated and reward == 0.0 and not info["success"]
    # the replay spins for its whole timeout: a core's worth of it on an idle machine, 0.2 s measured at load 15
    # on two cores (the cache then stores it only once a quieter replay shows it computed: `CodingEnv._cpu_bound`)
    assert env.last_verdict.reason == TIMED_OUT and env.last_verdict.busy_seconds >= 0.15


def test_same_seed_same_task_and_trajectory(env):
    runs = []
    for _ in range(2):
        obs, info = env.reset(seed=123)
        rng = np.random.default_rng(5)
        traj = [obs["text"], info]
        for _ in range(6):
            menu = [a for a in info["admissible_actions"] if a != "submit"]
            obs, reward, terminated, truncated, info = env.step(menu[int(rng.integers(len(menu)))])
            traj.append((obs["text"], reward, terminated, info))
        runs.append(traj)
    assert runs[0] == runs[1]


def test_random_menu_policy_succeeds_far_less_than_the_oracle():
    """Measured on the local backend: uniform over the menu, 20 turns at most."""
    env = CodingEnv(split="test", backend="local")
    rng = np.random.default_rng(0)
    wins, n = 0, 40
    try:
        for episode in range(n):
            obs, info = env.reset(seed=episode)
            for _ in range(20):
                menu = info["admissible_actions"]
                obs, reward, terminated, _, info = env.step(menu[int(rng.integers(len(menu)))])
                if terminated:
                    wins += int(reward == 1.0)
                    break
    finally:
        env.close()
    assert wins / n <= 0.35, f"random menu policy solved {wins}/{n}"


def test_tier_filter_and_bad_arguments():
    env = CodingEnv(split="train", tiers="cross_file", backend="local")
    try:
        assert all(i.startswith("coding/cross_file/") for i in env.tasks.ids("train"))
        assert env.tasks.get(default_taskset().ids("train", "one_bug")[0]).tier == "one_bug"
    finally:
        env.close()
    for kwargs in ({"tiers": ["four_bugs"]}, {"split": "validation"}, {"test_timeout": 0}, {"test_runner": "nose"}):
        with pytest.raises(ConfigError):
            CodingEnv(backend="local", **kwargs)


def test_pytest_sessions_give_the_same_verdicts_as_direct_calls():
    """test_runner="pytest" agrees with the direct runner on the report and the events."""
    task = revealed_task(1)
    reports = {}
    for runner in ("auto", "pytest"):
        env = CodingEnv(split="test", backend="local", test_runner=runner)
        try:
            env.reset(options={"task_id": task.task_id})
            obs, _, _, _, info = env.step("test")
            lines = obs["text"].splitlines()
            reports[runner] = (
                [line for line in lines if line.endswith(("PASSED", "FAILED"))],
                lines[-1],
                info["events"][2:],
            )
        finally:
            env.close()
    assert reports["auto"] == reports["pytest"] and "FAILED" in " ".join(reports["auto"][0])


def test_a_crashed_test_runner_is_a_tool_error(env):
    task = revealed_task()
    (bug,) = task.meta["bugs"]
    env.reset(options={"task_id": task.task_id})
    n = task.files[bug.file].count("\n")
    env.step(f"replace {bug.file} 1-{n}\nimport os\nos._exit(3)")  # the code under test kills its interpreter
    obs, _, _, _, info = env.step("test")
    assert {"kind": "tool_call", "name": "tests", "ok": False, "error_kind": "crash"} in info["events"]
    assert "crashed" in obs["text"]
    env.step("revert")
    _, _, _, _, info = env.step("test")
    assert info["events"][1] == {"kind": "tool_call", "name": "tests", "ok": True, "error_kind": None}


def test_the_docs_example_runs():
    """docs/reference/families/coding.md's first example, on the local backend (it names a real task id,
    so keep it real)."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[3] / "docs" / "reference" / "families" / "coding.md").read_text()
    code = doc.split("```python\n", 1)[1].split("```", 1)[0]
    code = code.replace('split="test")', 'split="test", backend="local")', 1).replace("print(", "str(")
    exec(compile(code, "docs/reference/families/coding.md", "exec"), {})


def test_edits_echo_the_changed_lines_bounded():
    """After replace/patch the agent sees the edited lines numbered, without spending a `view`."""
    env = CodingEnv(split="test", backend="local")
    try:
        task = revealed_task()
        (bug,) = task.meta["bugs"]
        env.reset(options={"task_id": task.task_id})
        obs, *_ = env.step(f"replace {bug.file} 2-2\nX_MARK = 1")
        assert f"{bug.file} now reads:" in obs["text"] and " 2 | X_MARK = 1" in obs["text"]
        obs, *_ = env.step(env.reference_action())  # a patch
        assert obs["text"].startswith("Patched") and "now reads:" in obs["text"]
        n = task.files[bug.file].count("\n")
        obs, *_ = env.step(f"replace {bug.file} {n + 1}-{n}\n" + "\n".join(f"Y{i} = {i}" for i in range(100)))
        assert "more line(s); `view" in obs["text"] and obs["text"].count(" | ") <= 40
    finally:
        env.close()
