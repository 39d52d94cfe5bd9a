"""Parsing HTTP header blocks and common header values.

Header names are case-insensitive; repeated headers are kept in order.
Also handles parameterised values (``text/html; charset=utf-8``) and
content negotiation by Accept quality values.
"""


def parse_headers(block):
    """Parse 'Name: value' lines into a list of (lowercase name, value) pairs.

    Lines starting with whitespace continue the previous header (obsolete
    folding); a line without a colon raises ValueError.
    """
    headers = []
    for line in block.splitlines():
        if not line.strip():
            continue
        if line[0] in " \t":
            if not headers:
                raise ValueError("continuation line before any header")
            name, value = headers[-1]
            headers[-1] = (name, value + " " + line.strip())
            continue
        name, sep, value = line.partition(":")
        if not sep or not name.strip() or name != name.strip():
            raise ValueError(f"malformed header line: {line!r}")
        headers.append((name.lower(), value.strip()))
    return headers


def get_header(headers, name, default=None):
    """Return all values of a header joined by ', ' (RFC 9110 list combining)."""
    values = [value for key, value in headers if key == name.lower()]
    return ", ".join(values) if values else default


def parse_parameters(value):
    """Split 'main; key=value; key2="quoted"' into (main, {key: value}).

    Parameter names are lowercased; surrounding double quotes are removed.
    """
    main, *params = [piece.strip() for piece in value.split(";")]
    result = {}
    for param in params:
        if not param:
            continue
        key, _, val = param.partition("=")
        val = val.strip()
        if len(val) >= 2 and val[0] == val[-1] == '"':
            val = val[1:-1]
        result[key.strip().lower()] = val
    return main.lower(), result


def parse_accept(value):
    """Return media ranges from an Accept header, best first.

    Order: higher q first; on equal q, more specific ranges first
    (type/subtype, then type/*, then */*); then original order.
    Entries with q=0 are dropped.
    """
    entries = []
    for index, item in enumerate(value.split(",")):
        if not item.strip():
            continue
        media, params = parse_parameters(item)
        try:
            quality = float(params.get("q", "1"))
        except ValueError:
            quality = 0.0
        if quality <= 0:
            continue
        specificity = 0 if media == "*/*" else 1 if media.endswith("/*") else 2
        entries.append((-quality, -specificity, index, media))
    return [media for *_, media in sorted(entries)]


def negotiate(accept, available):
    """Return the first available media type matched by the best Accept range, or None."""
    for media_range in parse_accept(accept):
        kind, _, subtype = media_range.partition("/")
        for offer in available:
            offer_kind, _, offer_subtype = offer.partition("/")
            if kind == "*" or (kind == offer_kind and subtype in ("*", offer_subtype)):
                return offer
    return None
