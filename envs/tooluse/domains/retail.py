"""Retail domain: an online shop's customer service — orders, returns, address changes, swaps.

Each task seeds a shop (catalog, customers, payment methods, order history) and a customer
request. The policy below is shown to the agent; the tools do not enforce it.
"""

from __future__ import annotations

import datetime
import random
from typing import Any

from agentgym.actions import Param, ToolSpec, render_call
from agentgym.envs.tooluse.domains import Known, Scenario, Template

__all__ = ["NAME", "ROLE", "POLICY", "TOOLS", "TEMPLATES", "menu"]

NAME = "retail"
ROLE = "You are a customer-service agent for Northwind Goods, an online shop."
POLICY = """\
1. Identify the customer first (by email, or by full name plus zip code) and act only on that customer's orders.
2. An order can be cancelled, have its shipping address changed, or have an item swapped only while it is
   pending (not yet shipped). The cancellation reason must be the customer's: "no longer needed" or
   "ordered by mistake".
3. An item can be swapped only for another variant of the same product that is in stock.
4. A delivered order can be returned only within 30 days of its delivery date. The refund goes to the
   original payment method, or to the customer's gift card if they ask for that.
5. Returned electronics carry a 15% restocking fee: refund each electronics line at 85% of its price
   (rounded to the cent), every other line in full.
6. If the policy forbids a request, change nothing and tell the customer you cannot do it."""

_ID = Param("user_id", "string", "customer id, e.g. U1234")
_ORDER = Param("order_id", "string", "order id, e.g. O12345")
TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("find_user_by_email", "Find a customer by email address.", (Param("email", "string", "email address"),)),
    ToolSpec("find_user_by_name_zip", "Find a customer by full name and zip code.", (
        Param("name", "string", "full name"), Param("zip", "string", "5-digit zip code"))),
    ToolSpec("get_user", "A customer's profile, payment methods and order ids.", (_ID,)),
    ToolSpec("list_orders", "A customer's orders with status, dates, totals and items.", (
        _ID, Param("status", "string", "only orders with this status", required=False,
                   enum=("pending", "shipped", "delivered", "cancelled", "returned")))),
    ToolSpec("get_order", "One order in full: items with categories and prices, address, payment, refunds.", (_ORDER,)),
    ToolSpec("search_products", "Search the catalog by name, variant or category; 5 results a page.", (
        Param("query", "string", "search words"), Param("page", "integer", "result page, from 1", required=False))),
    ToolSpec("get_product", "One product variant: price, category, stock.", (Param("item_id", "string", "item id"),)),
    ToolSpec("cancel_order", "Cancel an order and refund its total to the original payment method.", (
        _ORDER, Param("reason", "string", "why the customer cancels", enum=("no longer needed", "ordered by mistake"))),
        writes=True),
    ToolSpec("update_address", "Change an order's shipping address.", (
        _ORDER, Param("address", "string", "the full new street address")), writes=True),
    ToolSpec("modify_item", "Swap one item of an order for another product variant; the total is recomputed.", (
        _ORDER, Param("item_id", "string", "item now in the order"),
        Param("new_item_id", "string", "item to put in its place")), writes=True),
    ToolSpec("return_order", "Mark an order returned and refund an amount to a payment method.", (
        _ORDER, Param("payment_method_id", "string", "where the refund goes"),
        Param("amount", "number", "refund in dollars, e.g. 42.50")), writes=True),
    ToolSpec("calculate", "Evaluate arithmetic, e.g. 129.99*0.85 + 24.", (Param("expression", "string", "arithmetic"),)),
)

FIRST = ["Ava", "Liam", "Mia", "Noah", "Zoe", "Ethan", "Isla", "Omar", "Lena", "Ravi", "Sofia", "Kenji", "Nora",
         "Mateo", "Priya", "Jonas", "Amara", "Felix", "Chloe", "Diego"]
LAST = ["Garcia", "Chen", "Okafor", "Schmidt", "Patel", "Rossi", "Kim", "Novak", "Silva", "Haddad", "Larsen",
        "Mendes", "Ito", "Brennan", "Duarte", "Kowalski"]
STREETS = ["Maple Ave", "Oak Street", "Cedar Lane", "Pine Road", "Elm Court", "Birch Way", "Harbor Blvd",
           "Willow Drive", "Summit Ave", "Lakeview Road"]
CITIES = [("Springfield", "IL"), ("Riverton", "WY"), ("Fairview", "OR"), ("Madison", "WI"), ("Georgetown", "TX"),
          ("Salem", "MA"), ("Franklin", "TN"), ("Clinton", "NY")]
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
                self.products.append({"item_id": self._id("P", 5), "name": name, "variant": variant,
                                      "category": category, "price_cents": price, "stock": rng.randint(3, 40)})
        self.users: list[dict[str, Any]] = []
        self.pms: list[dict[str, Any]] = []
        self.orders: list[dict[str, Any]] = []
        self.lines: list[dict[str, Any]] = []
        people = rng.sample([(f, l) for f in FIRST for l in LAST], 6)
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
        user = {"user_id": self._id("U", 4), "name": f"{first} {last}",
                "email": f"{first}.{last}{rng.randint(1, 99)}@example.com".lower(),
                "zip": str(rng.randint(10000, 99999)), "address": _address(rng)}
        self.users.append(user)
        card = rng.choice(["visa", "mastercard", "amex"])
        self.pms.append({"pm_id": self._id("PM", 4), "user_id": user["user_id"], "kind": "card",
                         "label": f"{card} ending {rng.randint(1000, 9999)}", "balance_cents": None})
        if rng.random() < 0.5:
            self.pms.append({"pm_id": self._id("PM", 4), "user_id": user["user_id"], "kind": "paypal",
                             "label": user["email"], "balance_cents": None})
        return user

    def gift_card(self, user: dict[str, Any]) -> dict[str, Any]:
        pm = {"pm_id": self._id("GC", 4), "user_id": user["user_id"], "kind": "gift_card", "label": "gift card",
              "balance_cents": self.rng.randint(0, 8000)}
        self.pms.append(pm)
        return pm

    def order(self, user: dict[str, Any], status: str, products: list[dict[str, Any]],
              delivered_ago: int | None = None) -> dict[str, Any]:
        rng = self.rng
        if status in ("delivered", "returned"):
            delivered_ago = delivered_ago if delivered_ago is not None else rng.randint(1, 90)
            placed_ago = delivered_ago + rng.randint(2, 6)
        elif status == "shipped":
            placed_ago = rng.randint(1, 4)
        else:
            placed_ago = rng.randint(0, 3)
        pms = [p for p in self.pms if p["user_id"] == user["user_id"] and p["kind"] != "gift_card"]
        order = {"order_id": self._id("O", 5), "user_id": user["user_id"], "status": status,
                 "placed": (self.today - datetime.timedelta(days=placed_ago)).isoformat(),
                 "delivered": None if delivered_ago is None else (self.today - datetime.timedelta(days=delivered_ago)).isoformat(),
                 "address": user["address"], "pm_id": rng.choice(pms)["pm_id"], "total_cents": 0,
                 "cancel_reason": "no longer needed" if status == "cancelled" else None}
        for p in products:
            qty = 1 if rng.random() < 0.8 else 2
            self.lines.append({"order_id": order["order_id"], "item_id": p["item_id"], "qty": qty,
                               "price_cents": p["price_cents"]})
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
        return {"users": self.users, "payment_methods": self.pms, "products": self.products,
                "orders": self.orders, "order_items": self.lines}


def _name(p: dict[str, Any]) -> str:
    return p["name"].lower()


def _identify(rng: random.Random, shop: _Shop) -> tuple[str, str, list[str]]:
    """How the customer introduces themself, the find action, and menu openers (with a decoy)."""
    u = shop.focus()
    other = shop.users[1]
    if rng.random() < 0.6:
        return (f"{u['name']} ({u['email']})", render_call("find_user_by_email", {"email": u["email"]}),
                [render_call("find_user_by_email", {"email": u["email"]}),
                 render_call("find_user_by_email", {"email": other["email"]})])
    act = render_call("find_user_by_name_zip", {"name": u["name"], "zip": u["zip"]})
    return (f"{u['name']}, zip code {u['zip']}", act,
            [act, render_call("find_user_by_name_zip", {"name": u["name"], "zip": other["zip"]})])


def _filler(shop: _Shop, user: dict[str, Any], used: list[dict[str, Any]], n: int) -> None:
    """Other orders of the focus customer, with products the request does not name."""
    names = {p["name"] for p in used}
    pool = [p for p in shop.products if p["name"] not in names]
    for _ in range(n):
        p = shop.rng.choice(pool)
        pool = [q for q in pool if q["name"] != p["name"]]
        shop.order(user, shop.rng.choice(["shipped", "delivered", "cancelled"]), [p])


def _base_lookups(find: str, shop: _Shop) -> list[tuple[str, list[str]]]:
    u = shop.focus()
    return [(find, [f"users:{u['user_id']}"]),
            (render_call("list_orders", {"user_id": u["user_id"]}),
             [f"orders:{o['order_id']}" for o in shop.orders if o["user_id"] == u["user_id"]])]


def _scenario(shop: _Shop, request: str, intents: list[dict[str, Any]], lookups: list[tuple[str, list[str]]],
              verify: str, hints: dict[str, Any]) -> Scenario:
    return Scenario(shop.tables(), shop.today.isoformat(), request, intents, lookups, verify, hints)


def _get(order: dict[str, Any]) -> tuple[str, list[str]]:
    return render_call("get_order", {"order_id": order["order_id"]}), [f"orders:{order['order_id']}"]


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
    return _scenario(shop, request, [{"op": "cancel", "order_id": order["order_id"], "reason": reason}],
                     _base_lookups(find, shop), _get(order)[0], {"openers": openers})


def update_address(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    (p,) = shop.pick_products(1)
    order = shop.order(u, "pending", [p])
    _filler(shop, u, [p], rng.randint(1, 2))
    new = _address(rng)
    request = f"Hello, {who} here. I just moved: please ship my {_name(p)} order to {new} instead."
    return _scenario(shop, request, [{"op": "address", "order_id": order["order_id"], "address": new}],
                     _base_lookups(find, shop), _get(order)[0], {"openers": openers, "addresses": [new, u["address"]]})


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
        lookups.insert(1, (render_call("get_user", {"user_id": u["user_id"]}), [f"users:{u['user_id']}", *pms]))
        where = f"on my gift card ({gc['pm_id']})" if rng.random() < 0.3 else "on my gift card"
    else:
        where = "back to the original payment method"
    request = (f"Hi, I'm {who}. I want to return my order with the {_name(products[0])} and the "
               f"{_name(products[1])}, refund {where}. How much will I get back?")
    return _scenario(shop, request, [{"op": "return", "order_id": order["order_id"], "to": to, "answer": True}],
                     lookups, _get(order)[0], {"openers": openers})


def cancel_all_pending(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    products = shop.pick_products(rng.randint(2, 3))
    orders = [shop.order(u, "pending", [p]) for p in products]
    _filler(shop, u, products, rng.randint(1, 2))
    reason = rng.choice(list(REASON_PHRASES))
    request = (f"This is {who}. Please cancel every order of mine that has not shipped yet - "
               f"{REASON_PHRASES[reason].replace('it', 'them')}.")
    intents = [{"op": "cancel", "order_id": o["order_id"], "reason": reason, "if_forbidden": "skip"} for o in orders]
    return _scenario(shop, request, intents, _base_lookups(find, shop),
                     render_call("list_orders", {"user_id": u["user_id"]}), {"openers": openers})


def cancel_and_readdress(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    a, b = shop.pick_products(2)
    oa, ob = shop.order(u, "pending", [a]), shop.order(u, "pending", [b])
    _filler(shop, u, [a, b], 1)
    new = _address(rng)
    reason = rng.choice(list(REASON_PHRASES))
    request = (f"Hi, this is {who}. Two things: cancel the order with the {_name(a)} ({REASON_PHRASES[reason]}), and send "
               f"the {_name(b)} to my new address, {new}.")
    intents = [{"op": "cancel", "order_id": oa["order_id"], "reason": reason},
               {"op": "address", "order_id": ob["order_id"], "address": new}]
    return _scenario(shop, request, intents, _base_lookups(find, shop),
                     render_call("list_orders", {"user_id": u["user_id"]}),
                     {"openers": openers, "addresses": [new, u["address"]]})


def return_and_cancel(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    a, b = shop.pick_products(2)
    oa = shop.order(u, "delivered", [a], delivered_ago=rng.randint(1, 25))
    ob = shop.order(u, "pending", [b])
    _filler(shop, u, [a, b], 1)
    request = (f"Hello, {who} here. I'm returning the {_name(a)} (refund to the original payment, please) and I "
               f"no longer need the {_name(b)} I ordered, so cancel that one.")
    intents = [{"op": "return", "order_id": oa["order_id"], "to": "original"},
               {"op": "cancel", "order_id": ob["order_id"], "reason": "no longer needed"}]
    return _scenario(shop, request, intents, _base_lookups(find, shop) + [_get(oa)],
                     render_call("list_orders", {"user_id": u["user_id"]}), {"openers": openers})


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
    return _scenario(shop, request, [{"op": "cancel", "order_id": order["order_id"], "reason": "no longer needed"}],
                     _base_lookups(find, shop), _get(order)[0], {"openers": openers})


def refuse_late_return(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    (p,) = shop.pick_products(1)
    order = shop.order(u, "delivered", [p], delivered_ago=rng.randint(31, 80))
    _filler(shop, u, [p], 1)
    request = f"This is {who}. I'd like to return the {_name(p)} I bought and get my money back the way I paid."
    return _scenario(shop, request, [{"op": "return", "order_id": order["order_id"], "to": "original"}],
                     _base_lookups(find, shop), _get(order)[0], {"openers": openers})


def swap_variant(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    (p,) = shop.pick_products(1)
    order = shop.order(u, "pending", [p])
    _filler(shop, u, [p], 1)
    other = rng.choice([q for q in shop.products if q["name"] == p["name"] and q is not p])
    request = (f"Hi, this is {who}. In my pending order, please swap the {_name(p)} ({p['variant']}) for the "
               f"{other['variant']} one. What is my new order total?")
    variants = [f"products:{q['item_id']}" for q in shop.products if q["name"] == p["name"]]
    lookups = _base_lookups(find, shop) + [_get(order), (render_call("search_products", {"query": p["name"]}), variants)]
    intent = {"op": "modify", "order_id": order["order_id"], "item_id": p["item_id"],
              "new_item_id": other["item_id"], "answer": True}
    return _scenario(shop, request, [intent], lookups, _get(order)[0],
                     {"openers": openers, "queries": [p["name"], other["variant"]]})


def refuse_readdress_shipped(rng: random.Random) -> Scenario:
    shop = _Shop(rng)
    who, find, openers = _identify(rng, shop)
    u = shop.focus()
    (p,) = shop.pick_products(1)
    order = shop.order(u, "shipped", [p])
    _filler(shop, u, [p], 1)
    new = _address(rng)
    request = f"Hello, this is {who}. Please change the delivery address for my {_name(p)} order to {new}."
    return _scenario(shop, request, [{"op": "address", "order_id": order["order_id"], "address": new}],
                     _base_lookups(find, shop), _get(order)[0], {"openers": openers, "addresses": [new]})


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
        cents = 0
        for li in items:
            line = int(round(li["price"] * 100)) * li["qty"]
            cents += int(round(line * 0.85)) if li.get("category") == "electronics" else line
        out.append(round(cents / 100, 2))
    return list(dict.fromkeys(out))


def menu(known: Known, hints: dict[str, Any]) -> list[str]:
    """Candidate calls built from what the agent has seen, most useful first (decoys included)."""
    out: list[str] = list(hints.get("openers", ()))
    users, orders, products, pms = known.of("user"), known.of("order"), known.of("product"), known.of("payment_method")
    for uid in users:
        out += [render_call("list_orders", {"user_id": uid}), render_call("get_user", {"user_id": uid})]
    for query in hints.get("queries", ()):
        out.append(render_call("search_products", {"query": query}))
    for oid in orders:
        out.append(render_call("get_order", {"order_id": oid}))
    for oid, o in orders.items():
        for reason in ("no longer needed", "ordered by mistake"):
            out.append(render_call("cancel_order", {"order_id": oid, "reason": reason}))
        for addr in hints.get("addresses", ()):
            out.append(render_call("update_address", {"order_id": oid, "address": addr}))
        targets = [o["payment_method_id"]] if o.get("payment_method_id") else []
        targets += [pid for pid, pm in pms.items() if pm.get("kind") == "gift_card"]
        for pid in targets:
            for amount in _return_amounts(o):
                out.append(render_call("return_order", {"order_id": oid, "payment_method_id": pid, "amount": amount}))
        for li in o.get("items", ()):
            if isinstance(li, dict):
                for iid, p in products.items():
                    if p.get("name") == li.get("name") and iid != li.get("item_id"):
                        out.append(render_call("modify_item", {"order_id": oid, "item_id": li["item_id"],
                                                               "new_item_id": iid}))
    return out
