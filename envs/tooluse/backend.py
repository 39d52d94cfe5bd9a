"""The ToolUse tool server: the code that runs inside the sandbox's warm step server.

Stdlib only (Python 3.11 + sqlite3). The env loads this file with ``sandbox.load_module`` and
calls ``setup``, ``call_tool``, ``drift``, ``oracle_view`` and ``verify`` through
``sandbox.call``, so a tool step is one round trip, not a process. The database is an SQLite
file in the sandbox workspace (``tooluse.db``); the initial state is kept in memory so the
verifier can rebuild the *expected* final state: initial state, plus every change another actor
made (state drift), plus the reference writes the policy allows on that state. Success is
"the live database equals the expected one, table by table".

The tools do not enforce the written policies (refund windows, shipped orders, basic fares):
that judgement is the agent's. They do enforce physical facts (an id exists, a flight has seats).
Every record carries a version (``_versions``) that rises on each write, so the env can tell
when the agent acts on a record that changed since it last read it.
"""

import ast
import datetime
import json
import math
import operator
import os
import re
import sqlite3
import time
import warnings

DB_NAME = "tooluse.db"
PAGE_SIZE = 5
MAX_AMOUNT = 10 ** 9  # money beyond this is garbage (1e309 is inf): refused, never converted
TOOL_SECONDS = 2.0  # a tool's database work is interrupted after this long
PROGRESS_OPCODES = 1000  # how often SQLite asks whether the deadline passed (in VM instructions)
MAX_RESULT_CHARS = 256 * 1024  # a tool result is refused above this many characters of JSON
RESTOCKING_FEE = 0.15  # electronics, on return
RETURN_WINDOW_DAYS = 30
CANCEL_NOTICE_DAYS = 2
CANCEL_REASONS = ("no longer needed", "ordered by mistake")
CABINS = ("basic", "economy", "business")
REFUSAL_MARKERS = (
    "cannot", "can't", "can not", "unable", "refuse", "not allowed", "not eligible", "not permitted",
    "against policy", "against our policy", "denied", "decline", "won't be able",
)

SCHEMA = {
    "retail": """
CREATE TABLE users(user_id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, zip TEXT NOT NULL,
                   address TEXT NOT NULL);
CREATE TABLE payment_methods(pm_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, kind TEXT NOT NULL,
                             label TEXT NOT NULL, balance_cents INTEGER);
CREATE TABLE products(item_id TEXT PRIMARY KEY, name TEXT NOT NULL, variant TEXT NOT NULL,
                      category TEXT NOT NULL, price_cents INTEGER NOT NULL, stock INTEGER NOT NULL);
CREATE TABLE orders(order_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, status TEXT NOT NULL,
                    placed TEXT NOT NULL, delivered TEXT, address TEXT NOT NULL, pm_id TEXT NOT NULL,
                    total_cents INTEGER NOT NULL, cancel_reason TEXT);
CREATE TABLE order_items(order_id TEXT NOT NULL, item_id TEXT NOT NULL, qty INTEGER NOT NULL,
                         price_cents INTEGER NOT NULL, PRIMARY KEY(order_id, item_id));
CREATE TABLE refunds(refund_id TEXT PRIMARY KEY, order_id TEXT NOT NULL, pm_id TEXT NOT NULL,
                     amount_cents INTEGER NOT NULL);
""",
    "travel": """
CREATE TABLE users(user_id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, tier TEXT NOT NULL);
CREATE TABLE payment_methods(pm_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, kind TEXT NOT NULL,
                             label TEXT NOT NULL, balance_cents INTEGER);
CREATE TABLE flights(flight_id TEXT PRIMARY KEY, origin TEXT NOT NULL, destination TEXT NOT NULL,
                     date TEXT NOT NULL, depart TEXT NOT NULL, status TEXT NOT NULL,
                     price_basic_cents INTEGER NOT NULL, price_economy_cents INTEGER NOT NULL,
                     price_business_cents INTEGER NOT NULL, seats_left INTEGER NOT NULL);
CREATE TABLE bookings(booking_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, flight_id TEXT NOT NULL,
                      cabin TEXT NOT NULL, passengers INTEGER NOT NULL, status TEXT NOT NULL,
                      booked TEXT NOT NULL, pm_id TEXT NOT NULL, total_cents INTEGER NOT NULL);
CREATE TABLE refunds(refund_id TEXT PRIMARY KEY, booking_id TEXT NOT NULL, pm_id TEXT NOT NULL,
                     amount_cents INTEGER NOT NULL);
""",
}
META_SCHEMA = "CREATE TABLE _versions(key TEXT PRIMARY KEY, version INTEGER NOT NULL);"
PRIMARY = {
    "users": "user_id", "payment_methods": "pm_id", "products": "item_id", "orders": "order_id",
    "refunds": "refund_id", "flights": "flight_id", "bookings": "booking_id",
}

_S = {}  # this sandbox's session: domain, live db, initial copy, today, intents, drifts, cache


class ToolError(Exception):
    """A tool refused a call; ``kind`` becomes the tool_call event's error_kind."""

    def __init__(self, kind, message, missing=None):
        super().__init__(message)
        self.kind = kind
        self.missing = missing


# ---------------------------------------------------------------------------- database helpers
def _connect(path):
    db = sqlite3.connect(path, isolation_level="DEFERRED")
    db.row_factory = sqlite3.Row
    if path != ":memory:":  # one process owns the file: take the lock once, keep the journal in memory
        db.execute("PRAGMA locking_mode=EXCLUSIVE")
        db.execute("PRAGMA journal_mode=MEMORY")
        db.execute("PRAGMA synchronous=OFF")
    return db


def _copy(src):
    dst = _connect(":memory:")
    src.backup(dst)
    return dst


def _version(db, key):
    row = db.execute("SELECT version FROM _versions WHERE key=?", (key,)).fetchone()
    return row[0] if row else 0


def _bump(db, key):
    db.execute(
        "INSERT INTO _versions(key, version) VALUES(?, 1) ON CONFLICT(key) DO UPDATE SET version=version+1", (key,)
    )
    return _version(db, key)


def _update(db, table, pk, fields):
    cols = ", ".join("%s=?" % c for c in fields)
    db.execute("UPDATE %s SET %s WHERE %s=?" % (table, cols, PRIMARY[table]), (*fields.values(), pk))
    return _bump(db, "%s:%s" % (table, pk))


def _insert(db, table, row):
    cols = ", ".join(row)
    db.execute("INSERT INTO %s(%s) VALUES(%s)" % (table, cols, ", ".join("?" * len(row))), tuple(row.values()))
    return _bump(db, "%s:%s" % (table, row[PRIMARY[table]]))


def _one(db, sql, *params):
    row = db.execute(sql, params).fetchone()
    return dict(row) if row else None


def _all(db, sql, *params):
    return [dict(r) for r in db.execute(sql, params).fetchall()]


def _dump(db):
    """Every business table as sorted rows: what the verifier compares."""
    out = {}
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"):
        if not name.startswith("_"):
            out[name] = sorted(tuple(r) for r in db.execute("SELECT * FROM %s" % name))
    return out


def _record(db, key):
    """One record (an order with its lines), for comparing live against expected."""
    table, _, pk = key.partition(":")
    row = db.execute("SELECT * FROM %s WHERE %s=?" % (table, PRIMARY[table]), (pk,)).fetchone()
    rec = [tuple(row)] if row else []
    if table == "orders":
        rec += sorted(tuple(r) for r in db.execute("SELECT * FROM order_items WHERE order_id=?", (pk,)))
    return rec


def _money(cents):
    return round(cents / 100.0, 2)


def _cents(amount):
    value = float(amount)
    if not math.isfinite(value) or abs(value) > MAX_AMOUNT:
        raise ValueError("amount %r is not a finite amount under %d" % (amount, MAX_AMOUNT))
    return int(round(value * 100))


def _date(text):
    return datetime.date.fromisoformat(text)


class Ctx:
    """One tool call's view: the db, today, and what the call read and wrote (for events)."""

    def __init__(self, db, today):
        self.db = db
        self.today = today
        self.refs = []
        self.wrote = []
        self.target = None

    def ref(self, table, pk):
        key = "%s:%s" % (table, pk)
        self.refs.append([key, _version(self.db, key)])

    def update(self, table, pk, fields, target=False):
        key = "%s:%s" % (table, pk)
        before = _version(self.db, key)
        after = _update(self.db, table, pk, fields)
        self.wrote.append([key, before, after])
        if target:
            self.target = key

    def insert(self, table, row, target=False):
        key = "%s:%s" % (table, row[PRIMARY[table]])
        after = _insert(self.db, table, row)
        self.wrote.append([key, 0, after])
        if target:
            self.target = key

    def get(self, table, pk, noun):
        row = _one(self.db, "SELECT * FROM %s WHERE %s=?" % (table, PRIMARY[table]), pk)
        if row is None:
            raise ToolError("not_found", "no %s with id %r" % (noun, pk), missing="%s:%s" % (table, pk))
        return row


# ---------------------------------------------------------------------------- shared tools
_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
CALC_MAX_BITS = 256  # every intermediate integer stays below 2**256 (about 1e77): bounded time and reply size
CALC_MAX_DIGITS = 15  # round()'s ndigits: round(1, -10**18) would build 10**(10**18)


def _round(value, ndigits=None):
    if ndigits is not None and (not isinstance(ndigits, int) or abs(ndigits) > CALC_MAX_DIGITS):
        raise ValueError("round() takes ndigits between -%d and %d" % (CALC_MAX_DIGITS, CALC_MAX_DIGITS))
    return round(value, ndigits)


_FUNCS = {"round": _round, "min": min, "max": max, "abs": abs}


def _bounded(value):
    """A calculator value inside the bounds, or ValueError: ints under 2**256, floats finite."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("the result is not a number")
    if isinstance(value, int) and value.bit_length() > CALC_MAX_BITS:
        raise ValueError("a value exceeds 2**%d" % CALC_MAX_BITS)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("the result is not finite")
    return value


def _calc(node):
    if isinstance(node, ast.Expression):
        return _calc(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return _bounded(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _calc(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _calc(node.left), _calc(node.right)
        if isinstance(node.op, ast.Pow):
            if abs(right) > 64:
                raise ValueError("exponent too large")
            if isinstance(left, int) and isinstance(right, int) and left.bit_length() * right > CALC_MAX_BITS:
                raise ValueError("the power exceeds 2**%d" % CALC_MAX_BITS)
        return _bounded(_BINOPS[type(node.op)](left, right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS and not node.keywords:
        return _bounded(_FUNCS[node.func.id](*[_calc(a) for a in node.args]))
    raise ValueError("unsupported expression element %s" % type(node).__name__)


def t_calculate(c, expression):
    if len(expression) > 200:
        raise ToolError("bad_args", "expression is longer than 200 characters")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(re.sub(r"(?<=\d),(?=\d{3}\b)", "", expression.replace("$", "")), mode="eval")
        value = _calc(tree)
    except (SyntaxError, ValueError, TypeError, ArithmeticError, RecursionError, MemoryError) as exc:
        raise ToolError("bad_args", "cannot evaluate %r: %s" % (expression, exc)) from None
    return {"expression": expression, "result": round(value, 6) if isinstance(value, float) else value}


def t_find_user_by_email(c, email):
    row = _one(c.db, "SELECT user_id, name FROM users WHERE lower(email)=lower(?)", email.strip())
    if row is None:
        raise ToolError("not_found", "no customer with email %r" % email)
    c.ref("users", row["user_id"])
    return row


def _payment_methods(c, user_id):
    out = []
    for pm in _all(c.db, "SELECT * FROM payment_methods WHERE user_id=? ORDER BY pm_id", user_id):
        c.ref("payment_methods", pm["pm_id"])
        item = {"payment_method_id": pm["pm_id"], "kind": pm["kind"], "label": pm["label"]}
        if pm["balance_cents"] is not None:
            item["balance"] = _money(pm["balance_cents"])
        out.append(item)
    return out


def _refund_to_method(c, pm_id, cents):
    pm = c.get("payment_methods", pm_id, "payment method")
    if pm["balance_cents"] is not None:
        c.update("payment_methods", pm_id, {"balance_cents": pm["balance_cents"] + cents})


# ---------------------------------------------------------------------------- retail tools
def r_find_user_by_name_zip(c, name, zip):
    row = _one(c.db, "SELECT user_id, name FROM users WHERE lower(name)=lower(?) AND zip=?", name.strip(), zip.strip())
    if row is None:
        raise ToolError("not_found", "no customer named %r with zip code %r" % (name, zip))
    c.ref("users", row["user_id"])
    return row


def r_get_user(c, user_id):
    u = c.get("users", user_id, "customer")
    c.ref("users", user_id)
    orders = [r["order_id"] for r in _all(c.db, "SELECT order_id FROM orders WHERE user_id=? ORDER BY placed", user_id)]
    return {"user_id": user_id, "name": u["name"], "email": u["email"], "zip": u["zip"], "address": u["address"],
            "payment_methods": _payment_methods(c, user_id), "orders": orders}


def _item_lines(c, order_id):
    return _all(
        c.db,
        "SELECT oi.item_id, p.name, p.variant, p.category, oi.qty, oi.price_cents FROM order_items oi "
        "JOIN products p ON p.item_id=oi.item_id WHERE oi.order_id=? ORDER BY oi.item_id",
        order_id,
    )


def r_list_orders(c, user_id, status=None):
    c.get("users", user_id, "customer")
    rows = _all(c.db, "SELECT * FROM orders WHERE user_id=? ORDER BY placed, order_id", user_id)
    lines = {}
    for li in _all(c.db, "SELECT oi.order_id, p.name, p.variant FROM order_items oi JOIN orders o ON o.order_id="
                         "oi.order_id JOIN products p ON p.item_id=oi.item_id WHERE o.user_id=? ORDER BY oi.item_id",
                   user_id):
        lines.setdefault(li["order_id"], []).append("%s (%s)" % (li["name"], li["variant"]))
    out = []
    for o in rows:
        if status and o["status"] != status:
            continue
        c.ref("orders", o["order_id"])
        items = lines.get(o["order_id"], [])
        out.append({"order_id": o["order_id"], "status": o["status"], "placed": o["placed"],
                    "delivered": o["delivered"], "total": _money(o["total_cents"]), "items": items})
    return {"user_id": user_id, "orders": out}


def r_get_order(c, order_id):
    o = c.get("orders", order_id, "order")
    c.ref("orders", order_id)
    items = [{"item_id": li["item_id"], "name": li["name"], "variant": li["variant"], "category": li["category"],
              "qty": li["qty"], "price": _money(li["price_cents"])} for li in _item_lines(c, order_id)]
    refunds = [{"refund_id": r["refund_id"], "amount": _money(r["amount_cents"]), "payment_method_id": r["pm_id"]}
               for r in _all(c.db, "SELECT * FROM refunds WHERE order_id=? ORDER BY refund_id", order_id)]
    return {"order_id": order_id, "user_id": o["user_id"], "status": o["status"], "placed": o["placed"],
            "delivered": o["delivered"], "address": o["address"], "payment_method_id": o["pm_id"],
            "total": _money(o["total_cents"]), "cancel_reason": o["cancel_reason"], "items": items,
            "refunds": refunds}


def _product(p):
    return {"item_id": p["item_id"], "name": p["name"], "variant": p["variant"], "category": p["category"],
            "price": _money(p["price_cents"]), "stock": p["stock"]}


def r_search_products(c, query, page=1):
    q = "%" + re.sub(r"([\\%_])", r"\\\1", query.strip().lower()) + "%"  # the query is text, not a pattern
    rows = _all(
        c.db,
        "SELECT * FROM products WHERE lower(name) LIKE ? ESCAPE '\\' OR lower(variant) LIKE ? ESCAPE '\\' "
        "OR lower(category) LIKE ? ESCAPE '\\' ORDER BY name, variant, item_id", q, q, q,
    )
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    if page < 1 or page > pages:
        raise ToolError("bad_args", "page %.20s is out of range: the search has %d page(s)" % (page, pages))
    chunk = rows[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
    for p in chunk:
        c.ref("products", p["item_id"])
    return {"query": query, "page": page, "pages": pages, "results": [_product(p) for p in chunk]}


def r_get_product(c, item_id):
    p = c.get("products", item_id, "product")
    c.ref("products", item_id)
    return _product(p)


def _check_open(o):
    if o["status"] in ("cancelled", "returned"):
        raise ToolError("conflict", "order %s is already %s" % (o["order_id"], o["status"]))


def r_cancel_order(c, order_id, reason):
    o = c.get("orders", order_id, "order")
    if reason not in CANCEL_REASONS:
        raise ToolError("bad_args", "reason must be one of %s" % (CANCEL_REASONS,))
    _check_open(o)
    for li in _item_lines(c, order_id):
        p = c.get("products", li["item_id"], "product")
        c.update("products", li["item_id"], {"stock": p["stock"] + li["qty"]})
    refund_id = "RF-%s-C" % order_id
    c.insert("refunds", {"refund_id": refund_id, "order_id": order_id, "pm_id": o["pm_id"],
                         "amount_cents": o["total_cents"]})
    _refund_to_method(c, o["pm_id"], o["total_cents"])
    c.update("orders", order_id, {"status": "cancelled", "cancel_reason": reason}, target=True)
    return {"order_id": order_id, "status": "cancelled", "refund": {"refund_id": refund_id,
            "amount": _money(o["total_cents"]), "payment_method_id": o["pm_id"]}}


def r_update_address(c, order_id, address):
    o = c.get("orders", order_id, "order")
    _check_open(o)
    if len(address.strip()) < 8:
        raise ToolError("bad_args", "address %r is too short to be a street address" % address)
    c.update("orders", order_id, {"address": address.strip()}, target=True)
    return {"order_id": order_id, "address": address.strip()}


def r_modify_item(c, order_id, item_id, new_item_id):
    o = c.get("orders", order_id, "order")
    _check_open(o)
    line = _one(c.db, "SELECT * FROM order_items WHERE order_id=? AND item_id=?", order_id, item_id)
    if line is None:
        raise ToolError("not_found", "order %s has no item %r" % (order_id, item_id),
                        missing="order_items:%s/%s" % (order_id, item_id))
    new = c.get("products", new_item_id, "product")
    if new_item_id == item_id:
        raise ToolError("bad_args", "new_item_id is the item already in the order")
    if _one(c.db, "SELECT 1 AS x FROM order_items WHERE order_id=? AND item_id=?", order_id, new_item_id):
        raise ToolError("conflict", "order %s already contains %s" % (order_id, new_item_id))
    if new["stock"] < line["qty"]:
        raise ToolError("conflict", "product %s has only %d in stock" % (new_item_id, new["stock"]))
    old = c.get("products", item_id, "product")
    c.db.execute("DELETE FROM order_items WHERE order_id=? AND item_id=?", (order_id, item_id))
    c.db.execute("INSERT INTO order_items(order_id, item_id, qty, price_cents) VALUES(?,?,?,?)",
                 (order_id, new_item_id, line["qty"], new["price_cents"]))
    c.update("products", item_id, {"stock": old["stock"] + line["qty"]})
    c.update("products", new_item_id, {"stock": new["stock"] - line["qty"]})
    total = o["total_cents"] - line["price_cents"] * line["qty"] + new["price_cents"] * line["qty"]
    c.update("orders", order_id, {"total_cents": total}, target=True)
    return {"order_id": order_id, "replaced": item_id, "with": new_item_id, "total": _money(total)}


def r_return_order(c, order_id, payment_method_id, amount):
    o = c.get("orders", order_id, "order")
    _check_open(o)
    pm = c.get("payment_methods", payment_method_id, "payment method")
    if pm["user_id"] != o["user_id"]:
        raise ToolError("conflict", "payment method %s does not belong to the order's customer" % payment_method_id)
    cents = _cents(amount)
    if cents <= 0 or cents > o["total_cents"]:
        raise ToolError("bad_args", "amount must be positive and at most the order total %.2f" % _money(o["total_cents"]))
    refund_id = "RF-%s-R" % order_id
    c.insert("refunds", {"refund_id": refund_id, "order_id": order_id, "pm_id": payment_method_id, "amount_cents": cents})
    _refund_to_method(c, payment_method_id, cents)
    c.update("orders", order_id, {"status": "returned"}, target=True)
    return {"order_id": order_id, "status": "returned",
            "refund": {"refund_id": refund_id, "amount": _money(cents), "payment_method_id": payment_method_id}}


# ---------------------------------------------------------------------------- travel tools
def v_get_user(c, user_id):
    u = c.get("users", user_id, "customer")
    c.ref("users", user_id)
    bookings = [r["booking_id"] for r in _all(c.db, "SELECT booking_id FROM bookings WHERE user_id=? ORDER BY booked, booking_id", user_id)]
    return {"user_id": user_id, "name": u["name"], "email": u["email"], "tier": u["tier"],
            "payment_methods": _payment_methods(c, user_id), "bookings": bookings}


def _flight(f):
    return {"flight_id": f["flight_id"], "origin": f["origin"], "destination": f["destination"], "date": f["date"],
            "depart": f["depart"], "status": f["status"], "seats_left": f["seats_left"],
            "prices": {cab: _money(f["price_%s_cents" % cab]) for cab in CABINS}}


def v_list_bookings(c, user_id):
    c.get("users", user_id, "customer")
    out = []
    for b in _all(c.db, "SELECT b.*, f.origin, f.destination, f.date, f.depart FROM bookings b JOIN flights f "
                        "ON f.flight_id=b.flight_id WHERE b.user_id=? ORDER BY f.date, f.depart, b.booking_id", user_id):
        c.ref("bookings", b["booking_id"])
        out.append({"booking_id": b["booking_id"], "flight_id": b["flight_id"], "origin": b["origin"],
                    "destination": b["destination"], "date": b["date"], "depart": b["depart"], "cabin": b["cabin"],
                    "passengers": b["passengers"], "status": b["status"], "total": _money(b["total_cents"])})
    return {"user_id": user_id, "bookings": out}


def v_get_booking(c, booking_id):
    b = c.get("bookings", booking_id, "booking")
    c.ref("bookings", booking_id)
    f = c.get("flights", b["flight_id"], "flight")
    c.ref("flights", b["flight_id"])
    return {"booking_id": booking_id, "user_id": b["user_id"], "status": b["status"], "cabin": b["cabin"],
            "passengers": b["passengers"], "booked": b["booked"], "payment_method_id": b["pm_id"],
            "total": _money(b["total_cents"]), "flight": _flight(f)}


def v_search_flights(c, origin, destination, date):
    try:
        _date(date)
    except ValueError:
        raise ToolError("bad_args", "date must be YYYY-MM-DD, got %r" % date) from None
    rows = _all(c.db, "SELECT * FROM flights WHERE origin=? AND destination=? AND date=? ORDER BY depart, flight_id",
                origin.strip().upper(), destination.strip().upper(), date)
    for f in rows:
        c.ref("flights", f["flight_id"])
    return {"origin": origin.upper(), "destination": destination.upper(), "date": date,
            "flights": [_flight(f) for f in rows]}


def v_get_flight(c, flight_id):
    f = c.get("flights", flight_id, "flight")
    c.ref("flights", flight_id)
    return _flight(f)


def _price(f, cabin, passengers):
    return f["price_%s_cents" % cabin] * passengers


def v_book_flight(c, user_id, flight_id, cabin, passengers, payment_method_id):
    c.get("users", user_id, "customer")
    f = c.get("flights", flight_id, "flight")
    if cabin not in CABINS:
        raise ToolError("bad_args", "cabin must be one of %s" % (CABINS,))
    if not 1 <= passengers <= 9:
        raise ToolError("bad_args", "passengers must be between 1 and 9")
    pm = c.get("payment_methods", payment_method_id, "payment method")
    if pm["user_id"] != user_id:
        raise ToolError("conflict", "payment method %s does not belong to %s" % (payment_method_id, user_id))
    if f["status"] != "scheduled":
        raise ToolError("conflict", "flight %s is %s" % (flight_id, f["status"]))
    if f["seats_left"] < passengers:
        raise ToolError("conflict", "flight %s has only %d seat(s) left" % (flight_id, f["seats_left"]))
    booking_id = "%s-%s" % (flight_id, user_id)
    if _one(c.db, "SELECT 1 AS x FROM bookings WHERE booking_id=?", booking_id):
        raise ToolError("conflict", "%s already holds booking %s on this flight" % (user_id, booking_id))
    total = _price(f, cabin, passengers)
    c.update("flights", flight_id, {"seats_left": f["seats_left"] - passengers})
    if pm["balance_cents"] is not None:
        c.update("payment_methods", payment_method_id, {"balance_cents": pm["balance_cents"] - total})
    c.insert("bookings", {"booking_id": booking_id, "user_id": user_id, "flight_id": flight_id, "cabin": cabin,
                          "passengers": passengers, "status": "confirmed", "booked": c.today.isoformat(),
                          "pm_id": payment_method_id, "total_cents": total}, target=True)
    return {"booking_id": booking_id, "flight_id": flight_id, "cabin": cabin, "passengers": passengers,
            "total": _money(total), "payment_method_id": payment_method_id, "status": "confirmed"}


def v_cancel_booking(c, booking_id):
    b = c.get("bookings", booking_id, "booking")
    if b["status"] == "cancelled":
        raise ToolError("conflict", "booking %s is already cancelled" % booking_id)
    f = c.get("flights", b["flight_id"], "flight")
    c.update("flights", f["flight_id"], {"seats_left": f["seats_left"] + b["passengers"]})
    refund_id = "RF-%s" % booking_id
    c.insert("refunds", {"refund_id": refund_id, "booking_id": booking_id, "pm_id": b["pm_id"],
                         "amount_cents": b["total_cents"]})
    _refund_to_method(c, b["pm_id"], b["total_cents"])
    c.update("bookings", booking_id, {"status": "cancelled"}, target=True)
    return {"booking_id": booking_id, "status": "cancelled",
            "refund": {"amount": _money(b["total_cents"]), "payment_method_id": b["pm_id"]}}


def v_change_flight(c, booking_id, new_flight_id):
    b = c.get("bookings", booking_id, "booking")
    if b["status"] == "cancelled":
        raise ToolError("conflict", "booking %s is cancelled" % booking_id)
    new = c.get("flights", new_flight_id, "flight")
    old = c.get("flights", b["flight_id"], "flight")
    if new_flight_id == b["flight_id"]:
        raise ToolError("bad_args", "booking %s is already on flight %s" % (booking_id, new_flight_id))
    if (new["origin"], new["destination"]) != (old["origin"], old["destination"]):
        raise ToolError("conflict", "flight %s flies %s-%s, not the booking's route %s-%s" % (
            new_flight_id, new["origin"], new["destination"], old["origin"], old["destination"]))
    if new["status"] != "scheduled":
        raise ToolError("conflict", "flight %s is %s" % (new_flight_id, new["status"]))
    if new["seats_left"] < b["passengers"]:
        raise ToolError("conflict", "flight %s has only %d seat(s) left" % (new_flight_id, new["seats_left"]))
    total = _price(new, b["cabin"], b["passengers"])
    c.update("flights", old["flight_id"], {"seats_left": old["seats_left"] + b["passengers"]})
    c.update("flights", new_flight_id, {"seats_left": new["seats_left"] - b["passengers"]})
    c.update("bookings", booking_id, {"flight_id": new_flight_id, "total_cents": total}, target=True)
    return {"booking_id": booking_id, "flight_id": new_flight_id, "date": new["date"], "depart": new["depart"],
            "total": _money(total)}


TOOLS = {
    "retail": {
        "find_user_by_email": t_find_user_by_email, "find_user_by_name_zip": r_find_user_by_name_zip,
        "get_user": r_get_user, "list_orders": r_list_orders, "get_order": r_get_order,
        "search_products": r_search_products, "get_product": r_get_product, "cancel_order": r_cancel_order,
        "update_address": r_update_address, "modify_item": r_modify_item, "return_order": r_return_order,
        "calculate": t_calculate,
    },
    "travel": {
        "find_user_by_email": t_find_user_by_email, "get_user": v_get_user, "list_bookings": v_list_bookings,
        "get_booking": v_get_booking, "search_flights": v_search_flights, "get_flight": v_get_flight,
        "book_flight": v_book_flight, "cancel_booking": v_cancel_booking, "change_flight": v_change_flight,
        "calculate": t_calculate,
    },
}


# ---------------------------------------------------------------------------- policy solver
def _return_amount(db, order_id):
    total = 0
    for li in _all(db, "SELECT oi.qty, oi.price_cents, p.category FROM order_items oi JOIN products p "
                       "ON p.item_id=oi.item_id WHERE oi.order_id=?", order_id):
        line = li["qty"] * li["price_cents"]
        total += int(round(line * (1 - RESTOCKING_FEE))) if li["category"] == "electronics" else line
    return total


def _solve_retail(db, today, it):
    op = it["op"]
    o = _one(db, "SELECT * FROM orders WHERE order_id=?", it["order_id"])
    target = "orders:%s" % o["order_id"]
    pending = o["status"] == "pending"
    shipped_why = "order %s is %s; only pending orders can be %s" % (o["order_id"], o["status"], {
        "cancel": "cancelled", "address": "changed", "modify": "modified"}.get(op, "changed"))
    if op == "cancel":
        return pending, shipped_why, [("cancel_order", {"order_id": o["order_id"], "reason": it["reason"]})], target, None
    if op == "address":
        return pending, shipped_why, [("update_address", {"order_id": o["order_id"], "address": it["address"]})], target, None
    if op == "modify":
        new = _one(db, "SELECT * FROM products WHERE item_id=?", it["new_item_id"])
        old = _one(db, "SELECT * FROM products WHERE item_id=?", it["item_id"])
        line = _one(db, "SELECT * FROM order_items WHERE order_id=? AND item_id=?", o["order_id"], it["item_id"])
        if not pending:
            return False, shipped_why, [], target, None
        if new["name"] != old["name"]:
            return False, "items can only be swapped for another variant of the same product", [], target, None
        if new["stock"] < line["qty"]:
            return False, "%s (%s) is out of stock" % (new["name"], new["variant"]), [], "products:%s" % new["item_id"], None
        total = o["total_cents"] + (new["price_cents"] - line["price_cents"]) * line["qty"]
        args = {"order_id": o["order_id"], "item_id": it["item_id"], "new_item_id": it["new_item_id"]}
        return True, "", [("modify_item", args)], target, total
    if op == "return":
        if o["status"] != "delivered":
            return False, "order %s is %s; only delivered orders can be returned" % (o["order_id"], o["status"]), [], target, None
        age = (today - _date(o["delivered"])).days
        if age > RETURN_WINDOW_DAYS:
            return False, "order %s was delivered %d days ago; returns close after %d days" % (
                o["order_id"], age, RETURN_WINDOW_DAYS), [], target, None
        if it["to"] == "gift_card":
            pm = _one(db, "SELECT pm_id FROM payment_methods WHERE user_id=? AND kind='gift_card' ORDER BY pm_id",
                      o["user_id"])["pm_id"]
        else:
            pm = o["pm_id"]
        amount = _return_amount(db, o["order_id"])
        args = {"order_id": o["order_id"], "payment_method_id": pm, "amount": _money(amount)}
        return True, "", [("return_order", args)], target, amount
    raise ValueError("unknown retail intent %r" % op)


def _route_flights(db, origin, destination, date, passengers, exclude=None):
    rows = _all(db, "SELECT * FROM flights WHERE origin=? AND destination=? AND date=? AND status='scheduled' "
                    "AND seats_left>=? ORDER BY depart, flight_id", origin, destination, date, passengers)
    return [f for f in rows if f["flight_id"] != exclude]


def _solve_travel(db, today, it):
    op = it["op"]
    if op == "cancel_booking":
        b = _one(db, "SELECT * FROM bookings WHERE booking_id=?", it["booking_id"])
        f = _one(db, "SELECT * FROM flights WHERE flight_id=?", b["flight_id"])
        u = _one(db, "SELECT * FROM users WHERE user_id=?", b["user_id"])
        target = "bookings:%s" % b["booking_id"]
        days = (_date(f["date"]) - today).days
        if b["status"] != "confirmed":
            return False, "booking %s is %s" % (b["booking_id"], b["status"]), [], target, None
        if days < CANCEL_NOTICE_DAYS:
            return False, "flight %s departs in %d day(s); cancellations need %d days' notice" % (
                f["flight_id"], days, CANCEL_NOTICE_DAYS), [], target, None
        if b["cabin"] == "basic" and u["tier"] != "gold":
            return False, "basic economy bookings cannot be cancelled (the customer is not a gold member)", [], target, None
        return True, "", [("cancel_booking", {"booking_id": b["booking_id"]})], target, b["total_cents"]
    if op == "change":
        b = _one(db, "SELECT * FROM bookings WHERE booking_id=?", it["booking_id"])
        f = _one(db, "SELECT * FROM flights WHERE flight_id=?", b["flight_id"])
        target = "bookings:%s" % b["booking_id"]
        if b["cabin"] == "basic":
            return False, "basic economy bookings cannot be changed", [], target, None
        if b["status"] != "confirmed" or _date(f["date"]) < today or f["status"] != "scheduled":
            return False, "booking %s can no longer be changed" % b["booking_id"], [], target, None
        options = _route_flights(db, f["origin"], f["destination"], it["date"], b["passengers"], exclude=f["flight_id"])
        if not options:
            return False, "no flight %s-%s on %s has %d seat(s) left" % (
                f["origin"], f["destination"], it["date"], b["passengers"]), [], target, None
        new = options[0] if it.get("select", "earliest") == "earliest" else options[-1]
        total = _price(new, b["cabin"], b["passengers"])
        return True, "", [("change_flight", {"booking_id": b["booking_id"], "new_flight_id": new["flight_id"]})], target, total
    if op == "book":
        options = _route_flights(db, it["origin"], it["destination"], it["date"], it["passengers"])
        if not options:
            return False, "no flight %s-%s on %s has %d seat(s) left" % (
                it["origin"], it["destination"], it["date"], it["passengers"]), [], None, None
        cab = it["cabin"]
        best = min(options, key=lambda f: (f["price_%s_cents" % cab], f["depart"], f["flight_id"]))
        total = _price(best, cab, it["passengers"])
        pm = _one(db, "SELECT * FROM payment_methods WHERE user_id=? AND kind=? ORDER BY pm_id", it["user_id"], it["pay"])
        target = "bookings:%s-%s" % (best["flight_id"], it["user_id"])
        if pm["balance_cents"] is not None and pm["balance_cents"] < total:
            return False, "the travel certificate's balance %.2f does not cover the fare %.2f" % (
                _money(pm["balance_cents"]), _money(total)), [], "payment_methods:%s" % pm["pm_id"], None
        args = {"user_id": it["user_id"], "flight_id": best["flight_id"], "cabin": cab,
                "passengers": it["passengers"], "payment_method_id": pm["pm_id"]}
        return True, "", [("book_flight", args)], target, total
    raise ValueError("unknown travel intent %r" % op)


SOLVERS = {"retail": _solve_retail, "travel": _solve_travel}


def _expected():
    """The expected final world: initial state + drift + the writes the policy allows. Cached per drift."""
    cache = _S.get("expected")
    if cache is not None and cache["drifts"] == len(_S["drifts"]):
        return cache
    world = _copy(_S["initial"])
    for table, pk, fields in _S["drifts"]:
        _update(world, table, pk, fields)
    steps, refusal, reasons, answer = [], False, [], None
    for it in _S["intents"]:
        ok, why, writes, target, value = SOLVERS[_S["domain"]](world, _S["today"], it)
        if not ok:
            reasons.append(why)
            refusal = refusal or it.get("if_forbidden", "refuse") == "refuse"
            steps.append({"intent": it, "allowed": False, "reason": why, "writes": [], "target": target})
            continue
        ctx = Ctx(world, _S["today"])
        for tool, args in writes:
            TOOLS[_S["domain"]][tool](ctx, **args)
        if it.get("answer") and value is not None:
            answer = (answer or 0) + value
        steps.append({"intent": it, "allowed": True, "reason": "", "writes": [[t, a] for t, a in writes],
                      "target": ctx.target or target})
    cache = {"drifts": len(_S["drifts"]), "world": world, "steps": steps, "refusal": refusal,
             "reasons": reasons, "answer_cents": answer}
    _S["expected"] = cache
    return cache


def _progress():
    """Per intent: None when the policy forbids it, else whether its record is as expected."""
    exp = _expected()
    out = []
    for step in exp["steps"]:
        if not step["allowed"]:
            out.append(None)
        else:
            out.append(_record(_S["db"], step["target"]) == _record(exp["world"], step["target"]))
    return out


# ---------------------------------------------------------------------------- entry points
def setup(domain, tables, today, intents, in_memory=False):
    """Create the task's database in the workspace from seed rows; forget the previous episode.

    ``in_memory``: keep the database in memory (the host uses this to plan a task's solution).
    """
    old = _S.get("db")
    if old is not None:
        old.close()
    if in_memory:
        path = ":memory:"
    else:
        path = os.path.join(globals().get("WORKSPACE") or os.getcwd(), DB_NAME)
        for suffix in ("", "-journal"):
            if os.path.exists(path + suffix):
                os.unlink(path + suffix)
    initial = _connect(":memory:")  # built in memory, then copied to the file in one go
    initial.executescript("BEGIN;" + SCHEMA[domain] + META_SCHEMA + "COMMIT;")
    for table, rows in tables.items():
        if rows:
            cols = list(rows[0])
            initial.executemany("INSERT INTO %s(%s) VALUES(%s)" % (table, ", ".join(cols), ", ".join("?" * len(cols))),
                                [tuple(row[c] for c in cols) for row in rows])
    initial.commit()
    db = _connect(path)
    initial.backup(db)
    _S.clear()
    _S.update(domain=domain, db=db, path=path, initial=initial, today=_date(today), intents=intents, drifts=[])
    _expected()  # solve the policy now, so tool steps never pay for it
    return {"rows": {table: len(rows) for table, rows in tables.items()}, "view": oracle_view()}


def call_tool(name, args, check=()):
    """Run one tool on the live database; the reply carries what it read and wrote (for events).

    ``check``: records the agent wrote; for each one this call read, ``checks`` says whether it is
    now as the task requires (what a re-read verifies).
    """
    fn = TOOLS[_S["domain"]].get(name)
    if fn is None:
        return {"ok": False, "error_kind": "unknown_tool", "error": "no tool named %r" % name}
    ctx = Ctx(_S["db"], _S["today"])
    deadline = time.monotonic() + TOOL_SECONDS
    _S["db"].set_progress_handler(lambda: time.monotonic() > deadline, PROGRESS_OPCODES)
    try:
        result = fn(ctx, **args)
        size = len(json.dumps(result))
        if size > MAX_RESULT_CHARS:
            raise ToolError("too_large", "the result has %d characters, over the limit of %d: narrow the call"
                            % (size, MAX_RESULT_CHARS))
        _S["db"].commit()
    except ToolError as exc:
        _S["db"].rollback()
        return {"ok": False, "error_kind": exc.kind, "error": str(exc), "missing": exc.missing}
    except sqlite3.OperationalError as exc:
        _S["db"].rollback()
        if time.monotonic() > deadline:
            return {"ok": False, "error_kind": "timeout", "error": "%s ran past %.0f s and was stopped" % (name, TOOL_SECONDS)}
        return {"ok": False, "error_kind": "bad_args", "error": "%s: %s" % (name, exc)}
    except (TypeError, ValueError, ArithmeticError, RecursionError, MemoryError, sqlite3.Error) as exc:
        # odd arguments (a lone surrogate, an integer SQLite cannot hold, an infinite amount) are the caller's error
        _S["db"].rollback()
        return {"ok": False, "error_kind": "bad_args", "error": "%s: %s: %s" % (name, type(exc).__name__, exc)}
    finally:
        _S["db"].set_progress_handler(None, 0)
    reply = {"ok": True, "result": result, "refs": ctx.refs, "wrote": ctx.wrote, "target": ctx.target}
    read = {key for key, _ in ctx.refs}
    if any(key in read for key in check):
        world = _expected()["world"]
        reply["checks"] = {key: _record(_S["db"], key) == _record(world, key) for key in check if key in read}
    if ctx.wrote:  # the oracle's view changes only on writes and drift: ship it now, saving a round trip
        reply["progress"] = _progress()
        reply["view"] = oracle_view()
    return reply


def _drift_candidates(db):
    out = []
    if _S["domain"] == "retail":
        users = set()
        for it in _S["intents"]:
            o = _one(db, "SELECT * FROM orders WHERE order_id=?", it["order_id"])
            users.add(o["user_id"])
        for uid in sorted(users):
            for o in _all(db, "SELECT * FROM orders WHERE user_id=? ORDER BY order_id", uid):
                if o["status"] == "pending":
                    out.append(("orders", o["order_id"], {"status": "shipped"},
                                "the warehouse shipped order %s" % o["order_id"]))
        for it in _S["intents"]:
            if it["op"] == "modify":
                out.append(("products", it["new_item_id"], {"stock": 0},
                            "product %s sold out" % it["new_item_id"]))
        for uid in sorted(users):
            out.append(("users", uid, {"address": "Suite 400, 77 Harbor Road"},
                        "customer %s updated their profile address" % uid))
    else:
        routes = set()
        for it in _S["intents"]:
            if it["op"] == "book":
                routes.add((it["origin"], it["destination"], it["date"]))
            elif it["op"] == "change":
                f = _one(db, "SELECT f.* FROM flights f JOIN bookings b ON b.flight_id=f.flight_id WHERE b.booking_id=?",
                         it["booking_id"])
                routes.add((f["origin"], f["destination"], it["date"]))
            else:
                b = _one(db, "SELECT * FROM bookings WHERE booking_id=?", it["booking_id"])
                out.append(("flights", b["flight_id"], {"depart": "23:55"},
                            "the airline retimed flight %s" % b["flight_id"]))
        for origin, dest, date in sorted(routes):
            for f in _all(db, "SELECT * FROM flights WHERE origin=? AND destination=? AND date=? ORDER BY flight_id",
                          origin, dest, date):
                out.append(("flights", f["flight_id"], {"seats_left": 0}, "flight %s sold out" % f["flight_id"]))
                out.append(("flights", f["flight_id"], {
                    "price_basic_cents": f["price_basic_cents"] + 4000,
                    "price_economy_cents": f["price_economy_cents"] + 5000,
                    "price_business_cents": f["price_business_cents"] + 9000,
                }, "the airline raised the fares on flight %s" % f["flight_id"]))
    return out


def drift(pick, protect):
    """Another actor changes one task-relevant record the agent has not written; returns what changed."""
    protect = set(protect)
    candidates = [c for c in _drift_candidates(_S["db"]) if "%s:%s" % (c[0], c[1]) not in protect]
    if not candidates:
        return None
    table, pk, fields, what = candidates[pick % len(candidates)]
    _update(_S["db"], table, pk, fields)
    _S["db"].commit()
    _S["drifts"].append((table, pk, fields))
    return {"what": what, "key": "%s:%s" % (table, pk), "view": oracle_view()}


def oracle_view():
    """What a perfect agent would still do: versions of records, writes left, refusal, answer."""
    exp = _expected()
    progress = _progress()
    versions = {r[0]: r[1] for r in _S["db"].execute("SELECT key, version FROM _versions")}
    writes = []
    for step, done in zip(exp["steps"], progress):
        if step["allowed"]:
            for tool, args in step["writes"]:
                writes.append({"tool": tool, "args": args, "target": step["target"], "done": bool(done)})
    return {"versions": versions, "writes": writes, "refusal": exp["refusal"], "reasons": exp["reasons"],
            "answer": None if exp["answer_cents"] is None else "%.2f" % _money(exp["answer_cents"])}


def is_refusal(answer):
    text = (answer or "").lower().replace("\u2019", "'")
    return any(m in text for m in REFUSAL_MARKERS)


def _amounts(answer):
    out = set()
    for tok in (answer or "").replace(",", "").replace("$", " ").split():
        tok = tok.strip(".;:!?()[]{}\"'")
        try:
            out.add(_cents(tok))
        except (ValueError, OverflowError):  # "$inf", "1e999", 5000 digits: not an amount
            pass
    return out


def verify(answer=None):
    """Success: the database equals the expected one, and the final answer says what it must."""
    exp = _expected()
    state_ok = _dump(_S["db"]) == _dump(exp["world"])
    if answer is None:
        answer_ok = not exp["refusal"] and exp["answer_cents"] is None
    elif exp["refusal"]:
        answer_ok = is_refusal(answer)
    else:
        answer_ok = not is_refusal(answer) and (exp["answer_cents"] is None or exp["answer_cents"] in _amounts(answer))
    # a refusal counts only if grounded: the agent must have read, as it is now, the record that forbids the request
    evidence = {}
    if exp["refusal"]:
        for step in exp["steps"]:
            if not step["allowed"] and step["intent"].get("if_forbidden", "refuse") == "refuse" and step["target"]:
                evidence[step["target"]] = _version(_S["db"], step["target"])
    return {"success": bool(state_ok and answer_ok), "state_ok": state_ok, "answer_ok": answer_ok,
            "refusal_expected": exp["refusal"], "evidence": evidence}
