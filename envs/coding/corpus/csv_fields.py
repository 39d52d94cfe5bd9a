"""Splitting and joining single CSV records.

Follows RFC 4180 quoting: fields containing the delimiter, a quote or a line
break are wrapped in double quotes, and quotes inside them are doubled.
"""


def split_record(line, delimiter=","):
    """Split one CSV line into a list of field strings."""
    fields = []
    field = []
    in_quotes = False
    index = 0
    while index < len(line):
        char = line[index]
        if in_quotes:
            if char == '"':
                if index + 1 < len(line) and line[index + 1] == '"':
                    field.append('"')
                    index += 1
                else:
                    in_quotes = False
            else:
                field.append(char)
        elif char == '"' and not field:
            in_quotes = True
        elif char == delimiter:
            fields.append("".join(field))
            field = []
        else:
            field.append(char)
        index += 1
    if in_quotes:
        raise ValueError("unterminated quoted field")
    fields.append("".join(field))
    return fields


def needs_quotes(field, delimiter=","):
    """Return True if a field must be quoted to survive a round trip."""
    return any(char in field for char in (delimiter, '"', "\n", "\r")) or field != field.strip()


def join_record(fields, delimiter=","):
    """Join values into one CSV line, quoting only where needed."""
    out = []
    for value in fields:
        text = "" if value is None else str(value)
        if needs_quotes(text, delimiter):
            text = '"' + text.replace('"', '""') + '"'
        out.append(text)
    return delimiter.join(out)


def parse_table(lines, delimiter=","):
    """Parse header + rows into a list of dicts keyed by the header names.

    Rows shorter than the header are padded with empty strings; longer rows
    raise ValueError naming the 1-based row number.
    """
    if not lines:
        return []
    header = split_record(lines[0], delimiter)
    records = []
    for number, line in enumerate(lines[1:], start=2):
        values = split_record(line, delimiter)
        if len(values) > len(header):
            raise ValueError(f"row {number} has {len(values)} fields, expected {len(header)}")
        values += [""] * (len(header) - len(values))
        records.append(dict(zip(header, values)))
    return records
