import pytest

from min_heap import PriorityQueue, k_smallest, merge_sorted

VISIBLE = ["test_push_pop_order", "test_peek", "test_k_smallest"]


def test_push_pop_order():
    queue = PriorityQueue()
    for item, priority in [("c", 3), ("a", 1), ("d", 4), ("b", 2)]:
        queue.push(item, priority)
    assert [queue.pop() for _ in range(4)] == [("a", 1), ("b", 2), ("c", 3), ("d", 4)]
    assert len(queue) == 0


def test_peek():
    queue = PriorityQueue()
    queue.push("x", 5)
    queue.push("y", 2)
    assert queue.peek() == ("y", 2)
    assert len(queue) == 2
    assert queue.pop() == ("y", 2)
    assert queue.peek() == ("x", 5)


def test_empty_errors():
    queue = PriorityQueue()
    with pytest.raises(IndexError, match="pop from empty priority queue"):
        queue.pop()
    with pytest.raises(IndexError, match="peek from empty priority queue"):
        queue.peek()


def test_single_item():
    queue = PriorityQueue()
    queue.push("only", 0)
    assert queue.pop() == ("only", 0)
    assert len(queue) == 0
    assert not queue


def test_stable_for_equal_priorities():
    queue = PriorityQueue()
    for name in ["first", "second", "third"]:
        queue.push(name, 7)
    queue.push("urgent", 1)
    assert [queue.pop()[0] for _ in range(4)] == ["urgent", "first", "second", "third"]


def test_many_items_sorted():
    queue = PriorityQueue()
    values = [(i * 37) % 101 for i in range(101)]
    for value in values:
        queue.push(str(value), value)
    assert [queue.pop()[1] for _ in range(101)] == sorted(values)


def test_interleaved_operations():
    queue = PriorityQueue()
    queue.push("a", 5)
    queue.push("b", 3)
    assert queue.pop() == ("b", 3)
    queue.push("c", 4)
    queue.push("d", 6)
    queue.push("e", 1)
    assert queue.pop() == ("e", 1)
    assert queue.pop() == ("c", 4)
    assert queue.pop() == ("a", 5)
    assert queue.pop() == ("d", 6)


def test_sift_down_picks_smaller_child():
    queue = PriorityQueue()
    for priority in [1, 3, 2, 4, 5, 6, 7]:
        queue.push(priority, priority)
    assert queue.pop() == (1, 1)
    assert queue.pop() == (2, 2)
    assert queue.pop() == (3, 3)


def test_negative_and_float_priorities():
    queue = PriorityQueue()
    queue.push("b", 0.5)
    queue.push("a", -2)
    queue.push("c", 0.25)
    assert [queue.pop()[0] for _ in range(3)] == ["a", "c", "b"]


def test_k_smallest():
    assert k_smallest([5, 1, 4, 2, 3], 3) == [1, 2, 3]
    assert k_smallest([5, 1], 5) == [1, 5]
    assert k_smallest([], 2) == []
    assert k_smallest([3, 3, 1], 0) == []


def test_merge_sorted():
    assert merge_sorted([[1, 4, 7], [2, 5, 8], [3, 6, 9]]) == list(range(1, 10))
    assert merge_sorted([[1, 1], [], [0, 2]]) == [0, 1, 1, 2]
    assert merge_sorted([]) == []
    assert merge_sorted([[5]]) == [5]
