"""Harbor Admin Console: a filtered, paged user list with bulk actions behind a confirmation page,
user pages, and an edit form with validation and version checks. Loaded in the sandbox as
``agentgym.envs.browser.site.admin``; task semantics as in `shop` (apply, done, allowed, step, see, answer,
DRIFTS).
"""

import re

from agentgym.envs.browser.site import web
from agentgym.envs.browser.site.web import h, qs, redirect, rejected

SCHEMA = """
CREATE TABLE settings(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE teams(name TEXT PRIMARY KEY);
CREATE TABLE accounts(uid TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL,
                      team TEXT NOT NULL, status TEXT NOT NULL, quota_gb INTEGER NOT NULL);
"""
PRIMARY = {"settings": "key", "teams": "name", "accounts": "uid"}
VERIFY_TABLES = {"accounts"}
OP_VERBS = {
    "bulk_status": ("suspend", "activate", "change", "update", "set"),
    "edit_user": ("change", "set", "raise", "increase", "update", "edit", "assign", "move"),
}
"""What each op asks, in verbs: what a final message's refusal or claim of done is about (`agentgym.answers`)."""
MUTATION_TABLES = {"accounts"}
ROLES = ("viewer", "editor", "admin")
STATUSES = ("active", "suspended")
MAX_QUOTA_GB = 500
PAGE_SIZE = 10
ACTIONS = (("suspend", "Suspend", "suspended"), ("activate", "Activate", "active"))
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$")


def layout(s, title, body):
    return (
        "<!doctype html><html><head><title>%s | Harbor Admin</title></head><body><header><nav>"
        "<a href='/admin'>Admin Console</a> <a href='/admin/users'>Users</a> <span>Signed in as %s</span>"
        "</nav></header><main>%s</main></body></html>"
    ) % (h(title), h(s.setting("me")), body)


def page(s, title, body):
    return web.Response(layout(s, title, body))


def _options(values, current, blank=None):
    out = ["<option value=''>%s</option>" % blank] if blank else []
    for v in values:
        value, label = (v, v) if isinstance(v, str) else v
        out.append("<option value='%s'%s>%s</option>" % (h(value), " selected" if value == current else "", h(label)))
    return "".join(out)


def _teams(s):
    return [r["name"] for r in s.all("SELECT name FROM teams ORDER BY name")]


def console(s, req):
    n = s.one("SELECT COUNT(*) AS n FROM accounts")["n"]
    return page(
        s, "Admin Console", "<h1>Admin Console</h1><p>%d user accounts.</p><a href='/admin/users'>Manage users</a>" % n
    )


def users(s, req):
    q, team, role, status = req.arg("q"), req.arg("team"), req.arg("role"), req.arg("status")
    pno = req.page_number()
    where, params = [], []
    if q:
        where.append("(lower(name) LIKE ? OR lower(email) LIKE ?)")
        params += ["%" + q.lower() + "%"] * 2
    for col, val in (("team", team), ("role", role), ("status", status)):
        if val:
            where.append("%s=?" % col)
            params.append(val)
    rows = s.all(
        "SELECT * FROM accounts%s ORDER BY name, uid" % (" WHERE " + " AND ".join(where) if where else ""), *params
    )
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    pno = min(pno, pages)
    filters = dict(q=q, team=team, role=role, status=status)
    body = ["<h1>Users</h1>"]
    if req.arg("done"):
        body.append("<p>%s</p>" % h(req.arg("done")))
    body.append(
        "<form action='/admin/users' method='get'><input type='search' name='q' value='%s' "
        "aria-label='Search users'><label>Team <select name='team'>%s</select></label><label>Role <select "
        "name='role'>%s</select></label><label>Status <select name='status'>%s</select></label><button "
        "type='submit'>Filter</button></form>"
        % (
            h(q),
            _options(_teams(s), team, "All teams"),
            _options(ROLES, role, "Any role"),
            _options(STATUSES, status, "Any status"),
        )
    )
    body.append("<p>%d users, page %d of %d</p>" % (len(rows), pno, pages))
    body.append(
        "<form action='/admin/users/bulk' method='post'><input type='hidden' name='back' value='%s'><table>"
        "<tr><th></th><th>Name</th><th>Email</th><th>Role</th><th>Team</th><th>Status</th></tr>" % h(qs(**filters))
    )
    for u in (s.listed("accounts", row) for row in rows[(pno - 1) * PAGE_SIZE : pno * PAGE_SIZE]):
        body.append(
            "<tr><td><input type='checkbox' name='uid' value='%s' aria-label='Select %s'></td><td><a "
            "href='/admin/users/%s'>%s</a></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>"
            % (u["uid"], h(u["name"]), u["uid"], h(u["name"]), h(u["email"]), u["role"], h(u["team"]), u["status"])
        )
    body.append(
        "</table><label>Bulk action <select name='action'>%s</select></label><button type='submit'>Apply to "
        "selected</button></form>" % _options([(a, lbl) for a, lbl, _ in ACTIONS], "", "Choose an action")
    )
    nav = []
    if pno > 1:
        nav.append("<a href='/admin/users?%s'>Previous page</a>" % qs(page=pno - 1, **filters))
    if pno < pages:
        nav.append("<a href='/admin/users?%s'>Next page</a>" % qs(page=pno + 1, **filters))
    body.append("<nav>%s</nav>" % " ".join(nav))
    return page(s, "Users", "".join(body))


def bulk(s, req):
    uids = [u for u in req.lists.get("uid", []) if s.one("SELECT uid FROM accounts WHERE uid=?", u)]
    action = dict((a, (lbl, st)) for a, lbl, st in ACTIONS).get(req.form.get("action", ""))
    back = req.form.get("back", "")
    if not uids or action is None:
        why = "Select at least one user." if not uids else "Choose a bulk action."
        return rejected(
            s,
            "validation",
            layout,
            "Users",
            "<p role='alert'>%s</p><a href='/admin/users?%s'>Back to users</a>" % (why, h(back)),
        )
    names, hidden = [], []
    for uid in uids:
        u = s.get("accounts", uid)
        names.append(u["name"])
        hidden.append(
            "<input type='hidden' name='uid' value='%s'><input type='hidden' name='version' value='%s=%d'>"
            % (uid, uid, s.ref("accounts", uid))
        )
    return page(
        s,
        "Confirm bulk action",
        "<h1>Confirm bulk action</h1><p>%s %d users: %s?</p><form "
        "action='/admin/users/bulk/confirm' method='post'><input type='hidden' name='action' value='%s'>"
        "<input type='hidden' name='back' value='%s'>%s<button type='submit'>Confirm</button></form>"
        "<a href='/admin/users?%s'>Cancel</a>"
        % (action[0], len(uids), h(", ".join(names)), req.form["action"], h(back), "".join(hidden), h(back)),
    )


def bulk_confirm(s, req):
    action = dict((a, (lbl, st)) for a, lbl, st in ACTIONS).get(req.form.get("action", ""))
    versions = dict(v.split("=", 1) for v in req.lists.get("version", []) if "=" in v)
    back = req.form.get("back", "")
    if action is None or not versions:
        return rejected(s, "validation", layout, "Users", "<p role='alert'>Nothing to confirm.</p>")
    stale = [uid for uid, ver in sorted(versions.items()) if s.stale("accounts", uid, ver)]
    if stale:
        return rejected(
            s,
            "conflict",
            layout,
            "Users",
            "<p role='alert'>Some of these users were changed by another "
            "admin since you selected them.</p><a href='/admin/users?%s'>Back to users</a>" % h(back),
        )
    changed = 0
    for uid in sorted(versions):
        if s.get("accounts", uid)["status"] != action[1]:
            s.update("accounts", uid, {"status": action[1]})
            changed += 1
    return redirect(
        "/admin/users?%s" % "&".join(x for x in (back, qs(done="%s: %d users updated." % (action[0], changed))) if x)
    )


def user(s, req, uid):
    u = s.get("accounts", uid)
    s.ref("accounts", uid)
    saved = "<p>Saved.</p>" if req.arg("saved") else ""
    return page(
        s,
        u["name"],
        "<h1>%s</h1>%s<p>Email: %s</p><p>Role: %s</p><p>Team: %s</p><p>Status: %s</p>"
        "<p>Storage quota: %d GB</p><a href='/admin/users/%s/edit'>Edit user</a>"
        % (h(u["name"]), saved, h(u["email"]), u["role"], h(u["team"]), u["status"], u["quota_gb"], uid),
    )


def _edit_page(s, uid, values, version, alerts=""):
    return page(
        s,
        "Edit user",
        "<h1>Edit %s</h1>%s<form action='/admin/users/%s/edit' method='post'><input "
        "type='hidden' name='version' value='%s'><label>Name <input type='text' name='name' value='%s'></label>"
        "<label>Email <input type='email' name='email' value='%s'></label><label>Role <select name='role'>%s"
        "</select></label><label>Team <select name='team'>%s</select></label><label>Storage quota (GB) <input "
        "type='number' name='quota_gb' value='%s'></label><p>The storage quota must be between 1 and %d GB."
        "</p><button type='submit'>Save</button></form><a href='/admin/users/%s'>Cancel</a>"
        % (
            h(values["name"]),
            alerts,
            uid,
            version,
            h(values["name"]),
            h(values["email"]),
            _options(ROLES, values["role"]),
            _options(_teams(s), values["team"]),
            h(values["quota_gb"]),
            MAX_QUOTA_GB,
            uid,
        ),
    )


def edit_form(s, req, uid):
    u = s.get("accounts", uid)
    return _edit_page(s, uid, u, s.ref("accounts", uid))


def edit_user(s, req, uid):
    s.get("accounts", uid)
    if s.stale("accounts", uid, req.form.get("version", "")):
        return rejected(
            s,
            "conflict",
            layout,
            "Edit user",
            "<p role='alert'>This user was changed by another admin "
            "since you opened the form.</p><a href='/admin/users/%s/edit'>Open the latest version</a>" % uid,
        )
    f = {k: req.form.get(k, "").strip() for k in ("name", "email", "role", "team", "quota_gb")}
    problems = []
    if not f["name"]:
        problems.append("Name is required.")
    if not EMAIL.match(f["email"]):
        problems.append("Enter a valid email address.")
    elif s.one("SELECT uid FROM accounts WHERE lower(email)=lower(?) AND uid!=?", f["email"], uid):
        problems.append("That email address belongs to another user.")
    if f["role"] not in ROLES:
        problems.append("Choose a role.")
    if f["team"] not in _teams(s):
        problems.append("Choose a team.")
    try:
        quota = int(f["quota_gb"])
        if not 1 <= quota <= MAX_QUOTA_GB:
            problems.append("The storage quota must be between 1 and %d GB." % MAX_QUOTA_GB)
    except ValueError:
        problems.append("The storage quota must be a whole number of GB.")
    if problems:
        s.rejected = "validation"
        alerts = "".join("<p role='alert'>%s</p>" % h(p) for p in problems)
        return _edit_page(s, uid, f, req.form.get("version", ""), alerts)
    fields = dict(f, quota_gb=quota)
    u = s.get("accounts", uid)
    if any(u[k] != v for k, v in fields.items()):
        s.update("accounts", uid, fields)
    return redirect("/admin/users/%s?saved=1" % uid)


ROUTES = [
    ("GET", "/", console),
    ("GET", "/admin", console),
    ("GET", "/admin/users", users),
    ("POST", "/admin/users/bulk", bulk),
    ("POST", "/admin/users/bulk/confirm", bulk_confirm),
    ("GET", "/admin/users/bulk(?:/confirm)?", lambda s, req: redirect("/admin/users")),
    ("GET", r"/admin/users/(?P<uid>u\d+)", user),
    ("GET", r"/admin/users/(?P<uid>u\d+)/edit", edit_form),
    ("POST", r"/admin/users/(?P<uid>u\d+)/edit", edit_user),
]


# ---------------------------------------------------------------------- task semantics
def done(s, op):
    if op["op"] == "edit_user":
        u = s.get("accounts", op["uid"])
        return all(u[k] == v for k, v in op["fields"].items())
    return all(s.get("accounts", uid)["status"] == op["status"] for uid in op["uids"])


def allowed(s, op):
    if op["op"] == "edit_user" and not done(s, op):
        if op["fields"].get("quota_gb", 1) > MAX_QUOTA_GB:
            return "the storage quota cannot be more than %d GB" % MAX_QUOTA_GB
        email = op["fields"].get("email")
        other = email and s.one("SELECT name FROM accounts WHERE lower(email)=lower(?) AND uid!=?", email, op["uid"])
        if other:
            return "%s already belongs to %s" % (email, other["name"])
    return None


def apply(s, op):
    if op["op"] == "edit_user":
        s.update("accounts", op["uid"], op["fields"])
    else:
        for uid in op["uids"]:
            if s.get("accounts", uid)["status"] != op["status"]:
                s.update("accounts", uid, {"status": op["status"]})


def answer(s, spec):
    u = s.get("accounts", spec["uid"])
    return u["email"] if spec["kind"] == "email" else "%d GB" % u["quota_gb"]


def listed_answer(S, spec):
    """What a listing row on this page says the answer is (the hasty policy's reading; quotas are not listed)."""
    return S.row_cell(S.store.get("accounts", spec["uid"])["name"], 0) if spec["kind"] == "email" else None


def listed_refusal(S, op):
    """The user list shows nothing that forbids an edit (quota limits show only on the form)."""
    return None


def to_user(S, uid):
    name = S.store.get("accounts", uid)["name"]
    if S.find("link", name):
        return ("click", "link", name)
    if S.path == "/admin/users" and not S.query.get("team"):
        return web.reach_by_search(S, name, "Search users")
    return ("click", "link", "Users")


def see(S, key):
    return to_user(S, key.partition(":")[2])


def step(S, op):
    s = S.store
    if op["op"] == "edit_user":
        uid = op["uid"]
        if S.path == "/admin/users/%s/edit" % uid:
            for field, role, label in (
                ("role", "combobox", "Role"),
                ("team", "combobox", "Team"),
                ("email", "textbox", "Email"),
                ("quota_gb", "spinbutton", "Storage quota (GB)"),
            ):
                if field in op["fields"] and S.find(role, label)["value"] != str(op["fields"][field]):
                    verb = "select" if role == "combobox" else "fill"
                    return (verb, role, label, str(op["fields"][field]))
            return ("click", "button", "Save")
        if S.path == "/admin/users/%s" % uid:
            return ("click", "link", "Edit user")
        return to_user(S, uid)
    if S.path == "/admin/users/bulk":
        return ("click", "button", "Confirm")
    want = op["filter"]
    if S.path != "/admin/users":
        return ("click", "link", "Users")
    query = S.query
    if any(query.get(k, "") != v for k, v in want.items()):
        for label, key in (("Team", "team"), ("Role", "role"), ("Status", "status")):
            if S.find("combobox", label)["value"] != want.get(key, ""):
                return (
                    "select",
                    "combobox",
                    label,
                    want.get(key) or {"team": "All teams", "role": "Any role", "status": "Any status"}[key],
                )
        return ("click", "button", "Filter")
    for uid in op["uids"]:
        u = s.get("accounts", uid)
        if u["status"] != op["status"]:
            box = S.find("checkbox", "Select %s" % u["name"])
            if not box["checked"]:
                return ("click", "checkbox", "Select %s" % u["name"])
    action = next(a for a, _, st in ACTIONS if st == op["status"])
    if S.find("combobox", "Bulk action")["value"] != action:
        return ("select", "combobox", "Bulk action", next(lbl for a, lbl, _ in ACTIONS if a == action))
    return ("click", "button", "Apply to selected")


def d_quota(s, uid, gb):
    s.update("accounts", uid, {"quota_gb": gb})


def d_email(s, uid, email):
    s.update("accounts", uid, {"email": email})


DRIFTS = {"quota": d_quota, "email": d_email}
