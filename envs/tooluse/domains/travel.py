"""Travel domain: an airline's reservations desk — book, cancel and change flights.

Each task seeds a flight schedule, customers with cards and travel certificates, and their
bookings. The policy below is shown to the agent; the tools do not enforce it, the solver does.
Stdlib only: this module also runs in the sandbox (see `agentgym.envs.tooluse.engine`).
"""

from __future__ import annotations

import datetime
import random
from typing import Any

from agentgym.envs.tooluse.engine import (
    Arg,
    Call,
    Known,
    Scenario,
    ToolError,
    calculate,
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

NAME = "travel"
ROLE = "You are a reservations agent for Aster Air."
CANCEL_NOTICE_DAYS = 2
CABINS = ("basic", "economy", "business")
MAX_PASSENGERS = 9
POLICY = f"""\
1. Identify the customer by email first and act only on that customer's bookings.
2. A booking can be cancelled only if its flight departs at least {CANCEL_NOTICE_DAYS} days after today. Basic economy
   bookings cannot be cancelled unless the customer is a gold member. A cancellation refunds the total.
3. A booking can be moved to another flight on the same route only if it is not basic economy and its
   flight has not departed; the cabin and passengers stay the same.
4. Book only what the customer asked for, paid with their own payment method. "Cheapest" means the
   lowest fare in the requested cabin among flights with enough seats for the whole party.
5. A travel certificate can pay for a booking only if its balance covers the whole fare.
6. If the policy forbids a request, change nothing and tell the customer you cannot do it."""

SCHEMA = """
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
"""
ENTITIES = (
    ("booking_id", "booking"),
    ("flight_id", "flight"),
    ("payment_method_id", "payment_method"),
    ("user_id", "user"),
)
"""Which entity kind an id field in a tool result names (first match wins), for the menu."""
REREAD = {
    "bookings": ("get_booking", "booking_id"),
    "flights": ("get_flight", "flight_id"),
    "users": ("get_user", "user_id"),
}
"""How to read one record of a table again: its get tool and argument."""


def fare_cents(flight: dict[str, Any], cabin: str, passengers: int) -> int:
    return flight["price_%s_cents" % cabin] * passengers


# ---------------------------------------------------------------------------- tools
USER = Arg("string", "customer id, e.g. U1234")
BOOKING = Arg("string", "booking id")


@tool("A customer's profile, membership tier, payment methods and booking ids.")
def get_user(c, user_id: USER):
    u = c.get("users", user_id, "customer")
    c.ref("users", user_id)
    bookings = [
        r["booking_id"]
        for r in rows(c.db, "SELECT booking_id FROM bookings WHERE user_id=? ORDER BY booked, booking_id", user_id)
    ]
    return {
        "user_id": user_id,
        "name": u["name"],
        "email": u["email"],
        "tier": u["tier"],
        "payment_methods": payment_methods(c, user_id),
        "bookings": bookings,
    }


def _flight(f):
    return {
        "flight_id": f["flight_id"],
        "origin": f["origin"],
        "destination": f["destination"],
        "date": f["date"],
        "depart": f["depart"],
        "status": f["status"],
        "seats_left": f["seats_left"],
        "prices": {cab: money(f["price_%s_cents" % cab]) for cab in CABINS},
    }


@tool("A customer's bookings with route, date, cabin, passengers, status and total.")
def list_bookings(c, user_id: USER):
    c.get("users", user_id, "customer")
    out = []
    for b in rows(
        c.db,
        "SELECT b.*, f.origin, f.destination, f.date, f.depart FROM bookings b JOIN flights f "
        "ON f.flight_id=b.flight_id WHERE b.user_id=? ORDER BY f.date, f.depart, b.booking_id",
        user_id,
    ):
        c.ref("bookings", b["booking_id"])
        out.append(
            {
                "booking_id": b["booking_id"],
                "flight_id": b["flight_id"],
                "origin": b["origin"],
                "destination": b["destination"],
                "date": b["date"],
                "depart": b["depart"],
                "cabin": b["cabin"],
                "passengers": b["passengers"],
                "status": b["status"],
                "total": money(b["total_cents"]),
            }
        )
    return {"user_id": user_id, "bookings": out}


@tool("One booking in full, with its flight.")
def get_booking(c, booking_id: BOOKING):
    b = c.get("bookings", booking_id, "booking")
    c.ref("bookings", booking_id)
    f = c.get("flights", b["flight_id"], "flight")
    c.ref("flights", b["flight_id"])
    return {
        "booking_id": booking_id,
        "user_id": b["user_id"],
        "status": b["status"],
        "cabin": b["cabin"],
        "passengers": b["passengers"],
        "booked": b["booked"],
        "payment_method_id": b["pm_id"],
        "total": money(b["total_cents"]),
        "flight": _flight(f),
    }


@tool("Flights on a route and date with fares per cabin and seats left.")
def search_flights(
    c,
    origin: Arg("string", "3-letter airport code"),
    destination: Arg("string", "3-letter airport code"),
    date: Arg("string", "YYYY-MM-DD"),
):
    try:
        iso_date(date)
    except ValueError:
        raise ToolError("bad_args", "date must be YYYY-MM-DD, got %r" % date) from None
    found = rows(
        c.db,
        "SELECT * FROM flights WHERE origin=? AND destination=? AND date=? ORDER BY depart, flight_id",
        origin.strip().upper(),
        destination.strip().upper(),
        date,
    )
    for f in found:
        c.ref("flights", f["flight_id"])
    return {
        "origin": origin.upper(),
        "destination": destination.upper(),
        "date": date,
        "flights": [_flight(f) for f in found],
    }


@tool("One flight: route, date, departure time, status, fares, seats left.")
def get_flight(c, flight_id: Arg("string", "flight number, e.g. AG123")):
    f = c.get("flights", flight_id, "flight")
    c.ref("flights", flight_id)
    return _flight(f)


@tool("Book a flight for a customer and charge a payment method.", writes=True)
def book_flight(
    c,
    user_id: USER,
    flight_id: Arg("string", "flight number"),
    cabin: Arg("string", "cabin", enum=CABINS),
    passengers: Arg("integer", f"number of travellers, 1-{MAX_PASSENGERS}"),
    payment_method_id: Arg("string", "the customer's payment method"),
):
    c.get("users", user_id, "customer")
    f = c.get("flights", flight_id, "flight")
    if cabin not in CABINS:
        raise ToolError("bad_args", "cabin must be one of %s" % (CABINS,))
    if not 1 <= passengers <= MAX_PASSENGERS:
        raise ToolError("bad_args", "passengers must be between 1 and %d" % MAX_PASSENGERS)
    pm = c.get("payment_methods", payment_method_id, "payment method")
    if pm["user_id"] != user_id:
        raise ToolError("conflict", "payment method %s does not belong to %s" % (payment_method_id, user_id))
    if f["status"] != "scheduled":
        raise ToolError("conflict", "flight %s is %s" % (flight_id, f["status"]))
    if f["seats_left"] < passengers:
        raise ToolError("conflict", "flight %s has only %d seat(s) left" % (flight_id, f["seats_left"]))
    booking_id = "%s-%s" % (flight_id, user_id)
    if one(c.db, "SELECT 1 AS x FROM bookings WHERE booking_id=?", booking_id):
        raise ToolError("conflict", "%s already holds booking %s on this flight" % (user_id, booking_id))
    total = fare_cents(f, cabin, passengers)
    c.update("flights", flight_id, {"seats_left": f["seats_left"] - passengers})
    if pm["balance_cents"] is not None:
        c.update("payment_methods", payment_method_id, {"balance_cents": pm["balance_cents"] - total})
    c.insert(
        "bookings",
        {
            "booking_id": booking_id,
            "user_id": user_id,
            "flight_id": flight_id,
            "cabin": cabin,
            "passengers": passengers,
            "status": "confirmed",
            "booked": c.today.isoformat(),
            "pm_id": payment_method_id,
            "total_cents": total,
        },
        target=True,
    )
    return {
        "booking_id": booking_id,
        "flight_id": flight_id,
        "cabin": cabin,
        "passengers": passengers,
        "total": money(total),
        "payment_method_id": payment_method_id,
        "status": "confirmed",
    }


@tool("Cancel a booking and refund its total to the payment method.", writes=True)
def cancel_booking(c, booking_id: BOOKING):
    b = c.get("bookings", booking_id, "booking")
    if b["status"] == "cancelled":
        raise ToolError("conflict", "booking %s is already cancelled" % booking_id)
    f = c.get("flights", b["flight_id"], "flight")
    c.update("flights", f["flight_id"], {"seats_left": f["seats_left"] + b["passengers"]})
    refund_id = "RF-%s" % booking_id
    c.insert(
        "refunds",
        {"refund_id": refund_id, "booking_id": booking_id, "pm_id": b["pm_id"], "amount_cents": b["total_cents"]},
    )
    refund_to_method(c, b["pm_id"], b["total_cents"])
    c.update("bookings", booking_id, {"status": "cancelled"}, target=True)
    return {
        "booking_id": booking_id,
        "status": "cancelled",
        "refund": {"amount": money(b["total_cents"]), "payment_method_id": b["pm_id"]},
    }


@tool("Move a booking to another flight on the same route; the fare is recomputed.", writes=True)
def change_flight(c, booking_id: BOOKING, new_flight_id: Arg("string", "flight number to move to")):
    b = c.get("bookings", booking_id, "booking")
    if b["status"] == "cancelled":
        raise ToolError("conflict", "booking %s is cancelled" % booking_id)
    new = c.get("flights", new_flight_id, "flight")
    old = c.get("flights", b["flight_id"], "flight")
    if new_flight_id == b["flight_id"]:
        raise ToolError("bad_args", "booking %s is already on flight %s" % (booking_id, new_flight_id))
    if (new["origin"], new["destination"]) != (old["origin"], old["destination"]):
        raise ToolError(
            "conflict",
            "flight %s flies %s-%s, not the booking's route %s-%s"
            % (new_flight_id, new["origin"], new["destination"], old["origin"], old["destination"]),
        )
    if new["status"] != "scheduled":
        raise ToolError("conflict", "flight %s is %s" % (new_flight_id, new["status"]))
    if new["seats_left"] < b["passengers"]:
        raise ToolError("conflict", "flight %s has only %d seat(s) left" % (new_flight_id, new["seats_left"]))
    total = fare_cents(new, b["cabin"], b["passengers"])
    c.update("flights", old["flight_id"], {"seats_left": old["seats_left"] + b["passengers"]})
    c.update("flights", new_flight_id, {"seats_left": new["seats_left"] - b["passengers"]})
    c.update("bookings", booking_id, {"flight_id": new_flight_id, "total_cents": total}, target=True)
    return {
        "booking_id": booking_id,
        "flight_id": new_flight_id,
        "date": new["date"],
        "depart": new["depart"],
        "total": money(total),
    }


TOOLS = (
    tool("Find a customer by email address.")(find_user_by_email),
    get_user,
    list_bookings,
    get_booking,
    search_flights,
    get_flight,
    book_flight,
    cancel_booking,
    change_flight,
    tool("Evaluate arithmetic, e.g. 2*189.50.")(calculate),
)


# ---------------------------------------------------------------------------- policy solver and drift
def _route_flights(db, origin, destination, day, passengers, exclude=None):
    found = rows(
        db,
        "SELECT * FROM flights WHERE origin=? AND destination=? AND date=? AND status='scheduled' "
        "AND seats_left>=? ORDER BY depart, flight_id",
        origin,
        destination,
        day,
        passengers,
    )
    return [f for f in found if f["flight_id"] != exclude]


def solve(db, today, it):
    """One intent under the policy: (allowed, why not, writes, target record, amount for the answer)."""
    op = it["op"]
    if op == "cancel_booking":
        b = one(db, "SELECT * FROM bookings WHERE booking_id=?", it["booking_id"])
        f = one(db, "SELECT * FROM flights WHERE flight_id=?", b["flight_id"])
        u = one(db, "SELECT * FROM users WHERE user_id=?", b["user_id"])
        target = "bookings:%s" % b["booking_id"]
        days = (iso_date(f["date"]) - today).days
        if b["status"] != "confirmed":
            return False, "booking %s is %s" % (b["booking_id"], b["status"]), [], target, None
        if days < CANCEL_NOTICE_DAYS:
            return (
                False,
                "flight %s departs in %d day(s); cancellations need %d days' notice"
                % (f["flight_id"], days, CANCEL_NOTICE_DAYS),
                [],
                target,
                None,
            )
        if b["cabin"] == "basic" and u["tier"] != "gold":
            return (
                False,
                "basic economy bookings cannot be cancelled (the customer is not a gold member)",
                [],
                target,
                None,
            )
        return True, "", [("cancel_booking", {"booking_id": b["booking_id"]})], target, b["total_cents"]
    if op == "change":
        b = one(db, "SELECT * FROM bookings WHERE booking_id=?", it["booking_id"])
        f = one(db, "SELECT * FROM flights WHERE flight_id=?", b["flight_id"])
        target = "bookings:%s" % b["booking_id"]
        if b["cabin"] == "basic":
            return False, "basic economy bookings cannot be changed", [], target, None
        if b["status"] != "confirmed" or iso_date(f["date"]) < today or f["status"] != "scheduled":
            return False, "booking %s can no longer be changed" % b["booking_id"], [], target, None
        options = _route_flights(db, f["origin"], f["destination"], it["date"], b["passengers"], exclude=f["flight_id"])
        if not options:
            return (
                False,
                "no flight %s-%s on %s has %d seat(s) left"
                % (f["origin"], f["destination"], it["date"], b["passengers"]),
                [],
                target,
                None,
            )
        new = options[0] if it.get("select", "earliest") == "earliest" else options[-1]
        total = fare_cents(new, b["cabin"], b["passengers"])
        return (
            True,
            "",
            [("change_flight", {"booking_id": b["booking_id"], "new_flight_id": new["flight_id"]})],
            target,
            total,
        )
    if op == "book":
        options = _route_flights(db, it["origin"], it["destination"], it["date"], it["passengers"])
        if not options:
            return (
                False,
                "no flight %s-%s on %s has %d seat(s) left"
                % (it["origin"], it["destination"], it["date"], it["passengers"]),
                [],
                None,
                None,
            )
        cab = it["cabin"]
        best = min(options, key=lambda f: (f["price_%s_cents" % cab], f["depart"], f["flight_id"]))
        total = fare_cents(best, cab, it["passengers"])
        pm = one(
            db, "SELECT * FROM payment_methods WHERE user_id=? AND kind=? ORDER BY pm_id", it["user_id"], it["pay"]
        )
        target = "bookings:%s-%s" % (best["flight_id"], it["user_id"])
        if pm["balance_cents"] is not None and pm["balance_cents"] < total:
            return (
                False,
                "the travel certificate's balance %.2f does not cover the fare %.2f"
                % (money(pm["balance_cents"]), money(total)),
                [],
                "payment_methods:%s" % pm["pm_id"],
                None,
            )
        args = {
            "user_id": it["user_id"],
            "flight_id": best["flight_id"],
            "cabin": cab,
            "passengers": it["passengers"],
            "payment_method_id": pm["pm_id"],
        }
        return True, "", [("book_flight", args)], target, total
    raise ValueError("unknown travel intent %r" % op)


def drifts(db, intents):
    """What other actors may change mid-episode: (table, id, fields, what the agent is told)."""
    out = []
    routes = set()
    for it in intents:
        if it["op"] == "book":
            routes.add((it["origin"], it["destination"], it["date"]))
        elif it["op"] == "change":
            f = one(
                db,
                "SELECT f.* FROM flights f JOIN bookings b ON b.flight_id=f.flight_id WHERE b.booking_id=?",
                it["booking_id"],
            )
            routes.add((f["origin"], f["destination"], it["date"]))
        else:
            b = one(db, "SELECT * FROM bookings WHERE booking_id=?", it["booking_id"])
            out.append(
                ("flights", b["flight_id"], {"depart": "23:55"}, "the airline retimed flight %s" % b["flight_id"])
            )
    for origin, dest, day in sorted(routes):
        for f in rows(
            db,
            "SELECT * FROM flights WHERE origin=? AND destination=? AND date=? ORDER BY flight_id",
            origin,
            dest,
            day,
        ):
            out.append(("flights", f["flight_id"], {"seats_left": 0}, "flight %s sold out" % f["flight_id"]))
            out.append(
                (
                    "flights",
                    f["flight_id"],
                    {
                        "price_basic_cents": f["price_basic_cents"] + 4000,
                        "price_economy_cents": f["price_economy_cents"] + 5000,
                        "price_business_cents": f["price_business_cents"] + 9000,
                    },
                    "the airline raised the fares on flight %s" % f["flight_id"],
                )
            )
    return out


# ---------------------------------------------------------------------------- the seeded world
AIRPORTS = {
    "SFO": "San Francisco",
    "JFK": "New York",
    "LAX": "Los Angeles",
    "ORD": "Chicago",
    "SEA": "Seattle",
    "BOS": "Boston",
    "DEN": "Denver",
    "ATL": "Atlanta",
    "MIA": "Miami",
    "AUS": "Austin",
}
FIRST = [
    "Hana",
    "Marco",
    "Elif",
    "Tomas",
    "Grace",
    "Yusuf",
    "Ines",
    "Arjun",
    "Maya",
    "Leo",
    "Camila",
    "Oskar",
    "Nadia",
    "Samuel",
    "Freya",
    "Kofi",
]
LAST = [
    "Andersen",
    "Moreau",
    "Yilmaz",
    "Costa",
    "Nakamura",
    "Fischer",
    "Adeyemi",
    "Reyes",
    "Lindqvist",
    "Shah",
    "Romano",
    "Byrne",
]


class _Airline:
    """A seeded schedule, customers with payment methods, and bookings."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.today = datetime.date(2025, 3, 1) + datetime.timedelta(days=rng.randint(0, 240))
        self.ids: set[str] = set()
        self.flights: list[dict[str, Any]] = []
        self.users: list[dict[str, Any]] = []
        self.pms: list[dict[str, Any]] = []
        self.bookings: list[dict[str, Any]] = []
        for first, last in rng.sample([(fn, ln) for fn in FIRST for ln in LAST], 5):
            self._user(first, last)
        for user in self.users[1:]:
            for _ in range(rng.randint(1, 2)):
                o, d = rng.sample(sorted(AIRPORTS), 2)
                f = self.route(o, d, self.day(rng.randint(-3, 60)), 1)[0]
                self.book(user, f, rng.choice(["basic", "economy", "business"]), rng.randint(1, 3))

    def _id(self, prefix: str, digits: int) -> str:
        while True:
            ident = prefix + str(self.rng.randint(10 ** (digits - 1), 10**digits - 1))
            if ident not in self.ids:
                self.ids.add(ident)
                return ident

    def day(self, offset: int) -> str:
        return (self.today + datetime.timedelta(days=offset)).isoformat()

    def _user(self, first: str, last: str) -> dict[str, Any]:
        rng = self.rng
        user = {
            "user_id": self._id("U", 4),
            "name": f"{first} {last}",
            "email": f"{first[0]}{last}{rng.randint(1, 99)}@example.org".lower(),
            "tier": "gold" if rng.random() < 0.3 else "regular",
        }
        self.users.append(user)
        self.pms.append(
            {
                "pm_id": self._id("CC", 4),
                "user_id": user["user_id"],
                "kind": "card",
                "label": f"{rng.choice(['visa', 'mastercard'])} ending {rng.randint(1000, 9999)}",
                "balance_cents": None,
            }
        )
        return user

    def certificate(self, user: dict[str, Any], cents: int) -> dict[str, Any]:
        pm = {
            "pm_id": self._id("TC", 4),
            "user_id": user["user_id"],
            "kind": "certificate",
            "label": "travel certificate",
            "balance_cents": cents,
        }
        self.pms.append(pm)
        return pm

    def route(self, origin: str, dest: str, date: str, n: int) -> list[dict[str, Any]]:
        """n flights on one route and date, with distinct times and fares."""
        rng = self.rng
        hours = sorted(rng.sample(range(6, 22), n))
        base = rng.randint(120, 420) * 100
        fares = rng.sample(range(base - 6000, base + 9000, 500), n)
        out = []
        for hour, fare in zip(hours, fares):
            f = {
                "flight_id": self._id("AG", 3),
                "origin": origin,
                "destination": dest,
                "date": date,
                "depart": f"{hour:02d}:{rng.choice(['00', '15', '30', '45'])}",
                "status": "scheduled" if date >= self.today.isoformat() else "departed",
                "price_basic_cents": int(fare * 0.75) // 100 * 100 + 99 - 100,
                "price_economy_cents": fare - 1,
                "price_business_cents": int(fare * 2.6) // 100 * 100 - 1,
                "seats_left": rng.randint(4, 40),
            }
            self.flights.append(f)
            out.append(f)
        return out

    def book(self, user: dict[str, Any], flight: dict[str, Any], cabin: str, passengers: int) -> dict[str, Any]:
        pm = next(p for p in self.pms if p["user_id"] == user["user_id"] and p["kind"] == "card")
        b = {
            "booking_id": self._id("BK", 5),
            "user_id": user["user_id"],
            "flight_id": flight["flight_id"],
            "cabin": cabin,
            "passengers": passengers,
            "status": "confirmed",
            "booked": self.day(-self.rng.randint(5, 60)),
            "pm_id": pm["pm_id"],
            "total_cents": flight[f"price_{cabin}_cents"] * passengers,
        }
        self.bookings.append(b)
        return b

    def focus(self) -> dict[str, Any]:
        return self.users[0]

    def tables(self) -> dict[str, list[dict[str, Any]]]:
        return {"users": self.users, "payment_methods": self.pms, "flights": self.flights, "bookings": self.bookings}


def _city(code: str) -> str:
    return f"{AIRPORTS[code]} ({code})"


def _intro(rng: random.Random, air: _Airline) -> tuple[str, list[tuple[Call, list[str]]], list[Call]]:
    u = air.focus()
    find = ("find_user_by_email", {"email": u["email"]})
    decoy = ("find_user_by_email", {"email": air.users[1]["email"]})
    return f"{u['name']} ({u['email']})", [(find, [f"users:{u['user_id']}"])], [find, decoy]


def _bookings_lookup(air: _Airline) -> tuple[Call, list[str]]:
    u = air.focus()
    return (
        ("list_bookings", {"user_id": u["user_id"]}),
        [f"bookings:{b['booking_id']}" for b in air.bookings if b["user_id"] == u["user_id"]],
    )


def _user_lookup(air: _Airline) -> tuple[Call, list[str]]:
    u = air.focus()
    return (
        ("get_user", {"user_id": u["user_id"]}),
        [f"users:{u['user_id']}"] + [f"payment_methods:{p['pm_id']}" for p in air.pms if p["user_id"] == u["user_id"]],
    )


def _search(air: _Airline, origin: str, dest: str, date: str) -> tuple[Call, list[str]]:
    keys = [
        f"flights:{f['flight_id']}"
        for f in air.flights
        if (f["origin"], f["destination"], f["date"]) == (origin, dest, date)
    ]
    return ("search_flights", {"origin": origin, "destination": dest, "date": date}), keys


def _other_trip(air: _Airline, avoid: set[str]) -> None:
    """Another booking of the focus customer, on a route the request does not name."""
    rng = air.rng
    o, d = rng.sample(sorted(set(AIRPORTS) - avoid), 2)
    f = air.route(o, d, air.day(rng.randint(3, 50)), 1)[0]
    air.book(air.focus(), f, rng.choice(["economy", "business"]), rng.randint(1, 2))


def _get(booking_id: str) -> Call:
    return ("get_booking", {"booking_id": booking_id})


def _scenario(
    air: _Airline,
    request: str,
    intents: list[dict[str, Any]],
    lookups: list[tuple[Call, list[str]]],
    verify: Call,
    hints: dict[str, Any],
) -> Scenario:
    return Scenario(air.tables(), air.today.isoformat(), request, intents, lookups, verify, hints)


# ---------------------------------------------------------------------------- templates
def cancel_booking(rng: random.Random) -> Scenario:
    air = _Airline(rng)
    who, lookups, openers = _intro(rng, air)
    u = air.focus()
    o, d = rng.sample(sorted(AIRPORTS), 2)
    f = air.route(o, d, air.day(rng.randint(3, 45)), 1)[0]
    cabin = "basic" if u["tier"] == "gold" and rng.random() < 0.5 else rng.choice(["economy", "business"])
    b = air.book(u, f, cabin, rng.randint(1, 3))
    _other_trip(air, {o, d})
    request = (
        f"Hi, {who} here. Please cancel my flight from {AIRPORTS[o]} to {AIRPORTS[d]} on {f['date']}. "
        "How much will I be refunded?"
    )
    return _scenario(
        air,
        request,
        [{"op": "cancel_booking", "booking_id": b["booking_id"], "answer": True}],
        lookups + [_bookings_lookup(air)],
        _get(b["booking_id"]),
        {"openers": openers},
    )


def _party(rng: random.Random) -> tuple[int, str]:
    n = rng.randint(1, 3)
    return n, "just me" if n == 1 else f"{n} passengers"


def book_cheapest(rng: random.Random, pay: str = "card", short: bool = False) -> Scenario:
    air = _Airline(rng)
    who, lookups, openers = _intro(rng, air)
    u = air.focus()
    o, d = rng.sample(sorted(AIRPORTS), 2)
    date = air.day(rng.randint(4, 60))
    n, party = _party(rng)
    cabin = rng.choice(["economy", "economy", "business"]) if pay == "card" else "economy"
    flights = air.route(o, d, date, rng.randint(3, 5))
    if n > 1 and rng.random() < 0.5:  # a trap: the cheapest fare lacks seats for the whole party
        min(flights, key=lambda f: f[f"price_{cabin}_cents"])["seats_left"] = n - 1
    options = [f for f in flights if f["seats_left"] >= n]
    best = min(options, key=lambda f: f[f"price_{cabin}_cents"])
    fare = best[f"price_{cabin}_cents"] * n
    if pay == "certificate":
        air.certificate(u, fare - rng.randint(1, 60) * 100 if short else fare + rng.randint(0, 300) * 100)
        how = "paid with my travel certificate"
    else:
        how = "charged to my credit card"
    if rng.random() < 0.5:
        _other_trip(air, {o, d})
    request = (
        f"Hello, this is {who}. Book the cheapest {cabin} flight from {_city(o)} to {_city(d)} on {date} "
        f"for {party}, {how}. What is the total?"
    )
    intent = {
        "op": "book",
        "user_id": u["user_id"],
        "origin": o,
        "destination": d,
        "date": date,
        "passengers": n,
        "cabin": cabin,
        "pay": pay,
        "answer": True,
    }
    lookups += [_user_lookup(air), _search(air, o, d, date)]
    hints = {"openers": openers, "searches": [[o, d, date], [d, o, date]], "cabins": [cabin], "passengers": [n]}
    return _scenario(air, request, [intent], lookups, _get(f"{best['flight_id']}-{u['user_id']}"), hints)


def change_earliest(rng: random.Random) -> Scenario:
    air = _Airline(rng)
    who, lookups, openers = _intro(rng, air)
    u = air.focus()
    o, d = rng.sample(sorted(AIRPORTS), 2)
    offset = rng.randint(2, 40)
    f = air.route(o, d, air.day(offset), 1)[0]
    b = air.book(u, f, rng.choice(["economy", "business"]), rng.randint(1, 3))
    new_date = air.day(offset + 1)
    later = air.route(o, d, new_date, rng.randint(2, 4))
    if rng.random() < 0.4:  # a trap: the earliest flight is full
        min(later, key=lambda x: x["depart"])["seats_left"] = b["passengers"] - 1
    _other_trip(air, {o, d})
    request = (
        f"Hi, this is {who}. My plans moved: please put my {AIRPORTS[o]} to {AIRPORTS[d]} booking on {f['date']} on "
        f"the earliest flight the next day, {new_date}."
    )
    lookups += [_bookings_lookup(air), _search(air, o, d, new_date)]
    return _scenario(
        air,
        request,
        [{"op": "change", "booking_id": b["booking_id"], "date": new_date}],
        lookups,
        _get(b["booking_id"]),
        {"openers": openers, "searches": [[o, d, new_date], [o, d, f["date"]]]},
    )


def cancel_round_trip(rng: random.Random) -> Scenario:
    air = _Airline(rng)
    who, lookups, openers = _intro(rng, air)
    u = air.focus()
    o, d = rng.sample(sorted(AIRPORTS), 2)
    out_day = rng.randint(3, 40)
    cabin = rng.choice(["economy", "business"])
    n = rng.randint(1, 3)
    b1 = air.book(u, air.route(o, d, air.day(out_day), 1)[0], cabin, n)
    b2 = air.book(u, air.route(d, o, air.day(out_day + rng.randint(2, 9)), 1)[0], cabin, n)
    _other_trip(air, {o, d})
    request = f"Hello, this is {who}. My trip to {AIRPORTS[d]} is off: cancel both flights of it, there and back."
    intents = [
        {"op": "cancel_booking", "booking_id": b1["booking_id"]},
        {"op": "cancel_booking", "booking_id": b2["booking_id"]},
    ]
    return _scenario(
        air,
        request,
        intents,
        lookups + [_bookings_lookup(air)],
        ("list_bookings", {"user_id": u["user_id"]}),
        {"openers": openers},
    )


def book_round_trip(rng: random.Random) -> Scenario:
    air = _Airline(rng)
    who, lookups, openers = _intro(rng, air)
    u = air.focus()
    o, d = rng.sample(sorted(AIRPORTS), 2)
    offset = rng.randint(4, 40)
    go, back = air.day(offset), air.day(offset + rng.randint(2, 10))
    air.route(o, d, go, rng.randint(2, 4))
    air.route(d, o, back, rng.randint(2, 4))
    n, party = _party(rng)
    request = (
        f"Hi, this is {who}. I need a round trip in economy for {party}: {_city(o)} to {_city(d)} on {go}, "
        f"back on {back}. Take the cheapest flight each way, on my credit card, and tell me the total for both."
    )
    base = {"user_id": u["user_id"], "passengers": n, "cabin": "economy", "pay": "card", "answer": True}
    intents = [
        dict(base, op="book", origin=o, destination=d, date=go),
        dict(base, op="book", origin=d, destination=o, date=back),
    ]
    lookups += [_user_lookup(air), _search(air, o, d, go), _search(air, d, o, back)]
    hints = {"openers": openers, "searches": [[o, d, go], [d, o, back]], "cabins": ["economy"], "passengers": [n]}
    return _scenario(air, request, intents, lookups, ("list_bookings", {"user_id": u["user_id"]}), hints)


def refuse_cancel_basic(rng: random.Random) -> Scenario:
    air = _Airline(rng)
    air.focus()["tier"] = "regular"
    who, lookups, openers = _intro(rng, air)
    u = air.focus()
    o, d = rng.sample(sorted(AIRPORTS), 2)
    f = air.route(o, d, air.day(rng.randint(5, 50)), 1)[0]
    b = air.book(u, f, "basic", rng.randint(1, 2))
    _other_trip(air, {o, d})
    request = (
        f"Hi, this is {who}. I can't make my {AIRPORTS[o]} to {AIRPORTS[d]} flight on {f['date']}; please cancel it."
    )
    return _scenario(
        air,
        request,
        [{"op": "cancel_booking", "booking_id": b["booking_id"]}],
        lookups + [_bookings_lookup(air)],
        _get(b["booking_id"]),
        {"openers": openers},
    )


def refuse_cancel_late(rng: random.Random) -> Scenario:
    air = _Airline(rng)
    who, lookups, openers = _intro(rng, air)
    u = air.focus()
    o, d = rng.sample(sorted(AIRPORTS), 2)
    f = air.route(o, d, air.day(rng.randint(0, 1)), 1)[0]
    b = air.book(u, f, rng.choice(["economy", "business"]), rng.randint(1, 2))
    _other_trip(air, {o, d})
    request = f"{who} here. Something came up - please cancel my flight to {AIRPORTS[d]} on {f['date']}."
    return _scenario(
        air,
        request,
        [{"op": "cancel_booking", "booking_id": b["booking_id"]}],
        lookups + [_bookings_lookup(air)],
        _get(b["booking_id"]),
        {"openers": openers},
    )


def book_with_certificate(rng: random.Random) -> Scenario:
    return book_cheapest(rng, pay="certificate")


def refuse_certificate_short(rng: random.Random) -> Scenario:
    return book_cheapest(rng, pay="certificate", short=True)


TEMPLATES: tuple[Template, ...] = (
    Template("cancel_booking", NAME, "single", cancel_booking),
    Template("book_cheapest", NAME, "single", book_cheapest),
    Template("change_earliest", NAME, "single", change_earliest),
    Template("cancel_round_trip", NAME, "multi", cancel_round_trip),
    Template("book_round_trip", NAME, "multi", book_round_trip),
    Template("refuse_cancel_basic", NAME, "refusal", refuse_cancel_basic),
    Template("refuse_cancel_late", NAME, "refusal", refuse_cancel_late),
    Template("book_with_certificate", NAME, "single", book_with_certificate, heldout=True),
    Template("refuse_certificate_short", NAME, "refusal", refuse_certificate_short, heldout=True),
)


# ---------------------------------------------------------------------------- menu
def menu(known: Known, hints: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Candidate calls built from what the agent has seen, most useful first (decoys included)."""
    out: list[tuple[str, dict[str, Any]]] = list(hints.get("openers", ()))
    users, bookings, flights, pms = (
        known.of("user"),
        known.of("booking"),
        known.of("flight"),
        known.of("payment_method"),
    )
    for uid in users:
        out += [("list_bookings", {"user_id": uid}), ("get_user", {"user_id": uid})]
    for origin, dest, date in hints.get("searches", ()):
        out.append(("search_flights", {"origin": origin, "destination": dest, "date": date}))
    for bid in bookings:
        out.append(("get_booking", {"booking_id": bid}))
    for bid, b in bookings.items():
        out.append(("cancel_booking", {"booking_id": bid}))
        for fid, f in flights.items():
            if (f.get("origin"), f.get("destination")) == (b.get("origin"), b.get("destination")) and fid != b.get(
                "flight_id"
            ):
                out.append(("change_flight", {"booking_id": bid, "new_flight_id": fid}))
    for uid in users:
        mine = [pid for pid, pm in pms.items() if pm.get("user_id") == uid] or []
        for fid in flights:
            for cabin in hints.get("cabins", ()):
                for n in hints.get("passengers", ()):
                    for pid in mine:
                        out.append(
                            (
                                "book_flight",
                                {
                                    "user_id": uid,
                                    "flight_id": fid,
                                    "cabin": cabin,
                                    "passengers": n,
                                    "payment_method_id": pid,
                                },
                            )
                        )
    return out
