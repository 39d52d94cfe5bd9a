import pytest

from disjoint_set import DisjointSet, count_components, has_cycle

VISIBLE = ["test_union_and_connected", "test_group_count", "test_count_components"]


def test_initial_state():
    sets = DisjointSet("abc")
    assert sets.groups == 3
    assert sets.find("a") == "a"
    assert sets.group_size("b") == 1


def test_add_is_idempotent():
    sets = DisjointSet()
    sets.add(1)
    sets.add(1)
    assert sets.groups == 1


def test_union_and_connected():
    sets = DisjointSet([1, 2, 3, 4])
    assert sets.union(1, 2) is True
    assert sets.connected(1, 2) is True
    assert sets.connected(2, 1) is True
    assert sets.connected(1, 3) is False
    assert sets.union(3, 4) is True
    assert sets.union(2, 4) is True
    assert sets.connected(1, 3) is True


def test_union_same_group_returns_false():
    sets = DisjointSet([1, 2])
    sets.union(1, 2)
    assert sets.union(2, 1) is False
    assert sets.union(1, 1) is False
    assert sets.groups == 1


def test_group_count():
    sets = DisjointSet(range(6))
    sets.union(0, 1)
    sets.union(2, 3)
    sets.union(1, 0)
    assert sets.groups == 4
    sets.union(1, 3)
    assert sets.groups == 3


def test_union_adds_unknown_items():
    sets = DisjointSet()
    sets.union("x", "y")
    assert sets.groups == 1
    assert sets.connected("x", "y")
    assert sets.connected("x", "z") is False
    assert sets.connected("z", "x") is False


def test_find_unknown_raises():
    with pytest.raises(KeyError):
        DisjointSet([1]).find(2)


def test_group_size_and_union_by_size():
    sets = DisjointSet(range(5))
    sets.union(0, 1)
    sets.union(0, 2)
    assert sets.group_size(2) == 3
    sets.union(3, 0)
    assert sets.find(3) == sets.find(0)
    assert sets.find(3) == 0
    assert sets.group_size(3) == 4
    assert sets.group_size(4) == 1


def test_path_compression_keeps_answers():
    sets = DisjointSet(range(8))
    for i in range(7):
        sets.union(i + 1, i)
    root = sets.find(7)
    assert all(sets.find(i) == root for i in range(8))
    assert sets.group_size(5) == 8


def test_group_list():
    sets = DisjointSet(["d", "a", "c", "b", "e"])
    sets.union("d", "a")
    sets.union("c", "e")
    assert sets.group_list() == [["a", "d"], ["b"], ["c", "e"]]


def test_count_components():
    assert count_components([1, 2, 3, 4, 5], [(1, 2), (2, 3), (4, 5)]) == 2
    assert count_components([1, 2, 3], []) == 3
    assert count_components([], []) == 0
    assert count_components([1, 2], [(1, 2), (2, 1)]) == 1


def test_has_cycle():
    assert has_cycle([(1, 2), (2, 3), (3, 1)]) is True
    assert has_cycle([(1, 2), (2, 3), (3, 4)]) is False
    assert has_cycle([]) is False
    assert has_cycle([("a", "a")]) is True
