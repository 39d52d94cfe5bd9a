import pytest

from loan_amortization import monthly_payment, remaining_balance, schedule, total_interest

VISIBLE = ["test_monthly_payment", "test_zero_rate_payment", "test_schedule_shape"]


def test_monthly_payment():
    assert monthly_payment(10_000_000, 6, 360) == 59_956
    assert monthly_payment(1_000_000, 12, 12) == 88_849
    assert monthly_payment(500_000, 5, 60) == 9_436


def test_zero_rate_payment():
    assert monthly_payment(120_000, 0, 12) == 10_000
    assert monthly_payment(100_000, 0, 3) == 33_334


def test_payment_validation():
    with pytest.raises(ValueError):
        monthly_payment(0, 5, 12)
    with pytest.raises(ValueError):
        monthly_payment(1000, 5, 0)
    with pytest.raises(ValueError):
        monthly_payment(1000, -1, 12)
    assert monthly_payment(1, 5, 1) == 2


def test_schedule_shape():
    rows = schedule(1_000_000, 12, 12)
    assert len(rows) == 12
    assert rows[0] == (1, 88_849, 10_000, 78_849, 921_151)
    assert rows[-1][4] == 0
    assert [row[0] for row in rows] == list(range(1, 13))


def test_schedule_second_row():
    rows = schedule(1_000_000, 12, 12)
    assert rows[1] == (2, 88_849, 9_212, 79_637, 841_514)


def test_schedule_principal_sums_to_loan():
    for principal, rate, months in [(1_000_000, 12, 12), (250_000, 7.5, 24), (99_999, 3, 7)]:
        rows = schedule(principal, rate, months)
        assert sum(row[3] for row in rows) == principal
        assert all(row[1] == row[2] + row[3] for row in rows)


def test_schedule_last_payment_adjusts():
    rows = schedule(1_000_000, 12, 12)
    assert rows[-1][1] != 88_849
    assert rows[-1][1] == rows[-1][3] + rows[-1][2]
    assert rows[-1][1] == 88_847


def test_schedule_zero_rate():
    rows = schedule(100_000, 0, 3)
    assert rows == [(1, 33_334, 0, 33_334, 66_666), (2, 33_334, 0, 33_334, 33_332), (3, 33_332, 0, 33_332, 0)]


def test_schedule_early_payoff_by_rounding():
    rows = schedule(10, 0, 4)
    assert rows == [(1, 3, 0, 3, 7), (2, 3, 0, 3, 4), (3, 3, 0, 3, 1), (4, 1, 0, 1, 0)]
    rows = schedule(2, 0, 3)
    assert rows == [(1, 1, 0, 1, 1), (2, 1, 0, 1, 0)]


def test_total_interest():
    assert total_interest(1_000_000, 12, 12) == 66_186
    assert total_interest(100_000, 0, 3) == 0


def test_remaining_balance():
    assert remaining_balance(1_000_000, 12, 12, 0) == 1_000_000
    assert remaining_balance(1_000_000, 12, 12, 1) == 921_151
    assert remaining_balance(1_000_000, 12, 12, 2) == 841_514
    assert remaining_balance(1_000_000, 12, 12, 11) == 87_967
    assert remaining_balance(1_000_000, 12, 12, 12) == 0
    assert remaining_balance(1_000_000, 12, 12, 40) == 0
    with pytest.raises(ValueError):
        remaining_balance(1_000_000, 12, 12, -1)
