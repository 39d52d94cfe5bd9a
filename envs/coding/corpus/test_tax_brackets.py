import pytest

from tax_brackets import effective_rate, income_tax, marginal_rate

VISIBLE = ["test_tax_first_bracket", "test_tax_second_bracket", "test_marginal_rate"]

FLAT = [(None, 10)]
SIMPLE = [(100, 0), (200, 50)]


def test_tax_first_bracket():
    assert income_tax(0) == 0
    assert income_tax(5_000) == 0
    assert income_tax(10_000) == 0


def test_tax_second_bracket():
    assert income_tax(10_001) == 0
    assert income_tax(10_005) == 1
    assert income_tax(20_000) == 2_000
    assert income_tax(40_000) == 6_000


def test_tax_higher_brackets():
    assert income_tax(50_000) == 10_000
    assert income_tax(125_000) == 40_000
    assert income_tax(130_000) == 42_250


def test_tax_rounds_down():
    assert income_tax(10_009) == 1
    assert income_tax(40_003) == 6_001


def test_tax_negative_income():
    with pytest.raises(ValueError):
        income_tax(-1)


def test_custom_brackets():
    assert income_tax(1_000, FLAT) == 100
    assert income_tax(3, [(None, 33)]) == 0
    assert income_tax(150, SIMPLE + [(None, 90)]) == 25
    assert income_tax(300, SIMPLE + [(None, 90)]) == 140


def test_brackets_without_unlimited_end():
    assert income_tax(150, SIMPLE) == 25
    with pytest.raises(ValueError):
        income_tax(250, SIMPLE)
    with pytest.raises(ValueError):
        marginal_rate(250, SIMPLE)


def test_marginal_rate():
    assert marginal_rate(0) == 0
    assert marginal_rate(9_999) == 0
    assert marginal_rate(10_000) == 20
    assert marginal_rate(39_999) == 20
    assert marginal_rate(40_000) == 40
    assert marginal_rate(1_000_000) == 45


def test_effective_rate():
    assert effective_rate(0) == 0.0
    assert effective_rate(20_000) == 10.0
    assert effective_rate(50_000) == 20.0
    assert effective_rate(30_000) == 13.33


def test_effective_rate_below_marginal():
    for income in [15_000, 60_000, 200_000]:
        assert effective_rate(income) < marginal_rate(income)
