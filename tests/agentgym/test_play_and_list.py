"""``agentgym list`` and ``agentgym play``, run as users run them: the oracle and a random agent
watched, a person's actions scripted on standard input, on the local backend and on Docker."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time

import pytest

import agentgym
from agentgym import cli
from agentgym.agents import OracleAgent
from agentgym.agents.human import HumanAgent
from agentgym.catalog import catalog, describe
from agentgym.errors import ConfigError, UnknownEnvId
from agentgym.play import play_episode
from support.docker import require_docker

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def agentgym_cmd(capfd):
    """Run ``agentgym ARGS`` in this process; (exit code, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        capfd.readouterr()
        try:
            code = cli.main(list(args))
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
        out, err = capfd.readouterr()
        return code, out, err

    return run


# ---------------------------------------------------------------------------------------------- list
def test_list_shows_every_registered_id_without_starting_a_sandbox(agentgym_cmd, monkeypatch):
    import agentgym.core

    def no_sandbox(*args, **kwargs):
        raise AssertionError("agentgym list started a sandbox")

    monkeypatch.setattr(agentgym.core, "make_sandbox", no_sandbox)
    started = time.monotonic()
    code, out, _ = agentgym_cmd("list")
    assert code == 0 and time.monotonic() - started < 30
    ids = sorted(i for i in __import__("gymnasium").registry if i.startswith("agentgym/"))
    rows = [line.split()[0] for line in out.splitlines()[1:] if line.startswith("agentgym/")]
    assert sorted(rows) == ids and len(ids) >= 72
    assert out.splitlines()[0].split()[:6] == ["ID", "FAMILY", "TRAIN", "TEST", "HELDOUT", "DOCKER"]
    coding = next(line for line in out.splitlines() if line.startswith("agentgym/Coding-v0 "))
    assert "optional" in coding and "patch" in coding and "(+ menu)" in coding
    assert "required" in next(line for line in out.splitlines() if line.startswith("agentgym/MiniWoB-v0 "))


def test_list_json_is_one_record_per_id_with_its_splits(agentgym_cmd):
    code, out, _ = agentgym_cmd("list", "--json")
    records = {r["id"]: r for r in json.loads(out)}
    assert code == 0 and set(records) == set(i.id for i in catalog())
    assert set(records) >= set(agentgym.ENV_IDS)
    coding = records["agentgym/Coding-v0"]
    assert coding["family"] == "coding" and set(coding["tasks"]) == {"train", "test", "heldout"}
    assert all(n > 0 for n in coding["tasks"].values()) and coding["needs_docker"] is False
    button = records["agentgym/MiniWoB-click-button-v0"]
    assert button["fixed"] == {"tasks": ["click-button"]} and button["needs_docker"] is True
    assert button["backends"] == ["docker"]
    assert all(r["action_form"] and r["menu"] for r in records.values())


def test_list_filters_by_a_pattern(agentgym_cmd):
    code, out, _ = agentgym_cmd("list", "bfcl")
    rows = [line for line in out.splitlines() if line.startswith("agentgym/")]
    assert code == 0 and rows and all("BFCL" in r for r in rows)
    code, out, _ = agentgym_cmd("list", "no-such-family")
    assert code == 1 and "no agentgym id contains" in out


def test_unknown_ids_suggest_the_closest():
    with pytest.raises(UnknownEnvId, match=r"did you mean agentgym/Coding-v0\?.*agentgym list"):
        describe("agentgym/Codng-v0")
    with pytest.raises(UnknownEnvId, match="did you mean agentgym/ToolUse-v0"):
        agentgym.make("ToolUse-v0")  # the prefix left out: the same error from agentgym.make
    with pytest.raises(UnknownEnvId, match="registered, but not as an agentgym id"):
        describe("CartPole-v1")


# ---------------------------------------------------------------------------------------------- play
def test_play_watches_the_oracle_solve_a_task(agentgym_cmd):
    code, out, err = agentgym_cmd("play", "agentgym/ToolUse-v0", "--agent", "oracle", "--backend", "local")
    assert code == 0, err
    assert out.startswith("== agentgym/ToolUse-v0 (tooluse), task ")
    assert "[turn 1, 40 left] > " in out  # each action is shown with the turns left
    last = out.strip().splitlines()[-1]
    assert last.startswith("episode over (submitted): reward 1, failure category success, turns used")


def test_play_a_random_agent_within_a_budget_is_seeded(agentgym_cmd):
    args = ("play", "agentgym/Coding-v0", "--agent", "random", "--seed", "3", "--budget", "3", "--backend", "local")
    code, out, err = agentgym_cmd(*args)
    assert code == 0, err
    summary = [line for line in out.splitlines() if line.startswith("episode over")]
    assert len(summary) == 1 and "of 3" in summary[0] and "failure category" in summary[0]
    assert agentgym_cmd(*args)[1] == out  # the same seed plays the same episode
    code, quiet, _ = agentgym_cmd(*args, "--quiet")
    assert code == 0 and quiet.startswith("episode over") and summary[0] in quiet


def test_a_person_plays_from_standard_input(agentgym_cmd, monkeypatch):
    """Player commands cost nothing; a menu number plays that entry; the episode ends with its verdict."""
    script = ":help\n:menu\n1\n\n:menu\n99\nsubmit\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    code, out, err = agentgym_cmd("play", "agentgym/Coding-v0", "--budget", "5", "--backend", "local")
    assert code == 0, err
    assert "Player commands" in out and "view PATH" in out  # :help showed the grammar
    assert "[turn 1, 5 left] > :menu\n  1. test\n" in out
    assert "[turn 2, 4 left] > " in out  # `1` played `test`, the menu's first entry: one turn
    assert "no entry 99" in out
    assert "episode over (submitted): reward 0, failure category" in out
    assert "turns used 2 of 5" in out


def test_a_person_types_a_multi_line_action_then_quits(monkeypatch):
    script = ":multi\nreplace nothing.py 1-1\nx = 1\n:end\n:quit\n"
    shown = io.StringIO()
    agent = HumanAgent(input=io.StringIO(script), output=shown)
    outcome = play_episode("agentgym/Coding-v0", agent, budget=4, backend="local", output=shown)
    assert outcome.stopped and outcome.turns == 1 and outcome.failure_category is None
    assert "no verdict" in outcome.summary()
    assert "nothing.py" in shown.getvalue()  # the env answered the whole three-line action


def test_end_of_input_stops_the_episode(agentgym_cmd, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("test\n"))
    code, out, _ = agentgym_cmd("play", "agentgym/Coding-v0", "--backend", "local")
    assert code == 0 and out.rstrip().endswith("stopped by the player after 1 of 40 turns: no verdict")


def test_play_refuses_bad_arguments_and_says_what_to_pass(agentgym_cmd):
    code, _, err = agentgym_cmd("play", "agentgym/Codng-v0", "--backend", "local")
    assert code == 1 and "UnknownEnvId" in err and "did you mean agentgym/Coding-v0" in err
    assert "Traceback" not in err
    code, _, err = agentgym_cmd("play", "agentgym/Coding-v0", "--budget", "0")
    assert code == 2 and "the turn budget T is a whole number >= 1" in err
    code, _, err = agentgym_cmd("play", "agentgym/Coding-v0", "--seed", "-1")
    assert code == 2 and "a seed is a whole number >= 0" in err
    code, _, err = agentgym_cmd("play", "agentgym/Coding-v0", "--agent", "nobody")
    assert code == 2 and "invalid choice" in err
    code, _, err = agentgym_cmd("play", "agentgym/Coding-v0", "--backend", "ray")
    assert code == 2 and "--executor" in err
    code, _, err = agentgym_cmd("play", "agentgym/Coding-v0", "--quiet")
    assert code == 1 and "--quiet is for watching" in err
    with pytest.raises(ConfigError, match="budget=0"):
        play_episode("agentgym/Coding-v0", OracleAgent(), budget=0)


# ---------------------------------------------------------------------------------------------- Docker
def test_play_on_docker_oracle_and_a_person():
    require_docker("agentgym/coding:latest")
    command = [sys.executable, "-m", "agentgym", "play", "agentgym/Coding-v0", "--backend", "docker"]
    env = {**os.environ, "PYTHONPATH": REPO}
    watched = subprocess.run([*command, "--agent", "oracle"], capture_output=True, text=True, env=env, timeout=300)
    assert watched.returncode == 0, watched.stderr[-2000:]
    assert "failure category success" in watched.stdout and "backend docker" in watched.stdout
    played = subprocess.run(
        [*command, "--budget", "4"], input="test\nsubmit\n", capture_output=True, text=True, env=env, timeout=300
    )
    assert played.returncode == 0, played.stderr[-2000:]
    assert "[turn 1, 4 left] > test" in played.stdout and "passed" in played.stdout
    assert "episode over (submitted)" in played.stdout and "turns used 2 of 4" in played.stdout


def test_play_a_docker_only_id():
    require_docker("agentgym/miniwob:latest")
    outcome = play_episode(
        "agentgym/MiniWoB-click-button-v0", OracleAgent(), backend="docker", output=io.StringIO(), show=False
    )
    assert outcome.success and outcome.failure_category == "success" and outcome.turns >= 1
