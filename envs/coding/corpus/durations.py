"""Parsing and formatting of human-friendly time durations such as "1h30m" or "2d 4h".

Durations are handled as whole seconds.
"""

UNITS = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}
ORDER = ["w", "d", "h", "m", "s"]


def parse_duration(text):
    """Parse "1h30m", "90s", "2d 4h" or "1w" into seconds.

    Units must appear in decreasing order and at most once. A bare number
    is read as seconds.
    """
    compact = text.replace(" ", "").lower()
    if not compact:
        raise ValueError("empty duration")
    if compact.isdigit():
        return int(compact)
    total = 0
    number = ""
    last_rank = -1
    for char in compact:
        if char.isdigit():
            number += char
            continue
        if char not in UNITS or not number:
            raise ValueError(f"invalid duration: {text!r}")
        rank = ORDER.index(char)
        if rank <= last_rank:
            raise ValueError(f"units out of order in {text!r}")
        total += int(number) * UNITS[char]
        number = ""
        last_rank = rank
    if number:
        raise ValueError(f"missing unit at end of {text!r}")
    return total


def format_duration(seconds, max_units=None):
    """Format seconds as "1h 30m"; zero is "0s".

    With max_units, only the largest non-zero units are kept and the rest is
    dropped (truncated, not rounded).
    """
    if seconds < 0:
        raise ValueError("duration cannot be negative")
    if seconds == 0:
        return "0s"
    parts = []
    remaining = seconds
    for unit in ORDER:
        amount, remaining = divmod(remaining, UNITS[unit])
        if amount:
            parts.append(f"{amount}{unit}")
    if max_units is not None:
        parts = parts[:max_units]
    return " ".join(parts)


def format_clock(seconds):
    """Format seconds as H:MM:SS, or M:SS when under an hour."""
    if seconds < 0:
        return "-" + format_clock(-seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def parse_clock(text):
    """Parse "H:MM:SS" or "M:SS" into seconds; minutes and seconds must be < 60."""
    pieces = [int(piece) for piece in text.split(":")]
    if len(pieces) == 2:
        pieces.insert(0, 0)
    if len(pieces) != 3:
        raise ValueError(f"expected M:SS or H:MM:SS, got {text!r}")
    hours, minutes, secs = pieces
    if minutes >= 60 or secs >= 60 or min(pieces) < 0:
        raise ValueError(f"clock field out of range in {text!r}")
    return hours * 3600 + minutes * 60 + secs
