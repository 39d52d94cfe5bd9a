"""Operations on closed integer intervals given as (start, end) pairs.

Typical uses: merging booked time slots, finding free gaps in a calendar,
and measuring total coverage.
"""


def normalize(interval):
    """Return (start, end) with start <= end; raises ValueError otherwise."""
    start, end = interval
    if start > end:
        raise ValueError(f"interval start after end: {interval!r}")
    return start, end


def merge(intervals, touching=True):
    """Merge overlapping intervals and return them sorted.

    With touching=True, intervals that meet end-to-start with no integer
    in between, such as (1, 3) and (4, 6), are merged as well.
    """
    ordered = sorted(normalize(i) for i in intervals)
    merged = []
    gap = 1 if touching else 0
    for start, end in ordered:
        if merged and start <= merged[-1][1] + gap:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def total_length(intervals):
    """Return how many integers the union of the intervals covers."""
    return sum(end - start + 1 for start, end in merge(intervals))


def overlaps(a, b):
    """Return True if closed intervals a and b share at least one point."""
    return a[0] <= b[1] and b[0] <= a[1]


def intersection(a, b):
    """Return the common part of a and b, or None if they do not overlap."""
    if not overlaps(a, b):
        return None
    return max(a[0], b[0]), min(a[1], b[1])


def free_slots(busy, window):
    """Return the gaps inside window that no busy interval covers."""
    low, high = normalize(window)
    gaps = []
    cursor = low
    for start, end in merge(busy):
        if end < low or start > high:
            continue
        if start > cursor:
            gaps.append((cursor, start - 1))
        cursor = max(cursor, end + 1)
    if cursor <= high:
        gaps.append((cursor, high))
    return gaps


def insert(intervals, new):
    """Insert one interval into a merged list and return the merged result."""
    return merge(list(intervals) + [new])
