"""Prime numbers: primality tests, sieving and factorisation for modest integers."""


def is_prime(n):
    """Return True if n is prime, by trial division with the 6k +/- 1 pattern."""
    if n < 2:
        return False
    if n < 4:
        return True
    if n % 2 == 0 or n % 3 == 0:
        return False
    candidate = 5
    while candidate * candidate <= n:
        if n % candidate == 0 or n % (candidate + 2) == 0:
            return False
        candidate += 6
    return True


def primes_up_to(limit):
    """Return all primes <= limit using the sieve of Eratosthenes."""
    if limit < 2:
        return []
    sieve = [True] * (limit + 1)
    sieve[0] = sieve[1] = False
    for n in range(2, int(limit ** 0.5) + 1):
        if sieve[n]:
            for multiple in range(n * n, limit + 1, n):
                sieve[multiple] = False
    return [n for n, flag in enumerate(sieve) if flag]


def factorize(n):
    """Return the prime factors of n >= 2 in ascending order, with repetition."""
    if n < 2:
        raise ValueError("factorize needs an integer >= 2")
    factors = []
    divisor = 2
    while divisor * divisor <= n:
        while n % divisor == 0:
            factors.append(divisor)
            n //= divisor
        divisor += 1 if divisor == 2 else 2
    if n > 1:
        factors.append(n)
    return factors


def next_prime(n):
    """Return the smallest prime strictly greater than n."""
    candidate = max(n + 1, 2)
    while not is_prime(candidate):
        candidate += 1
    return candidate


def gcd(a, b):
    """Return the greatest common divisor of a and b (always >= 0)."""
    a, b = abs(a), abs(b)
    while b:
        a, b = b, a % b
    return a


def totient(n):
    """Return Euler's totient: how many integers in 1..n are coprime with n."""
    if n < 1:
        raise ValueError("totient needs a positive integer")
    result = n
    for p in set(factorize(n)) if n > 1 else ():
        result -= result // p
    return result
