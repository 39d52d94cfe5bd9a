"""Travel domain: an airline's reservations desk — book, cancel and change flights.

Each task seeds a flight schedule, customers with cards and travel certificates, and their
bookings. The policy below is shown to the agent; the tools do not enforce it.
"""

from __future__ import annotations

import datetime
import random
from typing import Any

from agentgym.actions import Param, ToolSpec, render_call
from agentgym.envs.tooluse.domains import Known, Scenario, Template

__all__ = ["NAME", "ROLE", "POLICY", "TOOLS", "TEMPLATES", "menu"]

NAME = "travel"
ROLE = "You are a reservations agent for Aster Air."
POLICY = """\
1. Identify the customer by email first and act only on that customer's bookings.
2. A booking can be cancelled only if its flight departs at least 2 days after today. Basic economy
   bookings cannot be cancelled unless the customer is a gold member. A cancellation refunds the total.
3. A booking can be moved to another flight on the same route only if it is not basic economy and its
   flight has not departed; the cabin and passengers stay the same.
4. Book only what the customer asked for, paid with their own payment method. "Cheapest" means the
   lowest fare in the requested cabin among flights with enough seats for the whole party.
5. A travel certificate can pay for a booking only if its balance covers the whole fare.
6. If the policy forbids a request, change nothing and tell the customer you cannot do it."""

_USER = Param("user_id", "string", "customer id, e.g. U1234")
_BOOKING = Param("booking_id", "string", "booking id")
TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("find_user_by_email", "Find a customer by email address.", (Param("email", "string", "email address"),)),
    ToolSpec("get_user", "A customer's profile, membership tier, payment methods and booking ids.", (_USER,)),
    ToolSpec("list_bookings", "A customer's bookings with route, date, cabin, passengers, status and total.", (_USER,)),
    ToolSpec("get_booking", "One booking in full, with its flight.", (_BOOKING,)),
    ToolSpec("search_flights", "Flights on a route and date with fares per cabin and seats left.", (
        Param("origin", "string", "3-letter airport code"), Param("destination", "string", "3-letter airport code"),
        Param("date", "string", "YYYY-MM-DD"))),
    ToolSpec("get_flight", "One flight: route, date, departure time, status, fares, seats left.", (
        Param("flight_id", "string", "flight number, e.g. AG123"),)),
    ToolSpec("book_flight", "Book a flight for a customer and charge a payment method.", (
        _USER, Param("flight_id", "string", "flight number"),
        Param("cabin", "string", "cabin", enum=("basic", "economy", "business")),
        Param("passengers", "integer", "number of travellers, 1-9"),
        Param("payment_method_id", "string", "the customer's payment method")), writes=True),
    ToolSpec("cancel_booking", "Cancel a booking and refund its total to the payment method.", (_BOOKING,), writes=True),
    ToolSpec("change_flight", "Move a booking to another flight on the same route; the fare is recomputed.", (
        _BOOKING, Param("new_flight_id", "string", "flight number to move to")), writes=True),
    ToolSpec("calculate", "Evaluate arithmetic, e.g. 2*189.50.", (Param("expression", "string", "arithmetic"),)),
)

AIRPORTS = {"SFO": "San Francisco", "JFK": "New York", "LAX": "Los Angeles", "ORD": "Chicago", "SEA": "Seattle",
            "BOS": "Boston", "DEN": "Denver", "ATL": "Atlanta", "MIA": "Miami", "AUS": "Austin"}
FIRST = ["Hana", "Marco", "Elif", "Tomas", "Grace", "Yusuf", "Ines", "Arjun", "Maya", "Leo", "Camila", "Oskar",
         "Nadia", "Samuel", "Freya", "Kofi"]
LAST = ["Andersen", "Moreau", "Yilmaz", "Costa", "Nakamura", "Fischer", "Adeyemi", "Reyes", "Lindqvist", "Shah",
        "Romano", "Byrne"]


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
        for first, last in rng.sample([(f, l) for f in FIRST for l in LAST], 5):
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
        user = {"user_id": self._id("U", 4), "name": f"{first} {last}",
                "email": f"{first[0]}{last}{rng.randint(1, 99)}@example.org".lower(),
                "tier": "gold" if rng.random() < 0.3 else "regular"}
        self.users.append(user)
        self.pms.append({"pm_id": self._id("CC", 4), "user_id": user["user_id"], "kind": "card",
                         "label": f"{rng.choice(['visa', 'mastercard'])} ending {rng.randint(1000, 9999)}",
                         "balance_cents": None})
        return user

    def certificate(self, user: dict[str, Any], cents: int) -> dict[str, Any]:
        pm = {"pm_id": self._id("TC", 4), "user_id": user["user_id"], "kind": "certificate",
              "label": "travel certificate", "balance_cents": cents}
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
            f = {"flight_id": self._id("AG", 3), "origin": origin, "destination": dest, "date": date,
                 "depart": f"{hour:02d}:{rng.choice(['00', '15', '30', '45'])}",
                 "status": "scheduled" if date >= self.today.isoformat() else "departed",
                 "price_basic_cents": int(fare * 0.75) // 100 * 100 + 99 - 100,
                 "price_economy_cents": fare - 1, "price_business_cents": int(fare * 2.6) // 100 * 100 - 1,
                 "seats_left": rng.randint(4, 40)}
            self.flights.append(f)
            out.append(f)
        return out

    def book(self, user: dict[str, Any], flight: dict[str, Any], cabin: str, passengers: int) -> dict[str, Any]:
        pm = next(p for p in self.pms if p["user_id"] == user["user_id"] and p["kind"] == "card")
        b = {"booking_id": self._id("BK", 5), "user_id": user["user_id"], "flight_id": flight["flight_id"],
             "cabin": cabin, "passengers": passengers, "status": "confirmed",
             "booked": self.day(-self.rng.randint(5, 60)), "pm_id": pm["pm_id"],
             "total_cents": flight[f"price_{cabin}_cents"] * passengers}
        self.bookings.append(b)
        return b

    def focus(self) -> dict[str, Any]:
        return self.users[0]

    def tables(self) -> dict[str, list[dict[str, Any]]]:
        return {"users": self.users, "payment_methods": self.pms, "flights": self.flights, "bookings": self.bookings}


def _city(code: str) -> str:
    return f"{AIRPORTS[code]} ({code})"


def _intro(rng: random.Random, air: _Airline) -> tuple[str, list[tuple[str, list[str]]], list[str]]:
    u = air.focus()
    find = render_call("find_user_by_email", {"email": u["email"]})
    decoy = render_call("find_user_by_email", {"email": air.users[1]["email"]})
    return f"{u['name']} ({u['email']})", [(find, [f"users:{u['user_id']}"])], [find, decoy]


def _bookings_lookup(air: _Airline) -> tuple[str, list[str]]:
    u = air.focus()
    return (render_call("list_bookings", {"user_id": u["user_id"]}),
            [f"bookings:{b['booking_id']}" for b in air.bookings if b["user_id"] == u["user_id"]])


def _user_lookup(air: _Airline) -> tuple[str, list[str]]:
    u = air.focus()
    return (render_call("get_user", {"user_id": u["user_id"]}),
            [f"users:{u['user_id']}"] + [f"payment_methods:{p['pm_id']}" for p in air.pms if p["user_id"] == u["user_id"]])


def _search(air: _Airline, origin: str, dest: str, date: str) -> tuple[str, list[str]]:
    keys = [f"flights:{f['flight_id']}" for f in air.flights
            if (f["origin"], f["destination"], f["date"]) == (origin, dest, date)]
    return render_call("search_flights", {"origin": origin, "destination": dest, "date": date}), keys


def _other_trip(air: _Airline, avoid: set[str]) -> None:
    """Another booking of the focus customer, on a route the request does not name."""
    rng = air.rng
    o, d = rng.sample(sorted(set(AIRPORTS) - avoid), 2)
    f = air.route(o, d, air.day(rng.randint(3, 50)), 1)[0]
    air.book(air.focus(), f, rng.choice(["economy", "business"]), rng.randint(1, 2))


def _get(booking_id: str) -> str:
    return render_call("get_booking", {"booking_id": booking_id})


def _scenario(air: _Airline, request: str, intents: list[dict[str, Any]], lookups: list[tuple[str, list[str]]],
              verify: str, hints: dict[str, Any]) -> Scenario:
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
    request = (f"Hi, {who} here. Please cancel my flight from {AIRPORTS[o]} to {AIRPORTS[d]} on {f['date']}. "
               "How much will I be refunded?")
    return _scenario(air, request, [{"op": "cancel_booking", "booking_id": b["booking_id"], "answer": True}],
                     lookups + [_bookings_lookup(air)], _get(b["booking_id"]), {"openers": openers})


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
    request = (f"Hello, this is {who}. Book the cheapest {cabin} flight from {_city(o)} to {_city(d)} on {date} "
               f"for {party}, {how}. What is the total?")
    intent = {"op": "book", "user_id": u["user_id"], "origin": o, "destination": d, "date": date, "passengers": n,
              "cabin": cabin, "pay": pay, "answer": True}
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
    request = (f"Hi, this is {who}. My plans moved: please put my {AIRPORTS[o]} to {AIRPORTS[d]} booking on {f['date']} on "
               f"the earliest flight the next day, {new_date}.")
    lookups += [_bookings_lookup(air), _search(air, o, d, new_date)]
    return _scenario(air, request, [{"op": "change", "booking_id": b["booking_id"], "date": new_date}], lookups,
                     _get(b["booking_id"]), {"openers": openers, "searches": [[o, d, new_date], [o, d, f["date"]]]})


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
    intents = [{"op": "cancel_booking", "booking_id": b1["booking_id"]},
               {"op": "cancel_booking", "booking_id": b2["booking_id"]}]
    return _scenario(air, request, intents, lookups + [_bookings_lookup(air)],
                     render_call("list_bookings", {"user_id": u["user_id"]}), {"openers": openers})


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
    request = (f"Hi, this is {who}. I need a round trip in economy for {party}: {_city(o)} to {_city(d)} on {go}, "
               f"back on {back}. Take the cheapest flight each way, on my credit card, and tell me the total for both.")
    base = {"user_id": u["user_id"], "passengers": n, "cabin": "economy", "pay": "card", "answer": True}
    intents = [dict(base, op="book", origin=o, destination=d, date=go),
               dict(base, op="book", origin=d, destination=o, date=back)]
    lookups += [_user_lookup(air), _search(air, o, d, go), _search(air, d, o, back)]
    hints = {"openers": openers, "searches": [[o, d, go], [d, o, back]], "cabins": ["economy"], "passengers": [n]}
    return _scenario(air, request, intents, lookups, render_call("list_bookings", {"user_id": u["user_id"]}), hints)


def refuse_cancel_basic(rng: random.Random) -> Scenario:
    air = _Airline(rng)
    air.focus()["tier"] = "regular"
    who, lookups, openers = _intro(rng, air)
    u = air.focus()
    o, d = rng.sample(sorted(AIRPORTS), 2)
    f = air.route(o, d, air.day(rng.randint(5, 50)), 1)[0]
    b = air.book(u, f, "basic", rng.randint(1, 2))
    _other_trip(air, {o, d})
    request = f"Hi, this is {who}. I can't make my {AIRPORTS[o]} to {AIRPORTS[d]} flight on {f['date']}; please cancel it."
    return _scenario(air, request, [{"op": "cancel_booking", "booking_id": b["booking_id"]}],
                     lookups + [_bookings_lookup(air)], _get(b["booking_id"]), {"openers": openers})


def refuse_cancel_late(rng: random.Random) -> Scenario:
    air = _Airline(rng)
    who, lookups, openers = _intro(rng, air)
    u = air.focus()
    o, d = rng.sample(sorted(AIRPORTS), 2)
    f = air.route(o, d, air.day(rng.randint(0, 1)), 1)[0]
    b = air.book(u, f, rng.choice(["economy", "business"]), rng.randint(1, 2))
    _other_trip(air, {o, d})
    request = f"{who} here. Something came up - please cancel my flight to {AIRPORTS[d]} on {f['date']}."
    return _scenario(air, request, [{"op": "cancel_booking", "booking_id": b["booking_id"]}],
                     lookups + [_bookings_lookup(air)], _get(b["booking_id"]), {"openers": openers})


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
def menu(known: Known, hints: dict[str, Any]) -> list[str]:
    """Candidate calls built from what the agent has seen, most useful first (decoys included)."""
    out: list[str] = list(hints.get("openers", ()))
    users, bookings, flights, pms = known.of("user"), known.of("booking"), known.of("flight"), known.of("payment_method")
    for uid in users:
        out += [render_call("list_bookings", {"user_id": uid}), render_call("get_user", {"user_id": uid})]
    for origin, dest, date in hints.get("searches", ()):
        out.append(render_call("search_flights", {"origin": origin, "destination": dest, "date": date}))
    for bid in bookings:
        out.append(render_call("get_booking", {"booking_id": bid}))
    for bid, b in bookings.items():
        out.append(render_call("cancel_booking", {"booking_id": bid}))
        for fid, f in flights.items():
            if (f.get("origin"), f.get("destination")) == (b.get("origin"), b.get("destination")) and fid != b.get("flight_id"):
                out.append(render_call("change_flight", {"booking_id": bid, "new_flight_id": fid}))
    for uid in users:
        mine = [pid for pid, pm in pms.items() if pm.get("user_id") == uid] or []
        for fid in flights:
            for cabin in hints.get("cabins", ()):
                for n in hints.get("passengers", ()):
                    for pid in mine:
                        out.append(render_call("book_flight", {"user_id": uid, "flight_id": fid, "cabin": cabin,
                                                               "passengers": n, "payment_method_id": pid}))
    return out
