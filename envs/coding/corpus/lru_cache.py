"""A least-recently-used cache with hit/miss statistics.

Built on a dict, whose insertion order serves as the recency order:
reading or writing a key moves it to the end, and eviction removes the
first key.
"""


class LRUCache:
    """Mapping that keeps at most ``capacity`` entries, evicting the least recently used."""

    def __init__(self, capacity):
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self.capacity = capacity
        self._data = {}
        self.hits = 0
        self.misses = 0

    def __len__(self):
        return len(self._data)

    def __contains__(self, key):
        # Membership tests do not count as a use.
        return key in self._data

    def get(self, key, default=None):
        """Return the cached value and mark it as most recently used."""
        if key not in self._data:
            self.misses += 1
            return default
        self.hits += 1
        value = self._data.pop(key)
        self._data[key] = value
        return value

    def put(self, key, value):
        """Insert or update a value; returns the evicted key, or None."""
        if key in self._data:
            self._data.pop(key)
        elif len(self._data) >= self.capacity:
            oldest = next(iter(self._data))
            del self._data[oldest]
            self._data[key] = value
            return oldest
        self._data[key] = value
        return None

    def peek(self, key, default=None):
        """Return a value without changing recency or statistics."""
        return self._data.get(key, default)

    def keys(self):
        """Return keys from least to most recently used."""
        return list(self._data)

    def hit_ratio(self):
        """Return hits / (hits + misses), or 0.0 before any lookup."""
        lookups = self.hits + self.misses
        if lookups == 0:
            return 0.0
        return self.hits / lookups

    def resize(self, capacity):
        """Change the capacity, evicting least recently used entries if needed.

        Returns the list of evicted keys, oldest first.
        """
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self.capacity = capacity
        evicted = []
        while len(self._data) > capacity:
            oldest = next(iter(self._data))
            del self._data[oldest]
            evicted.append(oldest)
        return evicted
