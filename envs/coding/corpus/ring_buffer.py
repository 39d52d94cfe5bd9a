"""A fixed-capacity ring buffer (circular queue).

When the buffer is full, appending overwrites the oldest item, which makes it
suitable for keeping the last N samples of a stream.
"""


class RingBuffer:
    """Circular buffer holding at most ``capacity`` items, oldest first."""

    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._items = [None] * capacity
        self._capacity = capacity
        self._start = 0
        self._size = 0

    @property
    def capacity(self):
        """Maximum number of items kept."""
        return self._capacity

    def __len__(self):
        return self._size

    def is_full(self):
        """Return True when the next append will overwrite the oldest item."""
        return self._size == self._capacity

    def append(self, item):
        """Add an item at the end, dropping the oldest one if the buffer is full.

        Returns the dropped item, or None if nothing was dropped.
        """
        end = (self._start + self._size) % self._capacity
        dropped = None
        if self.is_full():
            dropped = self._items[self._start]
            self._start = (self._start + 1) % self._capacity
        else:
            self._size += 1
        self._items[end] = item
        return dropped

    def pop_oldest(self):
        """Remove and return the oldest item."""
        if self._size == 0:
            raise IndexError("pop from empty ring buffer")
        item = self._items[self._start]
        self._items[self._start] = None
        self._start = (self._start + 1) % self._capacity
        self._size -= 1
        return item

    def __getitem__(self, index):
        """Index items from oldest (0) to newest (-1)."""
        if index < 0:
            index += self._size
        if index < 0 or index >= self._size:
            raise IndexError("ring buffer index out of range")
        return self._items[(self._start + index) % self._capacity]

    def to_list(self):
        """Return the items as a list, oldest first."""
        return [self[i] for i in range(self._size)]

    def latest(self, count):
        """Return up to ``count`` newest items, oldest of them first."""
        if count <= 0:
            return []
        return self.to_list()[-count:]

    def clear(self):
        """Remove every item."""
        self._items = [None] * self._capacity
        self._start = 0
        self._size = 0
