"""BFCL-v0's own behaviour: data from the pinned wheel, the grammar, turns, withheld tools, faults, verdicts.

The registry suite (``tests/envs/test_registry.py``) runs the whole contract on the id; these are
the family's edge cases, on the local backend (BFCL's classes from the host's copy in the cache).
"""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import agentgym
from agentgym.envs.bfcl import data
from agentgym.envs.bfcl.tasks import CATEGORIES, REPLY_DONE, BFCLTasks, scenario_split


@pytest.fixture(scope="module")
def env():
    env = gym.make("agentgym/BFCL-v0", backend="local").unwrapped
    yield env
    env.close()


def _play(env, actions):
    out = None
    for action in actions:
        out = env.step(action)
    return out


def test_800_tasks_split_by_scenario():
    tasks = BFCLTasks()
    train, test = tasks.ids("train"), tasks.ids("test")
    assert len(train) + len(test) == 800 and not set(train) & set(test)
    for task_id in test:  # every variant of a test scenario is in test
        index = int(task_id.rsplit("/", 1)[1])
        assert all(f"bfcl/{c}/{index}" in test for c in CATEGORIES)
    assert {scenario_split(int(t.rsplit("/", 1)[1])) for t in test} == {"test"}
    assert 120 <= len(test) <= 280  # a quarter of 800, give or take the hash
    for category in CATEGORIES:
        ids = gym.make(f"agentgym/BFCL-{category}-v0", backend="local").unwrapped.tasks.ids("test")
        assert ids and all(t.startswith(f"bfcl/{category}/") for t in ids)


def test_nothing_of_bfcl_is_committed():
    import subprocess

    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    assert not [f for f in files if "BFCL_v4" in f or f.endswith(("gorilla_file_system.py", "long_context.py"))]


def test_ground_truth_is_parsed_never_evaluated():
    e = data.entry("base", 0)
    assert e.ground_truth[2] == (("sort", ("final_report.pdf",), ()),)  # BFCL's positional form kept as such
    assert data.render(e.ground_truth[2][0]) == 'sort("final_report.pdf")'
    assert data.render_python(e.ground_truth[0][0]) == "cd(folder='document')"


def test_a_call_spelled_by_keyword_advances_the_oracle_past_a_positional_ground_truth(env):
    """BFCL's ground truth passes some arguments by position; a tool call (TRL's, MCP's) names them all. The
    oracle's cursor once compared the spellings, so through the TRL adapter the oracle repeated
    ``get_zipcode_based_on_city("Crescent Hollow")`` until its budget ran out on bfcl/base/57."""
    env.reset(options={"task_id": "bfcl/base/57"})
    assert env.reference_action() == 'get_zipcode_based_on_city("Crescent Hollow")'
    env.step('get_zipcode_based_on_city(city="Crescent Hollow")')
    assert env.reference_action() == 'get_zipcode_based_on_city("Autumnville")'
    env.step('get_zipcode_based_on_city(city="Crescent Hollow")')  # the same call again is not the next one
    assert env.reference_action() == 'get_zipcode_based_on_city("Autumnville")'
    classes = env.entry.classes
    assert data.same_call(("add", (1, 2), ()), ("add", (), (("a", 1), ("b", 2))), classes)
    assert not data.same_call(("add", (1, 2), ()), ("add", (2, 1), ()), classes)
    assert not data.same_call(("add", (1, 2, 3), ()), ("add", (1, 2, 3), (("z", 1),)), classes)  # binds to nothing


def test_observation_turns_and_call_forms(env):
    obs, info = env.reset(seed=0, options={"task_id": "bfcl/base/0"})
    assert "Move 'final_report.pdf'" in obs["text"] and "reply(" in obs["text"]
    names = [t["function"]["name"] for t in info["tools"]]
    assert "mv" in names and "post_tweet" in names and names[-1] == "reply"
    assert info["tools"][names.index("mv")]["function"]["parameters"]["type"] == "object"
    _, _, _, _, info = env.step('{"tool": "cd", "args": {"folder": "document"}}')
    assert info["events"][-1] == {"kind": "tool_call", "name": "cd", "ok": True, "error_kind": None}
    obs, _, _, _, info = env.step(
        json.dumps({"type": "function", "function": {"name": "mkdir", "arguments": json.dumps({"dir_name": "temp"})}})
    )  # the OpenAI tool-call shape
    assert info["events"][-1]["ok"]
    obs, *_ = env.step("mv('final_report.pdf', 'temp')")  # positional values, as BFCL's calls allow
    assert "temp" in obs["text"]
    obs, *_ = env.step("ls()")
    assert "temp" in obs["text"]
    obs, _, terminated, _, info = env.step(REPLY_DONE)
    assert obs["text"].startswith("User: Perform a detailed search") and not terminated
    assert env.turn_results[0] is True and {"kind": "subtask", "name": "turn_1", "done": True} in info["events"]


def test_agent_text_is_never_evaluated(env, tmp_path):
    env.reset(seed=0, options={"task_id": "bfcl/base/0"})
    marker = tmp_path / "pwned"
    for attack in (
        f"cd(folder=__import__('os').system('touch {marker}'))",
        f"__import__('os').system('touch {marker}')",
        "eval('1')",
        "cd(folder=open('/etc/passwd').read())",
        "_load_scenario(scenario={})",
        "__init__()",
    ):
        obs, reward, terminated, _, info = env.step(attack)
        assert obs["text"].startswith("error:") and not terminated, (attack, obs["text"])
    assert not marker.exists()
    # a JSON call's keys are free text; as argument names they would become code in BFCL's call strings
    sneaky = json.dumps({"tool": "cd", "args": {f"x=__import__('os').system('touch {marker}'),y": 1}})
    obs, *_ = env.step(sneaky)
    assert "is not an argument name" in obs["text"]
    with pytest.raises(ValueError, match="not an identifier"):
        data.render_python(("cd", (), (("x=1,y", 1),)))
    obs, *_ = env.step('{"tool": "cd", "args": {"folder": NaN}}')  # Python's json reads NaN; JSON has none
    assert "JSON values" in obs["text"]
    obs, *_ = env.step("cd(folder=('a', 'b'))")  # a tuple is not a JSON value: refused, not run
    assert "JSON values" in obs["text"]
    assert env.call_log()[0] == []


def test_state_and_response_checks(env):
    # the right directory made, but the file copied instead of moved: the state differs from BFCL's
    env.reset(seed=0, options={"task_id": "bfcl/base/0"})
    _play(
        env,
        [
            'cd(folder="document")',
            'mkdir(dir_name="temp")',
            'cp(source="final_report.pdf", destination="temp")',
            REPLY_DONE,
        ],
    )
    assert env.turn_results[0] is False
    # the right state without the turn's read: its result is missing from the agent's
    env.reset(seed=0, options={"task_id": "bfcl/base/1"})
    _play(env, [REPLY_DONE])
    assert env.turn_results[0] is False  # no call at all in a turn with ground-truth calls
    env.reset(seed=0, options={"task_id": "bfcl/base/1"})
    _play(env, ["pwd()", REPLY_DONE])
    assert env.turn_results[0] is False  # the state is right, but ls(a=True)'s result is not among the agent's


def test_miss_func_withholds_a_tool_until_its_turn(env):
    e = data.entry("miss_func", 0)
    assert e.missed == {3: ("sort",)}
    env.reset(seed=0, options={"task_id": "bfcl/miss_func/0"})
    assert "sort" not in [t["function"]["name"] for t in env.tools()]
    obs, *_ = env.step('frobnicate(file_name="final_report.pdf")')
    assert obs["text"].startswith("error: unknown tool 'frobnicate'")
    for _ in range(3):
        while not env.reference_action().startswith("reply"):
            env.step(env.reference_action())
        obs, *_ = env.step(env.reference_action())
    assert data.ADDED_FUNCTIONS_PROMPT in obs["text"] and "sort(" in obs["text"]
    assert "sort" in [t["function"]["name"] for t in env.tools()]
    assert env.turn_results[2] is None  # the turn it could not serve is not checked, as in BFCL


def test_a_withheld_function_runs_if_called_as_in_bfcl(env):
    """BFCL's executor runs any public method of the involved classes: miss_func/49's ground truth itself calls
    ``tail`` a turn before the user gives it back, so the oracle needs it (and scores 1.00)."""
    e = data.entry("miss_func", 49)
    assert "tail" in e.missed[3] and ("tail", (), (("file_name", "file3.txt"),)) in e.ground_truth[1]
    env.reset(seed=0, options={"task_id": "bfcl/miss_func/49"})
    for _ in range(30):
        _, reward, terminated, _, _ = env.step(env.reference_action())
        if terminated:
            break
    assert terminated and reward == 1.0


def test_acting_on_a_turn_it_cannot_serve_fails(env):
    """miss_param/4: acting before the user gives the missing detail (the next turn's calls made early, then
    again in their turn) leaves a state the next turn's check rejects. (On miss_param/0 the early calls
    happen to be harmless, and BFCL passes it: the agreement test covers both.)"""
    e = data.entry("miss_param", 4)
    k = next(i for i, calls in enumerate(e.ground_truth) if not calls)
    actions = []
    for j, calls in enumerate(e.ground_truth):
        todo = e.ground_truth[k + 1] if j == k else calls
        actions += [data.render(c) for c in todo] + [REPLY_DONE]
    env.reset(seed=0, options={"task_id": "bfcl/miss_param/4"})
    _, reward, terminated, _, _ = _play(env, actions)
    assert terminated and reward == 0.0 and env.turn_results[k + 1] is False


@pytest.mark.parametrize("kind", agentgym.FAULT_KINDS)
def test_oracle_recovers_from_each_fault_mid_episode(kind):
    env = agentgym.make("agentgym/BFCL-v0", backend="local", faults=f"{kind}@turn=2", budget=40)
    try:
        env.reset(seed=0, options={"task_id": "bfcl/base/0"})
        terminated = truncated = False
        while not (terminated or truncated):
            _, reward, terminated, truncated, info = env.step(env.unwrapped.reference_action())
        assert terminated and reward == 1.0, kind
    finally:
        env.close()


def test_drift_loses_the_call_just_made(env):
    env.reset(seed=0, options={"task_id": "bfcl/base/0"})
    env.step('cd(folder="document")')
    env.inject_fault("state_drift")
    _, _, _, _, info = env.step('mkdir(dir_name="temp")')
    drift = [e for e in info["events"] if e["kind"] == "fault_injected"]
    assert drift and "mkdir" in drift[0]["detail"]
    assert env.call_log()[0] == [["cd(folder='document')"]]
    assert env.reference_action() == 'mkdir(dir_name="temp")'
    obs, *_ = env.step("ls()")
    assert "temp" not in obs["text"]


def test_reference_moves_back_to_the_ground_truths_directory(env):
    env.reset(seed=0, options={"task_id": "bfcl/base/0"})
    env.step('cd(folder="document")')
    env.step('cd(folder="..")')  # the agent wandered off
    assert env.reference_action() == 'cd(folder="document")'


def test_truncation_scores_zero_unless_asked():
    """base/50 is one user turn of two calls: cut off before its reply, the work is scored only on request."""
    assert [len(t) for t in data.entry("base", 50).ground_truth] == [2]
    for score, expected in ((False, 0.0), (True, 1.0)):
        env = agentgym.make("agentgym/BFCL-v0", backend="local", budget=2, score_on_truncation=score)
        try:
            env.reset(seed=0, options={"task_id": "bfcl/base/50"})
            for _ in range(2):
                _, reward, terminated, truncated, _ = env.step(env.unwrapped.reference_action())
            assert truncated and reward == expected
        finally:
            env.close()


def test_process_reward_per_user_turn_and_failure_labels():
    """ProcessReward pays each user turn as it passes BFCL's checks; FailureLabeler labels the end."""
    env = agentgym.make("agentgym/BFCL-v0", backend="local", process_reward=1.0, labels=True)
    try:
        env.reset(seed=0, options={"task_id": "bfcl/base/0"})
        base = env.unwrapped
        shaped = []
        while True:
            action = base.reference_action()
            _, reward, terminated, _, info = env.step(action)
            if action.startswith("reply"):
                shaped.append(reward)
            if terminated:
                break
        turns = len(base.task.subtasks)
        assert turns == 4 and [round(r, 6) for r in shaped[:-1]] == [round(1 / turns, 6)] * (turns - 1)
        # potential-based: at the end the potential of the three turns done is given back, the task's 1.0 added
        assert round(shaped[-1], 6) == round(1 - (turns - 1) / turns, 6)
        assert info["failure_category"] == "success"
        env.reset(seed=0, options={"task_id": "bfcl/base/0"})
        env.step('cd(folder="nowhere")')  # a failed call, never made good, then the turn handed back
        for _ in range(4):
            _, reward, terminated, _, info = env.step(REPLY_DONE)
        assert terminated and reward == 0.0 and info["failure_category"] == "tool_call_error"
    finally:
        env.close()


def test_a_call_that_runs_too_long_ends_the_episode_as_the_agents_failure():
    env = gym.make("agentgym/BFCL-v0", backend="local").unwrapped
    try:
        env.reset(seed=0, options={"task_id": "bfcl/base/15"})
        env.call_timeout = 1.0
        obs, reward, terminated, _, info = env.step("power(base=10, exponent=1000000000)")
        assert terminated and reward == 0.0 and info.get("sandbox_crashed") is True, obs["text"]
        env.call_timeout = 10.0
        env.reset(seed=0, options={"task_id": "bfcl/base/15"})  # a fresh sandbox
        _, _, _, _, info = env.step("pwd()")
        assert info["events"][-1]["ok"]
    finally:
        env.close()
