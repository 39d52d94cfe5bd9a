"""Check-digit algorithms for identifiers: Luhn, ISBN-10, ISBN-13 and EAN-8.

All functions accept strings that may contain spaces or hyphens as visual
separators; these are removed before validation.
"""


def _clean(code):
    """Strip spaces and hyphens from an identifier."""
    return code.replace(" ", "").replace("-", "")


def luhn_checksum(digits):
    """Return the Luhn checksum (0-9) of a string of digits.

    The checksum of a valid number including its check digit is 0.
    """
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10


def luhn_valid(number):
    """Return True if a card-like number passes the Luhn check."""
    digits = _clean(number)
    if len(digits) < 2 or not digits.isdigit():
        return False
    return luhn_checksum(digits) == 0


def luhn_check_digit(partial):
    """Return the digit that must be appended to partial to make it Luhn-valid."""
    digits = _clean(partial)
    return (10 - luhn_checksum(digits + "0")) % 10


def isbn10_valid(isbn):
    """Validate an ISBN-10; the final character may be 'X' (value 10)."""
    code = _clean(isbn).upper()
    if len(code) != 10 or not code[:9].isdigit():
        return False
    if code[9] == "X":
        last = 10
    elif code[9].isdigit():
        last = int(code[9])
    else:
        return False
    total = sum((10 - i) * int(char) for i, char in enumerate(code[:9])) + last
    return total % 11 == 0


def gtin_check_digit(body):
    """Return the GTIN (EAN/ISBN-13) check digit for the digits before it.

    Weights alternate 3 and 1 starting from the rightmost digit of the body.
    """
    total = 0
    for position, char in enumerate(reversed(body)):
        weight = 3 if position % 2 == 0 else 1
        total += weight * int(char)
    return (10 - total % 10) % 10


def isbn13_valid(isbn):
    """Validate an ISBN-13 (which must start with 978 or 979)."""
    code = _clean(isbn)
    if len(code) != 13 or not code.isdigit():
        return False
    if code[:3] not in ("978", "979"):
        return False
    return gtin_check_digit(code[:-1]) == int(code[-1])


def ean8_valid(code):
    """Validate an EAN-8 barcode number."""
    digits = _clean(code)
    if len(digits) != 8 or not digits.isdigit():
        return False
    return gtin_check_digit(digits[:7]) == int(digits[7])


def isbn10_to_isbn13(isbn):
    """Convert a valid ISBN-10 to its ISBN-13 form (978 prefix)."""
    if not isbn10_valid(isbn):
        raise ValueError(f"invalid ISBN-10: {isbn!r}")
    body = "978" + _clean(isbn)[:9]
    return body + str(gtin_check_digit(body))
