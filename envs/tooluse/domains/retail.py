"""Retail domain: an online shop's customer service — orders, returns, address changes, swaps.

Each task seeds a shop (catalog, customers, payment methods, order history) and a customer
request. The policy below is shown to the agent; the tools do not enforce it, the solver does.
Stdlib only: this module also runs in the sandbox (see `agentgym.envs.tooluse.engine`).
"""

from __future__ import annotations

import datetime
import random
import re
from typing import Any

from agentgym.envs.tooluse.engine import (
    Arg,
    Call,
    Known,
    Scenario,
    ToolError,
    calculate,
    cents,
    find_user_by_email,
    iso_date,
    money,
    one,
    payment_methods,
    refund_to_method,
    rows,
    tool,
)
from agentgym.world.templates import Template

NAME = "retail"
ROLE = "You are a customer-service agent for Northwind Goods, an online shop."
RETURN_WINDOW_DAYS = 30
RESTOCKING_FEE = 0.15  # electronics, on return
CANCEL_REASONS = ("no longer needed", "ordered by mistake")
PAGE_SIZE = 5
POLICY = f"""\
1. Identify the customer first (by email, or by full name plus zip code) and act only on that customer's orders.
2. An order can be cancelled, have its shipping address changed, or have an item swapped only while it is
   pending (not yet shipped). The cancellation reason must be the customer's: "{CANCEL_REASONS[0]}" or
   "{CANCEL_REASONS[1]}".
3. An item can be swapped only for another variant of the same product that is in stock.
4. A delivered order can be returned only within {RETURN_WINDOW_DAYS} days of its delivery date. The refund goes to the
   original payment method, or to the customer's gift card if they ask for that.
5. Returned electronics carry a {RESTOCKING_FEE:.0%} restocking fee: refund each electronics line at {1 - RESTOCKING_FEE:.0%} of its price
   (rounded to the cent), every other line in full.
6. If the policy forbids a request, change nothing and tell the customer you cannot do it."""  # noqa: E501

SCHEMA = """
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
"""
RECORD_PARTS = {"orders": ("order_items",)}  # an order's lines are part of the order record
ENTITIES = (("order_id", "order"), ("item_id", "product"), ("payment_method_id", "payment_method"), ("user_id", "user"))
"""Which entity kind an id field in a tool result names (first match wins), for the menu."""
REREAD = {"orders": ("get_order", "order_id"), "products": ("get_product", "item_id"), "users": ("get_user", "user_id")}
"""How to read one record of a table again: its get tool and argument."""


def refund_cents(line_cents: int, category: str) -> int:
    """What returning one order line refunds: electronics less the restocking fee, the rest in full."""
    return int(round(line_cents * (1 - RESTOCKING_FEE))) if category == "electronics" else line_cents


# ---------------------------------------------------------------------------- tools
USER = Arg("string", "customer id, e.g. U1234")
ORDER = Arg("string", "order id, e.g. O12345")


@tool("Find a customer by full name and zip code.")
def find_user_by_name_zip(c, name: Arg("string", "full name"), zip: Arg("string", "5-digit zip code")):
    row = one(c.db, "SELECT user_id, name FROM users WHERE lower(name)=lower(?) AND zip=?", name.strip(), zip.strip())
    if row is None:
        raise ToolError("not_found", "no customer named %r with zip code %r" % (name, zip))
    c.ref("users", row["user_id"])
    return row


@tool("A customer's profile, payment methods and order ids.")
def get_user(c, user_id: USER):
    u = c.get("users", user_id, "customer")
    c.ref("users", user_id)
    orders = [r["order_id"] for r in rows(c.db, "SELECT order_id FROM orders WHERE user_id=? ORDER BY placed", user_id)]
    return {
        "user_id": user_id,
        "name": u["name"],
        "email": u["email"],
        "zip": u["zip"],
        "address": u["address"],
        "payment_methods": payment_methods(c, user_id),
        "orders": orders,
    }


def _item_lines(c, order_id):
    return rows(
        c.db,
        "SELECT oi.item_id, p.name, p.variant, p.category, oi.qty, oi.price_cents FROM order_items oi "
        "JOIN products p ON p.item_id=oi.item_id WHERE oi.order_id=? ORDER BY oi.item_id",
        order_id,
    )


@tool("A customer's orders with status, dates, totals and items.")
def list_orders(
    c,
    user_id: USER,
    status: Arg(
        "string", "only orders with this status", enum=("pending", "shipped", "delivered", "cancelled", "returned")
    ) = None,
):
    c.get("users", user_id, "customer")
    found = rows(c.db, "SELECT * FROM orders WHERE user_id=? ORDER BY placed, order_id", user_id)
    lines: dict[str, list[str]] = {}
    for li in rows(
        c.db,
        "SELECT oi.order_id, p.name, p.variant FROM order_items oi JOIN orders o ON o.order_id="
        "oi.order_id JOIN products p ON p.item_id=oi.item_id WHERE o.user_id=? ORDER BY oi.item_id",
        user_id,
    ):
        lines.setdefault(li["order_id"], []).append("%s (%s)" % (li["name"], li["variant"]))
    out = []
    for o in found:
        if status and o["status"] != status:
            continue
        c.ref("orders", o["order_id"])
        items = lines.get(o["order_id"], [])
        out.append(
            {
                "order_id": o["order_id"],
                "status": o["status"],
                "placed": o["placed"],
                "delivered": o["delivered"],
                "total": money(o["total_cents"]),
                "items": items,
            }
        )
    return {"user_id": user_id, "orders": out}


@tool("One order in full: items with categories and prices, address, payment, refunds.")
def get_order(c, order_id: ORDER):
    o = c.get("orders", order_id, "order")
    c.ref("orders", order_id)
    items = [
        {
            "item_id": li["item_id"],
            "name": li["name"],
            "variant": li["variant"],
            "category": li["category"],
            "qty": li["qty"],
            "price": money(li["price_cents"]),
        }
        for li in _item_lines(c, order_id)
    ]
    refunds = [
        {"refund_id": r["refund_id"], "amount": money(r["amount_cents"]), "payment_method_id": r["pm_id"]}
        for r in rows(c.db, "SELECT * FROM refunds WHERE order_id=? ORDER BY refund_id", order_id)
    ]
    return {
        "order_id": order_id,
        "user_id": o["user_id"],
        "status": o["status"],
        "placed": o["placed"],
        "delivered": o["delivered"],
        "address": o["address"],
        "payment_method_id": o["pm_id"],
        "total": money(o["total_cents"]),
        "cancel_reason": o["cancel_reason"],
        "items": items,
        "refunds": refunds,
    }


def _product(p):
    return {
        "item_id": p["item_id"],
        "name": p["name"],
        "variant": p["variant"],
        "category": p["category"],
        "price": money(p["price_cents"]),
        "stock": p["stock"],
    }


@tool(f"Search the catalog by name, variant or category; {PAGE_SIZE} results a page.")
def search_products(c, query: Arg("string", "search words"), page: Arg("integer", "result page, from 1") = 1):
    q = "%" + re.sub(r"([\\%_])", r"\\\1", query.strip().lower()) + "%"  # the query is text, not a pattern
    found = rows(
        c.db,
        "SELECT * FROM products WHERE lower(name) LIKE ? ESCAPE '\\' OR lower(variant) LIKE ? ESCAPE '\\' "
        "OR lower(category) LIKE ? ESCAPE '\\' ORDER BY name, variant, item_id",
        q,
        q,
        q,
    )
    pages = max(1, -(-len(found) // PAGE_SIZE))
    if page < 1 or page > pages:
        raise ToolError("bad_args", "page %.20s is out of range: the search has %d page(s)" % (page, pages))
    chunk = found[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    for p in chunk:
        c.ref("products", p["item_id"])
    return {"query": query, "page": page, "pages": pages, "results": [_product(p) for p in chunk]}


@tool("One product variant: price, category, stock.")
def get_product(c, item_id: Arg("string", "item id")):
    p = c.get("products", item_id, "product")
    c.ref("products", item_id)
    return _product(p)


def _check_open(o):
    if o["status"] in ("cancelled", "returned"):
        raise ToolError("conflict", "order %s is already %s" % (o["order_id"], o["status"]))


@tool("Cancel an order and refund its total to the original payment method.", writes=True)
def cancel_order(c, order_id: ORDER, reason: Arg("string", "why the customer cancels", enum=CANCEL_REASONS)):
    o = c.get("orders", order_id, "order")
    if reason not in CANCEL_REASONS:
        raise ToolError("bad_args", "reason must be one of %s" % (CANCEL_REASONS,))
    _check_open(o)
    for li in _item_lines(c, order_id):
        p = c.get("products", li["item_id"], "product")
        c.update("products", li["item_id"], {"stock": p["stock"] + li["qty"]})
    refund_id = "RF-%s-C" % order_id
    c.insert(
        "refunds", {"refund_id": refund_id, "order_id": order_id, "pm_id": o["pm_id"], "amount_cents": o["total_cents"]}
    )
    refund_to_method(c, o["pm_id"], o["total_cents"])
    c.update("orders", order_id, {"status": "cancelled", "cancel_reason": reason}, target=True)
    return {
        "order_id": order_id,
        "status": "cancelled",
        "refund": {"refund_id": refund_id, "amount": money(o["total_cents"]), "payment_method_id": o["pm_id"]},
    }


@tool("Change an order's shipping address.", writes=True)
def update_address(c, order_id: ORDER, address: Arg("string", "the full new street address")):
    o = c.get("orders", order_id, "order")
    _check_open(o)
    if len(address.strip()) < 8:
        raise ToolError("bad_args", "address %r is too short to be a street address" % address)
    c.update("orders", order_id, {"address": address.strip()}, target=True)
    return {"order_id": order_id, "address": address.strip()}


@tool("Swap one item of an order for another product variant; the total is recomputed.", writes=True)
def modify_item(
    c,
    order_id: ORDER,
    item_id: Arg("string", "item now in the order"),
    new_item_id: Arg("string", "item to put in its place"),
):
    o = c.get("orders", order_id, "order")
    _check_open(o)
    line = one(c.db, "SELECT * FROM order_items WHERE order_id=? AND item_id=?", order_id, item_id)
    if line is None:
        raise ToolError(
            "not_found",
            "order %s has no item %r" % (order_id, item_id),
            missing="order_items:%s/%s" % (order_id, item_id),
        )
    new = c.get("products", new_item_id, "product")
    if new_item_id == item_id:
        raise ToolError("bad_args", "new_item_id is the item already in the order")
    if one(c.db, "SELECT 1 AS x FROM order_items WHERE order_id=? AND item_id=?", order_id, new_item_id):
        raise ToolError("conflict", "order %s already contains %s" % (order_id, new_item_id))
    if new["stock"] < line["qty"]:
        raise ToolError("conflict", "product %s has only %d in stock" % (new_item_id, new["stock"]))
    old = c.get("products", item_id, "product")
    c.db.execute("DELETE FROM order_items WHERE order_id=? AND item_id=?", (order_id, item_id))
    c.db.execute(
        "INSERT INTO order_items(order_id, item_id, qty, price_cents) VALUES(?,?,?,?)",
        (order_id, new_item_id, line["qty"], new["price_cents"]),
    )
    c.update("products", item_id, {"stock": old["stock"] + line["qty"]})
    c.update("products", new_item_id, {"stock": new["stock"] - line["qty"]})
    total = o["total_cents"] - line["price_cents"] * line["qty"] + new["price_cents"] * line["qty"]
    c.update("orders", order_id, {"total_cents": total}, target=True)
    return {"order_id": order_id, "replaced": item_id, "with": new_item_id, "total": money(total)}


@tool("Mark an order returned and refund an amount to a payment method.", writes=True)
def return_order(
    c,
    order_id: ORDER,
    payment_method_id: Arg("string", "where the refund goes"),
    amount: Arg("number", "refund in dollars, e.g. 42.50"),
):
    o = c.get("orders", order_id, "order")
    _check_open(o)
    pm = c.get("payment_methods", payment_method_id, "payment method")
    if pm["user_id"] != o["user_id"]:
        raise ToolError("conflict", "payment method %s does not belong to the order's customer" % payment_method_id)
    amount_cents = cents(amount)
    if amount_cents <= 0 or amount_cents > o["total_cents"]:
        raise ToolError(
            "bad_args", "amount must be positive and at most the order total %.2f" % money(o["total_cents"])
        )
    refund_id = "RF-%s-R" % order_id
    c.insert(
        "refunds",
        {"refund_id": refund_id, "order_id": order_id, "pm_id": payment_method_id, "amount_cents": amount_cents},
    )
    refund_to_method(c, payment_method_id, amount_cents)
    c.update("orders", order_id, {"status": "returned"}, target=True)
    return {
        "order_id": order_id,
        "status": "returned",
        "refund": {"refund_id": refund_id, "amount": money(amount_cents), "payment_method_id": payment_method_id},
    }


TOOLS = (
    tool("Find a customer by email address.")(find_user_by_email),
    find_user_by_name_zip,
    get_user,
    list_orders,
    get_order,
    search_products,
    get_product,
    cancel_order,
    update_address,
    modify_item,
    return_order,
    tool("Evaluate arithmetic, e.g. 129.99*0.85 + 24.")(calculate),
)


# ---------------------------------------------------------------------------- policy solver and drift
def _return_amount(db, order_id):
    total = 0
    for li in rows(
        db,
        "SELECT oi.qty, oi.price_cents, p.category FROM order_items oi JOIN products p "
        "ON p.item_id=oi.item_id WHERE oi.order_id=?",
        order_id,
    ):
        total += refund_cents(li["qty"] * li["price_cents"], li["category"])
    return total


def solve(db, today, it):
    """One intent under the policy: (allowed, why not, writes, target record, amount for the answer)."""
    op = it["op"]
    o = one(db, "SELECT * FROM orders WHERE order_id=?", it["order_id"])
    target = "orders:%s" % o["order_id"]
    pending = o["status"] == "pending"
    shipped_why = "order %s is %s; only pending orders can be %s" % (
        o["order_id"],
        o["status"],
        {"cancel": "cancelled", "address": "changed", "modify": "modified"}.get(op, "changed"),
    )
    if op == "cancel":
        return (
            pending,
            shipped_why,
            [("cancel_order", {"order_id": o["order_id"], "reason": it["reason"]})],
            target,
            None,
        )
    if op == "address":
        return (
            pending,
            shipped_why,
            [("update_address", {"order_id": o["order_id"], "address": it["address"]})],
            target,
            None,
        )
    if op == "modify":
        new = one(db, "SELECT * FROM products WHERE item_id=?", it["new_item_id"])
        old = one(db, "SELECT * FROM products WHERE item_id=?", it["item_id"])
        line = one(db, "SELECT * FROM order_items WHERE order_id=? AND item_id=?", o["order_id"], it["item_id"])
        if not pending:
            return False, shipped_why, [], target, None
        if new["name"] != old["name"]:
            return False, "items can only be swapped for another variant of the same product", [], target, None
        if new["stock"] < line["qty"]:
            return (
                False,
                "%s (%s) is out of stock" % (new["name"], new["variant"]),
                [],
                "products:%s" % new["item_id"],
                None,
            )
        total = o["total_cents"] + (new["price_cents"] - line["price_cents"]) * line["qty"]
        args = {"order_id": o["order_id"], "item_id": it["item_id"], "new_item_id": it["new_item_id"]}
        return True, "", [("modify_item", args)], target, total
    if op == "return":
        if o["status"] != "delivered":
            return (
                False,
                "order %s is %s; only delivered orders can be returned" % (o["order_id"], o["status"]),
                [],
                target,
                None,
            )
        age = (today - iso_date(o["delivered"])).days
        if age > RETURN_WINDOW_DAYS:
            return (
                False,
                "order %s was delivered %d days ago; returns close after %d days"
                % (o["order_id"], age, RETURN_WINDOW_DAYS),
                [],
                target,
                None,
            )
        if it["to"] == "gift_card":
            pm = one(
                db,
                "SELECT pm_id FROM payment_methods WHERE user_id=? AND kind='gift_card' ORDER BY pm_id",
                o["user_id"],
            )["pm_id"]
        else:
            pm = o["pm_id"]
        amount = _return_amount(db, o["order_id"])
        args = {"order_id": o["order_id"], "payment_method_id": pm, "amount": money(amount)}
        return True, "", [("return_order", args)], target, amount
    raise ValueError("unknown retail intent %r" % op)


def drifts(db, intents):
    """What other actors may change mid-episode: (table, id, fields, what the agent is told)."""
    out = []
    users = set()
    for it in intents:
        o = one(db, "SELECT * FROM orders WHERE order_id=?", it["order_id"])
        users.add(o["user_id"])
    for uid in sorted(users):
        for o in rows(db, "SELECT * FROM orders WHERE user_id=? ORDER BY order_id", uid):
            if o["status"] == "pending":
                out.append(
                    ("orders", o["order_id"], {"status": "shipped"}, "the warehouse shipped order %s" % o["order_id"])
                )
    for it in intents:
        if it["op"] == "modify":
            out.append(("products", it["new_item_id"], {"stock": 0}, "product %s sold out" % it["new_item_id"]))
    for uid in sorted(users):
        out.append(
            ("users", uid, {"address": "Suite 400, 77 Harbor Road"}, "customer %s updated their profile address" % uid)
        )
    return out


# ---------------------------------------------------------------------------- the seeded world
FIRST = [
    "Ava",
    "Liam",
    "Mia",
    "Noah",
    "Zoe",
    "Ethan",
    "Isla",
    "Omar",
    "Lena",
    "Ravi",
    "Sofia",
    "Kenji",
    "Nora",
    "Mateo",
    "Priya",
    "Jonas",
    "Amara",
    "Felix",
    "Chloe",
    "Diego",
]
LAST = [
    "Garcia",
    "Chen",
    "Okafor",
    "Schmidt",
    "Patel",
    "Rossi",
    "Kim",
    "Novak",
    "Silva",
    "Haddad",
    "Larsen",
    "Mendes",
    "Ito",
    "Brennan",
    "Duarte",
    "Kowalski",
]
STREETS = [
    "Maple Ave",
    "Oak Street",
    "Cedar Lane",
    "Pine Road",
    "Elm Court",
    "Birch Way",
    "Harbor Blvd",
    "Willow Drive",
    "Summit Ave",
    "Lakeview Road",
]
CITIES = [
    ("Springfield", "IL"),
    ("Riverton", "WY"),
    ("Fairview", "OR"),
    ("Madison", "WI"),
    ("Georgetown", "TX"),
    ("Salem", "MA"),
    ("Franklin", "TN"),
    ("Clinton", "NY"),
]
CATALOG = [
    ("Wireless Headphones", "electronics", ("black", "white", "silver"), 12999),
    ("Mechanical Keyboard", "electronics", ("brown switches", "blue switches", "red switches"), 8900),
    ("Smart Watch", "electronics", ("41mm", "45mm"), 24900),
    ("Portable Charger", "electronics", ("10000mAh", "20000mAh"), 3999),
    ("Running Shoes", "apparel", ("size 9", "size 10", "size 11"), 11000),
    ("Rain Jacket", "apparel", ("M", "L", "XL"), 7550),
    ("Wool Sweater", "apparel", ("grey", "navy"), 6400),
    ("Water Bottle", "home", ("750ml", "1l"), 2400),
    ("Desk Lamp", "home", ("black", "brass"), 4500),
    ("Coffee Grinder", "home", ("manual", "electric"), 5900),
    ("Yoga Mat", "sports", ("blue", "purple"), 3200),
    ("Camping Tent", "sports", ("2-person", "4-person"), 18900),
    ("Cookbook", "books", ("hardcover", "paperback"), 2800),
    ("Board Game", "toys", ("classic", "deluxe"), 4400),
]
REASON_PHRASES = {"no longer needed": "I don't need it anymore", "ordered by mistake": "I ordered it by mistake"}


def _address(rng: random.Random) -> str:
    city, state = rng.choice(CITIES)
    return f"{rng.randint(10, 9899)} {rng.choice(STREETS)}, {city}, {state}"


class _Shop:
    """A seeded shop: catalog, customers, payment methods and order history."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.today = datetime.date(2025, 3, 1) + datetime.timedelta(days=rng.randint(0, 240))
        self.ids: set[str] = set()
        self.products: list[dict[str, Any]] = []
        for name, category, variants, base in CATALOG:
            for variant in variants:
                price = int(base * rng.uniform(0.92, 1.08))
                self.products.append(
                    {
                        "item_id": self._id("P", 5),
                        "name": name,
                        "variant": variant,
                        "category": category,
                        "price_cents": price,
                        "stock": rng.randint(3, 40),
                    }
                )
        self.users: list[dict[str, Any]] = []
        self.pms: list[dict[str, Any]] = []
        self.orders: list[dict[str, Any]] = []
        self.lines: list[dict[str, Any]] = []
        people = rng.sample([(fn, ln) for fn in FIRST for ln in LAST], 6)
        for first, last in people:
            self._user(first, last)
        for user in self.users[1:]:
            for _ in range(rng.randint(1, 3)):
                status = rng.choice(["pending", "shipped", "delivered", "delivered", "cancelled"])
                self.order(user, status, rng.sample(self.products, rng.randint(1, 2)))

    def _id(self, prefix: str, digits: int) -> str:
        while True:
            ident = prefix + str(self.rng.randint(10 ** (digits - 1), 10**digits - 1))
            if ident not in self.ids:
                self.ids.add(ident)
                return ident

    def _user(self, first: str, last: str) -> dict[str, Any]:
        rng = self.rng
        user = {
            "user_id": self._id("U", 4),
            "name": f"{first} {last}",
            "email": f"{first}.{last}{rng.randint(1, 99)}@example.com".lower(),
            "zip": str(rng.randint(10000, 99999)),
            "address": _address(rng),
        }
        self.users.append(user)
        card = rng.choice(["visa", "mastercard", "amex"])
        self.pms.append(
            {
                "pm_id": self._id("PM", 4),
                "user_id": user["user_id"],
                "kind": "card",
                "label": f"{card} ending {rng.randint(1000, 9999)}",
                "balance_cents": None,
            }
        )
        if rng.random() < 0.5:
            self.pms.append(
                {
                    "pm_id": self._id("PM", 4),
                    "user_id": user["user_id"],
                    "kind": "paypal",
                    "label": user["email"],
                    "balance_cents": None,
                }
            )
        return user

    def gift_card(self, user: dict[str, Any]) -> dict[str, Any]:
        pm = {
            "pm_id": self._id("GC", 4),
            "user_id": user["user_id"],
            "kind": "gift_card",
            "label": "gift card",
            "balance_cents": self.rng.randint(0, 8000),
        }
        self.pms.append(pm)
        return pm

    def order(
        self, user: dict[str, Any], status: str, products: list[dict[str, Any]], delivered_ago: int | None = None
    ) -> dict[str, Any]:
        rng = self.rng
        if status in ("delivered", "returned"):
            delivered_ago = delivered_ago if delivered_ago is not None else rng.randint(1, 90)
            placed_ago = delivered_ago + rng.randint(2, 6)
        elif status == "shipped":
            placed_ago = rng.randint(1, 4)
        else:
            placed_ago = rng.randint(0, 3)
        pms = [p for p in self.pms if p["user_id"] == user["user_id"] and p["kind"] != "gift_card"]
        order = {
            "order_id": self._id("O", 5),
            "user_id": user["user_id"],
            "status": status,
            "placed": (self.today - datetime.timedelta(days=placed_ago)).isoformat(),
            "delivered": None
            if delivered_ago is None
            else (self.today - datetime.timedelta(days=delivered_ago)).isoformat(),
            "address": user["address"],
            "pm_id": rng.choice(pms)["pm_id"],
            "total_cents": 0,
            "cancel_reason": "no longer needed" if status == "cancelled" else None,
        }
        for p in products:
            qty = 1 if rng.random() < 0.8 else 2
            self.lines.append(
                {"order_id": order["order_id"], "item_id": p["item_id"], "qty": qty, "price_cents": p["price_cents"]}
            )
            order["total_cents"] += qty * p["price_cents"]
        self.orders.append(order)
        return order

    def pick_products(self, k: int, category: str | None = None) -> list[dict[str, Any]]:
        """k products with distinct names, so a request naming one is unambiguous."""
        names = [c[0] for c in CATALOG if category is None or c[1] == category]
        chosen = self.rng.sample(names, k)
        return [self.rng.choice([p for p in self.products if p["name"] == n]) for n in chosen]

    def focus(self) -> dict[str, Any]:
        return self.users[0]

    def tables(self) -> dict[str, list[dict[str, Any]]]:
        return {
            "users": self.users,
            "payment_methods": self.pms,
            "products": self.products,
            "orders": self.orders,
            "order_items": self.lines,
        }


def _name(p: dict[str, Any]) -> str:
    return p["name"].lower()


def _identify(rng: random.Random, shop: _Shop) -> tuple[str, Call, list[Call]]:
    """How the customer introduces themself, the find action, and menu openers (with a decoy)."""
    u = shop.focus()
    other = shop.users[1]
    if rng.random() < 0.6:
        return (
            f"{u['name']} ({u['email']})",
            ("find_user_by_email", {"email": u["email"]}),
            [("find_user_by_email", {"email": u["email"]}), ("find_user_by_email", {"email": other["email"]})],
        )
    act = ("find_user_by_name_zip", {"name": u["name"], "zip": u["zip"]})
    return (
        f"{u['name']}, zip code {u['zip']}",
        act,
        [act, ("find_user_by_name_zip", {"name": u["name"], "zip": other["zip"]})],
    )


def _filler(shop: _Shop, user: dict[str, Any], used: list[dict[str, Any]], n: int) -> None:
    """Other orders of the focus customer, with products the request does not name."""
    names = {p["name"] for p in used}
    pool = [p for p in shop.products if p["name"] not in names]
    for _ in range(n):
        p = shop.rng.choice(pool)
        pool = [q for q in pool if q["name"] != p["name"]]
        shop.order(user, shop.rng.choice(["shipped", "delivered", "cancelled"]), [p])


def _base_lookups(find: Call, shop: _Shop) -> list[tuple[Call, list[str]]]:
    u = shop.focus()
    return [
        (find, [f"users:{u['user_id']}"]),
        (
            ("list_orders", {"user_id": u["user_id"]}),
            [f"orders:{o['order_id']}" for o in shop.orders if o["user_id"] == u["user_id"]],
        ),
    ]


def _scenario(
    shop: _Shop,
    request: str,
    intents: list[dict[str, Any]],
    lookups: list[tuple[Call, list[str]]],
    verify: Call,
    hints: dict[str, Any],
) -> Scenario:
    return Scenario(shop.tables(), shop.today.isoformat(), request, intents, lookups, verify, hints)


def _get(order: dict[str, Any]) -> tuple[Call, list[str]]:
    return ("get_order", {"order_id": order["order_id"]}), [f"orders:{order['order_id']}"]


# ---------------------------------------------------------------------------- templates
def cancel_pending(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    (p,) = shop.pick_products(1)
    order = shop.order(u, "pending", [p])
    _filler(shop, u, [p], rng.randint(1, 2))
    reason = rng.choice(list(REASON_PHRASES))
    request = f"Hi, this is {who}. Please cancel my order with the {_name(p)} - {REASON_PHRASES[reason]}."
    return _scenario(
        shop,
        request,
        [{"op": "cancel", "order_id": order["order_id"], "reason": reason}],
        _base_lookups(find, shop),
        _get(order)[0],
        {"openers": openers},
    )


def update_address(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    (p,) = shop.pick_products(1)
    order = shop.order(u, "pending", [p])
    _filler(shop, u, [p], rng.randint(1, 2))
    new = _address(rng)
    request = f"Hello, {who} here. I just moved: please ship my {_name(p)} order to {new} instead."
    return _scenario(
        shop,
        request,
        [{"op": "address", "order_id": order["order_id"], "address": new}],
        _base_lookups(find, shop),
        _get(order)[0],
        {"openers": openers, "addresses": [new, u["address"]]},
    )


def return_delivered(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    products = shop.pick_products(2)
    order = shop.order(u, "delivered", products, delivered_ago=rng.randint(2, 28))
    _filler(shop, u, products, 1)
    to = "gift_card" if rng.random() < 0.5 else "original"
    lookups = _base_lookups(find, shop) + [_get(order)]
    if to == "gift_card":
        gc = shop.gift_card(u)
        pms = [f"payment_methods:{p['pm_id']}" for p in shop.pms if p["user_id"] == u["user_id"]]
        lookups.insert(1, (("get_user", {"user_id": u["user_id"]}), [f"users:{u['user_id']}", *pms]))
        where = f"on my gift card ({gc['pm_id']})" if rng.random() < 0.3 else "on my gift card"
    else:
        where = "back to the original payment method"
    request = (
        f"Hi, I'm {who}. I want to return my order with the {_name(products[0])} and the "
        f"{_name(products[1])}, refund {where}. How much will I get back?"
    )
    return _scenario(
        shop,
        request,
        [{"op": "return", "order_id": order["order_id"], "to": to, "answer": True}],
        lookups,
        _get(order)[0],
        {"openers": openers},
    )


def cancel_all_pending(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    products = shop.pick_products(rng.randint(2, 3))
    orders = [shop.order(u, "pending", [p]) for p in products]
    _filler(shop, u, products, rng.randint(1, 2))
    reason = rng.choice(list(REASON_PHRASES))
    request = (
        f"This is {who}. Please cancel every order of mine that has not shipped yet - "
        f"{REASON_PHRASES[reason].replace('it', 'them')}."
    )
    intents = [{"op": "cancel", "order_id": o["order_id"], "reason": reason, "if_forbidden": "skip"} for o in orders]
    return _scenario(
        shop,
        request,
        intents,
        _base_lookups(find, shop),
        ("list_orders", {"user_id": u["user_id"]}),
        {"openers": openers},
    )


def cancel_and_readdress(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    a, b = shop.pick_products(2)
    oa, ob = shop.order(u, "pending", [a]), shop.order(u, "pending", [b])
    _filler(shop, u, [a, b], 1)
    new = _address(rng)
    reason = rng.choice(list(REASON_PHRASES))
    request = (
        f"Hi, this is {who}. Two things: cancel the order with the {_name(a)} ({REASON_PHRASES[reason]}), and send "
        f"the {_name(b)} to my new address, {new}."
    )
    intents = [
        {"op": "cancel", "order_id": oa["order_id"], "reason": reason},
        {"op": "address", "order_id": ob["order_id"], "address": new},
    ]
    return _scenario(
        shop,
        request,
        intents,
        _base_lookups(find, shop),
        ("list_orders", {"user_id": u["user_id"]}),
        {"openers": openers, "addresses": [new, u["address"]]},
    )


def return_and_cancel(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    a, b = shop.pick_products(2)
    oa = shop.order(u, "delivered", [a], delivered_ago=rng.randint(1, 25))
    ob = shop.order(u, "pending", [b])
    _filler(shop, u, [a, b], 1)
    request = (
        f"Hello, {who} here. I'm returning the {_name(a)} (refund to the original payment, please) and I "
        f"no longer need the {_name(b)} I ordered, so cancel that one."
    )
    intents = [
        {"op": "return", "order_id": oa["order_id"], "to": "original"},
        {"op": "cancel", "order_id": ob["order_id"], "reason": "no longer needed"},
    ]
    return _scenario(
        shop,
        request,
        intents,
        _base_lookups(find, shop) + [_get(oa)],
        ("list_orders", {"user_id": u["user_id"]}),
        {"openers": openers},
    )


def refuse_cancel_shipped(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    (p,) = shop.pick_products(1)
    order = shop.order(u, rng.choice(["shipped", "delivered"]), [p], delivered_ago=None)
    if order["status"] == "delivered":
        order["delivered"] = (shop.today - datetime.timedelta(days=rng.randint(1, 10))).isoformat()
    _filler(shop, u, [p], 1)
    request = f"Hi, this is {who}. Cancel my order with the {_name(p)} please, {REASON_PHRASES['no longer needed']}."
    return _scenario(
        shop,
        request,
        [{"op": "cancel", "order_id": order["order_id"], "reason": "no longer needed"}],
        _base_lookups(find, shop),
        _get(order)[0],
        {"openers": openers},
    )


def refuse_late_return(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    (p,) = shop.pick_products(1)
    order = shop.order(u, "delivered", [p], delivered_ago=rng.randint(31, 80))
    _filler(shop, u, [p], 1)
    request = f"This is {who}. I'd like to return the {_name(p)} I bought and get my money back the way I paid."
    return _scenario(
        shop,
        request,
        [{"op": "return", "order_id": order["order_id"], "to": "original"}],
        _base_lookups(find, shop),
        _get(order)[0],
        {"openers": openers},
    )


def swap_variant(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    (p,) = shop.pick_products(1)
    order = shop.order(u, "pending", [p])
    _filler(shop, u, [p], 1)
    other = rng.choice([q for q in shop.products if q["name"] == p["name"] and q is not p])
    request = (
        f"Hi, this is {who}. In my pending order, please swap the {_name(p)} ({p['variant']}) for the "
        f"{other['variant']} one. What is my new order total?"
    )
    variants = [f"products:{q['item_id']}" for q in shop.products if q["name"] == p["name"]]
    lookups = _base_lookups(find, shop) + [_get(order), (("search_products", {"query": p["name"]}), variants)]
    intent = {
        "op": "modify",
        "order_id": order["order_id"],
        "item_id": p["item_id"],
        "new_item_id": other["item_id"],
        "answer": True,
    }
    return _scenario(
        shop, request, [intent], lookups, _get(order)[0], {"openers": openers, "queries": [p["name"], other["variant"]]}
    )


def refuse_readdress_shipped(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    (p,) = shop.pick_products(1)
    order = shop.order(u, "shipped", [p])
    _filler(shop, u, [p], 1)
    new = _address(rng)
    request = f"Hello, this is {who}. Please change the delivery address for my {_name(p)} order to {new}."
    return _scenario(
        shop,
        request,
        [{"op": "address", "order_id": order["order_id"], "address": new}],
        _base_lookups(find, shop),
        _get(order)[0],
        {"openers": openers, "addresses": [new]},
    )


TEMPLATES: tuple[Template, ...] = (
    Template("cancel_pending", NAME, "single", cancel_pending),
    Template("update_address", NAME, "single", update_address),
    Template("return_delivered", NAME, "single", return_delivered),
    Template("cancel_all_pending", NAME, "multi", cancel_all_pending),
    Template("cancel_and_readdress", NAME, "multi", cancel_and_readdress),
    Template("return_and_cancel", NAME, "multi", return_and_cancel),
    Template("refuse_cancel_shipped", NAME, "refusal", refuse_cancel_shipped),
    Template("refuse_late_return", NAME, "refusal", refuse_late_return),
    Template("swap_variant", NAME, "single", swap_variant, heldout=True),
    Template("refuse_readdress_shipped", NAME, "refusal", refuse_readdress_shipped, heldout=True),
)


# ---------------------------------------------------------------------------- menu
def _return_amounts(order: dict[str, Any]) -> list[float]:
    items = order.get("items")
    out = []
    if isinstance(order.get("total"), (int, float)):
        out.append(round(order["total"], 2))
    if items and isinstance(items[0], dict):
        total = sum(refund_cents(int(round(li["price"] * 100)) * li["qty"], li.get("category")) for li in items)
        out.append(round(total / 100, 2))
    return list(dict.fromkeys(out))


def menu(known: Known, hints: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Candidate calls built from what the agent has seen, most useful first (decoys included)."""
    out: list[tuple[str, dict[str, Any]]] = list(hints.get("openers", ()))
    users, orders, products, pms = known.of("user"), known.of("order"), known.of("product"), known.of("payment_method")
    for uid in users:
        out += [("list_orders", {"user_id": uid}), ("get_user", {"user_id": uid})]
    for query in hints.get("queries", ()):
        out.append(("search_products", {"query": query}))
    for oid in orders:
        out.append(("get_order", {"order_id": oid}))
    for oid, o in orders.items():
        for reason in CANCEL_REASONS:
            out.append(("cancel_order", {"order_id": oid, "reason": reason}))
        for addr in hints.get("addresses", ()):
            out.append(("update_address", {"order_id": oid, "address": addr}))
        targets = [o["payment_method_id"]] if o.get("payment_method_id") else []
        targets += [pid for pid, pm in pms.items() if pm.get("kind") == "gift_card"]
        for pid in targets:
            for amount in _return_amounts(o):
                out.append(("return_order", {"order_id": oid, "payment_method_id": pid, "amount": amount}))
        for li in o.get("items", ()):
            if isinstance(li, dict):
                for iid, p in products.items():
                    if p.get("name") == li.get("name") and iid != li.get("item_id"):
                        out.append(("modify_item", {"order_id": oid, "item_id": li["item_id"], "new_item_id": iid}))
    return out
