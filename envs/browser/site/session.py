"""The text browser: one episode's site, page, history, element ids, oracle and verifier.

Loaded into the sandbox's step server as ``agentgym.envs.browser.site.session``; the env calls ``setup``,
``act``, ``drift`` and ``verify`` through ``sandbox.call``. A page load calls the site's WSGI app
in-process (following redirects), parses the HTML with the web kit's renderer (`agentgym.web.axtree`)
and numbers every line as the kit's `View` does (ids stable for (path, role, name, occurrence)
within the episode, drawn from a seeded permutation, so ids differ across episodes). Every reply
carries the oracle's next action, so the env's `reference_action()` costs no extra round trip.
"""

import io
import urllib.parse

from agentgym.envs.browser.site import admin, forum, shop, web
from agentgym.web import axtree, view
from agentgym.web.view import TEXT_ROLES, WINDOW, ActError
from agentgym.world import verdict  # the stateful-world kit's expected-state verdict

SITES = {"shop": shop, "forum": forum, "admin": admin}


class Session(view.View):
    """One episode: the site's store and app, the page the agent is on, and what it has done."""

    def __init__(self, spec, seed):
        super().__init__(seed)  # ids drawn from the seed, the lines shown
        self.spec = spec
        self.site = SITES[spec["site"]]
        self.store = web.Store(self.site.SCHEMA, self.site.PRIMARY)
        self.store.create(spec["tables"])
        self.initial = self.store.copy()
        self.app = web.App(spec["site"], self.store, self.site.ROUTES, self.site.layout)
        self.history, self.forward, self.lines, self.forms = [], [], [], []
        self.url, self.title, self.status, self.offset, self.focus = "/", "", "200 OK", 0, None
        self.page_refs, self.page_glimpses = {}, {}
        self.written, self.verified, self.drifted = [], set(), []
        self.seen = {}
        self.step_writes, self.loaded, self.agent_keys = [], False, set()
        self.load("GET", spec.get("start", "/"))
        self.loaded = False

    # ------------------------------------------------------------------ pages
    def fetch(self, method, url, data=b""):
        writes, conflicts, rejected = [], [], None
        for _ in range(5):
            path, _, query = url.partition("?")
            environ = {
                "REQUEST_METHOD": method,
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "SERVER_NAME": "localhost",
                "SERVER_PORT": "80",
                "CONTENT_LENGTH": str(len(data)),
                "wsgi.input": io.BytesIO(data),
                "CONTENT_TYPE": "application/x-www-form-urlencoded",
                "wsgi.url_scheme": "http",
            }
            started = []
            # the app calls start_response before this iteration ends: binding `started` late is right
            body = b"".join(self.app(environ, lambda status, headers, exc=None: started.append((status, headers))))  # noqa: B023
            status, headers = started[0]
            st = self.store
            writes += st.writes
            conflicts += st.conflicts
            rejected = rejected or st.rejected
            location = dict(headers).get("Location")
            if status[:2] == "30" and location:
                method, url, data = "GET", location, b""
                continue
            return status, url, body.decode("utf-8"), writes, conflicts, rejected, list(st.refs)
        raise ActError("redirect_loop", "the site redirected too many times")

    def load(self, method, url, data=b"", push=True):
        self.show(*self.fetch(method, url, data), push=push)

    def show(self, status, url, markup, writes, conflicts, rejected, refs, push=True):
        """Make a fetched page the current one: parse it, number its lines, book its writes."""
        self.status, self.url = status, url
        self.title, lines, self.forms = self.parse(markup)
        self.lines, self.offset, self.focus = self.number(lines, url.partition("?")[0]), 0, None
        self.page_refs = {ref[0]: ref[1] for ref in refs if len(ref) == 2}
        self.page_glimpses = {ref[0]: ref[1] for ref in refs if len(ref) > 2}  # listing rows
        if push:
            self.history.append(url)
            self.forward.clear()  # a new page ends the forward history, as in a browser
        self.loaded = True
        self.step_writes += writes
        self.agent_keys.update(k for k, _, _ in writes)
        for key, _, after in writes:
            if key.partition(":")[0] in self.site.VERIFY_TABLES:
                if key in self.written:
                    self.written.remove(key)
                self.written.append(key)
                self.verified.discard(key)
        self.conflicts, self.rejected = conflicts, rejected
        if status[:3] != "200":
            raise ActError("http_%s" % status[:3], "HTTP %s for %s" % (status, url))
        if rejected:
            alerts = [ln["name"] for ln in lines if ln["role"] == "alert"]
            detail = "; ".join(alerts) or "the form was not accepted"
            mismatch = ("you posted a form over a newer version of %s" % ", ".join(conflicts)) if conflicts else None
            raise ActError(rejected, "the site rejected the form: %s" % detail, mismatch)

    def parse(self, markup):
        return axtree.parse_page(markup)

    def submit(self, form, submitter=None):
        if form is None:
            raise ActError("bad_args", "that element is not in a form")
        spec = self.forms[form]
        fields = list(spec["hidden"])
        for line in self.lines:
            if line.get("form") != form or not line.get("field"):
                continue
            role = line["role"]
            if role in TEXT_ROLES or role == "combobox":
                fields.append((line["field"], line["value"]))
            elif role in ("checkbox", "radio") and line["checked"]:
                fields.append((line["field"], line["submit_value"]))
        if submitter is not None and submitter.get("field"):
            fields.append((submitter["field"], submitter["submit_value"]))
        action = urllib.parse.urljoin(self.url, spec["action"] or self.url)
        encoded = urllib.parse.urlencode(fields)
        if spec["method"] == "POST":
            self.load("POST", action, encoded.encode())
        else:
            self.load("GET", action.partition("?")[0] + ("?" + encoded if encoded else ""))

    # What acting on an element does to the page; the Chromium session overrides these to drive
    # the real browser instead (`agentgym.envs.browser.site.chrome`). Filling, choosing and
    # scrolling are the kit's (`agentgym.web.view.View`).
    def follow(self, link):
        self.load("GET", urllib.parse.urljoin(self.url, link["href"]))

    def check(self, line):
        """Click a checkbox (toggle) or a radio button (choose it in its group)."""
        if line["role"] == "checkbox":
            line["checked"] = not line["checked"]
            return
        for other in self.lines:
            if (
                other["role"] == "radio"
                and other.get("form") == line.get("form")
                and other.get("field") == line.get("field")
            ):
                other["checked"] = False
        line["checked"] = True

    def set_value(self, line, value):
        """Type into a text box or choose a drop-down option (by value)."""
        line["value"] = value

    # ------------------------------------------------------------------ actions
    def do_click(self, id):
        line = self.element(id)
        role = line["role"]
        if role == "link":
            self.follow(line)
        elif role == "button":
            if not line.get("submit"):
                raise ActError("not_interactive", "button [%d] does nothing on this site" % line["id"])
            self.submit(line.get("form"), line)
        elif role in ("checkbox", "radio"):
            self.check(line)
        else:
            raise ActError(
                "not_interactive",
                "[%d] is a %s, not a link, button, checkbox or radio button; "
                "use fill() for text boxes and select() for drop-downs" % (line["id"], role),
            )

    def do_press(self, id=None, key="Enter"):
        line = self.pressed(id)
        if str(key).strip().lower() not in ("enter", "return"):
            raise ActError("bad_args", "only the Enter key does something here (it submits the element's form)")
        if line.get("form") is None:
            raise ActError("not_interactive", "[%d] is not in a form: Enter does nothing" % line["id"])
        self.submit(line["form"])

    def do_goto(self, path):
        path = str(path).strip()
        parsed = urllib.parse.urlsplit(path)
        if parsed.scheme or parsed.netloc:
            if parsed.hostname not in ("localhost", "127.0.0.1"):
                raise ActError(
                    "bad_args", 'goto takes a path on this site, like "/search?q=lamp"; other sites are not reachable'
                )
            path = urllib.parse.urlunsplit(("", "", parsed.path or "/", parsed.query, ""))
        if not path.startswith("/"):
            raise ActError("bad_args", "goto takes a path that starts with '/', like \"/search?q=lamp\"")
        self.load("GET", path)

    def do_back(self):
        if len(self.history) < 2:
            raise ActError("no_history", "there is no previous page to go back to")
        self.forward.append(self.history.pop())
        self.load("GET", self.history[-1], push=False)

    def do_forward(self):
        if not self.forward:
            raise ActError("no_history", "there is no next page to go forward to: go back first")
        self.history.append(self.forward.pop())
        self.load("GET", self.history[-1], push=False)

    def do_reload(self):
        self.load("GET", self.url, push=False)

    def act(self, name, args):
        """Run one browser action; the reply says what the agent sees and what the step did."""
        self.step_writes, self.loaded, self.conflicts = [], False, []
        error = kind = mismatch = None
        self.store.begin()
        try:
            getattr(self, "do_" + name)(**args)
        except ActError as exc:
            error, kind, mismatch = str(exc), exc.kind, exc.mismatch
        text = self.observe()
        if error:
            text = "error: %s\n\n%s" % (error, text)
        return self.reply(text, error, kind, mismatch)

    # ------------------------------------------------------------------ bookkeeping for events
    def reply(self, text, error=None, kind=None, mismatch=None):
        wrote = [key for key, _, _ in self.step_writes]
        fresh = {}
        if self.loaded:
            for key, version in self.page_refs.items():
                if key in self.written and key not in wrote and key not in self.verified:
                    self.verified.add(key)
                    fresh[key] = version
        self.seen.update(self.page_refs)
        targets = [k for k in dict.fromkeys(wrote) if k.partition(":")[0] in self.site.MUTATION_TABLES]
        checks = {}
        if fresh:
            expected, _ = self.expected()
            checks = {k: self.store.record(k) == expected.record(k) for k in fresh}
        return {
            "text": text,
            "ok": error is None,
            "error": error,
            "error_kind": kind,
            "mismatch": mismatch,
            "mutations": targets,
            "verified": checks,
            "shown": dict(self.page_refs),
            "glimpsed": dict(self.page_glimpses),
            "progress": self.progress(),
            "oracle": self.oracle(),
            "menu": self.menu(),
        }

    def menu(self):
        """Candidate actions on this page for small policies (the env adds the oracle's and finishes)."""
        out = []
        for line in self.lines:
            role, ident = line["role"], line["id"]
            if role in ("link", "button", "checkbox", "radio"):
                out.append("click(%d)" % ident)
            elif role in TEXT_ROLES:
                out += ["fill(%d, %s)" % (ident, _json(hint)) for hint in self.spec.get("hints", [])[:3]]
                if line["value"]:
                    out.append('press(%d, "Enter")' % ident)
            elif role == "combobox":
                out += ["select(%d, %s)" % (ident, _json(label)) for _, label in line["options"][:6]]
        out += ["back()", "reload()"] + (['scroll("down")'] if self.offset + WINDOW < len(self.lines) else [])
        return out

    def progress(self):
        return [bool(self.site.done(self.store, op)) for op in self.spec["ops"]]

    # ------------------------------------------------------------------ other actors
    def drift(self, pick):
        """Another actor changes a record the agent has not written; None when none is left."""
        touched = self.agent_keys
        done = {d["index"] for d in self.drifted}
        cands = [
            dict(d, index=i)
            for i, d in enumerate(self.spec["drifts"])
            if i not in done and not set(d["touches"]) & touched
        ]
        if not cands:
            return None
        d = cands[pick % len(cands)]
        self.store.begin()
        self.store.db.execute("BEGIN")
        self.site.DRIFTS[d["fn"]](self.store, **d["args"])
        self.store.db.execute("COMMIT")
        self.drifted.append(d)
        return {"what": d["what"], "oracle": self.oracle(), "menu": self.menu()}

    # ------------------------------------------------------------------ verifier
    def expected(self):
        """The expected final store: initial state, other actors' changes, then the allowed writes."""
        exp = self.initial.copy()
        for d in self.drifted:
            self.site.DRIFTS[d["fn"]](exp, **d["args"])
        reasons = [r for r in (self.site.allowed(exp, op) for op in self.spec["ops"]) if r]
        if not reasons:
            for op in self.spec["ops"]:
                self.site.apply(exp, op)
        return exp, reasons

    def verify(self, answer, value=None, refused=None):
        """Success: the store equals the expected one and the answer says what it must
        (`agentgym.world.verdict`: one value of the kind asked for, or a refusal and nothing else,
        read about the ops' verbs; ``refused``: the agent's structured refusal flag, if it gave one)."""
        exp, reasons = self.expected()
        want = self.site.answer(exp, self.spec["answer"]) if self.spec.get("answer") and not reasons else None
        actions = tuple(dict.fromkeys(v for op in self.spec["ops"] for v in self.site.OP_VERBS[op["op"]]))
        return verdict.world_verdict(
            exp.dump() == self.store.dump(),
            answer,
            value,
            refusal=bool(reasons),
            expected=want,
            reasons=reasons,
            refused=refused,
            actions=actions,
            evidence={k: self.store.version(k) for k in self.spec["evidence"]},
        )

    # ------------------------------------------------------------------ oracle
    @property
    def path(self):
        return self.url.partition("?")[0]

    @property
    def query(self):
        return dict(urllib.parse.parse_qsl(self.url.partition("?")[2]))

    def find(self, role, name):
        for line in self.lines:
            if line["role"] == role and line["name"] == name:
                return line
        return None

    def stale_page(self):
        return any(self.store.version(k) != v for k, v in self.page_refs.items())

    def plan(self, hasty=False):
        """The oracle's next step as a tuple: (verb, role, name[, text]), (goto, path), (reload,), (finish, answer).

        ``hasty`` is the scripted policy that budget pressure favours: it answers a lookup, or
        refuses, from the first listing row that shows the value and never re-reads what it wrote;
        the careful oracle opens the record's own page and re-reads its writes, so it needs more
        turns and is never fooled.
        """
        st, site = self.store, self.site
        if self.stale_page() or self.rejected == "conflict":
            return ("reload",)
        if hasty:  # a listing row that says the request is forbidden is enough for it
            said = [site.listed_refusal(self, op) for op in self.spec["ops"] if not site.done(st, op)]
            if any(said):
                return ("finish", "I cannot do that: %s." % next(r for r in said if r))
        reasons = [site.allowed(st, op) for op in self.spec["ops"] if not site.done(st, op)]
        reasons = [r for r in reasons if r]
        if reasons:
            for key in self.spec["evidence"]:
                if self.seen.get(key) != st.version(key):
                    return site.see(self, key)
            return ("finish", "I cannot do that: %s." % reasons[0])
        for op in self.spec["ops"]:
            if not site.done(st, op):
                return site.step(self, op)
        for key in () if hasty else self.written:
            if key not in self.verified and st.record(key) is not None:
                return ("reload",) if key in self.page_refs else site.see(self, key)
        listed = site.listed_answer(self, self.spec["answer"]) if hasty and self.spec.get("answer") else None
        if listed is not None:
            return ("finish", listed)
        for key in self.spec["evidence"]:
            if self.seen.get(key) != st.version(key):
                return site.see(self, key)
        if self.spec.get("answer"):
            return ("finish", site.answer(st, self.spec["answer"]))
        return ("finish", "Done.")

    def row_cell(self, link, column):
        """Text cell ``column`` of the table row that holds the link named ``link`` (None if none on the page)."""
        row = None
        for line in self.lines:
            if line["role"] == "row":
                row = line
            elif (
                line["role"] == "link"
                and line["name"] == link
                and row is not None
                and line.get("indent", 0) > row.get("indent", 0)
            ):
                cells = row["name"].split(" | ")
                return cells[column] if len(cells) > column else None
        return None

    def oracle(self, hasty=False):
        step = self.plan(hasty)
        verb = step[0]
        if verb in ("click", "fill", "select", "press"):
            line = self.find(step[1], step[2])
            if line is None:
                return {"action": 'goto("%s")' % self.spec.get("start", "/"), "semantic": "lost: %r" % (step,)}
            target = "%s %s" % (step[1], view.quote(step[2]))
            if verb == "click":
                return {"action": "click(%d)" % line["id"], "semantic": "click(%s)" % target}
            return {
                "action": "%s(%d, %s)" % (verb, line["id"], _json(step[3])),
                "semantic": "%s(%s, %s)" % (verb, target, _json(step[3])),
            }
        if verb in ("goto", "finish"):
            call = "%s(%s)" % (verb, _json(step[1]))
            return {"action": call, "semantic": call}
        return {"action": "%s()" % verb, "semantic": "%s()" % verb}


def _json(text):
    return '"%s"' % str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


# ---------------------------------------------------------------------- the sandbox's entry points
_S: dict = {}


def setup(spec, seed):
    _S["session"] = s = Session(spec, seed)
    return {
        "text": s.observe(),
        "shown": dict(s.page_refs),
        "glimpsed": dict(s.page_glimpses),
        "progress": s.progress(),
        "oracle": s.oracle(),
        "menu": s.menu(),
    }


def hasty():
    return _S["session"].oracle(hasty=True)


def act(name, args):
    return _S["session"].act(name, args)


def drift(pick):
    return _S["session"].drift(pick)


def verify(answer, value=None, refused=None):
    return _S["session"].verify(answer, value, refused)
