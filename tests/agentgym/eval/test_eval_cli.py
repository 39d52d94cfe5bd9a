"""The ``agentgym eval`` / ``report`` / ``compare`` commands end to end, in subprocesses,
including a run killed mid-way and resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import eval_envs  # noqa: F401  (registers the test envs in this process too)
import pytest
from test_eval_harness import summary_stats

from agentgym.eval.plots import PLOT_FILES

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def cli_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "tests"), str(HERE), env.get("PYTHONPATH", "")])
    return env


def agentgym(*args, check=True, **kw):
    proc = subprocess.run(
        [sys.executable, "-m", "agentgym.cli", *args],
        capture_output=True,
        text=True,
        env=cli_env(),
        cwd=ROOT,
        timeout=300,
        **kw,
    )
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


EVAL = [
    "eval",
    "--env",
    "eval_envs:test/EvalKV-v0",
    "--agent",
    "eval_envs:SlowOracle",
    "--agent-arg",
    "delay=0.02",
    "--k",
    "1,2",
    "--t",
    "3,5",
    "--n",
    "2",
    "--tasks",
    "4",
    "--seed",
    "11",
    "--no-progress",
]


@pytest.mark.slow
def test_eval_kill_resume_report_and_compare(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    done = agentgym(*EVAL, "--out", str(a))
    assert "T=5" in done.stdout and "pass@2=" in done.stdout
    for name in ("episodes.jsonl", "summary.json", "report.md", "run.json", *PLOT_FILES.values()):
        assert (a / name).stat().st_size > 0, name
    total = len((a / "episodes.jsonl").read_text().splitlines())
    assert total == 2 * 4 * 2

    # kill a run mid-way, then resume it with the same command
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentgym.cli", *EVAL, "--out", str(b), "--no-report"],
        env=cli_env(),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    episodes = b / "episodes.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if episodes.exists() and episodes.read_text().count("\n") >= 3:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = episodes.read_text().count("\n")  # complete lines; a torn last one is rerun
    assert 3 <= finished < total
    resumed = agentgym(*EVAL, "--out", str(b), "--no-report")
    assert resumed.stdout.startswith(f"{total - finished} episode(s) run"), resumed.stdout
    assert not (b / "report.md").exists()
    agentgym("report", str(b))
    assert (b / "report.md").exists() and all((b / n).stat().st_size > 0 for n in PLOT_FILES.values())
    sa = json.loads((a / "summary.json").read_text())
    sb = json.loads((b / "summary.json").read_text())
    assert summary_stats(sa) == summary_stats(sb)

    out = tmp_path / "cmp"
    cmp = agentgym("compare", str(a), str(b), "--out", str(out))
    assert "| 2 | 5 |" in cmp.stdout and "+0.00" in cmp.stdout
    assert (out / "compare.md").exists() and (out / "compare.png").read_bytes()[:4] == b"\x89PNG"


def test_cli_errors_are_typed_and_say_what_to_do(tmp_path, capsys):
    from agentgym.cli import main

    code = main(
        ["eval", "--env", "test/EvalKV-v0", "--agent", "oracle", "--k", "4", "--n", "2", "--out", str(tmp_path)]
    )
    assert code != 0 and "n >= 4" in capsys.readouterr().err
    code = main(["report", str(tmp_path / "nothing")])
    assert code != 0 and "agentgym eval" in capsys.readouterr().err
    code = main(["eval", "--env", "test/EvalKV-v0", "--agent", "random", "--model", "m", "--out", str(tmp_path)])
    assert code == 2 and "--model applies to --agent openai or hf only" in capsys.readouterr().err
    code = main(["eval", "--env", "test/EvalKV-v0", "--agent", "hf", "--base-url", "http://x", "--out", str(tmp_path)])
    assert code == 2 and "--base-url/--api-key apply to --agent openai only" in capsys.readouterr().err


def test_cli_names_the_executor_apart_from_the_sandbox(tmp_path, capsys):
    """``--executor`` is where episodes run; ``--backend`` the sandbox, as in every agentgym command; the
    old ``--sandbox`` still works, with a notice; ``--backend ray`` (the executor once) says what to pass."""
    from agentgym.cli import build_parser, main

    help_text = build_parser()._subparsers._group_actions[0].choices["eval"].format_help()
    assert "--executor" in help_text and "--backend" in help_text and "--sandbox" not in help_text
    base = ["eval", "--env", "test/EvalKV-v0", "--agent", "oracle", "--t", "8", "--tasks", "1", "--no-progress"]
    assert main([*base, "--executor", "local", "--backend", "local", "--out", str(tmp_path / "a")]) == 0
    config = json.loads((tmp_path / "a" / "summary.json").read_text())["config"]
    assert config["executor"] == "local" and config["sandbox"] == "local"
    assert "--backend local" in (tmp_path / "a" / "report.md").read_text()  # the command line, as retyped
    capsys.readouterr()
    with pytest.warns(DeprecationWarning, match="--sandbox is deprecated, use --backend"):
        assert main([*base, "--sandbox", "local", "--out", str(tmp_path / "b"), "--no-report"]) == 0
    assert "--sandbox is deprecated, use --backend" in capsys.readouterr().err
    assert json.loads((tmp_path / "b" / "summary.json").read_text())["config"]["sandbox"] == "local"
    with pytest.raises(SystemExit):
        main([*base, "--backend", "ray", "--out", str(tmp_path / "c")])
    assert "pass --executor ray" in capsys.readouterr().err


def test_cli_env_kwargs_reach_every_env_and_the_command_line(tmp_path, capsys):
    """``--env-kwarg KEY=VALUE`` is `evaluate(env_kwargs=)`: JSON values parsed, text kept as text."""
    from agentgym.cli import main

    flag = tmp_path / "crashed"
    out = tmp_path / "run"
    code = main(
        [
            "eval",
            "--env",
            "test/EvalFlakyKV-v0",
            "--agent",
            "oracle",
            "--t",
            "8",
            "--tasks",
            "2",
            "--no-progress",
            "--no-report",
            "--env-kwarg",
            f"crash_once={flag}",
            "--env-kwarg",
            'always_crash=["no-such-task"]',
            "--out",
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert flag.exists()  # the env got crash_once, crashed once, and the retry finished the episode
    config = json.loads((out / "summary.json").read_text())["config"]
    assert config["env_kwargs"] == {"crash_once": str(flag), "always_crash": ["no-such-task"]}
    assert f"--env-kwarg 'crash_once=\"{flag}\"'" in config["command"]


def test_cli_keeps_every_turn_and_says_how_to_view_it(tmp_path, capsys):
    """``agentgym eval`` keeps the turn log by default (``--turn-log 0`` drops it) and ends by printing
    the ``agentgym view`` command of its folder, which then writes the page."""
    from agentgym.cli import main

    base = ["eval", "--env", "test/EvalKV-v0", "--agent", "oracle", "--t", "8", "--tasks", "1", "--no-progress"]
    assert main([*base, "--backend", "local", "--no-report", "--out", str(tmp_path / "a")]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == f"see the episodes: agentgym view {tmp_path / 'a'}"
    record = json.loads((tmp_path / "a" / "episodes.jsonl").read_text().splitlines()[0])
    assert len(record["turn_log"]) == record["turns"] + 1 and record["turn_log"][1]["action"] == record["actions"][0]
    assert main(last.split(": ", 1)[1].split()[1:]) == 0
    assert (tmp_path / "a" / "view.html").is_file()
    assert main([*base, "--backend", "local", "--no-report", "--turn-log", "0", "--out", str(tmp_path / "b")]) == 0
    assert "turn_log" not in (tmp_path / "b" / "episodes.jsonl").read_text()
