"""Browser-v0's Chromium backend: the text browser's session with its pages in the sandbox's Chromium.

Loaded into the step server as ``agentgym.envs.browser.site.chrome`` after the text browser's
modules and the web kit's driver (`agentgym.web.chromium`), which launches Chromium once per
sandbox and serves the episode's WSGI app on 127.0.0.1 while it waits, so the app, its store, the
oracle and the verifier stay in the one process that owns them, as in the text backend.

`ChromeSession` is the text browser's `Session` with the page's effects handed to Chromium: links,
buttons and boxes are clicked in the page (the browser follows, submits, toggles), text goes in
through the DOM, forms are submitted by the browser, ``goto``/``back``/``reload`` navigate it.
After a load the observation is built from the live DOM (``outerHTML`` through the same renderer)
with every control's value read from the live element, so both backends give the same text.
"""

import json
import urllib.parse

from agentgym.envs.browser.site import session
from agentgym.web import axtree, chromium
from agentgym.web.view import ActError


class ChromeSession(session.Session):
    """The text browser's session with its pages loaded, shown and acted on in Chromium."""

    def __init__(self, spec, seed, browser):
        self.browser = browser
        self.live = []
        super().__init__(spec, seed)

    # pages come from Chromium
    def fetch(self, method, url, data=b""):
        assert method == "GET", method  # forms are submitted by the browser (`submit`)
        return self._load(lambda: self.browser.navigate(url), url)

    def _load(self, run, url=None):
        """Load a page in Chromium; the URL line shows ``url`` as given (the text backend's URL),
        unless the site redirected, when it shows where the browser landed."""
        self.browser.site.app = self.app
        result, self.live = run()
        if url is not None and len(self.browser.site.served) == 1:
            result = (result[0], url) + result[2:]
        return result

    def parse(self, markup):
        title, lines, forms = axtree.parse_page(markup)
        chromium.merge_values(lines, self.live)
        return title, lines, forms

    # what acting on an element does, done by the browser
    def follow(self, link):
        b = self.browser
        url = urllib.parse.urljoin(self.url, link["href"])
        self.show(*self._load(lambda: b.load(lambda: b.click(link["dom"])), url))

    def submit(self, form, submitter=None):
        if form is None:
            raise ActError("bad_args", "that element is not in a form")
        b = self.browser
        if submitter is not None:
            start = lambda: b.click(submitter["dom"])  # noqa: E731
        else:  # Enter: the form is submitted with no button, as the text backend defines it
            anchor = next(ln for ln in self.lines if ln.get("form") == form and "dom" in ln)
            js = "(e => (e.form || e.closest('form')).requestSubmit())(window.__ag[%d])" % anchor["dom"]
            start = lambda: b.cdp.evaluate(js)  # noqa: E731
        self.show(*self._load(lambda: b.load(start)))

    def check(self, line):
        self.browser.click(line["dom"])
        chromium.merge_values(self.lines, self.browser.values())

    def set_value(self, line, value):
        values = self.browser.cdp.evaluate("%s(%d, %s)" % (chromium.JS_SET, line["dom"], json.dumps(value)))
        chromium.merge_values(self.lines, values)

    def do_scroll(self, direction="down"):
        super().do_scroll(direction)
        self.browser.cdp.evaluate("window.scrollBy(0, %d)" % (600 if direction == "down" else -600))


# ---------------------------------------------------------------------- the sandbox's entry points
def setup(spec, seed):
    browser = chromium.browser()
    # Left to itself the renderer keeps the documents of past pages (about 4.5 MiB an episode here,
    # out of memory after 200 episodes): a full garbage collection per episode holds it flat at about
    # 115 MiB for the whole sandbox, for about 15 ms of the reset.
    browser.cdp.call("HeapProfiler.collectGarbage")
    session._S["session"] = s = ChromeSession(spec, seed, browser)
    return {
        "text": s.observe(),
        "shown": dict(s.page_refs),
        "glimpsed": dict(s.page_glimpses),
        "progress": s.progress(),
        "oracle": s.oracle(),
        "menu": s.menu(),
    }


start = chromium.start  # the family's service: Chromium, launched once per sandbox
hasty, act, drift, verify = session.hasty, session.act, session.drift, session.verify
