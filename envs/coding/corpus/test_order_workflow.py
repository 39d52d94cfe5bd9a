import pytest

from order_workflow import Order, TransitionError, summarize

VISIBLE = ["test_happy_path", "test_allowed_events", "test_invalid_transition"]


def paid_order(day=0):
    order = Order("o1", created_day=day)
    order.add_item("sku-1", 2)
    order.fire("checkout", day)
    order.fire("pay", day + 1)
    return order


def test_happy_path():
    order = paid_order()
    assert order.fire("ship", 2) == "shipped"
    assert order.fire("deliver", 5) == "delivered"
    assert order.history == [(0, "cart"), (0, "pending"), (1, "paid"), (2, "shipped"), (5, "delivered")]
    assert order.days_in_transit() == 3


def test_add_item_rules():
    order = Order("o1")
    order.add_item("a")
    assert order.items == [("a", 1)]
    with pytest.raises(ValueError):
        order.add_item("b", 0)
    order.fire("checkout", 0)
    with pytest.raises(TransitionError, match="only be added to a cart"):
        order.add_item("c")


def test_allowed_events():
    order = Order("o1")
    assert order.allowed_events() == ["checkout"]
    order.add_item("a")
    order.fire("checkout", 0)
    assert order.allowed_events() == ["cancel", "pay"]
    order.fire("pay", 0)
    assert order.allowed_events() == ["cancel", "ship"]


def test_invalid_transition():
    order = Order("o1")
    with pytest.raises(TransitionError, match="cannot ship an order that is cart"):
        order.fire("ship", 0)
    with pytest.raises(TransitionError, match="empty cart"):
        order.fire("checkout", 0)
    assert order.state == "cart"
    assert order.history == [(0, "cart")]


def test_time_must_not_go_back():
    order = paid_order(day=10)
    with pytest.raises(ValueError):
        order.fire("ship", 10)
    assert order.fire("ship", 11) == "shipped"


def test_payment_deadline():
    order = Order("o1", created_day=0)
    order.add_item("a")
    order.fire("checkout", 2)
    assert order.fire("pay", 5) == "paid"
    late = Order("o2")
    late.add_item("a")
    late.fire("checkout", 2)
    with pytest.raises(TransitionError, match="deadline"):
        late.fire("pay", 6)


def test_expire_unpaid():
    order = Order("o1")
    order.add_item("a")
    assert order.expire_unpaid(10) is False
    order.fire("checkout", 1)
    assert order.expire_unpaid(4) is False
    assert order.state == "pending"
    assert order.expire_unpaid(5) is True
    assert order.state == "cancelled"
    assert order.is_final() is True


def test_cancel_after_payment_refunds():
    order = paid_order()
    assert order.fire("cancel", 3) == "refunded"
    assert order.is_final() is True
    assert order.allowed_events() == []


def test_return_window():
    order = paid_order()
    order.fire("ship", 2)
    order.fire("deliver", 4)
    assert order.is_final() is False
    assert order.fire("return", 34) == "returned"
    late = paid_order()
    late.fire("ship", 2)
    late.fire("deliver", 4)
    with pytest.raises(TransitionError, match="return window"):
        late.fire("return", 35)


def test_entered_and_transit():
    order = paid_order(day=3)
    assert order.entered("cart") == 3
    assert order.entered("paid") == 4
    assert order.entered("shipped") is None
    assert order.days_in_transit() is None
    order.fire("ship", 6)
    assert order.days_in_transit() is None
    order.fire("deliver", 6)
    assert order.days_in_transit() == 0


def test_is_final_states():
    order = Order("o1")
    assert order.is_final() is False
    order.add_item("a")
    order.fire("checkout", 0)
    order.fire("cancel", 0)
    assert order.state == "cancelled"
    assert order.is_final() is True


def test_summarize():
    a, b, c = Order("a"), paid_order(), paid_order()
    c.fire("ship", 2)
    assert summarize([a, b, c]) == {"cart": 1, "paid": 1, "shipped": 1}
    assert summarize([b, b]) == {"paid": 2}
    assert summarize([]) == {}
    assert list(summarize([c, a, b])) == ["cart", "paid", "shipped"]
