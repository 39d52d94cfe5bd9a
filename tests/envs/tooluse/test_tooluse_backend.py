"""The sandbox-side tool engine and domains, run on the host: policy edges, tool errors, versions, verifier.

engine.py and domains/*.py are stdlib-only code that normally runs inside the step server; here
the engine's session lives in a temporary folder so each policy boundary is checked on a
hand-made database.
"""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from agentgym.envs.tooluse.domains import engine

TODAY = "2025-06-30"


def engine_in(folder, monkeypatch):
    """The engine as the step server runs it, its workspace ``folder``; the session is dropped afterwards."""
    monkeypatch.setattr(engine, "WORKSPACE", str(folder), raising=False)
    monkeypatch.setattr(engine, "_session", None)
    return engine


@pytest.fixture
def backend(tmp_path, monkeypatch):
    yield engine_in(tmp_path, monkeypatch)
    if engine._session is not None:
        engine._session.close()


def _shop(status="delivered", delivered="2025-06-10", category="electronics", price=10000, gift=True):
    pms = [{"pm_id": "PM1", "user_id": "U1", "kind": "card", "label": "visa", "balance_cents": None}]
    if gift:
        pms.append({"pm_id": "GC1", "user_id": "U1", "kind": "gift_card", "label": "gift card", "balance_cents": 500})
    return {
        "users": [
            {
                "user_id": "U1",
                "name": "Ava Chen",
                "email": "ava@example.com",
                "zip": "12345",
                "address": "1 Main St, Town",
            }
        ],
        "payment_methods": pms,
        "products": [
            {
                "item_id": "P1",
                "name": "Lamp",
                "variant": "black",
                "category": category,
                "price_cents": price,
                "stock": 5,
            },
            {
                "item_id": "P2",
                "name": "Lamp",
                "variant": "brass",
                "category": category,
                "price_cents": 12000,
                "stock": 0,
            },
            {"item_id": "P3", "name": "Book", "variant": "paper", "category": "books", "price_cents": 2000, "stock": 5},
        ],
        "orders": [
            {
                "order_id": "O1",
                "user_id": "U1",
                "status": status,
                "placed": "2025-06-01",
                "delivered": delivered if status == "delivered" else None,
                "address": "1 Main St, Town",
                "pm_id": "PM1",
                "total_cents": price + 2000,
                "cancel_reason": None,
            }
        ],
        "order_items": [
            {"order_id": "O1", "item_id": "P1", "qty": 1, "price_cents": price},
            {"order_id": "O1", "item_id": "P3", "qty": 1, "price_cents": 2000},
        ],
    }


@pytest.mark.parametrize("delivered, allowed", [("2025-05-31", True), ("2025-05-30", False)])
def test_return_window_is_30_days_inclusive(backend, delivered, allowed):
    backend.setup(
        "retail",
        _shop(delivered=delivered),
        TODAY,
        [{"op": "return", "order_id": "O1", "to": "original", "answer": True}],
    )
    view = backend.oracle_view()
    assert view["refusal"] is (not allowed)
    if allowed:
        # electronics at 85%, the book in full
        assert view["answer"] == "105.00"
        assert view["writes"] == [
            {
                "tool": "return_order",
                "args": {"order_id": "O1", "payment_method_id": "PM1", "amount": 105.0},
                "target": "orders:O1",
                "done": False,
            }
        ]
    else:
        assert "delivered 31 days ago" in view["reasons"][0]


def test_gift_card_refund_and_verifier(backend):
    backend.setup(
        "retail", _shop(category="home"), TODAY, [{"op": "return", "order_id": "O1", "to": "gift_card", "answer": True}]
    )
    assert backend.verify("done")["state_ok"] is False  # the return has not been made
    wrong = backend.call_tool("return_order", {"order_id": "O1", "payment_method_id": "PM1", "amount": 120.0})
    assert wrong["ok"] and wrong["target"] == "orders:O1"
    assert backend.verify("Refunded $120.00")["state_ok"] is False  # the customer asked for the gift card
    backend.setup(
        "retail", _shop(category="home"), TODAY, [{"op": "return", "order_id": "O1", "to": "gift_card", "answer": True}]
    )
    backend.call_tool("return_order", {"order_id": "O1", "payment_method_id": "GC1", "amount": 120.0})
    assert backend.verify("Your refund of $120.00 is on the gift card.") == {
        "success": True,
        "state_ok": True,
        "answer_ok": True,
        "refusal": False,
        "expected_answer": "$120.00",
        "evidence": {},
    }
    assert backend.verify("Refunded $12.00")["answer_ok"] is False
    assert backend.verify("Sorry, I cannot refund $120.00")["answer_ok"] is False


def test_swap_needs_same_product_in_stock(backend):
    backend.setup(
        "retail",
        _shop(status="pending"),
        TODAY,
        [{"op": "modify", "order_id": "O1", "item_id": "P1", "new_item_id": "P2"}],
    )
    view = backend.oracle_view()
    assert view["refusal"] and "out of stock" in view["reasons"][0]
    reply = backend.call_tool("modify_item", {"order_id": "O1", "item_id": "P1", "new_item_id": "P2"})
    assert reply == {"ok": False, "error_kind": "conflict", "error": "product P2 has only 0 in stock", "missing": None}
    backend.setup(
        "retail",
        _shop(status="pending"),
        TODAY,
        [{"op": "modify", "order_id": "O1", "item_id": "P1", "new_item_id": "P3"}],
    )
    assert "same product" in backend.oracle_view()["reasons"][0]


def test_tools_report_reads_writes_and_versions(backend):
    backend.setup(
        "retail", _shop(status="pending"), TODAY, [{"op": "cancel", "order_id": "O1", "reason": "no longer needed"}]
    )
    read = backend.call_tool("list_orders", {"user_id": "U1"})
    assert read["refs"] == [["orders:O1", 0]] and read["wrote"] == []
    assert read["result"]["orders"][0]["items"] == ["Lamp (black)", "Book (paper)"]
    write = backend.call_tool("cancel_order", {"order_id": "O1", "reason": "no longer needed"})
    assert ["orders:O1", 0, 1] in write["wrote"] and write["target"] == "orders:O1"
    assert {k for k, _, _ in write["wrote"]} == {"orders:O1", "products:P1", "products:P3", "refunds:RF-O1-C"}
    assert write["progress"] == [True] and write["view"]["writes"][0]["done"] is True
    assert backend.call_tool("list_orders", {"user_id": "U1"})["refs"] == [["orders:O1", 1]]
    again = backend.call_tool("cancel_order", {"order_id": "O1", "reason": "no longer needed"})
    assert again["error_kind"] == "conflict"
    missing = backend.call_tool("get_order", {"order_id": "O9"})
    assert missing["error_kind"] == "not_found" and missing["missing"] == "orders:O9"
    assert backend.call_tool("nope", {})["error_kind"] == "unknown_tool"
    assert backend.call_tool("get_order", {"order": "O1"})["error_kind"] == "bad_args"
    assert backend.verify("All done.")["success"] is True
    assert (Path(backend.WORKSPACE) / backend.DB_NAME).exists()


def test_drift_is_replayed_by_the_verifier(backend):
    backend.setup(
        "retail", _shop(status="pending"), TODAY, [{"op": "cancel", "order_id": "O1", "reason": "no longer needed"}]
    )
    what = backend.drift(0, [])
    assert what["what"] == "the warehouse shipped order O1" and what["view"]["refusal"] is True
    assert backend.call_tool("get_order", {"order_id": "O1"})["result"]["status"] == "shipped"
    assert backend.verify("Sorry, I cannot cancel a shipped order.")["success"] is True
    assert backend.verify("Sorry, I cannot cancel a shipped order.")["evidence"] == {"orders:O1": 1}
    assert backend.drift(0, ["orders:O1", "users:U1"]) is None  # nothing left it may touch


def _air(cabin="economy", days=5, tier="regular", cert=None, seats=(9, 9)):
    flights = [
        {
            "flight_id": "AG1",
            "origin": "SFO",
            "destination": "JFK",
            "date": "2025-07-05",
            "depart": "08:00",
            "status": "scheduled",
            "price_basic_cents": 9000,
            "price_economy_cents": 20000,
            "price_business_cents": 50000,
            "seats_left": seats[0],
        },
        {
            "flight_id": "AG2",
            "origin": "SFO",
            "destination": "JFK",
            "date": "2025-07-05",
            "depart": "12:00",
            "status": "scheduled",
            "price_basic_cents": 9500,
            "price_economy_cents": 25000,
            "price_business_cents": 45000,
            "seats_left": seats[1],
        },
        {
            "flight_id": "AG3",
            "origin": "SFO",
            "destination": "JFK",
            "date": (datetime.date(2025, 6, 30) + datetime.timedelta(days=days)).isoformat(),
            "depart": "09:00",
            "status": "scheduled",
            "price_basic_cents": 9000,
            "price_economy_cents": 20000,
            "price_business_cents": 50000,
            "seats_left": 3,
        },
    ]
    pms = [{"pm_id": "CC1", "user_id": "U1", "kind": "card", "label": "visa", "balance_cents": None}]
    if cert is not None:
        pms.append({"pm_id": "TC1", "user_id": "U1", "kind": "certificate", "label": "cert", "balance_cents": cert})
    return {
        "users": [{"user_id": "U1", "name": "Hana Costa", "email": "h@example.org", "tier": tier}],
        "payment_methods": pms,
        "flights": flights,
        "bookings": [
            {
                "booking_id": "BK1",
                "user_id": "U1",
                "flight_id": "AG3",
                "cabin": cabin,
                "passengers": 1,
                "status": "confirmed",
                "booked": "2025-06-01",
                "pm_id": "CC1",
                "total_cents": 20000,
            }
        ],
    }


@pytest.mark.parametrize(
    "days, cabin, tier, allowed",
    [
        (2, "economy", "regular", True),
        (1, "economy", "regular", False),
        (5, "basic", "regular", False),
        (5, "basic", "gold", True),
        (0, "business", "gold", False),
    ],
)
def test_cancel_notice_and_basic_fares(backend, days, cabin, tier, allowed):
    backend.setup(
        "travel", _air(cabin=cabin, days=days, tier=tier), TODAY, [{"op": "cancel_booking", "booking_id": "BK1"}]
    )
    assert backend.oracle_view()["refusal"] is (not allowed)


@pytest.mark.parametrize(
    "passengers, cabin, seats, flight",
    [
        (2, "economy", (9, 9), "AG1"),
        (2, "economy", (1, 9), "AG2"),
        (1, "business", (9, 9), "AG2"),
    ],
)
def test_cheapest_counts_seats_and_cabin(backend, passengers, cabin, seats, flight):
    intent = {
        "op": "book",
        "user_id": "U1",
        "origin": "SFO",
        "destination": "JFK",
        "date": "2025-07-05",
        "passengers": passengers,
        "cabin": cabin,
        "pay": "card",
        "answer": True,
    }
    backend.setup("travel", _air(seats=seats, days=10), TODAY, [intent])
    (write,) = backend.oracle_view()["writes"]
    assert write["args"]["flight_id"] == flight and write["target"] == f"bookings:{flight}-U1"
    reply = backend.call_tool("book_flight", write["args"])
    assert reply["ok"] and reply["result"]["booking_id"] == f"{flight}-U1"
    assert backend.verify(f"Booked, total ${reply['result']['total']:.2f}")["success"] is True
    full = backend.call_tool("book_flight", dict(write["args"], flight_id="AG3", passengers=4))
    assert full["error_kind"] == "conflict" and "only 3 seat(s) left" in full["error"]


@pytest.mark.parametrize("balance, allowed", [(20000, True), (19999, False)])
def test_certificate_must_cover_the_whole_fare(backend, balance, allowed):
    intent = {
        "op": "book",
        "user_id": "U1",
        "origin": "SFO",
        "destination": "JFK",
        "date": "2025-07-05",
        "passengers": 1,
        "cabin": "economy",
        "pay": "certificate",
    }
    backend.setup("travel", _air(cert=balance), TODAY, [intent])
    view = backend.oracle_view()
    assert view["refusal"] is (not allowed)
    if not allowed:
        assert backend.verify("I can't: the certificate does not cover the fare.")["evidence"] == {
            "payment_methods:TC1": 0
        }


def test_calculator_is_arithmetic_only(backend):
    backend.setup("retail", _shop(), TODAY, [])
    assert backend.call_tool("calculate", {"expression": "round(129.99 * 0.85, 2) + $24"})["result"]["result"] == 134.49
    assert backend.call_tool("calculate", {"expression": "$1,299.50 - 99.5"})["result"]["result"] == 1200.0
    for bad in ["__import__('os')", "2 ** 1000", "1/0", "x + 1", "[1, 2]"]:
        assert backend.call_tool("calculate", {"expression": bad})["error_kind"] == "bad_args", bad
