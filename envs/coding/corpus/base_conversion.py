"""Integer conversion to and from arbitrary bases (2-36), plus helpers for
binary strings and compact identifiers (base62 short codes)."""

DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def to_base(number, base):
    """Return the representation of an integer in base 2..36, lowercase digits."""
    if not 2 <= base <= 36:
        raise ValueError("base must be between 2 and 36")
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    number = abs(number)
    digits = []
    while number:
        number, remainder = divmod(number, base)
        digits.append(DIGITS[remainder])
    return sign + "".join(reversed(digits))


def from_base(text, base):
    """Parse a string in base 2..36 (case-insensitive, optional leading '-')."""
    if not 2 <= base <= 36:
        raise ValueError("base must be between 2 and 36")
    text = text.strip().lower()
    negative = text.startswith("-")
    if negative:
        text = text[1:]
    if not text:
        raise ValueError("no digits")
    value = 0
    for char in text:
        digit = DIGITS.find(char)
        if digit == -1 or digit >= base:
            raise ValueError(f"invalid digit {char!r} for base {base}")
        value = value * base + digit
    return -value if negative else value


def encode_base62(number):
    """Encode a non-negative integer as a base62 short code."""
    if number < 0:
        raise ValueError("base62 codes are for non-negative numbers")
    if number == 0:
        return BASE62[0]
    chars = []
    while number > 0:
        number, remainder = divmod(number, 62)
        chars.append(BASE62[remainder])
    return "".join(reversed(chars))


def decode_base62(code):
    """Decode a base62 short code (case-sensitive)."""
    if not code:
        raise ValueError("empty code")
    value = 0
    for char in code:
        index = BASE62.find(char)
        if index < 0:
            raise ValueError(f"invalid base62 character {char!r}")
        value = value * 62 + index
    return value


def bit_count(number):
    """Return the number of 1 bits in a non-negative integer."""
    if number < 0:
        raise ValueError("bit_count needs a non-negative integer")
    count = 0
    while number:
        number &= number - 1
        count += 1
    return count


def to_binary(number, width):
    """Return number as a zero-padded binary string of exactly width bits."""
    if number < 0 or number >= 1 << width:
        raise ValueError(f"{number} does not fit in {width} bits")
    return to_base(number, 2).rjust(width, "0")
