import pytest

from binary_search import closest_value, count_in_range, first_true, index_of, integer_sqrt, lower_bound, upper_bound

VISIBLE = ["test_lower_bound", "test_index_of", "test_integer_sqrt"]

DATA = [1, 3, 3, 3, 5, 8, 13]


def test_lower_bound():
    assert lower_bound(DATA, 3) == 1
    assert lower_bound(DATA, 4) == 4
    assert lower_bound(DATA, 0) == 0
    assert lower_bound(DATA, 1) == 0
    assert lower_bound(DATA, 13) == 6
    assert lower_bound(DATA, 14) == 7
    assert lower_bound([], 5) == 0


def test_upper_bound():
    assert upper_bound(DATA, 3) == 4
    assert upper_bound(DATA, 0) == 0
    assert upper_bound(DATA, 1) == 1
    assert upper_bound(DATA, 13) == 7
    assert upper_bound(DATA, 6) == 5
    assert upper_bound([], 1) == 0


def test_index_of():
    assert index_of(DATA, 3) == 1
    assert index_of(DATA, 13) == 6
    assert index_of(DATA, 1) == 0
    assert index_of(DATA, 4) == -1
    assert index_of(DATA, 99) == -1
    assert index_of([], 1) == -1


def test_count_in_range():
    assert count_in_range(DATA, 3, 3) == 3
    assert count_in_range(DATA, 2, 8) == 5
    assert count_in_range(DATA, 1, 13) == 7
    assert count_in_range(DATA, 14, 20) == 0
    assert count_in_range(DATA, 9, 4) == 0
    assert count_in_range(DATA, 5, 5) == 1


def test_first_true():
    assert first_true(0, 100, lambda x: x >= 37) == 37
    assert first_true(0, 100, lambda x: True) == 0
    assert first_true(0, 100, lambda x: x >= 100) == 100
    assert first_true(0, 100, lambda x: False) is None
    assert first_true(5, 4, lambda x: True) is None
    assert first_true(-50, 50, lambda x: x * 3 > -10) == -3


def test_integer_sqrt():
    assert integer_sqrt(0) == 0
    assert integer_sqrt(1) == 1
    assert integer_sqrt(15) == 3
    assert integer_sqrt(16) == 4
    assert integer_sqrt(17) == 4
    assert integer_sqrt(10 ** 12) == 10 ** 6


def test_integer_sqrt_negative():
    with pytest.raises(ValueError):
        integer_sqrt(-1)
    assert integer_sqrt(2) == 1
    assert integer_sqrt(3) == 1


def test_closest_value():
    assert closest_value(DATA, 6) == 5
    assert closest_value(DATA, 7) == 8
    assert closest_value(DATA, 10) == 8
    assert closest_value(DATA, 11) == 13


def test_closest_value_edges_and_ties():
    assert closest_value(DATA, -5) == 1
    assert closest_value(DATA, 100) == 13
    assert closest_value([2, 4], 3) == 2
    assert closest_value([2, 4], 4) == 4
    assert closest_value([7], 3) == 7
    with pytest.raises(ValueError):
        closest_value([], 1)


def test_against_linear_scan():
    values = [0, 0, 2, 4, 4, 4, 9]
    for target in range(-1, 11):
        assert lower_bound(values, target) == sum(1 for v in values if v < target)
        assert upper_bound(values, target) == sum(1 for v in values if v <= target)
