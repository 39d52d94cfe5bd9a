import pytest

from descriptive_stats import mean, median, modes, percentile, stdev, value_range, variance, zscores

VISIBLE = ["test_mean", "test_median_odd_even", "test_percentile_basic"]


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5
    assert mean([5]) == 5
    assert mean([-2, 2]) == 0
    with pytest.raises(ValueError):
        mean([])


def test_median_odd_even():
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 3, 2]) == 2.5
    assert median([7]) == 7
    assert median([1, 10]) == 5.5
    assert median([5, 3, 1, 4, 2, 6]) == 3.5


def test_median_empty():
    with pytest.raises(ValueError):
        median([])


def test_modes():
    assert modes([1, 2, 2, 3]) == [2]
    assert modes([3, 1, 3, 1, 2]) == [3, 1]
    assert modes([]) == []
    assert modes(["a"]) == ["a"]
    assert modes([4, 5, 6]) == [4, 5, 6]


def test_variance_sample_and_population():
    data = [2, 4, 4, 4, 5, 5, 7, 9]
    assert variance(data, sample=False) == 4
    assert variance(data) == pytest.approx(32 / 7)
    assert variance([1, 3]) == 2
    assert variance([5], sample=False) == 0


def test_variance_too_small():
    with pytest.raises(ValueError):
        variance([1])
    with pytest.raises(ValueError):
        variance([], sample=False)


def test_stdev():
    data = [2, 4, 4, 4, 5, 5, 7, 9]
    assert stdev(data, sample=False) == 2
    assert stdev(data) == pytest.approx(2.138089935)
    assert stdev([1, 1, 1]) == 0


def test_percentile_basic():
    data = [15, 20, 35, 40, 50]
    assert percentile(data, 0) == 15
    assert percentile(data, 100) == 50
    assert percentile(data, 50) == 35
    assert percentile(data, 25) == 20


def test_percentile_interpolates():
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([10, 20], 30) == pytest.approx(13)
    assert percentile([0, 10, 20, 30], 90) == pytest.approx(27)
    assert percentile([4, 1, 3, 2], 75) == pytest.approx(3.25)
    assert percentile([9], 40) == 9


def test_percentile_errors():
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1, 2], -1)
    with pytest.raises(ValueError):
        percentile([1, 2], 101)


def test_value_range():
    assert value_range([3, 9, -1]) == 10
    assert value_range([5]) == 0
    with pytest.raises(ValueError, match="range of empty"):
        value_range([])


def test_zscores():
    assert zscores([2, 4, 4, 4, 5, 5, 7, 9]) == [-1.5, -0.5, -0.5, -0.5, 0.0, 0.0, 1.0, 2.0]
    assert zscores([3, 3]) == [0.0, 0.0]
