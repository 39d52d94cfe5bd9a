"""Descriptive statistics for small samples of numbers.

Plain-Python implementations of the usual summary measures, with the
conventions spelled out in each docstring.
"""


def mean(values):
    """Return the arithmetic mean; raises ValueError for an empty sample."""
    if not values:
        raise ValueError("mean of empty sample")
    return sum(values) / len(values)


def median(values):
    """Return the median; the mean of the two middle values for even sizes."""
    if not values:
        raise ValueError("median of empty sample")
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2 == 1:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def modes(values):
    """Return every most frequent value, in order of first appearance."""
    counts = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    if not counts:
        return []
    top = max(counts.values())
    return [value for value, count in counts.items() if count == top]


def variance(values, sample=True):
    """Return the variance; divides by n - 1 for a sample, n for a population."""
    n = len(values)
    if n < 2 if sample else n < 1:
        raise ValueError("not enough values for variance")
    centre = mean(values)
    squares = sum((value - centre) ** 2 for value in values)
    return squares / (n - 1 if sample else n)


def stdev(values, sample=True):
    """Return the standard deviation (square root of variance())."""
    return variance(values, sample) ** 0.5


def percentile(values, q):
    """Return the q-th percentile (0-100) using linear interpolation between
    closest ranks, like numpy's default method."""
    if not values:
        raise ValueError("percentile of empty sample")
    if not 0 <= q <= 100:
        raise ValueError("q must be between 0 and 100")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    lower = int(position)
    upper = min(lower + 1, len(ordered) - 1)
    fraction = position - lower
    return ordered[lower] + (ordered[upper] - ordered[lower]) * fraction


def value_range(values):
    """Return max - min of the sample."""
    if not values:
        raise ValueError("range of empty sample")
    return max(values) - min(values)


def zscores(values):
    """Return each value's distance from the mean in population standard deviations."""
    sigma = stdev(values, sample=False)
    if sigma == 0:
        return [0.0 for _ in values]
    centre = mean(values)
    return [(value - centre) / sigma for value in values]
