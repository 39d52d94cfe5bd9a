"""MiniWoB++ pages in the sandbox's Chromium: served on 127.0.0.1, seeded, acted on, rendered as text.

Loaded into the step server as ``agentgym.envs.miniwob.page`` after the web kit's modules (`agentgym.web`),
as Browser-v0's Chromium backend is: `chromium.start` launches Chromium once per sandbox (a service),
`chromium.Site` serves the pages on 127.0.0.1 while the CDP client waits, `axtree.parse_page`
renders the live DOM into the same ``[id] role 'name'`` lines as Browser-v0, and an `Episode` is a
`view.View`, so ids are numbered, shown, filled, chosen and scrolled as there.

A page is loaded fresh for each episode from the image's read-only copy (``/opt/miniwob/html``, built
by `agentgym setup`), seeded with ``Math.seedrandom(seed)`` and started with
``core.startEpisodeReal()``; the page timer is lifted (turns are the budget) unless the env asks for
the original one, and the scoreboard, the start cover and the click canvas are never shown. The page
scores itself: ``core.endEpisode`` sets ``WOB_DONE_GLOBAL`` and ``WOB_RAW_REWARD_GLOBAL``, which
every reply carries. What the renderer shows of a page is what a person sees: hidden elements are
left out, and ``div``/``span`` elements the page listens to for clicks (a hook on
``addEventListener``, ``onclick`` and jQuery's delegated handlers find them) get ids as
``clickable`` lines. A page that does not load, throws while loading, or ends without a reward
raises `chromium.BrowserError`, which the env turns into an `InfrastructureError`; an error the
page throws in answer to an action is reported (``page_errors``), not raised: an agent must not
be able to turn a failing episode into an excluded one.
"""

import json
import mimetypes
import os

from agentgym.web import axtree, chromium, view
from agentgym.web.chromium import BrowserError
from agentgym.web.view import TEXT_ROLES, WINDOW, ActError

ROOT = "/opt/miniwob/html"
MAX_TIME = 2147483647  # the longest setTimeout delay (about 24.8 days): the page timer, lifted
SETTLE_MS = 1500  # the longest wait for a page's timers and animations after an action
GC_EVERY = 8  # episodes between the renderer's full garbage collections
SHORT_TIMER_MS = 1000  # timers up to this long are waited for (the page's answer to an action)
CLICK_EVENTS = ("click", "mousedown", "mouseup", "dblclick")
REPLY_KEYS = (
    "id",
    "role",
    "name",
    "value",
    "checked",
    "options",
    "indent",
    "multiline",
)  # what the host sees of a line

# Run before any page script: remember which elements get click listeners, and which short timers
# (an autocomplete's delay, an animation step) are pending, so a step returns once the page has answered.
JS_HOOK = """(() => {
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, fn, opts) {
    if (%s.includes(type) && this instanceof Element) this.__agClick = true;
    return add.call(this, type, fn, opts);
  };
  const pending = window.__agPending = new Set();
  const set = window.__agSetTimeout = window.setTimeout, clear = window.clearTimeout;
  window.setTimeout = function (fn, delay, ...rest) {
    if (typeof fn !== 'function' || (Number(delay) || 0) > %d) return set.call(window, fn, delay, ...rest);
    const id = set.call(window, function () { pending.delete(id); return fn.apply(this, arguments); }, delay, ...rest);
    pending.add(id);
    return id;
  };
  window.clearTimeout = function (id) { pending.delete(id); return clear.call(window, id); };
})();""" % (json.dumps(list(CLICK_EVENTS)), SHORT_TIMER_MS)

# Seed, lift the timer, start the episode, hide the scoreboard.
JS_START = (
    """((seed, keepTimer) => {
  if (typeof core === 'undefined' || typeof genProblem !== 'function' || typeof Math.seedrandom !== 'function')
    return 'the page has no MiniWoB core (core.js did not load)';
  Math.seedrandom(seed);
  if (!keepTimer) core.EPISODE_MAX_TIME = %d;
  core.startEpisodeReal();
  for (const id of ['reward-display', 'click-canvas', 'sync-task-cover']) {
    const e = document.getElementById(id);
    if (e) e.style.display = 'none';
  }
  return null;
})"""
    % MAX_TIME
)

# What the agent sees: visible elements only; controls and clickables numbered (data-ag) for the renderer.
JS_SNAPSHOT = """(() => {
  const SKIP = new Set(['reward-display', 'sync-task-cover', 'click-canvas', 'query']);
  const PAGE = new Set(['wrap', 'area']);  // the page's frame: listeners there are not targets
  const CONTROLS = '%s';
  for (const e of document.querySelectorAll('[data-ag],[data-ag-hide],[data-ag-click]')) {
    e.removeAttribute('data-ag'); e.removeAttribute('data-ag-hide'); e.removeAttribute('data-ag-click');
  }
  const hidden = e => {
    if (SKIP.has(e.id)) return true;
    if (e.tagName === 'OPTION' || e.tagName === 'OPTGROUP') return false;
    const s = getComputedStyle(e);
    return s.display === 'none' || s.visibility === 'hidden' || e.getClientRects().length === 0;
  };
  const listened = new Set();
  const jq = window.jQuery;
  const visible = [];
  const walk = e => {
    for (const c of e.children) {
      if (hidden(c)) { c.setAttribute('data-ag-hide', ''); continue; }
      visible.push(c);
      walk(c);
    }
  };
  walk(document.body);
  for (const e of [document, document.body, ...visible]) {
    if (e.__agClick || typeof e.onclick === 'function' || typeof e.onmousedown === 'function') listened.add(e);
    const events = jq && jq._data ? jq._data(e, 'events') : null;
    if (!events) continue;
    for (const type of %s) {
      for (const h of events[type] || []) {
        if (h.selector) {  // a delegated handler: the elements its selector matches get the clicks
          const sel = h.selector.trim().startsWith('>') ? ':scope ' + h.selector : h.selector;
          try { e.querySelectorAll(sel).forEach(t => listened.add(t)); } catch (_) { /* a jQuery-only selector */ }
        }
        else listened.add(e);
      }
    }
  }
  const isControl = e => e.matches(CONTROLS);
  const clickable = new Set(visible.filter(e => listened.has(e) && !isControl(e) && !PAGE.has(e.id)));
  let els = visible.filter(e => isControl(e) || clickable.has(e));
  const squash = t => t.replace(/\\s+/g, ' ').trim();
  const ownText = e => {  // its text, without what nested controls and clickables say for themselves
    let out = '';
    for (const c of e.childNodes) {
      if (c.nodeType === 3) out += ' ' + c.data;
      else if (c.nodeType === 1 && !c.hasAttribute('data-ag-hide') && !isControl(c) && !clickable.has(c)) out += ' ' + ownText(c);
    }
    return out;
  };
  for (const e of clickable) {  // a wrapper around a control (a calendar cell around its link): the control is the target
    if (e.querySelector(CONTROLS) && !squash(ownText(e))) clickable.delete(e);
  }
  els = els.filter(e => isControl(e) || clickable.has(e));
  window.__ag = els;
  els.forEach((e, i) => {
    e.setAttribute('data-ag', i);
    if (clickable.has(e)) e.setAttribute('data-ag-click', '');
  });
  const root = document.documentElement.cloneNode(true);
  root.querySelectorAll('[data-ag-hide]').forEach(e => e.remove());
  for (const c of root.querySelectorAll('[data-ag]')) {
    const e = els[+c.getAttribute('data-ag')];
    if (c.hasAttribute('aria-label')) continue;
    if (clickable.has(e)) {  // named by its own text, else by what it is (an icon: its class or id)
      const direct = squash(Array.from(e.childNodes).filter(n => n.nodeType === 3).map(n => n.data).join(' '));
      const name = direct || squash(ownText(e)).slice(0, 300) || squash(String(e.className || e.id || e.tagName.toLowerCase()));
      c.setAttribute('aria-label', name);
    } else if (e.matches('input,textarea,select') && !(e.labels && e.labels.length)) {
      let p = e.previousElementSibling;  // <label>Username</label><input>: the label names the box
      while (p && p.tagName === 'BR') p = p.previousElementSibling;
      if (p && p.tagName === 'LABEL' && !p.querySelector(CONTROLS)) c.setAttribute('aria-label', squash(p.textContent));
    }
  }
  const query = document.getElementById('query');
  return [root.outerHTML, %s, query ? query.textContent.replace(/\\s+/g, ' ').trim() : '',
          [WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL, WOB_REWARD_REASON == null ? null : String(WOB_REWARD_REASON),
           core.EPISODE_MAX_TIME]];
})()""" % (chromium.CONTROLS, json.dumps(list(CLICK_EVENTS)), chromium.JS_VALUES)  # noqa: E501

# After an action: a turn of the event loop, then until the short timers and jQuery's animations are
# done (bounded: a page that keeps scheduling is answered after SETTLE_MS).
JS_SETTLE = (
    """new Promise(done => {
  const t0 = Date.now(), later = window.__agSetTimeout || setTimeout;
  const tick = () => {
    const busy = (window.__agPending && window.__agPending.size) || (window.jQuery && jQuery.timers && jQuery.timers.length);
    if (!busy || Date.now() - t0 > %d) done(true); else later(tick, 5);
  };
  later(tick, 0);
})"""  # noqa: E501
    % SETTLE_MS
)

JS_CLICK = """(i => {
  const e = window.__ag[i];
  e.scrollIntoView({block: 'center'});
  const r = e.getBoundingClientRect();
  const at = {bubbles: true, cancelable: true, view: window, button: 0,
              clientX: r.left + r.width / 2, clientY: r.top + r.height / 2};
  e.dispatchEvent(new MouseEvent('mouseover', at));
  e.dispatchEvent(new MouseEvent('mousedown', at));
  if (e.focus) e.focus();
  e.dispatchEvent(new MouseEvent('mouseup', at));
  e.click();
})"""

JS_SELECT = """((i, v) => {
  const e = window.__ag[i];
  e.focus();
  e.value = v;
  e.dispatchEvent(new Event('input', {bubbles: true}));
  e.dispatchEvent(new Event('change', {bubbles: true}));
})"""


class Pages:
    """The MiniWoB++ folder as a WSGI app (files read once, then served from memory)."""

    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.cache, self.missing = {}, []

    def __call__(self, environ, start_response):
        path = environ["PATH_INFO"]
        body = self.cache.get(path)
        if body is None:
            full = os.path.realpath(os.path.join(self.root, path.lstrip("/")))
            if full.startswith(self.root + os.sep) and os.path.isfile(full):
                with open(full, "rb") as f:
                    body = self.cache[path] = f.read()
            else:
                self.missing.append(path)
                start_response("404 Not Found", [("Content-Type", "text/plain")])
                return [b"not found"]
        kind = mimetypes.guess_type(path)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind.endswith("javascript"):
            kind += "; charset=utf-8"
        # the pages never change in a sandbox's life: Chromium keeps the scripts (d3, jQuery) in its cache
        cache = "no-store" if path.endswith(".html") else "max-age=86400"
        start_response("200 OK", [("Content-Type", kind), ("Content-Length", str(len(body))), ("Cache-Control", cache)])
        return [body]


class Tab:
    """The Chromium page MiniWoB uses (one per sandbox, made once)."""

    def __init__(self, browser, root):
        self.browser, self.cdp = browser, browser.cdp
        self.pages = Pages(root)
        self.opened = 0
        browser.site.app = self.pages
        self.cdp.call("Page.addScriptToEvaluateOnNewDocument", {"source": JS_HOOK})
        self.cdp.call("Runtime.enable")
        # the page behaves as the focused one (focus and blur events fire, as for a person's tab)
        self.cdp.call("Emulation.setFocusEmulationEnabled", {"enabled": True})

    def evaluate(self, expression, wait=False):
        return self.cdp.evaluate(expression, wait)

    def page_errors(self):
        """Uncaught exceptions the page threw since the last call (events are cleared)."""
        errors = [
            ev["params"]["exceptionDetails"] for ev in self.cdp.events if ev["method"] == "Runtime.exceptionThrown"
        ]
        self.cdp.events.clear()
        return [(e.get("exception", {}).get("description") or e.get("text") or "?")[:300] for e in errors]

    def open(self, task, seed, keep_timer):
        self.pages.missing = []
        # as in Browser-v0, the renderer keeps past documents until a full collection; one every
        # GC_EVERY episodes holds memory flat for about 25 ms, instead of 25 ms on every reset
        self.opened += 1
        if self.opened % GC_EVERY == 0:
            self.cdp.call("HeapProfiler.collectGarbage")
        self.cdp.events.clear()
        result = self.cdp.call("Page.navigate", {"url": "%s/miniwob/%s.html" % (self.browser.origin, task)})
        if result.get("errorText"):
            raise BrowserError("the page %s did not load: %s" % (task, result["errorText"]))
        self.cdp.event("Page.loadEventFired")
        if self.pages.missing:
            raise BrowserError("the page %s asked for missing files %s" % (task, self.pages.missing[:3]))
        problem = self.evaluate("%s(%s, %s)" % (JS_START, json.dumps(str(seed)), json.dumps(bool(keep_timer))))
        if problem:
            raise BrowserError("the page %s did not start: %s" % (task, problem))
        errors = self.page_errors()
        if errors:
            raise BrowserError("the page %s threw while loading: %s" % (task, errors[0]))


class Episode(view.View):
    """One episode on one page: the lines the agent sees, their ids, the page's verdict.

    The kit's `View` numbers the lines (ids stable for (role, name, occurrence), drawn from the
    seeded RNG), shows them, and fills, chooses and scrolls as Browser-v0 does (the same checks
    and messages); the page takes the values (`set_value`).
    """

    def __init__(self, tab, task, seed, keep_timer):
        super().__init__(seed)
        self.tab, self.task, self.seed, self.keep_timer = tab, task, seed, keep_timer
        self.url, self.offset, self.focus = "/miniwob/%s.html" % task, 0, None
        tab.open(task, seed, keep_timer)
        self.done, self.raw_reward, self.reason = False, None, None
        self.page_errors = []
        self.snapshot()

    def snapshot(self):
        markup, values, self.utterance, status = self.tab.evaluate(JS_SNAPSHOT)
        self.title, lines, _ = axtree.parse_page(markup)
        chromium.merge_values(lines, values)
        self.lines = self.number(lines, self.url)
        self.offset = min(self.offset, max(0, len(self.lines) - WINDOW))
        done, raw, reason, self.time_limit_ms = status
        if done and not self.done:
            if not isinstance(raw, (int, float)) or isinstance(raw, bool) or raw != raw:
                raise BrowserError("the page %s ended its episode without a reward (got %r)" % (self.task, raw))
            self.done, self.raw_reward, self.reason = True, float(raw), reason

    def reload(self):
        """State drift: the page reloads behind the agent's back (a session that expired): the same
        problem (same seed) from the start, everything entered or opened gone; ids stay as they were."""
        self.tab.open(self.task, self.seed, self.keep_timer)
        self.offset, self.focus = 0, None
        self.snapshot()

    # ------------------------------------------------------------------ actions
    def do_click(self, id, **extra):
        line = self.element(id)
        if line.get("dom") is None:
            raise ActError("not_interactive", "[%d] is text, not something to click" % line["id"])
        self.tab.evaluate("%s(%d)" % (JS_CLICK, line["dom"]))
        if line["role"] in TEXT_ROLES:
            self.focus = line["id"]

    # fill and select are the kit's (`View.do_fill`, `View.do_select`); the page takes the values
    def set_value(self, line, value):
        """Type into a box or choose a drop-down's option in the live page (its input and change events fire)."""
        js = JS_SELECT if line["role"] == "combobox" else chromium.JS_SET
        self.tab.evaluate("%s(%d, %s)" % (js, line["dom"], json.dumps(str(value))))

    def submit(self, form, submitter=None):
        """``fill(..., enter=True)``: Enter pressed in the box just filled."""
        self.key(self.element(self.focus), "Enter")

    def do_press(self, id=None, key="Enter"):
        self.key(self.pressed(id), key)

    def key(self, line, key):
        """A real key press in the element (Chromium's input pipeline: Enter submits a form, as typed)."""
        if line.get("dom") is None:
            raise ActError("not_interactive", "[%d] is text: it takes no keys" % line["id"])
        name = str(key).strip()
        codes = {
            "enter": ("Enter", 13, "\r"),
            "return": ("Enter", 13, "\r"),
            "tab": ("Tab", 9, ""),
            "escape": ("Escape", 27, ""),
            "backspace": ("Backspace", 8, ""),
            "space": (" ", 32, " "),
            "arrowdown": ("ArrowDown", 40, ""),
            "arrowup": ("ArrowUp", 38, ""),
        }
        if name.lower() not in codes:
            raise ActError("bad_args", "press takes one of %s" % ", ".join(sorted(set(c[0] for c in codes.values()))))
        label, code, text = codes[name.lower()]
        self.tab.evaluate("window.__ag[%d].focus()" % line["dom"])
        cdp = self.tab.cdp
        down = {
            "type": "keyDown" if text else "rawKeyDown",
            "key": label,
            "code": label if len(label) > 1 else "Space",
            "windowsVirtualKeyCode": code,
            "nativeVirtualKeyCode": code,
        }
        if text:
            down["text"] = text
        cdp.call("Input.dispatchKeyEvent", down)
        cdp.call("Input.dispatchKeyEvent", dict(down, type="keyUp", text=""))

    def act(self, name, args):
        error = kind = mismatch = None
        if self.done:
            error, kind = "the page has ended its episode", "episode_over"
        elif name in ("goto", "back", "forward", "reload"):
            error, kind = (
                "%s is not available here: a MiniWoB task is one page (the page has no links to other "
                "pages and leaving it would end the task)" % name,
                "not_supported",
            )
        else:
            try:
                getattr(self, "do_" + name)(**args)
            except ActError as exc:
                error, kind, mismatch = str(exc), exc.kind, exc.mismatch
        if name != "scroll" and error is None:
            self.tab.evaluate(JS_SETTLE, wait=True)
        # an error the page's script throws in answer to the agent's action is the agent's episode to
        # lose, never an exclusion from scores (DESIGN 10): it is reported, and the page goes on
        self.page_errors = self.tab.page_errors()
        if name != "scroll":
            self.snapshot()
        text = self.observe()
        if error:
            text = "error: %s\n\n%s" % (error, text)
        return self.reply(text, error, kind, mismatch)

    def reply(self, text, error=None, kind=None, mismatch=None):
        lines = [{k: v for k, v in ln.items() if k in REPLY_KEYS} for ln in self.lines]
        return {
            "text": text,
            "ok": error is None,
            "error": error,
            "error_kind": kind,
            "mismatch": mismatch,
            "done": self.done,
            "raw_reward": self.raw_reward,
            "reason": self.reason,
            "time_limit_ms": self.time_limit_ms,
            "page_errors": list(self.page_errors),
            "utterance": self.utterance,
            "lines": lines,
        }


# ---------------------------------------------------------------------- the sandbox's entry points
_M: dict[str, Tab | Episode] = {}


def start(root=ROOT):
    """Chromium (once per sandbox, the web kit's service) and the tab MiniWoB uses; what `chromium.start` says."""
    info = chromium.start()
    if "tab" not in _M:
        if not os.path.isfile(os.path.join(root, "core", "core.js")):
            raise BrowserError("no MiniWoB pages at %s: build the image with `agentgym setup`" % root)
        _M["tab"] = Tab(chromium.browser(), root)
    return info


def setup(task, seed, keep_timer=False):
    start()
    _M["episode"] = e = Episode(_M["tab"], task, seed, keep_timer)
    return e.reply(e.observe())


def act(name, args):
    return _M["episode"].act(name, args)


def drift():
    """Reload the page (see `Episode.reload`). After the page has scored, the verdict it gave stands."""
    e = _M["episode"]
    e.reload()
    return e.reply(e.observe())
