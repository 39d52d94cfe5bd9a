"""Parser for .env files as used by twelve-factor applications.

Supports ``KEY=value`` lines, an optional ``export`` prefix, single quotes
(literal), double quotes (with \\n, \\t, \\" and \\\\ escapes), inline
comments after unquoted values, and ``${VAR}`` expansion from earlier keys.
"""

import re

_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_EXPAND_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unescape(text):
    out = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and text[index + 1] in _ESCAPES:
            out.append(_ESCAPES[text[index + 1]])
            index += 2
        else:
            out.append(char)
            index += 1
    return "".join(out)


def parse_value(raw, known):
    """Turn the text after '=' into the final value, expanding ${VAR} from known."""
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1]
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        value = _unescape(raw[1:-1])
    else:
        hash_at = raw.find(" #")
        value = raw[:hash_at].rstrip() if hash_at != -1 else raw
    return _EXPAND_RE.sub(lambda m: known.get(m.group(1), ""), value)


def parse_dotenv(text):
    """Parse .env text into an ordered dict of key -> value.

    Blank lines and lines starting with '#' are skipped; a bad line raises
    ValueError naming its 1-based line number.
    """
    result = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("export "):
            stripped = stripped[len("export "):].lstrip()
        key, sep, raw = stripped.partition("=")
        key = key.strip()
        if not sep or not _KEY_RE.match(key):
            raise ValueError(f"line {number}: expected KEY=value")
        result[key] = parse_value(raw, result)
    return result


def dump_dotenv(values):
    """Serialise a dict back to .env text, quoting values that need it."""
    lines = []
    for key, value in values.items():
        if value == "" or any(char in value for char in ' #"\'\n\t\\$'):
            escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
            value = f'"{escaped}"'
        lines.append(f"{key}={value}")
    return "\n".join(lines)
