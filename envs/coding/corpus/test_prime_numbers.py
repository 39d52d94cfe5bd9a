import pytest

from prime_numbers import factorize, gcd, is_prime, next_prime, primes_up_to, totient

VISIBLE = ["test_is_prime_small", "test_primes_up_to", "test_factorize"]


def test_is_prime_small():
    assert [n for n in range(30) if is_prime(n)] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]


def test_is_prime_edge_values():
    assert is_prime(-7) is False
    assert is_prime(0) is False
    assert is_prime(1) is False
    assert is_prime(2) is True
    assert is_prime(3) is True
    assert is_prime(4) is False


def test_is_prime_squares_and_larger():
    assert is_prime(25) is False
    assert is_prime(49) is False
    assert is_prime(121) is False
    assert is_prime(169) is False
    assert is_prime(7919) is True
    assert is_prime(7917) is False
    assert is_prime(1_000_003) is True
    assert is_prime(35) is False


def test_primes_up_to():
    assert primes_up_to(1) == []
    assert primes_up_to(0) == []
    assert primes_up_to(-5) == []
    assert primes_up_to(2) == [2]
    assert primes_up_to(10) == [2, 3, 5, 7]
    assert primes_up_to(11) == [2, 3, 5, 7, 11]
    assert primes_up_to(49) == [n for n in range(50) if is_prime(n)]
    assert len(primes_up_to(1000)) == 168


def test_factorize():
    assert factorize(2) == [2]
    assert factorize(12) == [2, 2, 3]
    assert factorize(97) == [97]
    assert factorize(360) == [2, 2, 2, 3, 3, 5]
    assert factorize(9) == [3, 3]


def test_factorize_large_prime_factor():
    assert factorize(2 * 7919) == [2, 7919]
    assert factorize(49) == [7, 7]
    assert factorize(1001) == [7, 11, 13]
    assert factorize(15) == [3, 5]
    assert all(type(factor) is int for factor in factorize(4 * 7919))


def test_factorize_rejects_small():
    with pytest.raises(ValueError):
        factorize(1)
    with pytest.raises(ValueError):
        factorize(0)


def test_next_prime():
    assert next_prime(0) == 2
    assert next_prime(-10) == 2
    assert next_prime(2) == 3
    assert next_prime(13) == 17
    assert next_prime(14) == 17
    assert next_prime(1) == 2


def test_gcd():
    assert gcd(12, 18) == 6
    assert gcd(17, 5) == 1
    assert gcd(0, 9) == 9
    assert gcd(9, 0) == 9
    assert gcd(-12, 8) == 4
    assert gcd(0, 0) == 0


def test_totient():
    assert totient(1) == 1
    assert totient(2) == 1
    assert type(totient(36)) is int
    assert totient(9) == 6
    assert totient(10) == 4
    assert totient(13) == 12
    assert totient(36) == 12
    with pytest.raises(ValueError):
        totient(0)
