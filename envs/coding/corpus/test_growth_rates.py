import pytest

from growth_rates import cagr, compound, doubling_time, percent_change

VISIBLE = ["test_percent_change", "test_cagr", "test_compound_monthly"]


def test_percent_change():
    assert percent_change(100, 110) == pytest.approx(10)
    assert percent_change(200, 150) == pytest.approx(-25)
    assert percent_change(50, 50) == 0


def test_percent_change_negative_base():
    assert percent_change(-100, -50) == pytest.approx(50)
    assert percent_change(-100, -150) == pytest.approx(-50)


def test_percent_change_from_zero():
    with pytest.raises(ZeroDivisionError, match="undefined"):
        percent_change(0, 10)
    assert percent_change(1, 2) == 100


def test_cagr():
    assert cagr(100, 121, 2) == pytest.approx(0.1)
    assert cagr(100, 100, 5) == pytest.approx(0)
    assert cagr(1000, 500, 1) == pytest.approx(-0.5)
    assert cagr(100, 0, 3) == pytest.approx(-1)
    assert cagr(100, 0.5, 1) == pytest.approx(-0.995)
    assert cagr(100, 150, 0.5) == pytest.approx(1.25)


def test_cagr_validation():
    for args in [(0, 10, 1), (-5, 10, 1), (10, -1, 1), (10, 20, 0)]:
        with pytest.raises(ValueError):
            cagr(*args)


def test_compound_monthly():
    assert compound(1000, 0.12, 1) == pytest.approx(1126.825030131)
    assert compound(1000, 0, 10) == 1000


def test_compound_periods():
    assert compound(1000, 0.1, 2, periods_per_year=1) == pytest.approx(1210)
    assert compound(1000, 0.1, 1, periods_per_year=2) == pytest.approx(1102.5)
    assert compound(500, 0.04, 0.5, periods_per_year=4) == pytest.approx(510.05)


def test_compound_validation():
    with pytest.raises(ValueError):
        compound(1000, 0.1, 1, periods_per_year=0)


def test_doubling_time():
    assert doubling_time(0.08) == pytest.approx(9)
    assert doubling_time(0.06) == pytest.approx(12)
    for bad in [0, -0.01]:
        with pytest.raises(ValueError):
            doubling_time(bad)


def test_consistency():
    value = compound(100, 0.07, 10, periods_per_year=1)
    assert cagr(100, value, 10) == pytest.approx(0.07)
    assert percent_change(100, value) == pytest.approx((value - 100))
