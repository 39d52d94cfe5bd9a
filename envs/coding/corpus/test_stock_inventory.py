import pytest

from stock_inventory import Inventory, OutOfStock

VISIBLE = ["test_receive_and_on_hand", "test_ship_fifo_cost", "test_value"]


def make():
    inv = Inventory()
    inv.receive("bolt", 10, 5)
    inv.receive("bolt", 20, 8)
    inv.receive("nut", 100, 1)
    return inv


def test_receive_and_on_hand():
    inv = make()
    assert inv.on_hand("bolt") == 30
    assert inv.on_hand("nut") == 100
    assert inv.on_hand("washer") == 0


def test_receive_validation():
    inv = Inventory()
    with pytest.raises(ValueError):
        inv.receive("x", 0, 5)
    with pytest.raises(ValueError):
        inv.receive("x", 1, -1)
    inv.receive("x", 1, 0)
    assert inv.on_hand("x") == 1


def test_ship_fifo_cost():
    inv = make()
    assert inv.ship("bolt", 4) == 20
    assert inv.ship("bolt", 10) == 6 * 5 + 4 * 8
    assert inv.on_hand("bolt") == 16
    assert inv.value("bolt") == 16 * 8


def test_ship_exact_lot_and_everything():
    inv = make()
    assert inv.ship("bolt", 10) == 50
    assert inv.ship("bolt", 20) == 160
    assert inv.on_hand("bolt") == 0
    assert inv.value("bolt") == 0
    inv.receive("bolt", 10, 5)
    inv.receive("bolt", 5, 9)
    assert inv.ship("bolt", 11) == 59
    assert inv.on_hand("bolt") == 4


def test_ship_errors():
    inv = make()
    with pytest.raises(OutOfStock, match="requested 31, on hand 30"):
        inv.ship("bolt", 31)
    with pytest.raises(OutOfStock):
        inv.ship("washer", 1)
    with pytest.raises(ValueError):
        inv.ship("bolt", 0)
    assert inv.on_hand("bolt") == 30


def test_value():
    inv = make()
    assert inv.value("bolt") == 10 * 5 + 20 * 8
    assert inv.value("nut") == 100
    assert inv.value() == 310
    assert inv.value("washer") == 0
    assert Inventory().value() == 0


def test_reorder_validation():
    inv = Inventory()
    with pytest.raises(ValueError):
        inv.set_reorder_point("x", -1, 5)
    with pytest.raises(ValueError):
        inv.set_reorder_point("x", 5, 0)
    inv.set_reorder_point("x", 0, 1)


def test_reorder_list():
    inv = make()
    inv.set_reorder_point("bolt", 30, 25)
    inv.set_reorder_point("nut", 50, 100)
    inv.set_reorder_point("gear", 0, 4)
    assert inv.reorder_list() == [("bolt", 25), ("gear", 4)]
    inv.ship("nut", 50)
    assert inv.reorder_list() == [("bolt", 25), ("gear", 4), ("nut", 100)]


def test_reorder_tops_up_in_multiples():
    inv = Inventory()
    inv.receive("pin", 2, 1)
    inv.set_reorder_point("pin", 20, 6)
    assert inv.reorder_list() == [("pin", 24)]
    inv.set_reorder_point("pin", 7, 6)
    assert inv.reorder_list() == [("pin", 6)]
    inv.set_reorder_point("pin", 8, 6)
    assert inv.reorder_list() == [("pin", 12)]


def test_average_cost():
    inv = make()
    assert inv.average_cost("bolt") == pytest.approx(210 / 30)
    assert inv.average_cost("washer") is None
    inv.ship("bolt", 10)
    assert inv.average_cost("bolt") == 8
