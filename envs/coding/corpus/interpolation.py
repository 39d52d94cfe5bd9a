"""Linear interpolation, clamping and piecewise-linear lookup tables.

Useful for easing animations, mapping sensor readings to physical units
and resampling series.
"""

from bisect import bisect_right


def clamp(value, low, high):
    """Limit value to the closed interval [low, high]."""
    if low > high:
        raise ValueError("low must not exceed high")
    return max(low, min(value, high))


def lerp(start, end, t):
    """Return the point a fraction t of the way from start to end."""
    return start + (end - start) * t


def inverse_lerp(start, end, value):
    """Return t such that lerp(start, end, t) == value."""
    if start == end:
        raise ValueError("start and end must differ")
    return (value - start) / (end - start)


def remap(value, in_low, in_high, out_low, out_high, clamped=False):
    """Map value from the input range onto the output range."""
    t = inverse_lerp(in_low, in_high, value)
    if clamped:
        t = clamp(t, 0.0, 1.0)
    return lerp(out_low, out_high, t)


def piecewise(points, x):
    """Evaluate the piecewise-linear function through sorted (x, y) points.

    Outside the covered range the first or last y value is returned.
    """
    if not points:
        raise ValueError("need at least one point")
    xs = [px for px, _ in points]
    if any(a >= b for a, b in zip(xs, xs[1:])):
        raise ValueError("x values must be strictly increasing")
    if x <= xs[0]:
        return points[0][1]
    if x >= xs[-1]:
        return points[-1][1]
    index = bisect_right(xs, x)
    (x0, y0), (x1, y1) = points[index - 1], points[index]
    return lerp(y0, y1, (x - x0) / (x1 - x0))


def resample(values, count):
    """Resample a series to count evenly spaced points by linear interpolation."""
    if count < 2 or len(values) < 2:
        raise ValueError("need at least two values and two output points")
    step = (len(values) - 1) / (count - 1)
    result = []
    for i in range(count):
        position = i * step
        left = min(int(position), len(values) - 2)
        result.append(lerp(values[left], values[left + 1], position - left))
    return result


def smoothstep(edge0, edge1, x):
    """Hermite smoothstep: 0 below edge0, 1 above edge1, smooth in between."""
    t = clamp((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3 - 2 * t)
