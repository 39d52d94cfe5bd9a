"""A small INI configuration parser.

Supports ``[section]`` headers, ``key = value`` and ``key: value`` pairs,
``;`` and ``#`` comments, indented continuation lines, and typed getters.
Keys are case-insensitive; section names are case-sensitive.
"""

TRUE_WORDS = {"1", "yes", "true", "on"}
FALSE_WORDS = {"0", "no", "false", "off"}


class IniError(ValueError):
    """Raised for malformed input, with the 1-based line number."""

    def __init__(self, message, line_number):
        super().__init__(f"line {line_number}: {message}")
        self.line_number = line_number


def parse_ini(text, default_section="DEFAULT"):
    """Parse INI text into a dict of sections, each a dict of key -> value.

    Keys that appear before any header go into ``default_section``.
    """
    sections = {}
    section = default_section
    last_key = None
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped[0] in ";#":
            continue
        if raw[0] in " \t" and last_key is not None:
            previous = sections[section][last_key]
            sections[section][last_key] = (previous + "\n" + stripped).strip()
            continue
        if stripped.startswith("["):
            if not stripped.endswith("]") or len(stripped) < 3:
                raise IniError(f"bad section header {stripped!r}", number)
            section = stripped[1:-1].strip()
            sections.setdefault(section, {})
            last_key = None
            continue
        positions = [p for p in (stripped.find("="), stripped.find(":")) if p != -1]
        if not positions:
            raise IniError(f"expected 'key = value', got {stripped!r}", number)
        split_at = min(positions)
        key = stripped[:split_at].strip().lower()
        if not key:
            raise IniError("empty key", number)
        sections.setdefault(section, {})[key] = stripped[split_at + 1:].strip()
        last_key = key
    return sections


def get_bool(sections, section, key, default=None):
    """Return a boolean option, accepting yes/no, true/false, on/off and 1/0."""
    value = sections.get(section, {}).get(key.lower())
    if value is None:
        return default
    word = value.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"not a boolean: {value!r}")


def get_int(sections, section, key, default=None):
    """Return an integer option, or default when the option is missing."""
    value = sections.get(section, {}).get(key.lower())
    if value is None:
        return default
    return int(value)


def get_list(sections, section, key, separator=","):
    """Return an option split on separator (and newlines), without empty items."""
    value = sections.get(section, {}).get(key.lower(), "")
    items = value.replace("\n", separator).split(separator)
    return [item.strip() for item in items if item.strip()]
