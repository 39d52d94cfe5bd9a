"""The sandbox side of MiniWoB-v0 on the host, with a stand-in for the browser tab (no Docker needed).

What the page reports is checked before it is trusted: an episode the page ends without a
numeric reward is an infrastructure failure, never a score; the renderer gives clickable
``div``/``span`` elements ids and nests what they hold; the static server never leaves its folder.
"""

from __future__ import annotations

import pytest

from agentgym.envs.miniwob.env import _MODULES, PAGE_MODULE
from agentgym.sandbox.modules import load_on_host

MODS = load_on_host(_MODULES)
page = MODS[PAGE_MODULE]

MARKUP = (
    '<html><head><title>T</title></head><body><div id="area">'
    '<div data-ag="0" data-ag-click="" aria-label="Alice Hello"><span data-ag="1" data-ag-click="" '
    'aria-label="star"></span></div><button data-ag="2">Submit</button></div></body></html>'
)


class FakeTab:
    """Answers the snapshot script with fixed markup and the page's status globals."""

    def __init__(self, status):
        self.status = status

    def open(self, task, seed, keep_timer):
        pass

    def evaluate(self, expression, wait=False):
        return [MARKUP, [["", False]] * 3, "Star Alice's e-mail.", self.status]

    errors: list[str] = []

    def page_errors(self):
        return list(self.errors)


@pytest.mark.parametrize("raw", [None, "1", True, [1]])
def test_an_episode_ended_without_a_numeric_reward_is_a_browser_failure(raw):
    with pytest.raises(page.BrowserError, match="without a reward"):
        page.Episode(FakeTab([True, raw, None, 10_000]), "email-inbox", 0, False)


def test_the_raw_reward_is_read_as_the_page_gave_it():
    e = page.Episode(FakeTab([True, 0.1, "wrong card", 10_000]), "find-greatest", 0, False)
    assert e.done and e.raw_reward == 0.1 and e.reason == "wrong card"
    reply = e.reply(e.observe())
    assert reply["raw_reward"] == 0.1 and reply["done"] and reply["time_limit_ms"] == 10_000


def test_clickable_elements_get_ids_and_nest_what_they_hold():
    e = page.Episode(FakeTab([False, 0, None, 2_147_483_647]), "email-inbox", 3, False)
    lines = [(ln["role"], ln["name"], ln.get("indent")) for ln in e.lines]
    assert lines == [("clickable", "Alice Hello", 0), ("clickable", "star", 1), ("button", "Submit", 0)]
    assert e.observe().splitlines()[2].endswith("clickable 'Alice Hello'")


def test_the_page_server_stays_in_its_folder(tmp_path):
    (tmp_path / "html").mkdir()
    (tmp_path / "html/a.js").write_text("var a;")
    (tmp_path / "secret").write_text("no")
    app = page.Pages(str(tmp_path / "html"))
    got = []

    def call(path):
        body = b"".join(app({"PATH_INFO": path}, lambda status, headers: got.append((status, dict(headers)))))
        return got[-1][0], body

    assert call("/a.js") == ("200 OK", b"var a;") and "max-age" in got[-1][1]["Cache-Control"]
    assert call("/../secret")[0].startswith("404") and call("/%2e%2e/secret")[0].startswith("404")
    assert app.missing == ["/../secret", "/%2e%2e/secret"]


def test_a_page_error_in_answer_to_an_action_is_reported_not_an_exclusion():
    """An agent about to fail must not be able to trigger an infrastructure error to be excluded."""
    tab = FakeTab([False, 0, None, 10_000])
    e = page.Episode(tab, "email-inbox", 0, False)
    tab.errors = ["TypeError: cannot read properties of undefined"]
    submit = next(ln for ln in e.lines if ln["role"] == "button")
    reply = e.act("click", {"id": submit["id"]})
    assert reply["ok"] and reply["page_errors"] == tab.errors and not reply["done"]
