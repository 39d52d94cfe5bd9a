"""Conversion between identifier naming styles.

Handles camelCase, PascalCase, snake_case, kebab-case and CONSTANT_CASE,
including acronyms such as "HTTPServer" and digits such as "utf8Codec".
"""


def split_words(identifier):
    """Split an identifier in any common style into lowercase words."""
    words = []
    current = ""
    for index, char in enumerate(identifier):
        if char in "_- .":
            if current:
                words.append(current)
            current = ""
            continue
        if current and char.isupper():
            prev = identifier[index - 1]
            nxt = identifier[index + 1] if index + 1 < len(identifier) else ""
            # Split "fooBar" and the end of an acronym in "HTTPServer".
            if prev.islower() or prev.isdigit() or (prev.isupper() and nxt.islower()):
                words.append(current)
                current = ""
        current += char
    if current:
        words.append(current)
    return [word.lower() for word in words]


def to_snake(identifier):
    """Return the snake_case form."""
    return "_".join(split_words(identifier))


def to_kebab(identifier):
    """Return the kebab-case form."""
    return "-".join(split_words(identifier))


def to_constant(identifier):
    """Return the CONSTANT_CASE form."""
    return "_".join(word.upper() for word in split_words(identifier))


def to_pascal(identifier):
    """Return the PascalCase form."""
    return "".join(word.capitalize() for word in split_words(identifier))


def to_camel(identifier):
    """Return the camelCase form."""
    words = split_words(identifier)
    if not words:
        return ""
    return words[0] + "".join(word.capitalize() for word in words[1:])


def detect_style(identifier):
    """Guess the naming style: 'snake', 'kebab', 'constant', 'camel', 'pascal' or 'unknown'."""
    if not identifier:
        return "unknown"
    if "_" in identifier and "-" not in identifier:
        if identifier.isupper():
            return "constant"
        if identifier.islower():
            return "snake"
        return "unknown"
    if "-" in identifier:
        return "kebab" if identifier.islower() and "_" not in identifier else "unknown"
    if identifier[0].isupper():
        return "pascal"
    return "camel"
