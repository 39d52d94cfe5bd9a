import pytest

from library_loans import Library, LoanError

VISIBLE = ["test_checkout_due_dates", "test_checkin_on_time", "test_fine_per_day"]


def make():
    library = Library()
    library.add_item("b1", "book")
    library.add_item("b2", "book")
    library.add_item("d1", "dvd")
    library.add_item("m1", "magazine")
    return library


def test_add_item_validation():
    library = make()
    with pytest.raises(ValueError, match="unknown item kind"):
        library.add_item("x", "vinyl")
    with pytest.raises(ValueError, match="duplicate"):
        library.add_item("b1", "book")


def test_checkout_due_dates():
    library = make()
    assert library.checkout("ann", "b1", 10) == 31
    assert library.checkout("ann", "d1", 10) == 17
    assert library.checkout("ann", "m1", 0) == 7
    assert library.loans_of("ann") == ["b1", "d1", "m1"]


def test_checkout_errors():
    library = make()
    with pytest.raises(KeyError):
        library.checkout("ann", "nope", 0)
    library.checkout("ann", "b1", 0)
    with pytest.raises(LoanError, match="already on loan"):
        library.checkout("bob", "b1", 0)


def test_loan_limit():
    library = Library()
    for i in range(6):
        library.add_item(f"b{i}", "book")
    for i in range(5):
        library.checkout("ann", f"b{i}", 0)
    assert library.can_borrow("ann") is False
    with pytest.raises(LoanError, match="cannot borrow"):
        library.checkout("ann", "b5", 0)
    library.checkin("b0", 1)
    assert library.can_borrow("ann") is True


def test_checkin_on_time():
    library = make()
    library.checkout("ann", "b1", 0)
    assert library.checkin("b1", 21) == 0
    assert library.loans_of("ann") == []
    assert library.fines == {}
    with pytest.raises(LoanError, match="not on loan"):
        library.checkin("b1", 22)


def test_fine_per_day():
    library = make()
    library.checkout("ann", "b1", 0)
    library.checkout("ann", "d1", 0)
    assert library.fine_for("b1", 21) == 0
    assert library.fine_for("b1", 5) == 0
    assert library.fine_for("b1", 22) == 25
    assert library.fine_for("b1", 25) == 100
    assert library.fine_for("d1", 9) == 200


def test_fine_cap_and_recording():
    library = make()
    library.checkout("ann", "d1", 0)
    assert library.fine_for("d1", 17) == 1000
    assert library.fine_for("d1", 16) == 900
    assert library.checkin("d1", 100) == 1000
    assert library.fines == {"ann": 1000}
    library.checkout("bob", "m1", 0)
    assert library.checkin("m1", 9) == 20
    assert library.fines == {"ann": 1000, "bob": 20}


def test_fines_block_borrowing():
    library = make()
    library.checkout("ann", "d1", 0)
    library.checkin("d1", 11)
    assert library.fines["ann"] == 400
    assert library.can_borrow("ann") is True
    library.checkout("ann", "m1", 0)
    library.checkin("m1", 17)
    assert library.fines["ann"] == 500
    assert library.can_borrow("ann") is False
    assert library.pay("ann", 1) == 499
    assert library.can_borrow("ann") is True


def test_pay():
    library = make()
    library.fines["ann"] = 300
    assert library.pay("ann", 100) == 200
    assert library.fines == {"ann": 200}
    assert library.pay("ann", 500) == 0
    assert "ann" not in library.fines
    assert library.pay("bob", 10) == 0
    with pytest.raises(ValueError):
        library.pay("ann", 0)


def test_renew():
    library = make()
    library.checkout("ann", "b1", 0)
    assert library.renew("b1", 21) == 42
    assert library.renew("b1", 30) == 63
    with pytest.raises(LoanError, match="renewal limit"):
        library.renew("b1", 40)
    library.checkout("ann", "d1", 0)
    with pytest.raises(LoanError, match="overdue"):
        library.renew("d1", 8)


def test_holds_queue():
    library = make()
    library.checkout("ann", "b1", 0)
    assert library.place_hold("bob", "b1") == 1
    assert library.place_hold("cy", "b1") == 2
    with pytest.raises(LoanError, match="already holds"):
        library.place_hold("bob", "b1")
    with pytest.raises(LoanError, match="already has"):
        library.place_hold("ann", "b1")
    with pytest.raises(LoanError, match="waiting"):
        library.renew("b1", 5)
    library.checkin("b1", 5)
    with pytest.raises(LoanError, match="held for bob"):
        library.checkout("cy", "b1", 6)
    assert library.checkout("bob", "b1", 6) == 27
    assert library.holds["b1"] == ["cy"]


def test_overdue_report():
    library = make()
    library.checkout("ann", "b1", 0)
    library.checkout("bob", "d1", 0)
    library.checkout("cy", "m1", 3)
    assert library.overdue(7) == []
    assert library.overdue(10) == [("d1", "bob", 3)]
    assert library.overdue(11) == [("d1", "bob", 4), ("m1", "cy", 1)]
    assert library.overdue(22) == [("b1", "ann", 1), ("d1", "bob", 15), ("m1", "cy", 12)]
