import pytest

from rational_numbers import Rational

VISIBLE = ["test_normalisation", "test_addition", "test_str_and_mixed"]


def test_normalisation():
    r = Rational(6, 8)
    assert (r.num, r.den) == (3, 4)
    r = Rational(3, -9)
    assert (r.num, r.den) == (-1, 3)
    r = Rational(-4, -2)
    assert (r.num, r.den) == (2, 1)
    r = Rational(0, 5)
    assert (r.num, r.den) == (0, 1)


def test_zero_denominator_and_immutability():
    with pytest.raises(ZeroDivisionError):
        Rational(1, 0)
    r = Rational(1, 2)
    with pytest.raises(AttributeError):
        r.num = 5


def test_parse():
    assert Rational.parse("3/4") == Rational(3, 4)
    assert Rational.parse(" -6/4 ") == Rational(-3, 2)
    assert Rational.parse("7") == Rational(7)
    assert Rational.parse("0.125") == Rational(1, 8)
    assert Rational.parse("-1.5") == Rational(-3, 2)
    assert Rational.parse(".5") == Rational(1, 2)
    assert Rational.parse("2.") == Rational(2)
    assert Rational.parse("-0.25") == Rational(-1, 4)


def test_equality_and_hash():
    assert Rational(1, 2) == Rational(2, 4)
    assert Rational(2, 1) == 2
    assert Rational(1, 2) != Rational(1, 3)
    assert Rational(3, 2) != Rational(3, 4)
    assert hash(Rational(2, 4)) == hash(Rational(1, 2))
    assert len({Rational(1, 2), Rational(3, 6), Rational(1, 3)}) == 2


def test_ordering():
    assert Rational(1, 3) < Rational(1, 2)
    assert not Rational(1, 2) < Rational(1, 3)
    assert not Rational(1, 2) < Rational(2, 4)
    assert Rational(-1, 2) < 0
    assert sorted([Rational(3, 4), Rational(-1), Rational(1, 8)]) == [Rational(-1), Rational(1, 8), Rational(3, 4)]


def test_addition():
    assert Rational(1, 2) + Rational(1, 3) == Rational(5, 6)
    assert Rational(1, 4) + Rational(3, 4) == 1
    assert Rational(1, 2) + 1 == Rational(3, 2)


def test_subtraction_and_negation():
    assert Rational(1, 2) - Rational(1, 3) == Rational(1, 6)
    assert Rational(1, 3) - Rational(1, 2) == Rational(-1, 6)
    assert Rational(5, 2) - 2 == Rational(1, 2)
    assert -Rational(3, 4) == Rational(-3, 4)


def test_multiplication_and_division():
    assert Rational(2, 3) * Rational(3, 4) == Rational(1, 2)
    assert Rational(2, 3) * 3 == 2
    assert Rational(1, 2) / Rational(1, 4) == 2
    assert Rational(3, 5) / Rational(-3, 2) == Rational(-2, 5)
    assert Rational(2, 3) / 4 == Rational(1, 6)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        Rational(1, 2) / Rational(0)


def test_type_errors():
    with pytest.raises(TypeError):
        Rational(1, 2) + 0.5
    with pytest.raises(TypeError):
        Rational(1, 2) == "1/2"


def test_str_and_mixed():
    assert str(Rational(3, 4)) == "3/4"
    assert str(Rational(4, 2)) == "2"
    assert str(Rational(-1, 3)) == "-1/3"
    assert repr(Rational(2, 6)) == "Rational(1, 3)"
    assert Rational(7, 2).mixed() == "3 1/2"
    assert Rational(-7, 2).mixed() == "-3 1/2"
    assert Rational(1, 3).mixed() == "1/3"
    assert Rational(-1, 3).mixed() == "-1/3"
    assert Rational(6, 3).mixed() == "2"
    assert Rational(0).mixed() == "0"
