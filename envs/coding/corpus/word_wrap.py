"""Greedy word wrapping, justification and truncation for plain text."""


def wrap(text, width):
    """Split text into lines of at most ``width`` characters.

    Words are separated by any whitespace. A word longer than the width is
    broken into chunks of exactly ``width`` characters.
    """
    if width < 1:
        raise ValueError("width must be positive")
    lines = []
    current = ""
    for word in text.split():
        while len(word) > width:
            if current:
                lines.append(current)
                current = ""
            lines.append(word[:width])
            word = word[width:]
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current = current + " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines


def justify_line(line, width):
    """Pad a line to ``width`` by widening the gaps between words.

    Extra spaces go to the leftmost gaps first. A single word is left-aligned.
    """
    words = line.split()
    if len(words) == 1:
        return words[0].ljust(width)
    gaps = len(words) - 1
    spaces = width - sum(len(word) for word in words)
    base, extra = divmod(spaces, gaps)
    parts = []
    for index, word in enumerate(words[:-1]):
        parts.append(word)
        parts.append(" " * (base + (1 if index < extra else 0)))
    parts.append(words[-1])
    return "".join(parts)


def fill(text, width, justify=False):
    """Wrap text and join the lines; optionally justify all but the last line."""
    lines = wrap(text, width)
    if justify:
        lines = [justify_line(line, width) for line in lines[:-1]] + lines[-1:]
    return "\n".join(lines)


def truncate(text, limit, ellipsis="..."):
    """Shorten text to at most ``limit`` characters, cutting at a word boundary.

    The ellipsis counts towards the limit. Text that already fits is returned
    unchanged.
    """
    if len(text) <= limit:
        return text
    room = limit - len(ellipsis)
    if room <= 0:
        return ellipsis[:limit]
    cut = text[:room]
    space = cut.rfind(" ")
    if space > 0:
        cut = cut[:space]
    return cut.rstrip() + ellipsis


def indent(lines, prefix, first_prefix=None):
    """Prefix each line; the first line may get a different prefix (hanging indent)."""
    if first_prefix is None:
        first_prefix = prefix
    return [(first_prefix if i == 0 else prefix) + line for i, line in enumerate(lines)]
