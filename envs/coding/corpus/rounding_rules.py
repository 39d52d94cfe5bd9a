"""Rounding helpers for money and measurements.

Python's round() uses banker's rounding on binary floats, which surprises
people; these functions work on Decimal values so that 2.675 really is
2.675 and the rounding rule is explicit.
"""

from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal


def to_decimal(value):
    """Convert an int, float or string to Decimal via its shortest repr."""
    if isinstance(value, Decimal):
        return value
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def round_half_up(value, places=0):
    """Round to places decimals, with ties going away from zero."""
    quantum = Decimal(1).scaleb(-places)
    return to_decimal(value).quantize(quantum, rounding=ROUND_HALF_UP)


def round_half_even(value, places=0):
    """Round to places decimals, with ties going to the even neighbour."""
    quantum = Decimal(1).scaleb(-places)
    return to_decimal(value).quantize(quantum, rounding=ROUND_HALF_EVEN)


def round_to_step(value, step):
    """Round to the nearest multiple of step (ties away from zero), e.g. 0.05 for cash."""
    step = to_decimal(step)
    if step <= 0:
        raise ValueError("step must be positive")
    units = (to_decimal(value) / step).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return units * step


def round_significant(value, digits):
    """Round to the given number of significant digits (ties away from zero)."""
    if digits < 1:
        raise ValueError("digits must be at least 1")
    number = to_decimal(value)
    if number == 0:
        return Decimal(0)
    exponent = number.adjusted()
    return round_half_up(number, digits - 1 - exponent)


def split_amount(total, parts, places=2):
    """Split a total into parts that differ by at most one smallest unit and sum exactly.

    The remainder units go to the first parts.
    """
    if parts < 1:
        raise ValueError("parts must be at least 1")
    unit = Decimal(1).scaleb(-places)
    cents = int(round_half_up(total, places) / unit)
    base, remainder = divmod(cents, parts)
    return [(base + (1 if i < remainder else 0)) * unit for i in range(parts)]
