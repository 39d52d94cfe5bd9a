"""A small WSGI toolkit for the browser family's sites: routes, requests, pages, and a store.

Stdlib only: it runs inside the sandbox's step server (loaded as ``agentgym.envs.browser.site.web``) and, for
planning, on the host. `Store` wraps SQLite with a version per record and a per-request log of
the records a page showed (``refs``; listing rows are marked as glimpses) and the writes it made,
so the env can emit ``mutation``, ``verification`` and ``state_mismatch`` events and judge a
refusal's grounding from the server's own bookkeeping.
"""

import html
import json
import re
import sqlite3
import urllib.parse

from agentgym.world import records  # the stateful-world kit's versioned records

META_SCHEMA = records.VERSIONS_SCHEMA + "CREATE TABLE _listing(key TEXT PRIMARY KEY, fields TEXT NOT NULL);"
_SCHEMAS: dict = {}  # schema text -> an empty database with it, copied into each new store


def h(value):
    """HTML-escape any value."""
    return html.escape(str(value), quote=True)


def money(cents):
    return "$%.2f" % (cents / 100.0)


class NotFound(Exception):
    """The path names no page or record: the app answers 404."""


class Response:
    def __init__(self, body="", status="200 OK", location=None):
        self.body = body
        self.status = status
        self.location = location


def redirect(location):
    return Response("", "303 See Other", location)


class Request:
    """One request: method, path, query and (for POST) the urlencoded form."""

    def __init__(self, environ):
        self.method = environ.get("REQUEST_METHOD", "GET")
        self.path = environ.get("PATH_INFO") or "/"
        self.query = dict(urllib.parse.parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True))
        self.form, self.lists = {}, {}
        if self.method == "POST":
            size = int(environ.get("CONTENT_LENGTH") or 0)
            body = environ["wsgi.input"].read(size).decode("utf-8", "replace") if size else ""
            for k, v in urllib.parse.parse_qsl(body, keep_blank_values=True):
                self.form[k] = v
                self.lists.setdefault(k, []).append(v)

    def arg(self, name, default=""):
        return self.query.get(name, default).strip()

    def page_number(self):
        """The ``page`` query argument as a number from 1 (garbage reads as 1)."""
        try:
            return max(1, int(self.arg("page") or 1))
        except ValueError:
            return 1


class Store:
    """SQLite with record versions; ``refs``/``writes``/``conflicts`` describe the current request."""

    def __init__(self, schema, primary):
        # in memory: the step server owns the data (the agent has no way to it), and a file on the
        # workspace tmpfs cost about 1 ms more per reset
        self.db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self.primary = primary
        self.schema = schema
        self.begin()

    def create(self, tables):
        """The schema (copied from a per-site template built once) and the rows, one insert per table."""
        template = _SCHEMAS.get(self.schema)
        if template is None:
            template = _SCHEMAS[self.schema] = sqlite3.connect(":memory:", check_same_thread=False)
            template.executescript(self.schema + META_SCHEMA)
        template.backup(self.db)
        self.db.execute("BEGIN")
        records.seed(self.db, tables)
        self.db.execute("COMMIT")

    def begin(self):
        self.refs, self.writes, self.conflicts, self.rejected = [], [], [], None

    # reads
    def one(self, sql, *params):
        row = self.db.execute(sql, params).fetchone()
        return dict(row) if row else None

    def all(self, sql, *params):
        return [dict(r) for r in self.db.execute(sql, params).fetchall()]

    def get(self, table, pk):
        row = self.one("SELECT * FROM %s WHERE %s=?" % (table, self.primary[table]), pk)
        if row is None:
            raise NotFound("%s %s" % (table, pk))
        return row

    def version(self, key):
        return records.version(self.db, key)

    def ref(self, table, pk):
        """The page shows this record (a page that shows a record the agent wrote verifies it)."""
        key = records.record_key(table, pk)
        self.refs.append([key, self.version(key)])
        return self.refs[-1][1]

    def listed(self, table, row):
        """``row`` as a listing shows it: the search index lags for some records (``_listing``), so
        only a record's page tells the truth. The row is logged as a *glimpse* (a ref marked
        ``"listed"``): the agent looked at the record, which grounds a refusal, but a glimpse is no
        `ref`: it neither verifies a write nor makes the page stale when the record changes."""
        key = records.record_key(table, row[self.primary[table]])
        self.refs.append([key, self.version(key), "listed"])
        got = self.db.execute("SELECT fields FROM _listing WHERE key=?", (key,)).fetchone()
        return dict(row, **json.loads(got[0])) if got else row

    def setting(self, name, default=""):
        row = self.db.execute("SELECT value FROM settings WHERE key=?", (name,)).fetchone()
        return row[0] if row else default

    # writes: each raises the record's version and is logged for the step's events
    def update(self, table, pk, fields):
        self.writes.append(list(records.update(self.db, self.primary, table, pk, fields)))

    def insert(self, table, row):
        self.writes.append(list(records.insert(self.db, self.primary, table, row)))

    def delete(self, table, pk):
        self.writes.append(list(records.delete(self.db, self.primary, table, pk)))

    def set_setting(self, name, value):
        self.db.execute(
            "INSERT INTO settings(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=?", (name, value, value)
        )
        key = records.record_key("settings", name)
        self.writes.append([key, *records.bump(self.db, key)])

    def stale(self, table, pk, version):
        """True (and a conflict logged) when a form posted ``version`` over a newer record."""
        key = records.record_key(table, pk)
        if str(self.version(key)) != str(version):
            self.conflicts.append(key)
            self.rejected = "conflict"
            return True
        return False

    # verification
    def dump(self):
        """Every business table as sorted rows: what the verifier compares."""
        return records.dump(self.db)

    def record(self, key):
        """The record's row, or None."""
        return records.row(self.db, self.primary, key)

    def copy(self):
        other = Store.__new__(Store)
        other.db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        other.db.row_factory = sqlite3.Row
        self.db.backup(other.db)
        other.primary, other.schema = self.primary, self.schema
        other.begin()
        return other


class App:
    """A WSGI callable over a `Store`: ``routes`` are (method, regex, handler(store, request, **groups))."""

    def __init__(self, name, store, routes, layout):
        self.name = name
        self.store = store
        self.routes = [(m, re.compile("^%s$" % p), fn) for m, p, fn in routes]
        self.layout = layout

    def handle(self, req):
        for method, pattern, fn in self.routes:
            match = pattern.match(req.path)
            if match and method == req.method:
                return fn(self.store, req, **match.groupdict())
        allowed = [m for m, p, _ in self.routes if p.match(req.path)]
        if allowed:
            return Response(
                self.layout(self.store, "Method not allowed", "<p>Use the page's forms.</p>"), "405 Method Not Allowed"
            )
        raise NotFound(req.path)

    def __call__(self, environ, start_response):
        self.store.begin()
        req = Request(environ)
        self.store.db.execute("BEGIN")
        try:
            resp = self.handle(req)
            self.store.db.execute("COMMIT")
        except NotFound as exc:
            self.store.db.execute("ROLLBACK")
            self.store.begin()
            resp = Response(
                self.layout(self.store, "Page not found", "<h1>Page not found</h1><p>Nothing here: %s</p>" % h(exc)),
                "404 Not Found",
            )
        except Exception:
            self.store.db.execute("ROLLBACK")
            raise
        headers = [("Content-Type", "text/html; charset=utf-8")]
        if resp.location:
            headers.append(("Location", resp.location))
        start_response(resp.status, headers)
        return [resp.body.encode("utf-8")]


def rejected(store, kind, layout, title, body):
    """A page that refuses a form (validation or a version conflict): the tool call failed."""
    store.rejected = store.rejected or kind
    return Response(layout(store, title, body))


def qs(**params):
    return urllib.parse.urlencode([(k, v) for k, v in params.items() if v not in ("", None)])


def reach_by_search(S, link, box):
    """The oracle's way to a record page: click its link if shown, else search for its name in ``box``."""
    if S.find("link", link):
        return ("click", "link", link)
    if S.find("searchbox", box)["value"] == link:
        return ("press", "searchbox", box, "Enter")
    return ("fill", "searchbox", box, link)
