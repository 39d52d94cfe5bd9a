import pytest

from ring_buffer import RingBuffer

VISIBLE = ["test_append_within_capacity", "test_overwrite_oldest", "test_indexing"]


def test_capacity_validation():
    with pytest.raises(ValueError):
        RingBuffer(0)
    with pytest.raises(ValueError):
        RingBuffer(-3)
    assert RingBuffer(1).capacity == 1


def test_append_within_capacity():
    buf = RingBuffer(3)
    assert buf.append("a") is None
    assert buf.append("b") is None
    assert len(buf) == 2
    assert buf.to_list() == ["a", "b"]
    assert not buf.is_full()


def test_full_at_capacity():
    buf = RingBuffer(2)
    buf.append(1)
    assert buf.is_full() is False
    buf.append(2)
    assert buf.is_full() is True
    assert len(buf) == 2


def test_overwrite_oldest():
    buf = RingBuffer(3)
    for value in [1, 2, 3]:
        buf.append(value)
    assert buf.append(4) == 1
    assert buf.append(5) == 2
    assert buf.to_list() == [3, 4, 5]
    assert len(buf) == 3


def test_capacity_one():
    buf = RingBuffer(1)
    assert buf.append("x") is None
    assert buf.append("y") == "x"
    assert buf.to_list() == ["y"]


def test_pop_oldest_order():
    buf = RingBuffer(3)
    for value in [10, 20, 30, 40]:
        buf.append(value)
    assert buf.pop_oldest() == 20
    assert buf.pop_oldest() == 30
    assert len(buf) == 1
    buf.append(50)
    buf.append(60)
    assert buf.to_list() == [40, 50, 60]


def test_pop_empty_raises():
    buf = RingBuffer(2)
    with pytest.raises(IndexError):
        buf.pop_oldest()
    buf.append(1)
    buf.pop_oldest()
    with pytest.raises(IndexError):
        buf.pop_oldest()


def test_indexing():
    buf = RingBuffer(4)
    for value in "abcdef":
        buf.append(value)
    assert buf[0] == "c"
    assert buf[3] == "f"
    assert buf[-1] == "f"
    assert buf[-4] == "c"


def test_index_out_of_range():
    buf = RingBuffer(4)
    buf.append(1)
    buf.append(2)
    for bad in [2, 3, -3, 10]:
        with pytest.raises(IndexError):
            buf[bad]


def test_latest():
    buf = RingBuffer(5)
    for value in range(8):
        buf.append(value)
    assert buf.latest(2) == [6, 7]
    assert buf.latest(5) == [3, 4, 5, 6, 7]
    assert buf.latest(9) == [3, 4, 5, 6, 7]
    assert buf.latest(1) == [7]
    assert buf.latest(0) == []
    assert buf.latest(-1) == []


def test_clear():
    buf = RingBuffer(3)
    for value in range(5):
        buf.append(value)
    buf.clear()
    assert len(buf) == 0
    assert buf.to_list() == []
    buf.append("z")
    assert buf.to_list() == ["z"]
    assert buf[0] == "z"


def test_wraparound_after_pops():
    buf = RingBuffer(3)
    buf.append(1)
    buf.append(2)
    buf.pop_oldest()
    buf.append(3)
    buf.append(4)
    assert buf.is_full()
    assert buf.to_list() == [2, 3, 4]
    assert buf.append(5) == 2
