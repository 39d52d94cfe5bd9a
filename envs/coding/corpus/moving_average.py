"""Moving averages and smoothing for time series given as lists of numbers."""


def simple_moving_average(values, window):
    """Return the mean of each full window; the result has len(values) - window + 1 items."""
    if window < 1:
        raise ValueError("window must be at least 1")
    if window > len(values):
        return []
    total = sum(values[:window])
    averages = [total / window]
    for index in range(window, len(values)):
        total += values[index] - values[index - window]
        averages.append(total / window)
    return averages


def exponential_moving_average(values, alpha):
    """Return the EMA series, seeded with the first value.

    alpha in (0, 1] is the weight of the newest value.
    """
    if not 0 < alpha <= 1:
        raise ValueError("alpha must be in (0, 1]")
    result = []
    for value in values:
        if not result:
            result.append(float(value))
        else:
            result.append(alpha * value + (1 - alpha) * result[-1])
    return result


def weighted_moving_average(values, window):
    """Return linearly weighted averages: the newest value in a window weighs most."""
    if window < 1:
        raise ValueError("window must be at least 1")
    denominator = window * (window + 1) / 2
    averages = []
    for end in range(window, len(values) + 1):
        chunk = values[end - window:end]
        averages.append(sum((i + 1) * v for i, v in enumerate(chunk)) / denominator)
    return averages


def cumulative_average(values):
    """Return the running mean after each value."""
    averages = []
    total = 0
    for count, value in enumerate(values, start=1):
        total += value
        averages.append(total / count)
    return averages


def crossovers(fast, slow):
    """Return (index, 'up' | 'down') where the fast series crosses the slow one.

    The series are aligned at their ends, as produced by moving averages of
    different windows over the same data.
    """
    offset = len(fast) - len(slow)
    if offset < 0:
        raise ValueError("fast series must not be shorter than the slow one")
    signals = []
    for i in range(1, len(slow)):
        before = fast[i - 1 + offset] - slow[i - 1]
        after = fast[i + offset] - slow[i]
        if before <= 0 < after:
            signals.append((i, "up"))
        elif before >= 0 > after:
            signals.append((i, "down"))
    return signals
