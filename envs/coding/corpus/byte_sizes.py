"""Human-readable byte sizes: formatting and parsing.

Supports both decimal (kB, MB, GB: powers of 1000) and binary
(KiB, MiB, GiB: powers of 1024) units.
"""

DECIMAL_UNITS = ["B", "kB", "MB", "GB", "TB", "PB"]
BINARY_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]

_MULTIPLIERS = {}
for _power, _unit in enumerate(DECIMAL_UNITS):
    _MULTIPLIERS[_unit.lower()] = 1000 ** _power
for _power, _unit in enumerate(BINARY_UNITS):
    _MULTIPLIERS[_unit.lower()] = 1024 ** _power
_MULTIPLIERS["k"] = 1000
_MULTIPLIERS["kb"] = 1000


def format_size(num_bytes, binary=False, precision=1):
    """Format a byte count, e.g. 1536 -> "1.5 kB" or "1.5 KiB" with binary=True.

    Values below 1 unit step are shown as whole bytes ("999 B").
    """
    if num_bytes < 0:
        return "-" + format_size(-num_bytes, binary, precision)
    base = 1024 if binary else 1000
    units = BINARY_UNITS if binary else DECIMAL_UNITS
    if num_bytes < base:
        return f"{num_bytes} B"
    value = float(num_bytes)
    index = 0
    while value >= base and index < len(units) - 1:
        value /= base
        index += 1
    return f"{value:.{precision}f} {units[index]}"


def parse_size(text):
    """Parse "1.5 MB", "2GiB", "512" or "10 k" into a whole number of bytes."""
    cleaned = text.strip()
    split_at = len(cleaned)
    while split_at > 0 and not cleaned[split_at - 1].isdigit():
        split_at -= 1
    number, unit = cleaned[:split_at].strip(), cleaned[split_at:].strip().lower()
    if not number:
        raise ValueError(f"no number in size {text!r}")
    if unit == "":
        unit = "b"
    if unit not in _MULTIPLIERS:
        raise ValueError(f"unknown size unit {unit!r}")
    return round(float(number) * _MULTIPLIERS[unit])


def fits(sizes, capacity):
    """Return how many of the given sizes fit, in order, into capacity bytes."""
    used = 0
    for count, size in enumerate(sizes):
        if used + size > capacity:
            return count
        used += size
    return len(sizes)
