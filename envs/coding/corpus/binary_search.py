"""Binary search variants over sorted sequences and monotonic predicates."""


def lower_bound(items, target):
    """Return the first index i with items[i] >= target (len(items) if none)."""
    low, high = 0, len(items)
    while low < high:
        mid = (low + high) // 2
        if items[mid] < target:
            low = mid + 1
        else:
            high = mid
    return low


def upper_bound(items, target):
    """Return the first index i with items[i] > target (len(items) if none)."""
    low, high = 0, len(items)
    while low < high:
        mid = (low + high) // 2
        if items[mid] <= target:
            low = mid + 1
        else:
            high = mid
    return low


def index_of(items, target):
    """Return the index of the first occurrence of target, or -1."""
    position = lower_bound(items, target)
    if position < len(items) and items[position] == target:
        return position
    return -1


def count_in_range(items, low, high):
    """Return how many items lie in the closed range [low, high]."""
    if low > high:
        return 0
    return upper_bound(items, high) - lower_bound(items, low)


def first_true(low, high, predicate):
    """Return the smallest x in [low, high] with predicate(x) true, or None.

    The predicate must be monotonic: false up to some point, true after it.
    """
    answer = None
    while low <= high:
        mid = (low + high) // 2
        if predicate(mid):
            answer = mid
            high = mid - 1
        else:
            low = mid + 1
    return answer


def integer_sqrt(n):
    """Return the largest integer r with r * r <= n."""
    if n < 0:
        raise ValueError("square root of negative number")
    largest = first_true(0, n + 1, lambda r: r * r > n)
    return largest - 1


def closest_value(items, target):
    """Return the item closest to target; the smaller one on a tie."""
    if not items:
        raise ValueError("closest_value of empty sequence")
    position = lower_bound(items, target)
    if position == 0:
        return items[0]
    if position == len(items):
        return items[-1]
    before, after = items[position - 1], items[position]
    return before if target - before <= after - target else after
