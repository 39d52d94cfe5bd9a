"""``agentgym view`` in a real browser: headless Chromium opens the page from disk for a run of every
family, with no console error; the heatmap and the episode list are drawn; a scripted click filters to
the failures at the smallest T and opens one episode, turn by turn, to its verdict. Records in a chunk
folder load on demand from ``file://``; two runs show side by side.

Needs Debian's ``chromium`` (``apt-get install -y chromium``; scripts/test.sh installs it): skipped
locally without it, failed under CI=true. MiniWoB-v0 needs its Docker image, as everywhere else.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest
from small_runs import small_run

import agentgym
from agentgym.eval.harness import select_tasks
from agentgym.testing.browser import Chromium, find_chromium
from agentgym.view import build_view
from agentgym.view import page as page_module
from support.docker import IN_CI, require_docker

FAMILIES = sorted(agentgym.ENV_IDS)

FILTER_FAILURES_AT_SMALLEST_T = """(function () {
  var o = document.getElementById('f-outcome'); o.value = 'fail'; o.dispatchEvent(new Event('change'));
  var t = document.getElementById('f-T'); t.value = t.options[1].value; t.dispatchEvent(new Event('change'));
  return t.value;
})()"""

SHOW_FAULTED = """(function () {
  document.getElementById('f-clear').click();
  var f = document.getElementById('f-fault');
  f.value = Array.prototype.filter.call(f.options, function (o) { return o.text === 'tool_error@turn=1'; })[0].value;
  f.dispatchEvent(new Event('change'));
})()"""

LISTED = """Array.prototype.map.call(document.querySelectorAll('#episode-list tbody tr'), function (tr) {
  return [tr.children[3].textContent, tr.children[5].textContent];
})"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    if find_chromium() is None:
        why = "no Chromium: apt-get install -y chromium (scripts/test.sh does)"
        if IN_CI:
            pytest.fail(f"CI=true requires the browser test: {why}")
        pytest.skip(why)
    with Chromium() as chromium:
        yield chromium


def _family_run(env_id: str, out: Path) -> tuple[Path, int]:
    """An oracle run with a fault on 2 test tasks at T below and at the tasks' minimum turns."""
    probe = gym.make(env_id, split="test", backend="local")
    image, tasks = probe.unwrapped.image, probe.unwrapped.tasks
    probe.close()
    sandbox = "local"
    if "local" not in getattr(type(probe.unwrapped), "backends", ("local",)):  # MiniWoB-v0, SWE-v0
        require_docker(image)
        sandbox = "docker"
    ids = select_tasks(env_id, "test", 2, seed=0)
    needed = [tasks.get(t).min_turns for t in ids]
    ts = sorted({max(1, min(needed) - 1), max(needed) + 2})
    small_run(env_id, "oracle", out, ts, ids, sandbox)
    return out, ts[0]


def _check_page(browser: Chromium, page: Path, smallest_t: int, ks: int, ts: int) -> None:
    browser.errors.clear()
    browser.open(page.resolve().as_uri())
    browser.wait_for("document.body.dataset.ready === '1'")
    assert browser.evaluate("document.querySelectorAll('#heatmap rect.cell').length") == ks * ts
    assert browser.evaluate("document.querySelectorAll('#episode-list tbody tr').length") > 0
    assert browser.evaluate(FILTER_FAILURES_AT_SMALLEST_T) == str(smallest_t)
    listed = browser.evaluate(LISTED)
    assert listed, "no failure listed at the smallest T"
    assert all(t == str(smallest_t) and outcome == "failure" for t, outcome in listed), listed
    browser.evaluate("document.querySelector('#episode-list tbody tr').click()")
    verdict = browser.wait_for("(document.querySelector('#episode .verdict') || {}).textContent")
    assert verdict.startswith("verdict: failure"), verdict
    assert browser.evaluate("document.querySelectorAll('#episode .turn').length") >= 2  # the start and a turn
    assert browser.evaluate("document.querySelector('#episode .turn pre').textContent.length") > 0
    assert not browser.errors, browser.errors


@pytest.mark.parametrize("env_id", FAMILIES)
def test_every_family_in_chromium(env_id: str, browser: Chromium, tmp_path: Path) -> None:
    run, smallest = _family_run(env_id, tmp_path / "run")
    page = build_view([run], tmp_path / "view.html").page
    _check_page(browser, page, smallest, ks=2, ts=2)
    # an episode with the injected fault shows the turn it struck
    browser.evaluate(SHOW_FAULTED)
    browser.evaluate("document.querySelector('#episode-list tbody tr').click()")
    browser.wait_for("document.querySelector('#episode .verdict') !== null")
    assert browser.evaluate("document.querySelectorAll('#episode .turn.faulted').length") == 1
    assert "a fault struck here" in browser.evaluate("document.querySelector('#episode .turn.faulted h4').textContent")
    assert not browser.errors, browser.errors


def test_chunks_load_from_disk_and_runs_side_by_side(
    browser: Chromium, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, smallest = _family_run("agentgym/ToolUse-v0", tmp_path / "a")
    second = small_run("agentgym/ToolUse-v0", "random", tmp_path / "b", [smallest, 12], 2)
    monkeypatch.setattr(page_module, "INLINE_LIMIT", 0)  # every record in the chunk folder
    out = build_view([first, second], tmp_path / "ab.html")
    assert out.chunk_dir is not None
    _check_page(browser, out.page, smallest, ks=2, ts=2)
    assert browser.evaluate("document.querySelectorAll('#pair-table a[data-pair]').length") > 0
    twins = browser.evaluate("document.querySelectorAll('#twin option').length")
    assert twins > 1, "the opened episode has no twin to set beside it"
    browser.evaluate(
        "(function(){var s=document.getElementById('twin');s.value=s.options[1].value;"
        "s.dispatchEvent(new Event('change'));})()"
    )
    browser.wait_for("document.querySelectorAll('.episodes-side .verdict').length === 2")
    assert not browser.errors, browser.errors


def test_a_broken_page_fails_the_check(browser: Chromium, tmp_path: Path) -> None:
    """The check is not vacuous: a page whose script throws is caught."""
    run, smallest = _family_run("agentgym/ToolUse-v0", tmp_path / "run")
    page = build_view([run], tmp_path / "view.html").page
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("drawRuns(); selectRun(0);", "drawRuns(); selectRun(0); null.boom;"))
    with pytest.raises((AssertionError, TimeoutError)):
        _check_page(browser, page, smallest, ks=2, ts=2)


PAYLOAD = '</script><!--<script>--><img src=x onerror="document.body.dataset.pwned=1"><b id="injected">x</b>'


def test_what_an_agent_writes_stays_text(browser: Chromium, tmp_path: Path) -> None:
    """An agent's action, an observation or a task id that holds markup is shown, never run: it cannot
    end the page's data script, add an element or run an event handler."""
    run = small_run("agentgym/ToolUse-v0", "random", tmp_path / "run", [3], 1)
    lines = (run / "episodes.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    record["task"] = "tooluse/" + PAYLOAD
    record["actions"][0] = record["turn_log"][1]["action"] = PAYLOAD
    record["turn_log"][1]["obs"] = PAYLOAD
    (run / "episodes.jsonl").write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    page = build_view([run], tmp_path / "view.html").page
    browser.errors.clear()
    browser.open(page.resolve().as_uri())
    browser.wait_for("document.body.dataset.ready === '1'")
    browser.evaluate("document.querySelector('#episode-list tbody tr').click()")
    browser.wait_for("document.querySelector('#episode .verdict') !== null")
    time.sleep(0.3)  # an injected image would have failed to load and fired its handler by now
    assert browser.evaluate("document.body.dataset.pwned === undefined")
    assert browser.evaluate("document.getElementById('injected') === null")
    shown = browser.evaluate("document.querySelectorAll('#episode .turn')[1].querySelector('pre').textContent")
    assert shown == PAYLOAD
    assert PAYLOAD in browser.evaluate("document.querySelector('#episode-list tbody tr').textContent")
