import pytest

from lru_cache import LRUCache

VISIBLE = ["test_put_and_get", "test_eviction_order", "test_get_refreshes_recency"]


def test_capacity_must_be_positive():
    with pytest.raises(ValueError):
        LRUCache(0)
    with pytest.raises(ValueError):
        LRUCache(-1)
    assert LRUCache(1).capacity == 1


def test_put_and_get():
    cache = LRUCache(2)
    assert cache.put("a", 1) is None
    assert cache.get("a") == 1
    assert cache.get("b") is None
    assert cache.get("b", 0) == 0
    assert len(cache) == 1


def test_eviction_order():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.put("c", 3) == "a"
    assert "a" not in cache
    assert cache.keys() == ["b", "c"]
    assert len(cache) == 2


def test_get_refreshes_recency():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    assert cache.put("c", 3) == "b"
    assert cache.keys() == ["a", "c"]


def test_update_existing_key_does_not_evict():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.put("a", 10) is None
    assert cache.keys() == ["b", "a"]
    assert cache.peek("a") == 10
    assert cache.put("c", 3) == "b"


def test_contains_and_peek_do_not_touch_recency():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert "a" in cache
    assert cache.peek("a") == 1
    assert cache.peek("zz", "none") == "none"
    assert cache.put("c", 3) == "a"
    assert cache.hits == 0 and cache.misses == 0


def test_statistics():
    cache = LRUCache(3)
    assert cache.hit_ratio() == 0.0
    cache.put(1, "x")
    cache.get(1)
    cache.get(1)
    cache.get(2)
    assert cache.hits == 2
    assert cache.misses == 1
    assert cache.hit_ratio() == pytest.approx(2 / 3)


def test_capacity_one():
    cache = LRUCache(1)
    cache.put("a", 1)
    assert cache.put("b", 2) == "a"
    assert cache.get("a") is None
    assert cache.get("b") == 2


def test_falsy_values_are_cached():
    cache = LRUCache(2)
    cache.put("zero", 0)
    assert cache.get("zero", "missing") == 0
    assert cache.hits == 1


def test_resize_shrinks():
    cache = LRUCache(4)
    for key in "abcd":
        cache.put(key, key.upper())
    cache.get("a")
    assert cache.resize(2) == ["b", "c"]
    assert cache.keys() == ["d", "a"]
    assert cache.capacity == 2
    assert cache.put("e", "E") == "d"


def test_resize_grow_and_invalid():
    cache = LRUCache(1)
    cache.put("a", 1)
    assert cache.resize(3) == []
    cache.put("b", 2)
    cache.put("c", 3)
    assert cache.keys() == ["a", "b", "c"]
    assert cache.resize(3) == []
    assert cache.resize(1) == ["a", "b"]
    with pytest.raises(ValueError):
        cache.resize(0)
