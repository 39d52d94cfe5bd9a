import pytest

from chunked_lists import chunks, flatten, sliding_windows, split_evenly

VISIBLE = ["test_chunks", "test_sliding_windows", "test_split_evenly"]


def test_chunks():
    assert chunks([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]
    assert chunks([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]
    assert chunks([1, 2], 5) == [[1, 2]]


def test_chunks_edges():
    assert chunks([], 3) == []
    assert chunks([1, 2, 3], 1) == [[1], [2], [3]]
    with pytest.raises(ValueError, match="size must be"):
        chunks([1], 0)


def test_chunks_strings():
    assert chunks("abcdefg", 3) == ["abc", "def", "g"]


def test_sliding_windows():
    assert sliding_windows([1, 2, 3, 4], 2) == [[1, 2], [2, 3], [3, 4]]
    assert sliding_windows([1, 2, 3, 4], 4) == [[1, 2, 3, 4]]
    assert sliding_windows([1, 2, 3], 4) == []


def test_sliding_windows_step():
    assert sliding_windows([1, 2, 3, 4, 5], 2, step=2) == [[1, 2], [3, 4]]
    assert sliding_windows([1, 2, 3, 4, 5], 3, step=2) == [[1, 2, 3], [3, 4, 5]]
    assert sliding_windows([1, 2, 3], 1, step=1) == [[1], [2], [3]]


def test_sliding_windows_validation():
    with pytest.raises(ValueError):
        sliding_windows([1, 2], 0)
    with pytest.raises(ValueError):
        sliding_windows([1, 2], 1, step=0)


def test_split_evenly():
    assert split_evenly([1, 2, 3, 4, 5], 2) == [[1, 2, 3], [4, 5]]
    assert split_evenly([1, 2, 3, 4, 5, 6, 7], 3) == [[1, 2, 3], [4, 5], [6, 7]]
    assert split_evenly([1, 2, 3], 3) == [[1], [2], [3]]


def test_split_evenly_more_parts_than_items():
    assert split_evenly([1, 2], 4) == [[1], [2], [], []]
    assert split_evenly([], 2) == [[], []]
    with pytest.raises(ValueError):
        split_evenly([1], 0)


def test_flatten():
    assert flatten([[1, 2], [], [3]]) == [1, 2, 3]
    assert flatten([]) == []
    assert flatten(["ab", "c"]) == ["a", "b", "c"]


def test_round_trips():
    data = list(range(11))
    for size in range(1, 13):
        assert flatten(chunks(data, size)) == data
    for parts in range(1, 13):
        assert flatten(split_evenly(data, parts)) == data
