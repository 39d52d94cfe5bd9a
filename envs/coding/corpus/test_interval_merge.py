import pytest

from interval_merge import free_slots, insert, intersection, merge, normalize, overlaps, total_length

VISIBLE = ["test_merge_overlapping", "test_total_length", "test_free_slots_basic"]


def test_normalize():
    assert normalize((1, 5)) == (1, 5)
    assert normalize([3, 3]) == (3, 3)
    with pytest.raises(ValueError):
        normalize((5, 1))


def test_merge_overlapping():
    assert merge([(1, 3), (2, 6), (8, 10), (15, 18)]) == [(1, 6), (8, 10), (15, 18)]
    assert merge([(5, 7), (1, 2)]) == [(1, 2), (5, 7)]
    assert merge([]) == []


def test_merge_touching():
    assert merge([(1, 3), (4, 6)]) == [(1, 6)]
    assert merge([(1, 3), (4, 6)], touching=False) == [(1, 3), (4, 6)]
    assert merge([(1, 3), (3, 6)], touching=False) == [(1, 6)]
    assert merge([(1, 3), (5, 6)]) == [(1, 3), (5, 6)]


def test_merge_contained():
    assert merge([(1, 10), (2, 3), (4, 5)]) == [(1, 10)]
    assert merge([(2, 3), (1, 10)]) == [(1, 10)]
    assert merge([(1, 4), (1, 2)]) == [(1, 4)]


def test_total_length():
    assert total_length([(1, 3)]) == 3
    assert total_length([(1, 3), (2, 5)]) == 5
    assert total_length([(1, 1), (3, 3)]) == 2
    assert total_length([]) == 0


def test_overlaps():
    assert overlaps((1, 5), (5, 9)) is True
    assert overlaps((5, 9), (1, 5)) is True
    assert overlaps((1, 4), (5, 9)) is False
    assert overlaps((6, 9), (1, 5)) is False
    assert overlaps((1, 10), (3, 4)) is True


def test_intersection():
    assert intersection((1, 5), (3, 9)) == (3, 5)
    assert intersection((3, 9), (1, 5)) == (3, 5)
    assert intersection((1, 5), (5, 9)) == (5, 5)
    assert intersection((1, 10), (2, 3)) == (2, 3)
    assert intersection((1, 2), (4, 5)) is None


def test_free_slots_basic():
    assert free_slots([(9, 10), (13, 14)], (8, 17)) == [(8, 8), (11, 12), (15, 17)]
    assert free_slots([], (1, 5)) == [(1, 5)]


def test_free_slots_edges():
    assert free_slots([(1, 3)], (1, 5)) == [(4, 5)]
    assert free_slots([(1, 4)], (1, 5)) == [(5, 5)]
    assert free_slots([(3, 5)], (1, 5)) == [(1, 2)]
    assert free_slots([(0, 10)], (1, 5)) == []
    assert free_slots([(1, 2), (4, 5)], (1, 5)) == [(3, 3)]


def test_free_slots_ignores_outside():
    assert free_slots([(0, 0), (20, 30)], (1, 5)) == [(1, 5)]
    assert free_slots([(0, 1), (5, 6)], (1, 5)) == [(2, 4)]
    assert free_slots([(6, 9)], (1, 5)) == [(1, 5)]


def test_insert():
    assert insert([(1, 2), (6, 9)], (3, 5)) == [(1, 9)]
    assert insert([(1, 2), (8, 9)], (4, 5)) == [(1, 2), (4, 5), (8, 9)]
    assert insert([], (1, 1)) == [(1, 1)]
    with pytest.raises(ValueError):
        insert([(1, 2)], (4, 3))
