from decimal import Decimal

import pytest

from rounding_rules import round_half_even, round_half_up, round_significant, round_to_step, split_amount, to_decimal

VISIBLE = ["test_round_half_up", "test_round_half_even", "test_split_amount_even"]

D = Decimal


def test_to_decimal():
    assert to_decimal(2.675) == D("2.675")
    assert to_decimal(3) == D(3)
    assert to_decimal("1.10") == D("1.10")
    value = D("4.5")
    assert to_decimal(value) is value


def test_round_half_up():
    assert round_half_up(2.675, 2) == D("2.68")
    assert round_half_up(2.5) == D("3")
    assert round_half_up(-2.5) == D("-3")
    assert round_half_up(1.2345, 3) == D("1.235")
    assert round_half_up(1.2344, 3) == D("1.234")


def test_round_half_up_negative_places():
    assert round_half_up(1250, -2) == D("1.3E+3")
    assert round_half_up(1249, -2) == D("1.2E+3")


def test_round_half_even():
    assert round_half_even(2.5) == D("2")
    assert round_half_even(3.5) == D("4")
    assert round_half_even(2.675, 2) == D("2.68")
    assert round_half_even(2.665, 2) == D("2.66")
    assert round_half_even(0.125, 2) == D("0.12")


def test_round_to_step():
    assert round_to_step(1.02, 0.05) == D("1.00")
    assert round_to_step(1.03, 0.05) == D("1.05")
    assert round_to_step(1.025, 0.05) == D("1.05")
    assert round_to_step(17, 5) == 15
    assert round_to_step(17.5, 5) == 20
    assert round_to_step(-7.5, 5) == -10


def test_round_to_step_rejects_bad_step():
    with pytest.raises(ValueError):
        round_to_step(1, 0)
    with pytest.raises(ValueError):
        round_to_step(1, -0.5)


def test_round_significant():
    assert round_significant(123456, 2) == D("1.2E+5")
    assert round_significant(0.0012345, 3) == D("0.00123")
    assert round_significant(9.995, 3) == D("10.0")
    assert round_significant(-45.65, 3) == D("-45.7")
    assert str(round_significant(0, 3)) == "0"
    assert round_significant(7, 1) == D("7")


def test_round_significant_bad_digits():
    with pytest.raises(ValueError):
        round_significant(1.5, 0)


def test_split_amount_even():
    assert split_amount(10, 2) == [D("5.00"), D("5.00")]
    assert split_amount(100, 4) == [D("25.00")] * 4


def test_split_amount_remainder():
    assert split_amount(10, 3) == [D("3.34"), D("3.33"), D("3.33")]
    assert split_amount(0.05, 3) == [D("0.02"), D("0.02"), D("0.01")]
    assert split_amount(7, 1) == [D("7.00")]
    assert sum(split_amount(123.45, 7)) == D("123.45")
    assert split_amount(1, 3, places=0) == [D(1), D(0), D(0)]


def test_split_amount_rejects_zero_parts():
    with pytest.raises(ValueError):
        split_amount(10, 0)
