import pytest

from token_bucket import FixedWindowCounter, TokenBucket

VISIBLE = ["test_burst_then_refuse", "test_refill_over_time", "test_fixed_window_basic"]


def test_validation():
    for capacity, rate in [(0, 1), (1, 0), (-1, 1)]:
        with pytest.raises(ValueError):
            TokenBucket(capacity, rate)
    for limit, window in [(0, 1), (1, 0)]:
        with pytest.raises(ValueError):
            FixedWindowCounter(limit, window)
    assert FixedWindowCounter(1, 0.5).hit(0.6) is True
    assert TokenBucket(1, 0.5).available(0) == 1


def test_burst_then_refuse():
    bucket = TokenBucket(capacity=3, rate=1)
    assert [bucket.try_acquire(0) for _ in range(4)] == [True, True, True, False]
    assert bucket.available(0) == 0


def test_refill_over_time():
    bucket = TokenBucket(capacity=2, rate=0.5)
    bucket.try_acquire(0, cost=2)
    assert bucket.try_acquire(1) is False
    assert bucket.try_acquire(2) is True
    assert bucket.available(2) == 0
    assert bucket.available(5) == 1


def test_refill_caps_at_capacity():
    bucket = TokenBucket(capacity=5, rate=10)
    bucket.try_acquire(0, cost=5)
    assert bucket.available(100) == 5
    assert bucket.tokens == 5


def test_start_time():
    bucket = TokenBucket(capacity=1, rate=1, now=50.0)
    assert bucket.try_acquire(50.0) is True
    assert bucket.try_acquire(50.5) is False
    assert bucket.try_acquire(51.0) is True


def test_cost_larger_than_capacity():
    bucket = TokenBucket(capacity=3, rate=1)
    with pytest.raises(ValueError):
        bucket.try_acquire(0, cost=4)
    assert bucket.try_acquire(0, cost=3) is True


def test_time_going_backwards():
    bucket = TokenBucket(capacity=1, rate=1, now=10)
    with pytest.raises(ValueError):
        bucket.available(9)
    assert bucket.available(10) == 1


def test_wait_time():
    bucket = TokenBucket(capacity=4, rate=2)
    assert bucket.wait_time(0) == 0.0
    bucket.try_acquire(0, cost=4)
    assert bucket.wait_time(0) == 0.5
    assert bucket.wait_time(0, cost=3) == 1.5
    assert bucket.wait_time(0.25) == 0.25
    assert bucket.wait_time(0.5) == 0.0


def test_fixed_window_basic():
    counter = FixedWindowCounter(limit=2, window=10)
    assert counter.hit(0) is True
    assert counter.hit(3) is True
    assert counter.hit(9.9) is False
    assert counter.hit(10) is True


def test_fixed_window_remaining():
    counter = FixedWindowCounter(limit=3, window=60)
    assert counter.remaining(0) == 3
    counter.hit(1)
    assert counter.remaining(30) == 2
    counter.hit(2)
    counter.hit(3)
    counter.hit(4)
    assert counter.remaining(59) == 0
    assert counter.remaining(60) == 3


def test_fixed_window_alignment():
    counter = FixedWindowCounter(limit=1, window=5)
    assert counter.hit(4.9) is True
    assert counter.hit(5.0) is True
    assert counter.hit(9.99) is False
    assert counter.hit(20) is True
    assert counter.count == 1
