"""Run-length encoding of strings and sequences.

The text format writes each run as its count followed by the character,
omitting the count for runs of length one: "aaabcc" -> "3ab2c".
"""


def runs(sequence):
    """Group a sequence into a list of (item, count) runs."""
    result = []
    for item in sequence:
        if result and result[-1][0] == item:
            result[-1] = (item, result[-1][1] + 1)
        else:
            result.append((item, 1))
    return result


def expand(pairs):
    """Inverse of runs(): return the list of items described by (item, count) pairs."""
    items = []
    for item, count in pairs:
        if count < 0:
            raise ValueError(f"negative run length for {item!r}")
        items.extend([item] * count)
    return items


def encode(text):
    """Encode text using the compact count-then-character format."""
    if any(char.isdigit() for char in text):
        raise ValueError("cannot encode text that contains digits")
    parts = []
    for char, count in runs(text):
        parts.append(char if count == 1 else f"{count}{char}")
    return "".join(parts)


def decode(encoded):
    """Decode the count-then-character format produced by encode()."""
    result = []
    count = ""
    for char in encoded:
        if char.isdigit():
            count += char
            continue
        result.append(char * (int(count) if count else 1))
        count = ""
    if count:
        raise ValueError("encoded text ends with a dangling count")
    return "".join(result)


def compression_ratio(text):
    """Return len(encoded) / len(text); 1.0 for empty text."""
    if not text:
        return 1.0
    return len(encode(text)) / len(text)


def longest_run(sequence):
    """Return (item, count) of the first longest run, or (None, 0) if empty."""
    best = (None, 0)
    for item, count in runs(sequence):
        if count > best[1]:
            best = (item, count)
    return best
