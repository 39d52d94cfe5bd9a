"""Token-bucket rate limiting with an explicit clock.

The caller passes the current time (in seconds) to every method, which
keeps the limiter deterministic and easy to test; in production that is
simply time.monotonic().
"""


class TokenBucket:
    """Allows bursts of up to ``capacity`` requests, refilled at ``rate`` tokens per second."""

    def __init__(self, capacity, rate, now=0.0):
        if capacity <= 0 or rate <= 0:
            raise ValueError("capacity and rate must be positive")
        self.capacity = capacity
        self.rate = rate
        self.tokens = float(capacity)
        self.updated = now

    def _refill(self, now):
        if now < self.updated:
            raise ValueError("time went backwards")
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now

    def available(self, now):
        """Return the whole number of tokens available at time now."""
        self._refill(now)
        return int(self.tokens)

    def try_acquire(self, now, cost=1):
        """Take cost tokens if available and return True; otherwise return False."""
        if cost > self.capacity:
            raise ValueError("cost exceeds bucket capacity")
        self._refill(now)
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    def wait_time(self, now, cost=1):
        """Return how many seconds until cost tokens will be available (0.0 if now)."""
        self._refill(now)
        missing = cost - self.tokens
        if missing <= 0:
            return 0.0
        return missing / self.rate


class FixedWindowCounter:
    """Allows at most ``limit`` events per window of ``window`` seconds, aligned to multiples of window."""

    def __init__(self, limit, window):
        if limit <= 0 or window <= 0:
            raise ValueError("limit and window must be positive")
        self.limit = limit
        self.window = window
        self.current_window = None
        self.count = 0

    def hit(self, now):
        """Record an event at time now; return True if it is within the limit."""
        window_index = int(now // self.window)
        if window_index != self.current_window:
            self.current_window = window_index
            self.count = 0
        if self.count >= self.limit:
            return False
        self.count += 1
        return True

    def remaining(self, now):
        """Return how many more events the window containing now accepts."""
        if int(now // self.window) != self.current_window:
            return self.limit
        return self.limit - self.count
