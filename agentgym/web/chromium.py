"""Chromium in the sandbox: the driver every web family's Chromium backend uses, stdlib only.

Loaded into the step server as ``agentgym.web.chromium`` after `agentgym.web.view`. The step
server itself serves the page's WSGI app on 127.0.0.1 (`Site`: a stdlib ``wsgiref`` handler per
request) while it waits for Chromium, so a site's app, its store, the oracle and the verifier
stay in the one process that owns them and no thread or second copy of the data is needed.
Chromium (Debian's ``chromium-headless-shell``) runs as a family service (`start_service`: its own
uid, it survives resets and dies with the sandbox) with ``--remote-debugging-pipe``: commands go
in on its fd 3, replies and events come out on fd 4, each a JSON message ending in NUL (`CDP`).

`Browser` is the one Chromium of a sandbox, attached to its one page; `start` launches it once
(the families' service), `browser` returns it. A page's controls are numbered in the page
(``data-ag``), which the renderer (`agentgym.web.axtree`) keeps on each line, so a line names its
live element; `merge_values` puts the live values and checkedness on the rendered lines, so a
page reads the same whether it was rendered from the server's HTML or from the live DOM.
"""

import json
import os
import select
import shutil
import socket
import sys
import time
import urllib.parse
from wsgiref.simple_server import WSGIRequestHandler

from agentgym.web.view import TEXT_ROLES, ActError

BINARIES = ("chromium-headless-shell", "chromium", "chromium-browser")
FLAGS = (
    "--headless",
    "--remote-debugging-pipe",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-breakpad",
    "--mute-audio",
    "--window-size=1280,800",
    "--single-process",
    "--no-zygote",
    "--enable-begin-frame-control",
    "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication",
)
LOAD_TIMEOUT = 10.0
CONTROLS = "a[href],button,input,select,textarea"  # the selector for every element `axtree` makes a control line of

# JavaScript run in the page. Each control gets ``data-ag`` = its index, which `axtree` keeps on the
# line, so a line names its live element; values and checkedness always come from the live elements.
JS_VALUES = "window.__ag.map(e => [e.value === undefined ? '' : String(e.value), !!e.checked])"
JS_SNAPSHOT = """(() => {
  const els = Array.from(document.querySelectorAll('%s'));
  window.__ag = els;
  els.forEach((e, i) => e.setAttribute('data-ag', i));
  for (const f of document.forms) f.noValidate = true;  // the site validates, as in the text backend
  let root = document.documentElement;
  if (document.querySelector('[data-ag-type]')) {
    root = root.cloneNode(true);
    root.querySelectorAll('[data-ag-type]').forEach(e => e.setAttribute('type', e.getAttribute('data-ag-type')));
  }
  return [root.outerHTML, %s];
})()""" % (CONTROLS, JS_VALUES)
# A box keeps exactly what was typed, as in the text backend: when the browser would sanitise the
# value away (a number box given words), the box becomes a plain text box (shown as before).
JS_SET = (
    """((i, t) => {
  const e = window.__ag[i];
  e.focus();
  e.value = t;
  if (e.value !== t && e.tagName === 'INPUT' && e.type !== 'text') {
    e.setAttribute('data-ag-type', e.getAttribute('type') || 'text');
    e.type = 'text';
    e.value = t;
  }
  e.dispatchEvent(new Event('input', {bubbles: true}));
  e.dispatchEvent(new Event('change', {bubbles: true}));
  return %s;
})"""
    % JS_VALUES
)


class BrowserError(Exception):
    """Chromium failed (it exited, broke the protocol or missed a deadline): not the agent's doing."""


# ---------------------------------------------------------------------- the CDP client
class CDP:
    """Chrome DevTools Protocol over ``--remote-debugging-pipe``: NUL-terminated JSON both ways.

    While it waits for Chromium it also serves the site (``site.poll``): the page Chromium is
    loading is answered by this same process.
    """

    def __init__(self, send_fd, recv_fd, site):
        self.send_fd, self.recv_fd, self.site = send_fd, recv_fd, site
        self.next_id, self.buf, self.replies, self.events = 0, b"", {}, []
        self.session_id = None

    def send(self, method, params=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session_id:
            msg["sessionId"] = self.session_id
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self.send_fd, data) :]
        return self.next_id

    def call(self, method, params=None, timeout=LOAD_TIMEOUT):
        ident = self.send(method, params)
        msg = self.wait(lambda: self.replies.pop(ident, None), timeout, method)
        if "error" in msg:
            raise BrowserError("%s failed: %s" % (method, msg["error"].get("message", msg["error"])))
        return msg.get("result", {})

    def event(self, name, timeout=LOAD_TIMEOUT):
        def find():
            for i, ev in enumerate(self.events):
                if ev["method"] == name:
                    del self.events[: i + 1]
                    return ev
            return None

        return self.wait(find, timeout, name)

    def evaluate(self, expression, wait=False):
        """The expression's value (``wait``: a promise's, once it settles); a script error raises `BrowserError`."""
        params = {"expression": expression, "returnByValue": True}
        if wait:
            params["awaitPromise"] = True
        result = self.call("Runtime.evaluate", params)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError("script failed in the page: %s" % str(text)[:300])
        return result["result"].get("value")

    def wait(self, found, timeout, what):
        deadline = time.monotonic() + timeout
        while True:
            got = found()
            if got is not None:
                return got
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("Chromium did not answer %s within %.0f s" % (what, timeout))
            if self.recv_fd in self.site.poll([self.recv_fd], left):
                self.read()

    def read(self):
        chunk = os.read(self.recv_fd, 1 << 20)
        if not chunk:
            raise BrowserError("Chromium closed its pipe (it exited)")
        *msgs, self.buf = (self.buf + chunk).split(b"\0")
        for raw in msgs:
            msg = json.loads(raw)
            if "id" in msg:
                self.replies[msg["id"]] = msg
            elif msg.get("method") == "Inspector.targetCrashed":
                raise BrowserError("the page's renderer crashed")
            elif msg.get("sessionId", self.session_id) == self.session_id:
                self.events.append(msg)


# ---------------------------------------------------------------------- the site over loopback
class _Handler(WSGIRequestHandler):
    # wsgiref writes the status, each header and the body apart: with Nagle's algorithm on, the
    # later writes wait for Chromium's delayed ACK (40 ms a page)
    disable_nagle_algorithm = True

    def get_environ(self):
        env = super().get_environ()
        env["agentgym.target"] = self.path  # the request target as sent, for the URL line
        return env

    def log_message(self, *args):
        pass


class Site:
    """The current session's WSGI app on 127.0.0.1, one wsgiref handler per request, served on demand.

    ``served`` records each page request (status, URL, the store's writes, conflicts, rejection and
    the records the page showed), which is what the text browser's ``fetch`` returns.
    """

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(32)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.base_environ = {
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": str(self.port),
            "GATEWAY_INTERFACE": "CGI/1.1",
            "SCRIPT_NAME": "",
            "REMOTE_HOST": "",
            "CONTENT_LENGTH": "",
        }
        self.conns, self.app, self.served = {}, None, []

    def get_app(self):
        return self

    def poll(self, fds, timeout):
        """Wait up to ``timeout`` s for ``fds``, serving HTTP meanwhile; returns the ready ``fds``."""
        poller = select.poll()
        for fd in list(fds) + [self.sock.fileno()] + list(self.conns):
            poller.register(fd, select.POLLIN)
        ready = set()
        for fd, _ in poller.poll(max(0.0, timeout) * 1000):
            if fd == self.sock.fileno():
                while True:
                    try:
                        conn, _ = self.sock.accept()
                    except BlockingIOError:
                        break
                    conn.setblocking(True)
                    conn.settimeout(5)
                    self.conns[conn.fileno()] = conn
            elif fd in self.conns:
                conn = self.conns.pop(fd)
                try:
                    _Handler(conn, ("127.0.0.1", 0), self)
                except OSError:
                    pass
                finally:
                    conn.close()
            else:
                ready.add(fd)
        return ready

    def __call__(self, environ, start_response):
        if self.app is None or environ["PATH_INFO"] == "/favicon.ico":
            start_response("404 Not Found", [("Content-Type", "text/plain"), ("Cache-Control", "no-store")])
            return [b""]
        started = []
        body = b"".join(self.app(environ, lambda status, headers, exc=None: started.append((status, headers))))
        status, headers = started[0]
        st = getattr(self.app, "store", None)  # static pages (MiniWoB's) have no store and book nothing
        if st is not None:
            path, _, query = environ["agentgym.target"].partition("?")
            query = urllib.parse.urlencode(urllib.parse.parse_qsl(query, keep_blank_values=True))
            self.served.append(
                {
                    "status": status,
                    "url": path + ("?" + query if query else ""),
                    "writes": list(st.writes),
                    "conflicts": list(st.conflicts),
                    "rejected": st.rejected,
                    "refs": list(st.refs),
                }
            )
        if not any(name.lower() == "cache-control" for name, _ in headers):  # the sites' pages are never cached
            headers = headers + [("Cache-Control", "no-store")]
        start_response(status, headers)
        return [body]


# ---------------------------------------------------------------------- the browser
class Browser:
    """One Chromium for the sandbox's life, attached to its page; sessions come and go."""

    def __init__(self):
        binary = next((b for b in map(shutil.which, BINARIES) if b), None)
        if binary is None:
            raise BrowserError(
                "no Chromium in this sandbox (looked for %s): build the image with `agentgym setup`"
                % ", ".join(BINARIES)
            )
        self.site = Site()
        self.origin = "http://127.0.0.1:%d" % self.site.port
        cmd_r, cmd_w = os.pipe()  # we write commands, Chromium reads them on its fd 3
        out_r, out_w = os.pipe()  # Chromium writes on its fd 4, we read
        home = SERVICE_DIR  # noqa: F821 - the step server puts it in this module's globals
        # Chromium wants the pipe on fds 3 and 4; ours may have any numbers (a shell takes only one digit)
        move = "import os,sys;os.dup2(%d,3);os.dup2(%d,4);os.closerange(5,1024);os.execv(sys.argv[1],sys.argv[1:])"
        argv = (
            [sys.executable, "-I", "-c", move % (cmd_r, out_w), binary]
            + list(FLAGS)
            + ["--user-data-dir=%s/profile" % home, "about:blank"]
        )
        env = {"HOME": home, "TMPDIR": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_CACHE_HOME": home + "/.cache"}
        started = time.monotonic()
        self.proc = start_service(argv, pass_fds=(cmd_r, out_w), env=env)  # noqa: F821 - from the step server
        os.close(cmd_r)
        os.close(out_w)
        self.cdp = CDP(cmd_w, out_r, self.site)
        # our own page, which draws a frame only when asked (never): nothing is painted, rastered or
        # composited, which was a third of Chromium's CPU time per page
        try:
            target = self.cdp.call(
                "Target.createTarget", {"url": "about:blank", "enableBeginFrameControl": True}, timeout=30
            )["targetId"]
        except BrowserError:  # a full `chromium --headless` may refuse it: then it draws, and that is all
            target = self.cdp.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        for other in self.cdp.call("Target.getTargets")["targetInfos"]:  # the page Chromium opened itself
            if other["type"] == "page" and other["targetId"] != target:
                self.cdp.call("Target.closeTarget", {"targetId": other["targetId"]})
        self.cdp.session_id = self.cdp.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.cdp.call("Page.enable")
        self.version = self.cdp.call("Browser.getVersion")["product"]
        self.launch_ms = (time.monotonic() - started) * 1000

    def load(self, start):
        """Run ``start`` (something that makes Chromium load a page), serve the load, wait for it.

        Returns what the text browser's ``fetch`` returns, from the requests the page load made, and
        the page's live control values.
        """
        self.site.served = []
        self.cdp.events.clear()
        start()
        # the pages have no subresources: at DOMContentLoaded the document is whole (load comes
        # 5-40 ms later on a busy machine)
        self.cdp.event("Page.domContentEventFired")
        served = self.site.served
        if not served:
            raise ActError("timeout", "the page did not load")
        markup, values = self.cdp.evaluate(JS_SNAPSHOT)
        last = served[-1]
        writes = [w for s in served for w in s["writes"]]
        conflicts = [c for s in served for c in s["conflicts"]]
        rejected = next((s["rejected"] for s in served if s["rejected"]), None)
        return (last["status"], last["url"], markup, writes, conflicts, rejected, last["refs"]), values

    def navigate(self, url):
        # a '#' would make it a jump inside the current page (no request, no load); the text backend
        # sends it to the site as part of the path, and so does this
        target = self.origin + url.replace("#", "%23")

        def start():
            result = self.cdp.call("Page.navigate", {"url": target})
            if result.get("errorText"):
                raise BrowserError("navigation to %s failed: %s" % (url, result["errorText"]))

        return self.load(start)

    def click(self, index):
        """Click the element: ``HTMLElement.click()``, so the browser runs its activation behaviour
        (follows the link, submits the form with this button, toggles the box). One round trip, no
        hit-testing, and it works on a page that never draws a frame (synthesised mouse input needs
        layout, a hit test and three round trips)."""
        self.cdp.evaluate("window.__ag[%d].click()" % index)

    def values(self):
        return self.cdp.evaluate(JS_VALUES)


def merge_values(lines, values):
    """The live controls' values and checkedness (`JS_VALUES`, by ``data-ag`` index) onto rendered lines."""
    for line in lines:
        i = line.get("dom")
        if i is None or i >= len(values):
            continue
        value, checked = values[i]
        role = line["role"]
        if role in TEXT_ROLES or role == "combobox":
            line["value"] = value
        elif role in ("checkbox", "radio"):
            line["checked"] = checked


# ---------------------------------------------------------------------- the sandbox's entry points
_B: dict[str, Browser] = {}


def start():
    """Launch Chromium once per sandbox (it survives resets); its version and launch time."""
    if "browser" not in _B:
        _B["browser"] = Browser()
    b = _B["browser"]
    return {"version": b.version, "launch_ms": b.launch_ms, "origin": b.origin, "pid": b.proc.pid}


def browser():
    """The sandbox's Chromium, launched if it is not yet."""
    start()
    return _B["browser"]
