"""A binary min-heap priority queue with stable ordering for equal priorities.

Entries are stored as [priority, sequence, item] lists in an array-backed
heap; the sequence number makes items with equal priority come out in
insertion order.
"""


class PriorityQueue:
    """Min-priority queue: pop() returns the item with the lowest priority value."""

    def __init__(self):
        self._heap = []
        self._counter = 0

    def __len__(self):
        return len(self._heap)

    def push(self, item, priority):
        """Add an item with the given priority."""
        self._heap.append([priority, self._counter, item])
        self._counter += 1
        self._sift_up(len(self._heap) - 1)

    def peek(self):
        """Return (item, priority) of the next entry without removing it."""
        if not self._heap:
            raise IndexError("peek from empty priority queue")
        priority, _, item = self._heap[0]
        return item, priority

    def pop(self):
        """Remove and return (item, priority) with the lowest priority."""
        if not self._heap:
            raise IndexError("pop from empty priority queue")
        last = self._heap.pop()
        if not self._heap:
            return last[2], last[0]
        top = self._heap[0]
        self._heap[0] = last
        self._sift_down(0)
        return top[2], top[0]

    def _less(self, i, j):
        return self._heap[i][:2] < self._heap[j][:2]

    def _sift_up(self, index):
        while index > 0:
            parent = (index - 1) // 2
            if not self._less(index, parent):
                break
            self._heap[index], self._heap[parent] = self._heap[parent], self._heap[index]
            index = parent

    def _sift_down(self, index):
        size = len(self._heap)
        while True:
            left = 2 * index + 1
            right = left + 1
            smallest = index
            if left < size and self._less(left, smallest):
                smallest = left
            if right < size and self._less(right, smallest):
                smallest = right
            if smallest == index:
                return
            self._heap[index], self._heap[smallest] = self._heap[smallest], self._heap[index]
            index = smallest


def k_smallest(values, k):
    """Return the k smallest values in ascending order using the queue."""
    queue = PriorityQueue()
    for value in values:
        queue.push(value, value)
    return [queue.pop()[0] for _ in range(min(k, len(queue)))]


def merge_sorted(lists):
    """Merge already-sorted lists into one sorted list."""
    queue = PriorityQueue()
    for index, values in enumerate(lists):
        if values:
            queue.push((index, 0), values[0])
    merged = []
    while queue:
        (index, position), value = queue.pop()
        merged.append(value)
        if position + 1 < len(lists[index]):
            queue.push((index, position + 1), lists[index][position + 1])
    return merged
