"""``agentgym view`` without a browser: finding runs in every layout, the errors for folders without
records, the turn log the harness keeps, the filter index against the records, and the page files."""

from __future__ import annotations

import json
import re
import shutil
import threading
import urllib.request
from pathlib import Path

import pytest
from small_runs import small_run

from agentgym.cli import main as agentgym_main
from agentgym.errors import ConfigError
from agentgym.eval import evaluate
from agentgym.eval.episodes import read_episodes
from agentgym.view import build_view, find_runs
from agentgym.view import page as page_module
from agentgym.view.cli import make_server
from agentgym.view.episodes import CHUNK_EPISODES, episode_chunks, episode_index, fault_of, tier_of
from agentgym.view.page import CATEGORY_REASONS
from agentgym.view.runs import load_runs
from agentgym.wrappers.labels import CATEGORIES

ENV = "agentgym/ToolUse-v0"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small oracle run with a fault, every turn logged: failures at T=2, successes at T=12."""
    return small_run(ENV, "oracle", tmp_path_factory.mktemp("run"), [2, 12], 3)


def _page_data(page: Path, element: str) -> object:
    text = page.read_text(encoding="utf-8")
    match = re.search(rf'<script type="application/json" id="{element}">(.*?)</script>', text, re.S)
    assert match, element
    return json.loads(match.group(1))


def test_records_keep_every_turn(run_dir: Path) -> None:
    records = read_episodes(run_dir / "episodes.jsonl")
    for r in records:
        log = r["turn_log"]
        assert [t["turn"] for t in log] == list(range(len(r["actions"]) + 1))
        assert [t["action"] for t in log[1:]] == [a[:500] for a in r["actions"]]
        assert len(r["turn_seconds"]) == len(r["actions"])
        assert all(len(t["obs"]) <= 500 for t in log)
        assert log[0]["turns_left"] == r["T"]
        fired = [e for t in log for e in t["events"] if e["kind"] == "fault_injected"]
        assert len(fired) == r["n_faults"]
    assert any(r["faults"] and r["n_faults"] for r in records)


def test_turn_log_is_off_by_default(tmp_path: Path) -> None:
    result = evaluate(ENV, "oracle", ts=[12], tasks=1, sandbox="local", out=tmp_path, progress=False, report=False)
    assert "turn_log" not in result.records[0] and "turn_seconds" not in result.records[0]


def test_layouts(run_dir: Path, tmp_path: Path) -> None:
    assert [r.label for r in find_runs(run_dir)] == [run_dir.name]
    agent = tmp_path / "exp" / "eval" / "agent-a"
    for part in ("grid", "faults"):
        shutil.copytree(run_dir, agent / part)
    shutil.copytree(run_dir, tmp_path / "exp" / "eval" / "agent-b" / "grid")
    assert [r.label for r in find_runs(agent)] == ["agent-a/faults", "agent-a/grid"]
    assert [r.label for r in find_runs(tmp_path / "exp")] == ["agent-a/faults", "agent-a/grid", "agent-b/grid"]
    two = load_runs([run_dir, agent])
    assert [r.label for r in two] == [f"A: {run_dir.name}", "B: agent-a/faults", "B: agent-a/grid"]


def test_folders_without_records_say_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="agentgym eval"):
        find_runs(tmp_path)
    with pytest.raises(ConfigError, match="not a folder"):
        find_runs(tmp_path / "missing")
    (tmp_path / "episodes.jsonl").write_text("")
    with pytest.raises(ConfigError, match="holds no episode records"):
        load_runs([tmp_path])
    assert agentgym_main(["view", str(tmp_path)]) == 1


def test_index_matches_the_chunks(run_dir: Path) -> None:
    runs = load_runs([run_dir, run_dir])
    index = episode_index(runs)
    records = [json.loads(c) for c in episode_chunks(runs)]
    flat = [r for chunk in records for r in chunk]
    assert all(len(c) == CHUNK_EPISODES for c in records[:-1])
    cols, tables = index["cols"], index["tables"]
    assert len(flat) == len(cols["run"]) == 2 * len(runs[0].records)
    for i, r in enumerate(flat):
        assert tables["task"][cols["task"][i]] == r["task"]
        assert tables["tier"][cols["tier"][i]] == tier_of(r["task"]) == r["task"].split("/")[1]
        assert cols["T"][i] == r["T"] and cols["sample"][i] == r["sample"]
        assert cols["ok"][i] == int(r["success"])
        assert tables["category"][cols["category"][i]] == r["category"]
        assert tables["fault"][cols["fault"][i]] == fault_of(r) == (r["faults"] or "none")
        assert "env_seed" not in r


def test_reasons_cover_the_taxonomy() -> None:
    assert tuple(CATEGORY_REASONS) == CATEGORIES


def test_page_inline_and_chunked(run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = build_view([run_dir], tmp_path / "one.html")
    assert out.chunk_dir is None and not (tmp_path / "one_files").exists()
    text = out.page.read_text(encoding="utf-8")
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in text
    assert "<script src" not in text and "<link" not in text
    (digest,) = _page_data(out.page, "ag-digests")  # type: ignore[misc]
    assert digest["pass"]["12"]["1"]["mean"] == 1.0 and digest["pass"]["2"]["1"]["mean"] == 0.0
    assert digest["recovery"], "a faulted run has recovery figures"
    assert _page_data(out.page, "ag-chunk-0")
    monkeypatch.setattr(page_module, "INLINE_LIMIT", 0)
    out = build_view([run_dir], tmp_path / "two.html")
    assert out.chunk_dir == tmp_path / "two_files"
    assert sorted(p.name for p in out.chunk_dir.iterdir()) == ["chunk-0.js"]
    assert 'id="ag-chunk-0"' not in out.page.read_text(encoding="utf-8")
    assert (out.chunk_dir / "chunk-0.js").read_text().startswith("agentgymChunk(0,[")


def test_cli_writes_the_page(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert agentgym_main(["view", str(run_dir), "--out", str(tmp_path / "v.html")]) == 0
    printed = capsys.readouterr().out
    assert "file://" in printed and (tmp_path / "v.html").is_file()


def test_serve_answers_on_loopback_only(run_dir: Path, tmp_path: Path) -> None:
    page = build_view([run_dir], tmp_path / "v.html").page
    with make_server(page) as server:
        assert server.server_address[0] == "127.0.0.1"
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}/v.html"
            with urllib.request.urlopen(url, timeout=10) as reply:
                assert b'id="ag-index"' in reply.read()
        finally:
            server.shutdown()
            thread.join(timeout=10)


class _CountingAgent:
    """An oracle that reports model tokens as an LLM agent does (``cost()``: usage so far this episode)."""

    def __init__(self) -> None:
        from agentgym.agents import OracleAgent

        self.oracle = OracleAgent()
        self.calls = 0

    def reset(self, env, obs, info):  # type: ignore[no-untyped-def]
        self.calls = 0
        self.oracle.reset(env, obs, info)

    def act(self, obs, info):  # type: ignore[no-untyped-def]
        self.calls += 1
        return self.oracle.act(obs, info)

    def cost(self) -> dict[str, int]:
        return {"prompt_tokens": 100 * self.calls, "completion_tokens": 7 * self.calls}


def test_tokens_per_turn_are_the_agents_usage_differences(tmp_path: Path) -> None:
    result = evaluate(
        ENV,
        _CountingAgent(),
        ts=[12],
        tasks=1,
        sandbox="local",
        out=tmp_path,
        progress=False,
        report=False,
        turn_log=50,
    )
    (record,) = result.records
    assert [t.get("tokens") for t in record["turn_log"]] == [None] + [107.0] * record["turns"]
    assert record["cost"]["prompt_tokens"] == 100 * record["turns"]
