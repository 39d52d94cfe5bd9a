#!/usr/bin/env python3
"""The screenshots of ``agentgym view`` in the README and docs/how-to/view.md, taken in headless Chromium.

    python scripts/view_screenshots.py runs/budgetmix/eval/budgetmix-s17   # an agent folder of the experiment

``docs/assets/view-grid.png``: the page of AGENT_FOLDER (its runs, the Pass@(K,T) heatmap, success against
T). ``docs/assets/view-episode.png``: an oracle and a random agent on the same ToolUse-v0 tasks (local
backend, every turn logged), a failure at the smallest T opened beside its twin.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from agentgym.eval import evaluate
from agentgym.testing.browser import Chromium
from agentgym.view import build_view

ASSETS = Path(__file__).resolve().parent.parent / "docs" / "assets"


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="view-shots-"))
    grid = build_view([sys.argv[1]], tmp / "grid.html").page
    common = dict(ks=[1, 2], ts=[3, 8], n=2, tasks=4, sandbox="local", progress=False, report=False, turn_log=600)
    for agent in ("oracle", "random"):
        evaluate("agentgym/ToolUse-v0", agent, out=tmp / agent, faults="tool_error@turn=1", **common)
    pair = build_view([tmp / "oracle", tmp / "random"], tmp / "pair.html").page
    with Chromium(width=1280, height=1500) as browser:
        browser.open(grid.as_uri())
        browser.wait_for("document.body.dataset.ready === '1'")
        browser.evaluate("document.getElementById('cat-sec').scrollIntoView()")
        browser.evaluate("window.scrollTo(0, 0)")
        browser.screenshot(ASSETS / "view-grid.png")
        browser.open(pair.as_uri())
        browser.wait_for("document.body.dataset.ready === '1'")
        browser.evaluate(
            "(function(){var r=document.getElementById('f-run');r.value='1';r.dispatchEvent(new Event('change'));"
            "var o=document.getElementById('f-outcome');o.value='fail';o.dispatchEvent(new Event('change'));"
            "var t=document.getElementById('f-T');t.value=t.options[1].value;t.dispatchEvent(new Event('change'));"
            "document.querySelector('#episode-list tbody tr').click();})()"
        )
        browser.wait_for("document.getElementById('twin')")
        browser.evaluate(
            "(function(){var s=document.getElementById('twin');var o=Array.prototype.filter.call(s.options,"
            "function(o){return o.text.indexOf('A: oracle')===0;})[0];s.value=o.value;"
            "s.dispatchEvent(new Event('change'));})()"
        )
        browser.wait_for("document.querySelectorAll('.episodes-side .verdict').length === 2")
        browser.evaluate("document.getElementById('episode').scrollIntoView()")
        browser.screenshot(ASSETS / "view-episode.png")
        if browser.errors:
            raise SystemExit(f"console errors: {browser.errors}")
    print(ASSETS / "view-grid.png", ASSETS / "view-episode.png")


if __name__ == "__main__":
    main()
