"""The regex tokenizer in `axtree.build_tree` builds the tree ``html.parser`` would, on every page
an oracle walk shows and on awkward markup (entities, comments, unquoted and duplicated
attributes, self-closing tags, stray ``<``, upper case, unclosed and unmatched tags)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from agentgym.envs.browser.actions import BrowserActions
from agentgym.envs.browser.site import host_modules
from agentgym.envs.browser.tasks import BrowserTasks

AX = host_modules()["axtree"]


class _Reference(HTMLParser):
    """The tree html.parser gives, in the same shape: (tag, attrs, children) with text as str."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root: list = ["#root", {}, []]
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs, close=False):
        seen: dict = {}
        for k, v in attrs:
            seen.setdefault(k, v or "")
        node = [tag, seen, []]
        self.stack[-1][2].append(node)
        if tag not in AX.VOID and not close:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs, close=True)

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        self.stack[-1][2].append(data)


def _reference(markup: str) -> list:
    p = _Reference()
    p.feed(markup)
    p.close()
    return p.root


def _shape(node) -> list:
    return [node.tag, dict(node.attrs), [c if isinstance(c, str) else _shape(c) for c in node.children]]


AWKWARD = [
    "<p>a &lt; b &amp;&amp; c &#39;q&#39; &eacute; <b>bold</b>tail</p>",
    "<!doctype html><!-- a <b>comment</b> --><DIV Class=x>one<BR/>two</DIV>",
    "<input type=checkbox checked name=z><input value='a &gt; b' value='second'>",
    "<div><span>unclosed<p>para</div></i>after",
    "<a href=\"/x?a=1&amp;b=2\" aria-label='Go &quot;there&quot;'>x</a> 3 < 4",
    "<label for=f>Name</label><input id=f name=n/><select><option selected value=2>Two</option></select>",
]


@pytest.mark.parametrize("markup", AWKWARD)
def test_awkward_markup_builds_the_reference_tree(markup: str) -> None:
    root, _ = AX.build_tree(markup)
    assert _shape(root) == _reference(markup)


def test_every_page_on_oracle_walks_builds_the_reference_tree() -> None:
    session_mod, actions = host_modules()["session"], BrowserActions()
    pages: list[str] = []
    original = AX.parse_page

    def recording(markup: str):
        pages.append(markup)
        return original(markup)

    AX.parse_page = recording
    try:
        tasks = BrowserTasks()
        for task_id in tasks.ids("test")[::3] + tasks.ids("heldout")[::10]:
            session = session_mod.Session(tasks.get(task_id).meta["spec"], 0)
            for _ in range(40):
                step = session.oracle()["action"]
                if step.startswith("finish("):
                    break
                call = actions.parse(step)
                session.act(call.name, dict(call.args))
    finally:
        AX.parse_page = original
    assert len(pages) > 100
    for markup in dict.fromkeys(pages):
        assert _shape(AX.build_tree(markup)[0]) == _reference(markup)
