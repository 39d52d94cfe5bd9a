import pytest

from moving_average import (
    crossovers,
    cumulative_average,
    exponential_moving_average,
    simple_moving_average,
    weighted_moving_average,
)

VISIBLE = ["test_sma_basic", "test_ema_basic", "test_cumulative_average"]


def test_sma_basic():
    assert simple_moving_average([1, 2, 3, 4, 5], 3) == [2, 3, 4]
    assert simple_moving_average([2, 4, 6, 8], 2) == [3, 5, 7]


def test_sma_edges():
    assert simple_moving_average([1, 2, 3], 3) == [2]
    assert simple_moving_average([1, 2], 3) == []
    assert simple_moving_average([5, 7], 1) == [5, 7]
    assert simple_moving_average([], 1) == []
    with pytest.raises(ValueError):
        simple_moving_average([1], 0)


def test_sma_uneven_values():
    assert simple_moving_average([10, 0, 5, 20, 1], 2) == [5, 2.5, 12.5, 10.5]


def test_ema_basic():
    assert exponential_moving_average([10, 20, 30], 0.5) == [10.0, 15.0, 22.5]
    assert exponential_moving_average([], 0.3) == []


def test_ema_alpha_bounds():
    assert exponential_moving_average([1, 5, 9], 1) == [1.0, 5, 9]
    assert exponential_moving_average([4, 8], 0.25) == [4.0, 5.0]
    for bad in [0, -0.1, 1.5]:
        with pytest.raises(ValueError):
            exponential_moving_average([1, 2], bad)


def test_wma():
    assert weighted_moving_average([1, 2, 3], 3) == [pytest.approx(14 / 6)]
    assert weighted_moving_average([3, 1, 3, 1], 2) == [pytest.approx(5 / 3), pytest.approx(7 / 3), pytest.approx(5 / 3)]
    assert weighted_moving_average([7], 1) == [7]
    assert weighted_moving_average([1, 2], 3) == []
    with pytest.raises(ValueError):
        weighted_moving_average([1, 2], 0)


def test_cumulative_average():
    assert cumulative_average([2, 4, 6]) == [2, 3, 4]
    assert cumulative_average([5]) == [5]
    assert cumulative_average([]) == []
    assert cumulative_average([1, 2]) == [1, 1.5]


def test_crossovers_up_and_down():
    fast = [1, 3, 1, 3]
    slow = [2, 2, 2, 2]
    assert crossovers(fast, slow) == [(1, "up"), (2, "down"), (3, "up")]


def test_crossovers_touching_and_flat():
    assert crossovers([1, 2, 3], [2, 2, 2]) == [(2, "up")]
    assert crossovers([3, 2, 1], [2, 2, 2]) == [(2, "down")]
    assert crossovers([2, 2, 2], [2, 2, 2]) == []
    assert crossovers([5], [1]) == []


def test_crossovers_alignment():
    fast = [0, 0, 1, 3]
    slow = [2, 2]
    assert crossovers(fast, slow) == [(1, "up")]
    with pytest.raises(ValueError):
        crossovers([1], [1, 2])


def test_moving_averages_together():
    prices = [10, 11, 12, 11, 10, 9, 10, 12, 14]
    fast = simple_moving_average(prices, 2)
    slow = simple_moving_average(prices, 4)
    assert crossovers(fast, slow) == [(1, "down"), (4, "up")]
