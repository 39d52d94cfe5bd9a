"""Browser task templates: each builds, from a seeded RNG, a site's initial tables, the request,
the ops the verifier applies (the allowed writes), the answer spec, the evidence a refusal must
rest on, and the changes other actors may make mid-episode (drift).

Three sites (shop, forum, admin), four tiers (lookup, single, multi, refusal). Templates marked
``heldout`` appear only in the held-out split.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentgym.world.tasks import templates_by_key
from agentgym.world.templates import Template

__all__ = ["Scenario", "Template", "TEMPLATES", "TIERS", "SITES", "STALE_SHARE", "stale_listings"]

TIERS = ("lookup", "single", "multi", "refusal")
SITES = ("shop", "forum", "admin")
TODAY = "2024-06-12"
STALE_SHARE = 1 / 3
"""The share of records a listing (search results, order list, board, user list) shows wrongly."""


@dataclass
class Scenario:
    """What a template builds: the site state, the request and what success means."""

    site: str
    tables: dict[str, list[dict[str, Any]]]
    request: str
    ops: list[dict[str, Any]] = field(default_factory=list)
    answer: dict[str, Any] | None = None
    evidence: list[str] = field(default_factory=list)
    drifts: list[dict[str, Any]] = field(default_factory=list)
    start: str = "/"


# ---------------------------------------------------------------------- shop world
_CATS = {
    "Lighting": ("Desk Lamp", "Floor Lamp", "LED Strip", "Reading Light", "Lantern"),
    "Kitchen": ("Chef Knife", "Frying Pan", "Kettle", "Coffee Grinder", "Cutting Board"),
    "Audio": ("Headphones", "Bluetooth Speaker", "Earbuds", "Soundbar", "Turntable"),
    "Outdoor": ("Tent", "Sleeping Bag", "Camp Stove", "Water Bottle", "Hiking Poles"),
    "Office": ("Notebook", "Desk Chair", "Monitor Stand", "Stapler", "Whiteboard"),
}
_BRANDS = ("Lumen", "Northwind", "Acme", "Harbor", "Vela", "Orion", "Kestrel", "Tamarack")
_ADJ = ("Aurora", "Classic", "Compact", "Pro", "Trail", "Studio", "Nova", "Summit", "Breeze", "Metro")
_PEOPLE = (
    "Ana Silva",
    "Ben Okafor",
    "Chloe Martin",
    "Dev Patel",
    "Elif Kaya",
    "Femi Adeyemi",
    "Grace Liu",
    "Hugo Brandt",
)
_STREETS = ("12 Harbor Lane, Portsmouth", "48 Elm Street, Springfield", "7 Quay Road, Bristol", "301 Pine Ave, Oakland")


def _shop(rng: random.Random, n_products: int = 40) -> dict[str, list[dict[str, Any]]]:
    names: set[str] = set()
    products: list[dict[str, Any]] = []
    while len(products) < n_products:
        cat = rng.choice(sorted(_CATS))
        name = "%s %s %s" % (rng.choice(_BRANDS), rng.choice(_ADJ), rng.choice(_CATS[cat]))
        if name in names:
            continue
        names.add(name)
        products.append(
            {
                "pid": "P%d" % (1001 + len(products)),
                "name": name,
                "brand": name.split()[0],
                "category": cat,
                "price_cents": rng.randrange(499, 24999, 50),
                "stock": rng.randint(6, 40),
                "rating": round(rng.uniform(2.5, 5.0), 1),
                "blurb": "A %s %s from %s."
                % (
                    rng.choice(("sturdy", "light", "quiet", "bright", "handy")),
                    name.split(" ", 2)[2].lower(),
                    name.split()[0],
                ),
            }
        )
    coupons = [
        {"code": "SAVE10", "percent": 10, "min_cents": 0, "expires": "2024-12-31"},
        {"code": "BIG15", "percent": 15, "min_cents": 10000, "expires": "2024-09-30"},
        {"code": "SPRING20", "percent": 20, "min_cents": 0, "expires": "2024-05-31"},
    ]
    orders, items = [], []
    for i, status in enumerate(rng.sample(["processing", "processing", "shipped", "delivered", "processing"], 5)):
        oid = "O%d" % (7001 + i)
        lines = rng.sample(products, rng.randint(1, 2))
        sub = 0
        for p in lines:
            qty = rng.randint(1, 2)
            sub += qty * p["price_cents"]
            items.append(
                {
                    "line": "%s/%s" % (oid, p["pid"]),
                    "oid": oid,
                    "pid": p["pid"],
                    "qty": qty,
                    "price_cents": p["price_cents"],
                }
            )
        ship = 0 if sub >= 5000 else 499
        orders.append(
            {
                "oid": oid,
                "placed": "2024-06-%02d" % (1 + i * 2),
                "status": status,
                "ship": "standard",
                "address": _STREETS[0],
                "coupon": "",
                "subtotal_cents": sub,
                "discount_cents": 0,
                "shipping_cents": ship,
                "total_cents": sub + ship,
                "cancel_reason": "",
            }
        )
    customer = rng.choice(_PEOPLE)
    settings = [
        {"key": "today", "value": TODAY},
        {"key": "customer", "value": customer},
        {"key": "address", "value": rng.choice(_STREETS)},
    ]
    return {
        "settings": settings,
        "products": products,
        "coupons": coupons,
        "cart": [],
        "orders": orders,
        "order_items": items,
        "_session": [{"key": k, "value": ""} for k in ("coupon", "ship", "address")],
    }


def _order_with(tables: dict[str, Any], status: str) -> dict[str, Any]:
    return next(o for o in tables["orders"] if o["status"] == status)


def _names_in(tables: dict[str, Any], oid: str) -> list[str]:
    by_pid = {p["pid"]: p["name"] for p in tables["products"]}
    return [by_pid[i["pid"]] for i in tables["order_items"] if i["oid"] == oid]


def shop_price_lookup(rng: random.Random) -> Scenario:
    t = _shop(rng)
    p = rng.choice(t["products"])
    return Scenario(
        "shop",
        t,
        'What does the "%s" cost on Harbor Shop right now? Finish with the price only, e.g. '
        'finish("$12.34").' % p["name"],
        answer={"kind": "price", "pid": p["pid"]},
        evidence=["products:%s" % p["pid"]],
        drifts=[
            {
                "fn": "price",
                "args": {"pid": p["pid"], "cents": p["price_cents"] + 300},
                "touches": ["products:%s" % p["pid"]],
                "what": "the shop raised a price",
            }
        ],
    )


def _buy_drifts(products: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for p in products:
        key = "products:%s" % p["pid"]
        out.append(
            {
                "fn": "price",
                "args": {"pid": p["pid"], "cents": p["price_cents"] - 200},
                "touches": [key],
                "what": "the shop cut the price of %s" % p["name"],
            }
        )
        out.append(
            {
                "fn": "sold",
                "args": {"pid": p["pid"], "n": 2},
                "touches": [key],
                "what": "another customer bought two %s" % p["name"],
            }
        )
    return out


def shop_buy_one(rng: random.Random) -> Scenario:
    t = _shop(rng)
    p = rng.choice(t["products"])
    qty, ship = rng.randint(1, 3), rng.choice(["standard", "express"])
    return Scenario(
        "shop",
        t,
        'Buy %d x "%s" with %s shipping to your saved address, then finish.' % (qty, p["name"], ship),
        ops=[{"op": "place_order", "items": [[p["pid"], qty]], "coupon": "", "ship": ship}],
        drifts=_buy_drifts([p]),
    )


def shop_buy_with_coupon(rng: random.Random) -> Scenario:
    t = _shop(rng)
    a, b, junk = rng.sample(t["products"], 3)
    t["cart"] = [{"pid": junk["pid"], "qty": 1}]
    qa, qb = rng.randint(1, 2), 1
    sub = qa * a["price_cents"] + qb * b["price_cents"]
    code = "BIG15" if sub >= 10000 else "SAVE10"
    items = sorted([[a["pid"], qa], [b["pid"], qb]])
    return Scenario(
        "shop",
        t,
        'Your cart still holds something from last week. Buy only %d x "%s" and %d x "%s", '
        "use the coupon %s, choose standard shipping, then finish." % (qa, a["name"], qb, b["name"], code),
        ops=[{"op": "place_order", "items": items, "coupon": code, "ship": "standard"}],
        drifts=_buy_drifts([a, b]),
    )


def shop_cancel_order(rng: random.Random) -> Scenario:
    t = _shop(rng)
    o = _order_with(t, "processing")
    reason = rng.choice(["changed my mind", "ordered by mistake", "found a better price"])
    return Scenario(
        "shop",
        t,
        'Cancel order %s (the one with "%s"); the reason is "%s". Then finish.'
        % (o["oid"], _names_in(t, o["oid"])[0], reason),
        ops=[{"op": "cancel_order", "oid": o["oid"], "reason": reason}],
        evidence=["orders:%s" % o["oid"]],
        drifts=[
            {
                "fn": "ship",
                "args": {"oid": o["oid"]},
                "touches": ["orders:%s" % o["oid"]],
                "what": "the warehouse shipped order %s" % o["oid"],
            }
        ],
    )


def shop_cancel_shipped(rng: random.Random) -> Scenario:
    t = _shop(rng)
    o = _order_with(t, rng.choice(["shipped", "delivered"]))
    return Scenario(
        "shop",
        t,
        'Cancel order %s (the one with "%s"); the reason is "changed my mind". If the shop '
        "does not allow it, change nothing and finish saying that you cannot." % (o["oid"], _names_in(t, o["oid"])[0]),
        ops=[{"op": "cancel_order", "oid": o["oid"], "reason": "changed my mind"}],
        evidence=["orders:%s" % o["oid"]],
    )


def shop_order_total(rng: random.Random) -> Scenario:
    t = _shop(rng)
    o = rng.choice(t["orders"])
    return Scenario(
        "shop",
        t,
        'What was the total of your order %s? Finish with the amount only, e.g. finish("$12.34").' % o["oid"],
        answer={"kind": "order_total", "oid": o["oid"]},
        evidence=["orders:%s" % o["oid"]],
    )


# ---------------------------------------------------------------------- forum world
_BOARDS = ("General", "Help", "Marketplace", "Announcements")
_SUBJECTS = (
    "bike commuting",
    "sourdough starters",
    "home solar panels",
    "used laptops",
    "rain gear",
    "balcony gardens",
    "the ferry timetable",
    "kids' football",
    "street parking",
    "the summer fair",
    "board game nights",
    "noisy neighbours",
    "library hours",
    "winter tyres",
    "pet sitting",
)
_FORMATS = ("Tips for %s", "Question about %s", "Anyone tried %s?", "Thoughts on %s", "Help with %s")
_MEMBERS = ("alice_w", "bob_k", "carmen_r", "dmitri_v", "erin_l", "farid_n", "gwen_t", "hiro_s")
_WORDS = ("recommend", "suggest", "tuesday", "wednesday", "morning", "evening", "cheaper", "faster")
_SWAPS = {
    "recommend": "suggest",
    "suggest": "recommend",
    "tuesday": "thursday",
    "wednesday": "friday",
    "morning": "afternoon",
    "evening": "night",
    "cheaper": "pricier",
    "faster": "slower",
}


def _forum(rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    boards = [{"bid": "b%d" % (i + 1), "name": n, "position": i} for i, n in enumerate(_BOARDS)]
    titles = rng.sample([f % s for f in _FORMATS for s in _SUBJECTS], 28)
    threads: list[dict[str, Any]] = []
    posts: list[dict[str, Any]] = []
    for i, title in enumerate(titles):
        tid = "t%d" % (101 + i)
        day = 1 + (i * 3) % 28
        n = rng.randint(2, 6)
        authors = [rng.choice(_MEMBERS) for _ in range(n)]
        for j in range(n):
            word = rng.choice(_WORDS)
            body = "I would %s asking at the %s meetup; it is usually %s." % (
                "recommend" if word not in ("recommend", "suggest") else word,
                rng.choice(_SUBJECTS),
                word if word not in ("recommend", "suggest") else rng.choice(("quiet", "busy", "friendly")),
            )
            posts.append(
                {
                    "pid": "p%d" % (1001 + len(posts)),
                    "tid": tid,
                    "author": authors[j],
                    "body": body,
                    "created": "2024-05-%02d" % min(28, day + j),
                    "flagged": int(rng.random() < 0.12),
                    "hidden": 0,
                }
            )
        threads.append(
            {
                "tid": tid,
                "bid": rng.choice(boards[:3])["bid"],
                "title": title,
                "author": authors[0],
                "created": "2024-05-%02d" % day,
                "locked": int(rng.random() < 0.15),
                "pinned": 0,
                "last_post": posts[-1]["pid"],
            }
        )
    settings = [{"key": "today", "value": TODAY}, {"key": "me", "value": "mod_kim"}]
    return {"settings": settings, "boards": boards, "threads": threads, "posts": posts}


def _thread(rng: random.Random, t: dict[str, Any], locked: int) -> dict[str, Any]:
    th = rng.choice([x for x in t["threads"] if x["locked"] == locked])
    return th


def _reply_drift(th: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return {
        "fn": "reply",
        "args": {
            "tid": th["tid"],
            "pid": "p9001",
            "author": rng.choice(_MEMBERS),
            "body": "Same question here, following this thread.",
        },
        "touches": ["threads:%s" % th["tid"]],
        "what": "a member replied in %s" % th["tid"],
    }


def forum_reply(rng: random.Random) -> Scenario:
    t = _forum(rng)
    th = _thread(rng, t, 0)
    body = rng.choice(
        (
            "Thanks, this helped a lot.",
            "Please keep this thread on topic.",
            "The meetup moved to the library this month.",
            "I can lend a pump if anyone needs one.",
        )
    )
    return Scenario(
        "forum",
        t,
        'Reply to the thread "%s" with exactly this text: %s' % (th["title"], body),
        ops=[{"op": "reply", "tid": th["tid"], "body": body}],
        start="/forum",
        drifts=[
            _reply_drift(th, rng),
            {
                "fn": "pin",
                "args": {"tid": th["tid"]},
                "touches": ["threads:%s" % th["tid"]],
                "what": "another moderator pinned %s" % th["tid"],
            },
        ],
    )


def forum_fix_post(rng: random.Random) -> Scenario:
    t = _forum(rng)
    cands = [p for p in t["posts"] if any(w in p["body"].split() for w in _SWAPS)]
    p = rng.choice(cands)
    old = next(w for w in p["body"].replace(";", " ").replace(".", " ").split() if w in _SWAPS)
    th = next(x for x in t["threads"] if x["tid"] == p["tid"])
    return Scenario(
        "forum",
        t,
        'In the thread "%s", post %s by %s says "%s" where the author meant "%s". Edit the post '
        'so every "%s" becomes "%s" and nothing else changes.'
        % (th["title"], p["pid"], p["author"], old, _SWAPS[old], old, _SWAPS[old]),
        ops=[{"op": "replace_text", "pid": p["pid"], "old": old, "new": _SWAPS[old]}],
        start="/forum",
        drifts=[
            {
                "fn": "note",
                "args": {"pid": p["pid"], "note": " (Link fixed by mod_lee.)"},
                "touches": ["posts:%s" % p["pid"]],
                "what": "another moderator edited %s" % p["pid"],
            }
        ],
    )


def forum_lock_pin(rng: random.Random) -> Scenario:
    t = _forum(rng)
    th = _thread(rng, t, 0)
    return Scenario(
        "forum",
        t,
        'The thread "%s" is settled: lock it and pin it to the top of its board.' % th["title"],
        ops=[{"op": "set_thread", "tid": th["tid"], "fields": {"locked": 1, "pinned": 1}}],
        start="/forum",
        drifts=[_reply_drift(th, rng)],
    )


def forum_hide_flagged(rng: random.Random) -> Scenario:
    t = _forum(rng)
    spammer = rng.choice(_MEMBERS)
    mine = [p for p in t["posts"] if p["author"] == spammer]
    for p in rng.sample(mine, min(len(mine), rng.randint(2, 3))):
        p["flagged"] = 1
    flagged = [p for p in t["posts"] if p["author"] == spammer and p["flagged"]]
    return Scenario(
        "forum",
        t,
        "Hide every flagged post by %s in the moderation queue. Leave flags on other members' posts alone." % spammer,
        ops=[{"op": "hide_flagged", "author": spammer}],
        start="/forum",
        drifts=[
            {
                "fn": "hide",
                "args": {"pid": p["pid"]},
                "touches": ["posts:%s" % p["pid"]],
                "what": "another moderator hid %s" % p["pid"],
            }
            for p in flagged[:1]
        ],
    )


def forum_reply_count(rng: random.Random) -> Scenario:
    t = _forum(rng)
    th = rng.choice(t["threads"])
    return Scenario(
        "forum",
        t,
        'How many replies does the thread "%s" have (posts after the first one)? Finish with the '
        "number only." % th["title"],
        answer={"kind": "replies", "tid": th["tid"]},
        evidence=["threads:%s" % th["tid"]],
        start="/forum",
        drifts=[] if th["locked"] else [_reply_drift(th, rng)],
    )


def forum_reply_locked(rng: random.Random) -> Scenario:
    t = _forum(rng)
    th = rng.choice(t["threads"])
    th["locked"] = 1
    return Scenario(
        "forum",
        t,
        'Reply to the thread "%s" with exactly this text: Any update on this? If the forum does '
        "not allow it, change nothing and finish saying that you cannot." % th["title"],
        ops=[{"op": "reply", "tid": th["tid"], "body": "Any update on this?"}],
        evidence=["threads:%s" % th["tid"]],
        start="/forum",
    )


def forum_move_thread(rng: random.Random) -> Scenario:
    t = _forum(rng)
    th = _thread(rng, t, 0)
    dest = rng.choice([b for b in t["boards"] if b["bid"] != th["bid"]])
    return Scenario(
        "forum",
        t,
        'Move the thread "%s" to the %s board.' % (th["title"], dest["name"]),
        ops=[{"op": "set_thread", "tid": th["tid"], "fields": {"bid": dest["bid"]}}],
        start="/forum",
        drifts=[_reply_drift(th, rng)],
    )


# ---------------------------------------------------------------------- admin world
_FIRST = (
    "Amira",
    "Bruno",
    "Chen",
    "Dana",
    "Emeka",
    "Freya",
    "Goran",
    "Hana",
    "Ivan",
    "Jia",
    "Kofi",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
)
_LAST = ("Novak", "Reyes", "Tanaka", "Okoro", "Larsen", "Haddad", "Moreau", "Kim", "Silva", "Weber")
_TEAMS = ("Engineering", "Finance", "Marketing", "Sales", "Support")
_ROLES = ("viewer", "editor", "admin")


def _admin(rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    names = rng.sample(["%s %s" % (f, s) for f in _FIRST for s in _LAST], 36)
    accounts = []
    for i, name in enumerate(sorted(names)):
        first, last = name.lower().split()
        accounts.append(
            {
                "uid": "u%d" % (101 + i),
                "name": name,
                "email": "%s.%s@harbor.example" % (first, last),
                "role": rng.choice(_ROLES[:2] * 3 + _ROLES[2:]),
                "team": rng.choice(_TEAMS),
                "status": "active" if rng.random() < 0.85 else "suspended",
                "quota_gb": rng.choice((10, 25, 50, 100, 200)),
            }
        )
    return {
        "settings": [{"key": "today", "value": TODAY}, {"key": "me", "value": "it-admin"}],
        "teams": [{"name": n} for n in _TEAMS],
        "accounts": accounts,
    }


def _quota_drift(u: dict[str, Any]) -> dict[str, Any]:
    return {
        "fn": "quota",
        "args": {"uid": u["uid"], "gb": u["quota_gb"] + 5},
        "touches": ["accounts:%s" % u["uid"]],
        "what": "another admin changed %s's quota" % u["name"],
    }


def admin_change_role(rng: random.Random) -> Scenario:
    t = _admin(rng)
    u = rng.choice(t["accounts"])
    role = rng.choice([r for r in _ROLES if r != u["role"]])
    return Scenario(
        "admin",
        t,
        "Change %s's role to %s in the admin console." % (u["name"], role),
        ops=[{"op": "edit_user", "uid": u["uid"], "fields": {"role": role}}],
        start="/admin",
        drifts=[_quota_drift(u)],
    )


def admin_bulk_suspend(rng: random.Random) -> Scenario:
    t = _admin(rng)
    team, role = rng.choice(_TEAMS), rng.choice(_ROLES[:2])
    group = [a for a in t["accounts"] if a["team"] == team and a["role"] == role]
    others = [a for a in t["accounts"] if a not in group]
    while len(group) < 3:
        a = others.pop(rng.randrange(len(others)))
        a["team"], a["role"] = team, role
        group.append(a)
    for a in group[7:]:
        a["team"] = rng.choice([x for x in _TEAMS if x != team])
    group = group[:7]
    for a in group:
        a["status"] = "active"
    group[-1]["status"] = "suspended"
    targets = sorted(a["uid"] for a in group if a["status"] == "active")
    return Scenario(
        "admin",
        t,
        "Suspend every active %s in the %s team (use the user list's filters and bulk action)." % (role, team),
        ops=[{"op": "bulk_status", "uids": targets, "status": "suspended", "filter": {"team": team, "role": role}}],
        start="/admin",
        drifts=[_quota_drift(next(a for a in group if a["uid"] == targets[0]))],
    )


def admin_quota_too_high(rng: random.Random) -> Scenario:
    t = _admin(rng)
    u = rng.choice(t["accounts"])
    gb = rng.choice((600, 750, 1000))
    return Scenario(
        "admin",
        t,
        "Raise %s's storage quota to %d GB. If the console does not allow it, change nothing and "
        "finish saying that you cannot." % (u["name"], gb),
        ops=[{"op": "edit_user", "uid": u["uid"], "fields": {"quota_gb": gb}}],
        evidence=["accounts:%s" % u["uid"]],
        start="/admin",
    )


def admin_email_lookup(rng: random.Random) -> Scenario:
    t = _admin(rng)
    u = rng.choice(t["accounts"])
    first, last = u["name"].lower().split()
    return Scenario(
        "admin",
        t,
        "What is %s's email address in the admin console? Finish with the address only." % u["name"],
        answer={"kind": "email", "uid": u["uid"]},
        evidence=["accounts:%s" % u["uid"]],
        start="/admin",
        drifts=[
            {
                "fn": "email",
                "args": {"uid": u["uid"], "email": "%s%s@harbor.example" % (first[0], last)},
                "touches": ["accounts:%s" % u["uid"]],
                "what": "another admin changed an email",
            }
        ],
    )


def admin_team_and_quota(rng: random.Random) -> Scenario:
    t = _admin(rng)
    u = rng.choice(t["accounts"])
    team = rng.choice([x for x in _TEAMS if x != u["team"]])
    gb = rng.choice([g for g in (20, 40, 80, 150, 300) if g != u["quota_gb"]])
    return Scenario(
        "admin",
        t,
        "%s is moving to the %s team: change their team and set their storage quota to %d GB." % (u["name"], team, gb),
        ops=[{"op": "edit_user", "uid": u["uid"], "fields": {"team": team, "quota_gb": gb}}],
        start="/admin",
        drifts=[
            {
                "fn": "email",
                "args": {"uid": u["uid"], "email": "x.%s" % u["email"]},
                "touches": ["accounts:%s" % u["uid"]],
                "what": "another admin changed an email",
            }
        ],
    )


TEMPLATES: dict[str, Template] = templates_by_key(
    (
        Template("price_lookup", "shop", "lookup", shop_price_lookup),
        Template("buy_one", "shop", "single", shop_buy_one),
        Template("buy_with_coupon", "shop", "multi", shop_buy_with_coupon),
        Template("cancel_order", "shop", "single", shop_cancel_order),
        Template("cancel_shipped", "shop", "refusal", shop_cancel_shipped),
        Template("order_total", "shop", "lookup", shop_order_total, heldout=True),
        Template("reply", "forum", "single", forum_reply),
        Template("fix_post", "forum", "single", forum_fix_post),
        Template("lock_pin", "forum", "multi", forum_lock_pin),
        Template("hide_flagged", "forum", "multi", forum_hide_flagged),
        Template("reply_count", "forum", "lookup", forum_reply_count),
        Template("reply_locked", "forum", "refusal", forum_reply_locked),
        Template("move_thread", "forum", "single", forum_move_thread, heldout=True),
        Template("change_role", "admin", "single", admin_change_role),
        Template("bulk_suspend", "admin", "multi", admin_bulk_suspend),
        Template("quota_too_high", "admin", "refusal", admin_quota_too_high),
        Template("email_lookup", "admin", "lookup", admin_email_lookup),
        Template("team_and_quota", "admin", "multi", admin_team_and_quota, heldout=True),
    )
)
"""``site/template`` -> Template."""


def stale_listings(sc: Scenario, rng: random.Random) -> Scenario:
    """Make about a third of listed records wrong in their listing (a lagging search index): only a
    record's own page shows its true price, order total and status, reply count and lock, email or
    role (issue 14 item 6)."""
    t, out = sc.tables, []

    def lag(table: str, pk: str, fields: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        for r in t.get(table, []):
            if rng.random() < STALE_SHARE:
                out.append({"key": "%s:%s" % (table, r[pk]), "fields": json.dumps(fields(r), sort_keys=True)})

    def off(cents: int) -> int:
        return max(199, cents + rng.choice((-1, 1)) * rng.randrange(100, 2000, 50))

    if sc.site == "shop":
        lag("products", "pid", lambda r: {"price_cents": off(r["price_cents"])})
        lag(
            "orders",
            "oid",
            lambda r: {
                "total_cents": off(r["total_cents"]),
                "status": "shipped" if r["status"] == "processing" else "processing",
            },
        )
    elif sc.site == "forum":
        posts = Counter(p["tid"] for p in t["posts"])
        lag(
            "threads",
            "tid",
            lambda r: {
                "locked": 1 - r["locked"],
                "replies": max(0, posts[r["tid"]] - 1 + rng.choice((-2, -1, 1, 2)))
                if posts[r["tid"]] > 2
                else posts[r["tid"]] + rng.randint(0, 2),
            },
        )
    else:
        lag(
            "accounts",
            "uid",
            lambda r: {
                "email": r["email"].replace("@", "@old.", 1),
                "role": rng.choice([x for x in _ROLES if x != r["role"]]),
            },
        )
    t["_listing"] = out
    return sc
