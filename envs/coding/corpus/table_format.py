"""Plain-text table rendering for command-line reports.

Columns are sized to their widest cell; numbers are right-aligned and text
is left-aligned unless an explicit alignment is given.
"""


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def format_cell(value, precision=2):
    """Return the text for one cell: floats get a fixed number of decimals, None is blank."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{precision}f}"
    return str(value)


def column_widths(rows):
    """Return the width of each column, the longest cell text in it."""
    widths = []
    for row in rows:
        for index, cell in enumerate(row):
            if index == len(widths):
                widths.append(0)
            widths[index] = max(widths[index], len(cell))
    return widths


def align(text, width, how):
    """Pad text to width: how is 'left', 'right' or 'center' (extra space goes right)."""
    if how == "left":
        return text.ljust(width)
    if how == "right":
        return text.rjust(width)
    if how == "center":
        padding = width - len(text)
        left = padding // 2
        return " " * left + text + " " * (padding - left)
    raise ValueError(f"unknown alignment {how!r}")


def render_table(headers, rows, alignments=None, precision=2):
    """Render headers and rows as an aligned table with a dashed rule under the header."""
    texts = [[format_cell(value, precision) for value in row] for row in rows]
    widths = column_widths([list(headers)] + texts)
    if alignments is None:
        alignments = []
        for index in range(len(headers)):
            numeric = bool(rows) and all(_is_number(row[index]) for row in rows if row[index] is not None)
            alignments.append("right" if numeric else "left")
    lines = [" | ".join(align(h, w, a) for h, w, a in zip(headers, widths, alignments))]
    lines.append("-+-".join("-" * w for w in widths))
    for row in texts:
        lines.append(" | ".join(align(c, w, a) for c, w, a in zip(row, widths, alignments)))
    return "\n".join(line.rstrip() for line in lines)


def totals_row(rows, label="Total"):
    """Return a row summing each numeric column; the first column holds the label."""
    if not rows:
        return [label]
    result = [label]
    for index in range(1, len(rows[0])):
        values = [row[index] for row in rows]
        if all(_is_number(value) for value in values):
            result.append(sum(values))
        else:
            result.append(None)
    return result
