import pytest

from pagination import page_bounds, page_count, page_of_item, page_window, paginate

VISIBLE = ["test_page_count", "test_page_bounds", "test_page_window_middle"]


def test_page_count():
    assert page_count(100, 10) == 10
    assert page_count(101, 10) == 11
    assert page_count(1, 10) == 1
    assert page_count(0, 10) == 1
    assert page_count(10, 1) == 10
    assert page_count(9, 10) == 1


def test_page_count_validation():
    with pytest.raises(ValueError):
        page_count(10, 0)
    assert page_count(-5, 3) == 1


def test_page_bounds():
    assert page_bounds(1, 25, 10) == (0, 10)
    assert page_bounds(2, 25, 10) == (10, 20)
    assert page_bounds(3, 25, 10) == (20, 25)
    assert page_bounds(1, 0, 10) == (0, 0)


def test_page_bounds_out_of_range():
    with pytest.raises(ValueError, match="page 4 out of range 1..3"):
        page_bounds(4, 25, 10)
    with pytest.raises(ValueError):
        page_bounds(0, 25, 10)


def test_paginate_middle_page():
    result = paginate(list("abcdefghij"), 2, 4)
    assert result == {
        "items": ["e", "f", "g", "h"],
        "page": 2,
        "pages": 3,
        "has_previous": True,
        "has_next": True,
        "first_index": 5,
        "last_index": 8,
    }


def test_paginate_first_and_last():
    first = paginate(list(range(7)), 1, 3)
    assert first["has_previous"] is False
    assert first["has_next"] is True
    assert first["first_index"] == 1
    last = paginate(list(range(7)), 3, 3)
    assert last["items"] == [6]
    assert last["has_next"] is False
    assert (last["first_index"], last["last_index"]) == (7, 7)


def test_paginate_empty():
    result = paginate([], 1, 5)
    assert result["items"] == []
    assert result["pages"] == 1
    assert (result["first_index"], result["last_index"]) == (0, 0)
    assert result["has_next"] is False


def test_page_window_middle():
    assert page_window(10, 20) == [1, None, 8, 9, 10, 11, 12, None, 20]
    assert page_window(10, 20, radius=1) == [1, None, 9, 10, 11, None, 20]


def test_page_window_near_edges():
    assert page_window(1, 20) == [1, 2, 3, None, 20]
    assert page_window(20, 20) == [1, None, 18, 19, 20]
    assert page_window(4, 20) == [1, 2, 3, 4, 5, 6, None, 20]
    assert page_window(5, 20) == [1, 2, 3, 4, 5, 6, 7, None, 20]
    assert page_window(6, 20) == [1, None, 4, 5, 6, 7, 8, None, 20]
    assert page_window(17, 20) == [1, None, 15, 16, 17, 18, 19, 20]
    assert page_window(16, 20) == [1, None, 14, 15, 16, 17, 18, 19, 20]
    assert page_window(15, 20) == [1, None, 13, 14, 15, 16, 17, None, 20]


def test_page_window_small_and_invalid():
    assert page_window(1, 1) == [1]
    assert page_window(2, 3) == [1, 2, 3]
    assert page_window(3, 5, radius=0) == [1, 2, 3, 4, 5]
    assert page_window(4, 7, radius=0) == [1, None, 4, None, 7]
    assert page_window(2, 4, radius=0) == [1, 2, 3, 4]
    with pytest.raises(ValueError):
        page_window(0, 5)
    with pytest.raises(ValueError):
        page_window(6, 5)


def test_page_of_item():
    assert page_of_item(0, 10) == 1
    assert page_of_item(9, 10) == 1
    assert page_of_item(10, 10) == 2
    assert page_of_item(25, 10) == 3
    with pytest.raises(ValueError):
        page_of_item(-1, 10)
