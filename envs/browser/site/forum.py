"""Harbor Community forum: boards, paged thread lists, search, threads with replies, post editing
with version checks, and moderation (lock, pin, move, a queue of flagged posts). Loaded in the
sandbox as ``agentgym.envs.browser.site.forum``; task semantics as in `shop` (apply, done, allowed, step,
see, answer, DRIFTS).
"""

from agentgym.envs.browser.site import web
from agentgym.envs.browser.site.web import h, qs, redirect, rejected

SCHEMA = """
CREATE TABLE settings(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE boards(bid TEXT PRIMARY KEY, name TEXT NOT NULL, position INTEGER NOT NULL);
CREATE TABLE threads(tid TEXT PRIMARY KEY, bid TEXT NOT NULL, title TEXT NOT NULL, author TEXT NOT NULL,
                     created TEXT NOT NULL, locked INTEGER NOT NULL, pinned INTEGER NOT NULL, last_post TEXT NOT NULL);
CREATE TABLE posts(pid TEXT PRIMARY KEY, tid TEXT NOT NULL, author TEXT NOT NULL, body TEXT NOT NULL,
                   created TEXT NOT NULL, flagged INTEGER NOT NULL, hidden INTEGER NOT NULL);
"""
PRIMARY = {"settings": "key", "boards": "bid", "threads": "tid", "posts": "pid"}
VERIFY_TABLES = {"posts", "threads"}
OP_VERBS = {
    "reply": ("reply", "post", "respond", "write", "add"),
    "replace_text": ("edit", "fix", "change", "replace", "update", "correct"),
    "set_thread": ("lock", "pin", "move", "set", "change", "update"),
    "hide_flagged": ("hide", "remove"),
}
"""What each op asks, in verbs: what a final message's refusal or claim of done is about (`agentgym.answers`)."""
MUTATION_TABLES = {"posts", "threads"}
PAGE_SIZE = 10


def layout(s, title, body):
    return (
        "<!doctype html><html><head><title>%s | Harbor Community</title></head><body><header><nav>"
        "<a href='/forum'>Community Forum</a><form action='/forum/search' method='get' role='search'>"
        "<input type='search' name='q' aria-label='Search the forum'><button type='submit'>Search</button></form>"
        "<a href='/forum/flags'>Moderation queue</a> <span>Signed in as %s (moderator)</span></nav></header>"
        "<main>%s</main></body></html>"
    ) % (h(title), h(s.setting("me")), body)


def page(s, title, body):
    return web.Response(layout(s, title, body))


def _replies(s, tid):
    return s.one("SELECT COUNT(*) AS n FROM posts WHERE tid=?", tid)["n"] - 1


def _thread_rows(s, rows):
    out = ["<table><tr><th>Thread</th><th>Started by</th><th>Replies</th><th>Status</th></tr>"]
    for t in (s.listed("threads", dict(row, replies=_replies(s, row["tid"]))) for row in rows):
        status = ", ".join(x for x, on in (("pinned", t["pinned"]), ("locked", t["locked"])) if on) or "open"
        out.append(
            "<tr><td><a href='/forum/thread/%s'>%s</a></td><td>%s</td><td>%d replies</td><td>%s</td></tr>"
            % (t["tid"], h(t["title"]), h(t["author"]), t["replies"], status)
        )
    return "".join(out) + "</table>"


def boards(s, req):
    rows = s.all("SELECT b.*, (SELECT COUNT(*) FROM threads t WHERE t.bid=b.bid) AS n FROM boards b ORDER BY position")
    body = "".join(
        "<tr><td><a href='/forum/board/%s'>%s</a></td><td>%d threads</td></tr>" % (b["bid"], h(b["name"]), b["n"])
        for b in rows
    )
    return page(s, "Boards", "<h1>Boards</h1><table>%s</table>" % body)


def board(s, req, bid):
    b = s.get("boards", bid)
    pno = req.page_number()
    rows = s.all("SELECT * FROM threads WHERE bid=? ORDER BY pinned DESC, created DESC, tid", bid)
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    pno = min(pno, pages)
    nav = []
    if pno > 1:
        nav.append("<a href='/forum/board/%s?%s'>Previous page</a>" % (bid, qs(page=pno - 1)))
    if pno < pages:
        nav.append("<a href='/forum/board/%s?%s'>Next page</a>" % (bid, qs(page=pno + 1)))
    return page(
        s,
        b["name"],
        "<h1>%s</h1><p>%d threads, page %d of %d</p>%s<nav>%s</nav>"
        % (
            h(b["name"]),
            len(rows),
            pno,
            pages,
            _thread_rows(s, rows[(pno - 1) * PAGE_SIZE : pno * PAGE_SIZE]),
            " ".join(nav),
        ),
    )


def search(s, req):
    q = req.arg("q")
    like = "%" + q.lower() + "%"
    rows = (
        s.all(
            "SELECT * FROM threads WHERE lower(title) LIKE ? OR tid IN (SELECT tid FROM posts WHERE hidden=0 AND "
            "lower(body) LIKE ?) ORDER BY created DESC, tid LIMIT 20",
            like,
            like,
        )
        if q
        else []
    )
    found = _thread_rows(s, rows) if rows else "<p>No threads match.</p>"
    return page(s, "Search", "<h1>%s</h1>%s" % (h('Search results for "%s"' % q), found))


def thread(s, req, tid):
    t = s.get("threads", tid)
    version = s.ref("threads", tid)
    b = s.get("boards", t["bid"])
    status = ", ".join(x for x, on in (("Pinned", t["pinned"]), ("Locked", t["locked"])) if on) or "Open"
    opts = "".join(
        "<option value='%s'%s>%s</option>" % (r["bid"], " selected" if r["bid"] == t["bid"] else "", h(r["name"]))
        for r in s.all("SELECT * FROM boards ORDER BY position")
    )
    mod = (
        "<form action='/forum/thread/%s/moderate' method='post'><input type='hidden' name='version' value='%d'>"
        "<button type='submit' name='do' value='%s'>%s thread</button>"
        "<button type='submit' name='do' value='%s'>%s thread</button>"
        "<label>Move to board <select name='board'>%s</select></label>"
        "<button type='submit' name='do' value='move'>Move thread</button></form>"
        % (
            tid,
            version,
            "unlock" if t["locked"] else "lock",
            "Unlock" if t["locked"] else "Lock",
            "unpin" if t["pinned"] else "pin",
            "Unpin" if t["pinned"] else "Pin",
            opts,
        )
    )
    posts = []
    for p in s.all("SELECT * FROM posts WHERE tid=? ORDER BY created, pid", tid):
        s.ref("posts", p["pid"])
        text = "[hidden by a moderator]" if p["hidden"] else p["body"]
        flag = "<p>Flagged for review</p>" if p["flagged"] and not p["hidden"] else ""
        posts.append(
            "<article><p>%s wrote on %s (post %s):</p><p>%s</p>%s<a href='/forum/post/%s/edit'>Edit post %s"
            "</a></article>" % (h(p["author"]), p["created"], p["pid"], h(text), flag, p["pid"], p["pid"])
        )
    if t["locked"]:
        reply = "<p>This thread is locked: no new replies.</p>"
    else:
        reply = (
            "<form action='/forum/thread/%s/reply' method='post'><label>Your reply <textarea name='body'>"
            "</textarea></label><button type='submit'>Post reply</button></form>" % tid
        )
    return page(
        s,
        t["title"],
        "<h1>%s</h1><p>Board: %s</p><p>Status: %s</p>%s%s%s"
        % (h(t["title"]), h(b["name"]), status, mod, "".join(posts), reply),
    )


def moderate(s, req, tid):
    t = s.get("threads", tid)
    if s.stale("threads", tid, req.form.get("version", "")):
        return rejected(
            s,
            "conflict",
            layout,
            "Moderation",
            "<p role='alert'>This thread changed since you opened "
            "it.</p><a href='/forum/thread/%s'>Open the latest version</a>" % tid,
        )
    do = req.form.get("do", "")
    fields = {"lock": {"locked": 1}, "unlock": {"locked": 0}, "pin": {"pinned": 1}, "unpin": {"pinned": 0}}.get(do)
    if do == "move":
        if s.one("SELECT bid FROM boards WHERE bid=?", req.form.get("board", "")) is None:
            return rejected(s, "validation", layout, "Moderation", "<p role='alert'>Choose a board.</p>")
        fields = {"bid": req.form["board"]}
    if fields is None:
        return rejected(s, "validation", layout, "Moderation", "<p role='alert'>Unknown moderation action.</p>")
    if any(t[k] != v for k, v in fields.items()):
        s.update("threads", tid, fields)
    return redirect("/forum/thread/%s" % tid)


def add_reply(s, tid, body):
    n = s.one("SELECT COUNT(*) AS n FROM posts WHERE pid >= 'p5' AND pid < 'p6'")["n"]
    pid = "p%d" % (5001 + n)
    s.insert(
        "posts",
        {
            "pid": pid,
            "tid": tid,
            "author": s.setting("me"),
            "body": body,
            "created": s.setting("today"),
            "flagged": 0,
            "hidden": 0,
        },
    )
    s.update("threads", tid, {"last_post": pid})
    return pid


def reply(s, req, tid):
    t = s.get("threads", tid)
    body = " ".join(req.form.get("body", "").split())
    if t["locked"]:
        return rejected(s, "validation", layout, "Reply", "<p role='alert'>This thread is locked.</p>")
    if not body:
        return rejected(
            s,
            "validation",
            layout,
            "Reply",
            "<p role='alert'>Write something first.</p><a href='/forum/thread/%s'>Back to the thread</a>" % tid,
        )
    add_reply(s, tid, body)
    return redirect("/forum/thread/%s" % tid)


def edit_form(s, req, pid):
    p = s.get("posts", pid)
    version = s.ref("posts", pid)
    return page(
        s,
        "Edit post",
        "<h1>Edit post %s</h1><form action='/forum/post/%s/edit' method='post'>"
        "<input type='hidden' name='version' value='%d'><label>Post text <textarea name='body'>%s</textarea>"
        "</label><button type='submit'>Save changes</button></form><a href='/forum/thread/%s'>Cancel</a>"
        % (pid, pid, version, h(p["body"]), p["tid"]),
    )


def edit_post(s, req, pid):
    p = s.get("posts", pid)
    if s.stale("posts", pid, req.form.get("version", "")):
        return rejected(
            s,
            "conflict",
            layout,
            "Edit post",
            "<p role='alert'>Someone else edited this post since you "
            "opened it.</p><a href='/forum/post/%s/edit'>Open the latest version</a>" % pid,
        )
    body = " ".join(req.form.get("body", "").split())
    if not body:
        return rejected(
            s,
            "validation",
            layout,
            "Edit post",
            "<p role='alert'>A post cannot be empty.</p><a href='/forum/post/%s/edit'>Back to the editor</a>" % pid,
        )
    if body != p["body"]:
        s.update("posts", pid, {"body": body})
    return redirect("/forum/thread/%s" % p["tid"])


def flags(s, req):
    rows = s.all(
        "SELECT p.*, t.title FROM posts p JOIN threads t ON t.tid=p.tid WHERE p.flagged=1 AND p.hidden=0 "
        "ORDER BY p.created, p.pid"
    )
    hidden = s.all("SELECT * FROM posts WHERE hidden=1 ORDER BY pid")
    recent = "".join(
        "<li>Post %s by %s is hidden.</li>" % (p["pid"], h(p["author"]))
        for p in hidden
        if s.ref("posts", p["pid"]) is not None
    )
    recent = "<h2>Hidden posts</h2><ul>%s</ul>" % recent if hidden else ""
    if not rows:
        return page(s, "Moderation queue", "<h1>Moderation queue</h1><p>Nothing to review.</p>" + recent)
    out = [
        recent,
        "<h1>Moderation queue</h1><form action='/forum/flags' method='post'><table>"
        "<tr><th>Post</th><th>Author</th><th>Text</th><th>Thread</th><th></th></tr>",
    ]
    for p in rows:
        s.ref("posts", p["pid"])
        excerpt = p["body"] if len(p["body"]) <= 80 else p["body"][:77] + "..."
        out.append(
            "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td><button type='submit' name='hide' value='%s' "
            "aria-label='Hide post %s'>Hide</button><button type='submit' name='dismiss' value='%s' "
            "aria-label='Dismiss flag on post %s'>Dismiss</button></td></tr>"
            % (p["pid"], h(p["author"]), h(excerpt), h(p["title"]), p["pid"], p["pid"], p["pid"], p["pid"])
        )
    out.append("</table></form>")
    out.append(out.pop(0))  # the hidden list goes below the queue
    return page(s, "Moderation queue", "".join(out))


def flags_post(s, req):
    pid = req.form.get("hide") or req.form.get("dismiss") or ""
    p = s.one("SELECT * FROM posts WHERE pid=?", pid)
    if p is None or not p["flagged"]:
        return rejected(
            s,
            "validation",
            layout,
            "Moderation queue",
            "<p role='alert'>That post is not in the queue any more.</p><a href='/forum/flags'>Back to the queue</a>",
        )
    s.update("posts", pid, {"hidden": 1, "flagged": 0} if req.form.get("hide") else {"flagged": 0})
    return redirect("/forum/flags")


ROUTES = [
    ("GET", "/", boards),
    ("GET", "/forum", boards),
    ("GET", r"/forum/board/(?P<bid>b\d+)", board),
    ("GET", "/forum/search", search),
    ("GET", r"/forum/thread/(?P<tid>t\d+)", thread),
    ("POST", r"/forum/thread/(?P<tid>t\d+)/moderate", moderate),
    ("POST", r"/forum/thread/(?P<tid>t\d+)/reply", reply),
    ("GET", r"/forum/thread/(?P<tid>t\d+)/(?:moderate|reply)", lambda s, req, tid: redirect("/forum/thread/%s" % tid)),
    ("GET", r"/forum/post/(?P<pid>p\d+)/edit", edit_form),
    ("POST", r"/forum/post/(?P<pid>p\d+)/edit", edit_post),
    ("GET", "/forum/flags", flags),
    ("POST", "/forum/flags", flags_post),
]


# ---------------------------------------------------------------------- task semantics
def _flagged_by(s, author):
    return s.all("SELECT * FROM posts WHERE author=? AND flagged=1 AND hidden=0 ORDER BY created, pid", author)


def done(s, op):
    kind = op["op"]
    if kind == "reply":
        return (
            s.one("SELECT pid FROM posts WHERE tid=? AND author=? AND body=?", op["tid"], s.setting("me"), op["body"])
            is not None
        )
    if kind == "replace_text":
        body = s.get("posts", op["pid"])["body"]
        return op["old"] not in body and op["new"] in body
    if kind == "set_thread":
        t = s.get("threads", op["tid"])
        return all(t[k] == v for k, v in op["fields"].items())
    return not _flagged_by(s, op["author"])


def allowed(s, op):
    if op["op"] == "reply" and s.get("threads", op["tid"])["locked"] and not done(s, op):
        return 'the thread "%s" is locked, so nobody can reply to it' % s.get("threads", op["tid"])["title"]
    return None


def apply(s, op):
    kind = op["op"]
    if kind == "reply":
        add_reply(s, op["tid"], op["body"])
    elif kind == "replace_text":
        s.update("posts", op["pid"], {"body": s.get("posts", op["pid"])["body"].replace(op["old"], op["new"])})
    elif kind == "set_thread":
        s.update("threads", op["tid"], op["fields"])
    else:
        for p in _flagged_by(s, op["author"]):
            s.update("posts", p["pid"], {"hidden": 1, "flagged": 0})


def answer(s, spec):
    return str(_replies(s, spec["tid"]))


def listed_answer(S, spec):
    """What a listing row on this page says the answer is (the hasty policy's reading)."""
    cell = S.row_cell(S.store.get("threads", spec["tid"])["title"], 1)
    return cell.split()[0] if cell else None


def listed_refusal(S, op):
    """Why a listing row on this page says the op is forbidden (the hasty policy's reading), else None."""
    if op["op"] != "reply":
        return None
    status = S.row_cell(S.store.get("threads", op["tid"])["title"], 2) or ""
    return "the thread list shows the thread as locked" if "locked" in status else None


def to_thread(S, tid):
    return web.reach_by_search(S, S.store.get("threads", tid)["title"], "Search the forum")


def see(S, key):
    table, _, pk = key.partition(":")
    tid = S.store.get("posts", pk)["tid"] if table == "posts" else pk
    return to_thread(S, tid)


def step(S, op):
    s, kind = S.store, op["op"]
    if kind == "hide_flagged":
        if S.path == "/forum/flags":
            return ("click", "button", "Hide post %s" % _flagged_by(s, op["author"])[0]["pid"])
        return ("click", "link", "Moderation queue")
    if kind == "replace_text":
        pid = op["pid"]
        if S.path == "/forum/post/%s/edit" % pid:
            box = S.find("textbox", "Post text")
            if op["old"] in box["value"]:
                return ("fill", "textbox", "Post text", box["value"].replace(op["old"], op["new"]))
            return ("click", "button", "Save changes")
        tid = s.get("posts", pid)["tid"]
        if S.path == "/forum/thread/%s" % tid:
            return ("click", "link", "Edit post %s" % pid)
        return to_thread(S, tid)
    tid = op["tid"]
    if S.path != "/forum/thread/%s" % tid:
        return to_thread(S, tid)
    if kind == "reply":
        if S.find("textbox", "Your reply")["value"] != op["body"]:
            return ("fill", "textbox", "Your reply", op["body"])
        return ("click", "button", "Post reply")
    t = s.get("threads", tid)
    fields = op["fields"]
    if "bid" in fields and t["bid"] != fields["bid"]:
        name = s.get("boards", fields["bid"])["name"]
        box = S.find("combobox", "Move to board")
        if box["value"] != fields["bid"]:
            return ("select", "combobox", "Move to board", name)
        return ("click", "button", "Move thread")
    if "locked" in fields and t["locked"] != fields["locked"]:
        return ("click", "button", "Lock thread" if fields["locked"] else "Unlock thread")
    return ("click", "button", "Pin thread" if fields["pinned"] else "Unpin thread")


def d_note(s, pid, note):
    s.update("posts", pid, {"body": s.get("posts", pid)["body"] + note})


def d_reply(s, tid, pid, author, body):
    s.insert(
        "posts",
        {
            "pid": pid,
            "tid": tid,
            "author": author,
            "body": body,
            "created": s.setting("today"),
            "flagged": 0,
            "hidden": 0,
        },
    )
    s.update("threads", tid, {"last_post": pid})


def d_pin(s, tid):
    s.update("threads", tid, {"pinned": 1})


def d_hide(s, pid):
    s.update("posts", pid, {"hidden": 1, "flagged": 0})


DRIFTS = {"note": d_note, "reply": d_reply, "pin": d_pin, "hide": d_hide}
