"""A minimal text template engine for notification e-mails and reports.

Syntax: ``{{ name }}`` inserts a value, ``{{ user.email }}`` follows dict
keys, ``{{ name | upper }}`` applies a filter, ``{{ name ? "fallback" }}``
gives a default when the value is missing or empty. Use ``\\{{`` for a
literal ``{{``.
"""

FILTERS = {
    "upper": str.upper,
    "lower": str.lower,
    "title": str.title,
    "strip": str.strip,
}


class TemplateError(KeyError):
    """Raised for unknown variables or filters and for unclosed tags."""


def lookup(context, path):
    """Resolve a dotted path such as 'user.name' in nested dicts."""
    value = context
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            raise TemplateError(f"unknown variable {path!r}")
        value = value[part]
    return value


def _evaluate(expression, context):
    default = None
    if "?" in expression:
        expression, _, fallback = expression.partition("?")
        default = fallback.strip().strip('"')
    name, *filters = [piece.strip() for piece in expression.split("|")]
    try:
        value = lookup(context, name)
    except TemplateError:
        if default is None:
            raise
        value = ""
    text = "" if value is None else str(value)
    if text == "" and default is not None:
        return default
    for filter_name in filters:
        if filter_name not in FILTERS:
            raise TemplateError(f"unknown filter {filter_name!r}")
        text = FILTERS[filter_name](text)
    return text


def render(template, context):
    """Render template with values from the context dict."""
    out = []
    index = 0
    while index < len(template):
        if template.startswith("\\{{", index):
            out.append("{{")
            index += 3
            continue
        if template.startswith("{{", index):
            end = template.find("}}", index + 2)
            if end == -1:
                raise TemplateError(f"unclosed tag at position {index}")
            out.append(_evaluate(template[index + 2:end].strip(), context))
            index = end + 2
            continue
        out.append(template[index])
        index += 1
    return "".join(out)


def variables(template):
    """Return the sorted variable names used by a template (without filters)."""
    names = set()
    start = template.find("{{")
    while start != -1:
        end = template.find("}}", start)
        if end == -1:
            break
        if start == 0 or template[start - 1] != "\\":
            expression = template[start + 2:end].partition("?")[0]
            names.add(expression.split("|")[0].strip())
        start = template.find("{{", end + 2)
    return sorted(names)
