"""Conversion between integers and Roman numerals.

Only the standard subtractive notation is accepted (IV, IX, XL, XC, CD, CM),
covering the range 1 to 3999.
"""

NUMERALS = [
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
]

VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}

MIN_VALUE = 1
MAX_VALUE = 3999


def to_roman(number):
    """Return the Roman numeral for an integer between 1 and 3999."""
    if not isinstance(number, int) or isinstance(number, bool):
        raise TypeError("number must be an int")
    if number < MIN_VALUE or number > MAX_VALUE:
        raise ValueError(f"number out of range: {number}")
    parts = []
    remaining = number
    for value, symbol in NUMERALS:
        count, remaining = divmod(remaining, value)
        parts.append(symbol * count)
    return "".join(parts)


def from_roman(text):
    """Parse a Roman numeral (case-insensitive) and return its integer value.

    Non-canonical spellings such as "IIII" or "VX" are rejected by
    converting the result back and comparing.
    """
    numeral = text.strip().upper()
    if not numeral:
        raise ValueError("empty numeral")
    total = 0
    for index, char in enumerate(numeral):
        if char not in VALUES:
            raise ValueError(f"invalid character {char!r} in {text!r}")
        value = VALUES[char]
        if index + 1 < len(numeral) and VALUES.get(numeral[index + 1], 0) > value:
            total -= value
        else:
            total += value
    if total < MIN_VALUE or total > MAX_VALUE or to_roman(total) != numeral:
        raise ValueError(f"non-canonical numeral: {text!r}")
    return total


def is_roman(text):
    """Return True if text is a valid canonical Roman numeral."""
    try:
        from_roman(text)
    except ValueError:
        return False
    return True
