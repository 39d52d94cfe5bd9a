"""Encoding and decoding of URL query strings (application/x-www-form-urlencoded).

Implemented by hand so that the exact escaping rules are visible: letters,
digits and ``-._~`` are kept, spaces become ``+``, everything else is
percent-encoded as UTF-8.
"""

SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
HEX = "0123456789ABCDEF"


def quote(text):
    """Percent-encode a string for use as a query key or value."""
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        if char in SAFE:
            out.append(char)
        elif char == " ":
            out.append("+")
        else:
            out.append("%" + HEX[byte >> 4] + HEX[byte & 0x0F])
    return "".join(out)


def unquote(text):
    """Decode percent escapes and '+' (as space) back into a string."""
    data = bytearray()
    index = 0
    while index < len(text):
        char = text[index]
        if char == "%":
            pair = text[index + 1:index + 3]
            if len(pair) != 2 or any(c not in "0123456789abcdefABCDEF" for c in pair):
                raise ValueError(f"bad percent escape at position {index}")
            data.append(int(pair, 16))
            index += 3
            continue
        data.extend(b" " if char == "+" else char.encode("utf-8"))
        index += 1
    return data.decode("utf-8")


def parse_query(query):
    """Parse a query string into a dict mapping each key to a list of values.

    A leading '?' is ignored, empty segments are skipped and a key without
    '=' gets the empty string as its value.
    """
    if query.startswith("?"):
        query = query[1:]
    result = {}
    for segment in query.split("&"):
        if not segment:
            continue
        key, _, value = segment.partition("=")
        result.setdefault(unquote(key), []).append(unquote(value))
    return result


def build_query(params):
    """Build a query string from a dict; list values repeat the key.

    Keys are emitted in sorted order so the output is canonical.
    """
    parts = []
    for key in sorted(params):
        values = params[key]
        if not isinstance(values, (list, tuple)):
            values = [values]
        for value in values:
            parts.append(quote(str(key)) + "=" + quote(str(value)))
    return "&".join(parts)


def first_value(query, key, default=None):
    """Return the first value for key in a query string, or default."""
    values = parse_query(query).get(key)
    return values[0] if values else default
