"""Parsing, comparison and bumping of semantic version strings (semver 2.0).

Versions look like ``MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]``. Build metadata
is kept but ignored for precedence, as the specification requires.
"""

import re

_VERSION_RE = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$"
)


def parse_version(text):
    """Parse a version string into (major, minor, patch, prerelease, build).

    prerelease and build are tuples of identifiers (possibly empty).
    """
    match = _VERSION_RE.match(text.strip().lstrip("v"))
    if match is None:
        raise ValueError(f"invalid semantic version: {text!r}")
    major, minor, patch = (int(match.group(i)) for i in (1, 2, 3))
    prerelease = tuple(match.group(4).split(".")) if match.group(4) else ()
    build = tuple(match.group(5).split(".")) if match.group(5) else ()
    return major, minor, patch, prerelease, build


def _identifier_key(identifier):
    # Numeric identifiers sort before alphanumeric ones and compare as numbers.
    if identifier.isdigit():
        return (0, int(identifier), "")
    return (1, 0, identifier)


def precedence_key(text):
    """Return a sort key implementing semver precedence for a version string."""
    major, minor, patch, prerelease, _build = parse_version(text)
    if not prerelease:
        # A release sorts after all of its pre-releases.
        return (major, minor, patch, 1, ())
    return (major, minor, patch, 0, tuple(_identifier_key(p) for p in prerelease))


def compare_versions(left, right):
    """Return -1, 0 or 1 as left is lower than, equal to or higher than right."""
    a, b = precedence_key(left), precedence_key(right)
    if a < b:
        return -1
    if a > b:
        return 1
    return 0


def bump(text, part):
    """Return the next version after bumping 'major', 'minor' or 'patch'.

    Bumping drops pre-release and build data; bumping a pre-release patch
    version just releases it (1.2.3-rc.1 -> 1.2.3).
    """
    major, minor, patch, prerelease, _build = parse_version(text)
    if part == "major":
        return f"{major + 1}.0.0"
    if part == "minor":
        return f"{major}.{minor + 1}.0"
    if part == "patch":
        if prerelease:
            return f"{major}.{minor}.{patch}"
        return f"{major}.{minor}.{patch + 1}"
    raise ValueError(f"unknown version part: {part!r}")


def satisfies_caret(version, base):
    """Return True if version matches the caret range ``^base`` (npm style).

    ^1.2.3 allows >=1.2.3 <2.0.0; ^0.2.3 allows >=0.2.3 <0.3.0;
    ^0.0.3 allows only 0.0.3.
    """
    if compare_versions(version, base) < 0:
        return False
    v_major, v_minor, v_patch, _, _ = parse_version(version)
    b_major, b_minor, b_patch, _, _ = parse_version(base)
    if b_major > 0:
        return v_major == b_major
    if b_minor > 0:
        return v_major == 0 and v_minor == b_minor
    return (v_major, v_minor, v_patch) == (0, 0, b_patch)
